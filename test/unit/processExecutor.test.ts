/**
 * The headless executor (src/node/processExecutor.ts) with the fake agent: a whole run through the
 * run engine with no terminal (the story passes, its COMPLETE signal is read, runs.jsonl holds the
 * line under the run's id), and "Stop now" ends an agent that never exits.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildPrompt } from '../../src/core/context/prompt';
import { planAgentCommand } from '../../src/core/loop/iteration';
import { analyzePrd } from '../../src/core/prd/index';
import { parseRuns } from '../../src/core/runs/runs';
import { processExecutor, type ProcessRun } from '../../src/node/processExecutor';
import { RunEngine } from '../../src/core/loop/engine';
import { recordIteration } from '../../src/node/runRecorder';
import { makePrd } from './helpers';

const repoRoot = path.join(__dirname, '..', '..');
const agent = path.join(repoRoot, 'test', 'fixtures', 'fake-agent.mjs');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** No such process, or only its zombie (an orphan that this container's init has not reaped yet). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return / Z /.test(stat.slice(stat.lastIndexOf(')')));
}

describe('headless executor: the agent as a child process', () => {
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(path.join(tmpdir(), 'ralph-headless-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it('runs a story through the run engine with no terminal: it passes, COMPLETE is read, the line is recorded under the run id', async () => {
    cpSync(path.join(repoRoot, 'examples', 'demo', 'progress.txt'), path.join(ws, 'progress.txt'));
    writeFileSync(path.join(ws, 'prd.json'), makePrd([{ id: 'US-001', title: 'Only story' }], { branchName: 'ralph/headless' }));
    git(ws, 'init', '-q', '-b', 'main');
    git(ws, 'add', '-A');
    git(ws, 'commit', '-q', '-m', 'initial');
    const read = async (): Promise<ReturnType<typeof analyzePrd>> => analyzePrd(readFileSync(path.join(ws, 'prd.json'), 'utf8'));
    const started: ProcessRun[] = [];
    const engine = new RunEngine<string, ProcessRun>({
      keyOf: (f) => f,
      read,
      preflight: async () => ({ runAnyway: false }),
      prepare: async (root, step, before) => {
        mkdirSync(path.join(root, '.ralph', 'prompts'), { recursive: true });
        const promptFile = `.ralph/prompts/${step.storyId}.md`;
        writeFileSync(path.join(root, promptFile), buildPrompt({ prd: before, storyId: step.storyId, progressText: readFileSync(path.join(root, 'progress.txt'), 'utf8') }));
        const plan = planAgentCommand({ presetId: 'custom', command: `node "${agent}" \${promptFile}`, shell: 'posix', exists: () => false, vars: { promptFile: path.join(root, promptFile), storyId: step.storyId, workspaceFolder: root } });
        assert.ok(plan.ok);
        return { promptFile, agent: 'custom', launch: { name: step.storyId, cwd: root, commandLine: plan.commandLine, env: plan.env }, observe: async () => ({ commits: [], uncommitted: [] }) };
      },
      executor: { start: (launch) => started[started.push(processExecutor.start(launch)) - 1] },
      record: (root, line, after) => recordIteration(root, line, after),
      log: { info: () => undefined, warn: () => undefined },
    });
    const outcome = await engine.run(ws, { maxIterations: 3 });
    assert.equal(outcome.stop.reason, 'all-pass', outcome.stop.message);
    assert.deepEqual(
      outcome.iterations.map((i) => i.outcome),
      ['passed'],
    );
    assert.equal(started.length, 1);
    const [line] = parseRuns(readFileSync(path.join(ws, '.ralph', 'runs.jsonl'), 'utf8')).runs;
    assert.deepEqual([line.storyId, line.exitCode, line.complete, line.storyPasses], ['US-001', 0, true, true]);
    assert.match(line.loopId, /^\d{4}-\d\d-\d\dT/);
    assert.equal(git(ws, 'log', '-1', '--format=%s'), 'feat: US-001 - Only story');
  });

  it('stop() ends an agent that never exits, and the exit says stopped', async () => {
    const ready = path.join(ws, 'ready');
    writeFileSync(path.join(ws, 'prompt.md'), 'Story ID: US-001\n');
    const run = processExecutor.start({
      name: 'hang',
      cwd: ws,
      commandLine: `node "${agent}" prompt.md`,
      env: { FAKE_AGENT_MODE: 'hang', FAKE_AGENT_READY_FILE: ready },
    });
    const deadline = Date.now() + 10_000;
    while (!existsSync(ready) || readFileSync(ready, 'utf8') === '') {
      assert.ok(Date.now() < deadline, 'the agent did not start');
      await new Promise((r) => setTimeout(r, 20));
    }
    const pid = Number(readFileSync(ready, 'utf8'));
    await run.stop();
    assert.deepEqual(await run.exit, { exitCode: undefined, stopped: true, via: 'process' });
    assert.ok(gone(pid), 'the agent process is gone');
    run.dispose();
  });
});
