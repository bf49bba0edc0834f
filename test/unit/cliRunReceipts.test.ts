/**
 * Receipts and budgets through `ralph-workbench run` in this process: the pretend agent
 * (test/fixtures/fake-agent.mjs) prints real agent output (test/fixtures/agent-output) as the
 * real agent would, and each runs.jsonl line gets what it cost; the budget caps stop the loop.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runRun } from '../../src/cli/commands/run';
import { parseRuns, type RunRecord } from '../../src/core/runs/runs';
import { capture } from './cliCapture';
import { makePrd } from './helpers';
import { cleanRepos, makeRepo } from './parallelRepo';

const FAKE = path.resolve(__dirname, '../fixtures/fake-agent.mjs');
const OUTPUT = path.resolve(__dirname, '../fixtures/agent-output');
/** The pretend agent as a custom command, printing a real agent's output file (or nothing). */
const agent = (receipt?: string): string => `${receipt ? `FAKE_AGENT_RECEIPT=${JSON.stringify(path.join(OUTPUT, receipt))} ` : ''}FAKE_AGENT_MODE=pass node ${JSON.stringify(FAKE)} "\${promptFile}"`;
const runsOf = (root: string): RunRecord[] => [...parseRuns(readFileSync(path.join(root, '.ralph', 'runs.jsonl'), 'utf8')).runs];
const receiptOf = (r: RunRecord) => [r.receipt, r.cost, r.tokens, r.model, r.turns];
const THREE = makePrd([{ id: 'US-001' }, { id: 'US-002' }, { id: 'US-003' }]);

describe('CLI run in-process: receipts in runs.jsonl', function () {
  this.timeout(120_000);
  after(cleanRepos);

  it('one at a time: a run whose agent printed a Claude result records its cost, tokens, model and turns; one that printed none records "none"', async () => {
    const root = makeRepo();
    const c = capture();
    assert.equal(await runRun(['--parallel', '1', '--loop', '1', '--agent-command', agent('claude/json-result.json')], c.io, c.interrupts, root), 0, `${c.out.stdout}\n${c.out.stderr}`);
    const quiet = capture();
    assert.equal(await runRun(['--parallel', '1', '--loop', '1', '--agent-command', agent()], quiet.io, quiet.interrupts, root), 0, `${quiet.out.stdout}\n${quiet.out.stderr}`);
    assert.deepEqual(runsOf(root).map(receiptOf), [
      ['parsed', 0.032542999999999996, { input: 4, output: 101, cacheRead: 38821, cacheWrite: 1694 }, 'claude-opus-4-6', 2],
      ['none', undefined, undefined, undefined, undefined],
    ]);
  });

  it('in parallel: each story run line records its receipt (Codex events), a cut-off one is "unreadable"', async () => {
    const root = makeRepo(THREE);
    const plan = JSON.stringify({ 'US-001': 'pass', 'US-002': 'pass', 'US-003': 'pass' });
    const byStory = `FAKE_AGENT_PLAN='${plan}' FAKE_AGENT_RECEIPT="$(node -e "process.stdout.write(process.argv[1]==='US-003'?process.argv[3]:process.argv[2])" "$RALPH_STORY_ID" ${JSON.stringify(path.join(OUTPUT, 'codex/exec-json.jsonl'))} ${JSON.stringify(path.join(OUTPUT, 'codex/exec-json-truncated.jsonl'))})" node ${JSON.stringify(FAKE)} "\${promptFile}"`;
    const c = capture();
    assert.equal(await runRun(['--parallel', '2', '--agent-command', byStory], c.io, c.interrupts, root), 0, `${c.out.stdout}\n${c.out.stderr}`);
    const runs = runsOf(root).sort((a, b) => a.storyId.localeCompare(b.storyId));
    assert.ok(runs.every((r) => r.parallel), 'parallel lines');
    assert.deepEqual(runs.map((r) => [r.storyId, ...receiptOf(r)]), [
      ['US-001', 'parsed', undefined, { input: 6040, output: 129, cacheRead: 4992, cacheWrite: 0 }, undefined, 1],
      ['US-002', 'parsed', undefined, { input: 6040, output: 129, cacheRead: 4992, cacheWrite: 0 }, undefined, 1],
      ['US-003', 'unreadable', undefined, undefined, undefined, undefined],
    ]);
  });
});

describe('CLI run in-process: budget caps', function () {
  this.timeout(120_000);
  after(cleanRepos);

  it('--max-cost, one at a time: no further iteration once the runs reported spending the cap; a deliberate stop (exit 0) naming the cap and the amount', async () => {
    const root = makeRepo(THREE);
    const c = capture();
    const code = await runRun(['--parallel', '1', '--max-cost', '0.05', '--agent-command', agent('claude/json-result.json')], c.io, c.interrupts, root);
    assert.equal(code, 0, `${c.out.stdout}\n${c.out.stderr}`);
    assert.match(c.out.stdout, /Stopped: the loop's cost cap \$0\.05 is reached \(\$0\.07 spent in 2 runs\) \(2\/3 stories pass\)\./);
    assert.equal(runsOf(root).length, 2, 'the third story did not start');
  });

  it('--max-tokens in parallel: nothing new starts at the cap, the runs that reported nothing are counted as unknown', async () => {
    const root = makeRepo(THREE);
    const c = capture();
    // 6,169 tokens a Codex run (its input holds its cached tokens); the cap is reached by the first.
    const code = await runRun(['--parallel', '2', '--max-tokens', '6000', '--agent-command', agent('codex/exec-json.jsonl')], c.io, c.interrupts, root);
    assert.equal(code, 0, `${c.out.stdout}\n${c.out.stderr}`);
    assert.match(c.out.stdout, /Stopped: the loop's token cap 6,000 is reached \(12,338 tokens used in 2 runs\)/);
    assert.equal(runsOf(root).length, 2, 'two ran at once; the third did not start');
    const bad = capture();
    assert.equal(await runRun(['--parallel', '1', '--max-cost', 'lots'], bad.io, bad.interrupts, root), 1);
    assert.match(bad.out.stderr, /--max-cost needs an amount of US dollars, 0 or more \(got "lots"\)/);
  });
});
