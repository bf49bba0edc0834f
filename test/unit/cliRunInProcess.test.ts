/**
 * `ralph-workbench run` in this process (runRun with a captured io), on real temporary
 * repositories and folders, with the pretend agent CLI (test/fixtures/fake-agent.mjs) as a real
 * child process: which agent command a run plans, and the serial loop that `--parallel 1` runs.
 * The whole-process runs (dist/cli.js, signals) are in cliRun.test.ts.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runRun } from '../../src/cli/commands/run';
import { parseRuns } from '../../src/core/runs/runs';
import { capture } from './cliCapture';
import { makePrd } from './helpers';
import { cleanRepos, git, makeRepo, passing, PROGRESS } from './parallelRepo';

const FAKE = path.resolve(__dirname, '../fixtures/fake-agent.mjs');

/** Folders a test made outside makeRepo's, removed with the repositories. */
const made: string[] = [];
function cleanAll(): void {
  cleanRepos();
  for (const dir of made.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('CLI run in-process: the agent command', function () {
  this.timeout(120_000);
  after(cleanRepos);

  it('the ralphSh preset runs scripts/ralph/ralph.sh when ./ralph.sh is a folder, not a script (one lookup with the extension)', async () => {
    const root = makeRepo();
    mkdirSync(path.join(root, 'ralph.sh'));
    writeFileSync(path.join(root, 'ralph.sh', 'README.md'), 'notes, not the loop script\n');
    mkdirSync(path.join(root, 'scripts', 'ralph'), { recursive: true });
    const script = path.join(root, 'scripts', 'ralph', 'ralph.sh');
    writeFileSync(script, `#!/usr/bin/env bash\nFAKE_AGENT_MODE=pass exec node ${JSON.stringify(FAKE)} "$RALPH_PROMPT_FILE"\n`);
    chmodSync(script, 0o755);
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'the loop script');
    const { io, out, interrupts } = capture();
    const code = await runRun(['--agent', 'ralphSh', '--parallel', '2', '--story', 'US-001'], io, interrupts, root);
    assert.equal(code, 0, `${out.stdout}\n${out.stderr}`);
    assert.deepEqual(passing(root), ['US-001']);
  });
});

describe('CLI run in-process: --parallel 1 is the serial loop', function () {
  this.timeout(120_000);
  after(cleanAll);
  const agent = (mode: string): string => `FAKE_AGENT_MODE=${mode} node ${JSON.stringify(FAKE)} "\${promptFile}"`;
  const runsOf = (root: string) => parseRuns(readFileSync(path.join(root, '.ralph', 'runs.jsonl'), 'utf8')).runs;

  it('in a folder that is not a git repository: runs the stories one at a time in the folder itself, records them, exits 0', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'ralph-serial-'));
    made.push(base);
    const root = path.join(base, 'plain');
    mkdirSync(root);
    writeFileSync(path.join(root, 'prd.json'), makePrd([{ id: 'US-001' }, { id: 'US-002', blockedBy: ['US-001'] }]));
    writeFileSync(path.join(root, 'progress.txt'), PROGRESS);
    const { io, out, interrupts } = capture();
    const code = await runRun(['--parallel', '1', '--agent-command', agent('pass')], io, interrupts, root);
    assert.equal(code, 0, `${out.stdout}\n${out.stderr}`);
    assert.deepEqual(passing(root), ['US-001', 'US-002']);
    const runs = runsOf(root);
    assert.deepEqual(runs.map((r) => [r.storyId, r.outcome, r.iteration]), [['US-001', 'passed', 1], ['US-002', 'passed', 2]]);
    assert.ok(runs.every((r) => r.parallel === undefined && r.loopId === runs[0].loopId), 'one serial loop, no worktrees');
    assert.match(out.stdout, /▶ US-001 — Story US-001: started \(1\/10\) in .*plain; log \.ralph\/logs\/.+\.log\n/);
    assert.match(out.stdout, /■ US-002: agent ended — passed \(exit 0\)/);
    assert.match(out.stdout, /Stopped: every story passes \(2\/2\)\./);
    assert.doesNotMatch(out.stderr, /git/);
    assert.deepEqual(readdirSync(base), ['plain'], 'no worktree folder beside it');
    const logs = readdirSync(path.join(root, '.ralph', 'logs'));
    assert.equal(logs.length, 2);
    assert.match(readFileSync(path.join(root, '.ralph', 'logs', logs[0]), 'utf8'), /fake-agent: working on US-001/);
  });

  it('in a git repository: commits land on the feature branch in the folder itself; the failure breaker stops the loop with exit 1', async () => {
    const root = makeRepo();
    const { io, out, interrupts } = capture();
    const code = await runRun(['--parallel', '1', '--loop', '1', '--agent-command', agent('pass')], io, interrupts, root);
    assert.equal(code, 0, `${out.stdout}\n${out.stderr}`);
    assert.deepEqual(passing(root), ['US-001']);
    assert.match(git(root, 'log', '-1', '--format=%s', 'ralph/demo'), /^feat: US-001 - /);
    assert.match(out.stdout, /Stopped: reached the maximum of 1 iteration/);
    assert.ok(!existsSync(path.join(path.dirname(root), '.repo-ralph-worktrees')), 'no worktree');

    const failing = capture();
    const failed = await runRun(['--parallel', '1', '--agent-command', agent('fail'), '--failure-limit', '2'], failing.io, failing.interrupts, root);
    assert.equal(failed, 1, `${failing.out.stdout}\n${failing.out.stderr}`);
    assert.match(failing.out.stdout, /Stopped: the agent exited with an error in 2 consecutive iterations/);
    assert.deepEqual(runsOf(root).map((r) => r.outcome), ['passed', 'failed', 'failed']);
    // each failure recorded with its signature: the same failure twice reads the same
    assert.deepEqual(runsOf(root).map((r) => r.signature), [undefined, 'fake-agent: typecheck failed (<n> errors); US-<n> is not done', 'fake-agent: typecheck failed (<n> errors); US-<n> is not done']);
    // and its error lines as printed, colours removed (the signature issue quotes them)
    assert.deepEqual(runsOf(root).map((r) => r.errorLines), [undefined, ['fake-agent: typecheck failed (2 errors); US-002 is not done'], ['fake-agent: typecheck failed (2 errors); US-002 is not done']]);
    assert.deepEqual(passing(root), ['US-001']);
  });

  it('--timeout-minutes ends an agent that never exits: the iteration counts as a failure (exit 124) and the breaker stops the loop', async () => {
    const root = makeRepo();
    const { io, out, interrupts } = capture();
    // 0.01 min = 0.6 s per run; two runs in a row trip a failure limit of 2.
    const code = await runRun(['--parallel', '1', '--agent-command', agent('hang'), '--timeout-minutes', '0.01', '--failure-limit', '2'], io, interrupts, root);
    assert.equal(code, 1, `${out.stdout}\n${out.stderr}`);
    assert.match(out.stderr, /US-001: its agent ran past the time limit \(1 s\) and was ended; the iteration counts as a failure \(exit 124\)\./);
    assert.doesNotMatch(out.stderr, /does not apply/, 'the time limit applies one at a time too');
    assert.deepEqual(runsOf(root).map((r) => [r.outcome, r.exitCode]), [['failed', 124], ['failed', 124]]);
    assert.match(out.stdout, /Stopped: the agent exited with an error in 2 consecutive iterations/);
    const logs = readdirSync(path.join(root, '.ralph', 'logs'));
    assert.match(readFileSync(path.join(root, '.ralph', 'logs', logs[0]), 'utf8'), /# US-001: its agent ran past the time limit/);
    const bad = capture();
    assert.equal(await runRun(['--parallel', '1', '--timeout-minutes', 'soon'], bad.io, bad.interrupts, root), 1);
    assert.match(bad.out.stderr, /--timeout-minutes needs a number of minutes, 0 or more \(got "soon"\)/);
  });

  it('SIGINT ends the running agent: the iteration is recorded as stopped and the run exits 0', async () => {
    const root = makeRepo();
    const { io, out, interrupts } = capture();
    const done = runRun(['--parallel', '1', '--agent-command', agent('hang')], io, interrupts, root);
    const deadline = Date.now() + 60_000;
    while (!out.stdout.includes('▶ US-001')) {
      assert.ok(Date.now() < deadline, `the agent did not start: ${out.stdout}\n${out.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    interrupts.fire('SIGINT');
    assert.equal(await done, 0, `${out.stdout}\n${out.stderr}`);
    assert.match(out.stderr, /SIGINT: stopping/);
    assert.match(out.stdout, /Stopped: you stopped the loop/);
    assert.deepEqual(runsOf(root).map((r) => r.outcome), ['stopped']);
  });

  // The pretend agent prints Claude Code's real message, "Claude AI usage limit reached|<epoch>", with a reset a few seconds ahead.
  const limitThenPass = (resetSeconds: number): string => `FAKE_AGENT_RESET_S=${resetSeconds} FAKE_AGENT_PLAN='{"US-001": ["limit", "pass"]}' node ${JSON.stringify(FAKE)} "\${promptFile}"`;

  /** Runs US-001 with the pretend agent that is limited once (reset 2 s ahead), then passes; checks the wait was said and kept. */
  async function limitedOnce(parallel: '1' | '2', done: RegExp): Promise<void> {
    const root = makeRepo();
    const { io, out, interrupts } = capture();
    const code = await runRun(['--parallel', parallel, '--story', 'US-001', '--failure-limit', '1', '--agent-command', limitThenPass(2)], io, interrupts, root);
    assert.equal(code, 0, `${out.stdout}\n${out.stderr}`);
    assert.match(out.stdout, /■ US-001: agent ended — rate-limited \(exit 1\)/);
    assert.match(out.stdout, /⏸ US-001: rate-limited by node: waiting until \d\d:\d\d:\d\d \(in \d s\); Ctrl-C stops\n/);
    assert.match(out.stdout, done);
    const runs = runsOf(root);
    assert.deepEqual(runs.map((r) => [r.storyId, r.outcome]), [['US-001', 'rate-limited'], ['US-001', 'passed']]);
    assert.ok(runs[0].resetAt && Date.parse(runs[1].start) >= Date.parse(runs[0].resetAt), `the second run started at the reset or after it: ${runs[0].resetAt} → ${runs[1].start}`);
    assert.deepEqual(passing(root), ['US-001']);
  }

  it('an agent that hits its usage limit: the run says it waits until the printed reset, sleeps, runs the story again and completes (the limited run is not a failure)', () =>
    limitedOnce('1', /■ US-001: agent ended — passed \(exit 0\)/));

  it('in parallel worktrees too: the run waits for the printed reset, starts nothing meanwhile, runs the story again and merges it', () => limitedOnce('2', /✓ US-001: merged/));

  it('SIGINT during the wait stops cleanly: no further agent runs, exit 0', async () => {
    const root = makeRepo();
    const { io, out, interrupts } = capture();
    const done = runRun(['--parallel', '1', '--agent-command', limitThenPass(3600)], io, interrupts, root);
    const deadline = Date.now() + 60_000;
    while (!out.stdout.includes('⏸ US-001')) {
      assert.ok(Date.now() < deadline, `the wait did not start: ${out.stdout}\n${out.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    interrupts.fire('SIGINT');
    // an hour ahead, plus the 30 s margin
    assert.match(out.stdout, /waiting until \d\d:\d\d:\d\d \(in 1 h 0[01] min\); Ctrl-C stops/);
    assert.equal(await done, 0, `${out.stdout}\n${out.stderr}`);
    assert.match(out.stderr, /SIGINT: stopping — ending the running agent or its wait/);
    assert.match(out.stdout, /Stopped: you stopped the loop while it waited for node's limit to reset \(after 1 iteration, last story US-001\); no agent was running/);
    assert.deepEqual(runsOf(root).map((r) => r.outcome), ['rate-limited']);
    assert.deepEqual(passing(root), []);
  });

  for (const parallel of ['1', '2'] as const) {
    it(`--max-limited 1${parallel === '2' ? ' in parallel worktrees' : ''}: the first limited run stops the loop at once, saying how often and when the agent said the limit resets; exit 1 (the user must act)`, async () => {
      const root = makeRepo();
      const { io, out, interrupts } = capture();
      const code = await runRun(['--parallel', parallel, '--max-limited', '1', '--agent-command', limitThenPass(3600)], io, interrupts, root);
      assert.equal(code, 1, `${out.stdout}\n${out.stderr}`);
      assert.match(out.stdout, /Stopped: the agent hit its usage or rate limit in 1 run in a row \(last: US-001; it said the limit resets at \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
      assert.match(out.stdout, /raise ralph\.agent\.maxLimitedInARow \(1; 0: never stop\)/);
      assert.doesNotMatch(out.stdout, /⏸/, 'no wait');
      // in parallel another story may have run alongside; US-001 ran once
      assert.deepEqual(runsOf(root).filter((r) => r.storyId === 'US-001').map((r) => r.outcome), ['rate-limited']);
    });
  }
});

describe('CLI run in-process: a run that cannot start exits 1', function () {
  this.timeout(120_000);
  after(cleanAll);

  it('no prd.json (one at a time, or in parallel), or one that cannot be read: exit 1, saying why', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'ralph-run-'));
    made.push(empty);
    let c = capture();
    assert.equal(await runRun(['--parallel', '1', '--agent-command', 'true'], c.io, c.interrupts, empty), 1, `${c.out.stdout}\n${c.out.stderr}`);
    assert.match(c.out.stdout + c.out.stderr, /prd\.json does not exist/);

    const root = makeRepo();
    git(root, 'rm', '-q', 'prd.json');
    git(root, 'commit', '-qm', 'no prd');
    c = capture();
    assert.equal(await runRun(['--parallel', '2', '--agent-command', 'true'], c.io, c.interrupts, root), 1, `${c.out.stdout}\n${c.out.stderr}`);
    assert.match(c.out.stdout + c.out.stderr, /prd\.json does not exist/);

    writeFileSync(path.join(root, 'prd.json'), '{ not json');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'broken prd');
    for (const parallel of ['1', '2']) {
      c = capture();
      assert.equal(await runRun(['--parallel', parallel, '--agent-command', 'true'], c.io, c.interrupts, root), 1, `--parallel ${parallel}: ${c.out.stdout}\n${c.out.stderr}`);
      assert.match(c.out.stdout + c.out.stderr, /prd\.json cannot be read/);
    }
  });

  it('--story with an id prd.json does not have, in parallel as one at a time: exit 1, naming it; nothing runs', async () => {
    const root = makeRepo();
    const c = capture();
    assert.equal(await runRun(['--parallel', '2', '--story', 'US-999', '--agent-command', 'true'], c.io, c.interrupts, root), 1, `${c.out.stdout}\n${c.out.stderr}`);
    assert.match(c.out.stderr, /US-999 is not in prd\.json/);
    assert.doesNotMatch(c.out.stdout, /every story this run took passes|▶/);
  });
});
