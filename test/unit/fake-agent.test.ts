/**
 * The fake agent (test/fixtures/fake-agent.mjs) end to end, in temporary git repositories copied
 * from examples/demo: prompt built by the core, command line expanded by the core and run by a
 * real /bin/sh, outcome read back from disk and git — and a whole loop driven by LoopController.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { quoteArg } from '../../src/core/agents/presets';
import { buildPrompt, promptFileName } from '../../src/core/context/prompt';
import { completeIteration, planAgentCommand } from '../../src/core/loop/iteration';
import { LoopController } from '../../src/core/loop/loop';
import { CompleteSignalDetector } from '../../src/core/output';
import { analyzePrd } from '../../src/core/prd/index';
import { parseProgress } from '../../src/core/progress/parse';
import { detectFeatCommit, parseRuns, serializeRun, summarizeRuns } from '../../src/core/runs/runs';
import { readPromptInputs } from '../../src/node/promptInputs';
import { makePrd } from './helpers';

const repoRoot = path.join(__dirname, '..', '..');
const agent = path.join(repoRoot, 'test', 'fixtures', 'fake-agent.mjs');
const demoDir = path.join(repoRoot, 'examples', 'demo');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** A copy of the demo workspace (in a folder whose name has a space and a quote) as a fresh git repository. */
function workspace(withGit = true, prdText?: string): string {
  const base = mkdtempSync(path.join(tmpdir(), 'ralph-fake-'));
  const ws = path.join(base, "my ws 'demo'");
  cpSync(demoDir, ws, { recursive: true });
  if (prdText !== undefined) {
    writeFileSync(path.join(ws, 'prd.json'), prdText);
  }
  if (withGit) {
    git(ws, 'init', '-q', '-b', 'main');
    git(ws, 'config', 'user.name', 'Test');
    git(ws, 'config', 'user.email', 'test@example.invalid');
    git(ws, 'config', 'commit.gpgsign', 'false');
    writeFileSync(path.join(ws, '.git', 'info', 'exclude'), '.ralph/\n');
    git(ws, 'add', '-A');
    git(ws, 'commit', '-q', '-m', 'initial');
  }
  return ws;
}

interface AgentRun {
  code: number | null;
  stdout: string;
  complete: boolean;
  promptFile: string;
  commandLine: string;
}

const lookup = { path: process.env.PATH, platform: 'posix' as const, exists: (p: string) => existsSync(p) };

/**
 * One iteration as the runner does it, through the same module (src/core/loop/iteration.ts): the
 * prompt from the one prompt-inputs reader, written to .ralph/prompts/; the command planned by
 * planAgentCommand (resolveAgentCommand, values in the environment, the program on PATH); run by /bin/sh.
 */
function runIteration(ws: string, storyId: string, env: Record<string, string> = {}, command = `node ${quoteArg(agent, 'posix')} < \${promptFile}`): AgentRun {
  const inputs = readPromptInputs(ws, { progress: 'progress.txt', pin: 'specs/INDEX.md' });
  const prompt = buildPrompt({ prd: analyzePrd(readFileSync(path.join(ws, 'prd.json'), 'utf8')), storyId, progressText: inputs.progressText, pinText: inputs.pinText, readFile: inputs.readSpec });
  const dir = path.join(ws, '.ralph', 'prompts');
  mkdirSync(dir, { recursive: true });
  const name = promptFileName(new Date(), storyId, (n) => existsSync(path.join(dir, n)));
  const promptFile = path.join(dir, name);
  writeFileSync(promptFile, prompt);
  const plan = planAgentCommand({ presetId: 'custom', command, shell: 'posix', exists: () => false, vars: { promptFile, storyId, workspaceFolder: ws }, lookup });
  assert.ok(plan.ok, plan.ok ? '' : plan.message);
  const r = spawnSync('/bin/sh', ['-c', plan.commandLine], { cwd: ws, encoding: 'utf8', env: { ...process.env, ...plan.env, ...env }, timeout: 30000 });
  const detector = new CompleteSignalDetector();
  detector.push(r.stdout);
  return { code: r.status, stdout: r.stdout + r.stderr, complete: detector.seen, promptFile, commandLine: plan.commandLine };
}

const passesOf = (ws: string): Record<string, boolean> =>
  Object.fromEntries(analyzePrd(readFileSync(path.join(ws, 'prd.json'), 'utf8')).doc.stories.map((s) => [s.id, s.passes]));

describe('fake agent', function () {
  this.timeout(60000);
  const made: string[] = [];
  const ws = (withGit = true, prdText?: string): string => {
    const w = workspace(withGit, prdText);
    made.push(path.dirname(w));
    return w;
  };
  after(() => {
    for (const d of made) {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('does the story: flips passes (nothing else in prd.json), appends progress, commits feat: <id> - <title>', () => {
    const w = ws();
    const prdBefore = readFileSync(path.join(w, 'prd.json'), 'utf8');
    const progressBefore = readFileSync(path.join(w, 'progress.txt'), 'utf8');
    const run = runIteration(w, 'US-006');
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /fake-agent: working on US-006 - Sort tasks by priority/);
    assert.equal(run.complete, false);

    const prdAfter = readFileSync(path.join(w, 'prd.json'), 'utf8');
    const at = prdBefore.indexOf('"passes": false', prdBefore.indexOf('"id": "US-006"'));
    assert.equal(prdAfter, `${prdBefore.slice(0, at)}"passes": true${prdBefore.slice(at + '"passes": false'.length)}`);
    assert.equal(passesOf(w)['US-006'], true);

    const progressAfter = readFileSync(path.join(w, 'progress.txt'), 'utf8');
    assert.ok(progressAfter.startsWith(progressBefore));
    const doc = parseProgress(progressAfter);
    const last = doc.entries[doc.entries.length - 1];
    assert.equal(last.storyId, 'US-006');
    assert.equal(last.learnings.length, 1);
    assert.match(last.learnings[0].text, /US-006/);
    assert.equal(doc.entries.length, parseProgress(progressBefore).entries.length + 1);

    const subjects = git(w, 'log', '--format=%h%x09%s').split('\n').map((l) => ({ sha: l.split('\t')[0], subject: l.split('\t')[1] }));
    assert.equal(subjects[0].subject, 'feat: US-006 - Sort tasks by priority');
    assert.deepEqual(detectFeatCommit(subjects, 'US-006'), subjects[0]);
    assert.equal(git(w, 'status', '--porcelain'), '');
    assert.deepEqual(git(w, 'show', '--name-only', '--format=', 'HEAD').split('\n').sort(), ['prd.json', 'progress.txt']);
  });

  it('reads the prompt from a path argument too, and works without git', () => {
    const w = ws(false);
    const run = runIteration(w, 'US-006', {}, `node ${quoteArg(agent, 'posix')} \${promptFile}`);
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /not a git repository; nothing committed/);
    assert.equal(passesOf(w)['US-006'], true);
  });

  it('fail: exits 3 and changes nothing', () => {
    const w = ws();
    const run = runIteration(w, 'US-006', { FAKE_AGENT_MODE: 'fail' });
    assert.equal(run.code, 3);
    assert.equal(passesOf(w)['US-006'], false);
    assert.equal(git(w, 'log', '-1', '--format=%s'), 'initial');
    assert.equal(git(w, 'status', '--porcelain'), '');
  });

  it('no-progress: exits 0 and changes nothing', () => {
    const w = ws();
    const run = runIteration(w, 'US-006', { FAKE_AGENT_MODE: 'no-progress' });
    assert.equal(run.code, 0);
    assert.equal(passesOf(w)['US-006'], false);
    assert.equal(git(w, 'status', '--porcelain'), '');
  });

  it('early-complete: does the story and claims COMPLETE while others still fail', () => {
    const w = ws();
    const run = runIteration(w, 'US-006', { FAKE_AGENT_MODE: 'early-complete' });
    assert.equal(run.code, 0);
    assert.equal(run.complete, true);
    const passes = passesOf(w);
    assert.equal(passes['US-006'], true);
    assert.equal(Object.values(passes).filter((p) => !p).length, 7);
  });

  it('delete-prd: deletes prd.json', () => {
    const w = ws();
    const run = runIteration(w, 'US-006', { FAKE_AGENT_MODE: 'delete-prd' });
    assert.equal(run.code, 0);
    assert.equal(existsSync(path.join(w, 'prd.json')), false);
  });

  it('hang: never exits until killed', async () => {
    const w = ws();
    const prompt = buildPrompt({ prd: analyzePrd(readFileSync(path.join(w, 'prd.json'), 'utf8')), storyId: 'US-006' });
    const file = path.join(w, 'p.md');
    writeFileSync(file, prompt);
    const ready = path.join(w, 'hanging');
    const child = spawn(process.execPath, [agent, file], { cwd: w, env: { ...process.env, FAKE_AGENT_MODE: 'hang', FAKE_AGENT_READY_FILE: ready } });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_c, sig) => resolve(sig)));
    // It says so once it waits forever (no fixed sleep: the file is written after the wait began).
    const deadline = Date.now() + 20_000;
    while (!existsSync(ready)) {
      assert.ok(Date.now() < deadline, 'the hanging agent never reported that it waits');
      assert.equal(child.exitCode, null, 'the hanging agent exited');
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(child.exitCode, null);
    child.kill('SIGTERM');
    assert.equal(await exited, 'SIGTERM');
    assert.equal(passesOf(w)['US-006'], false);
  });

  it('keeps a hostile story id inert on the command line and in file names', () => {
    const id = 'a/b$(touch pwned); touch pwned2';
    const w = ws(true, makePrd([{ id, title: 'Hostile $(touch pwned3)' }, { id: 'B', blockedBy: [id] }]));
    const run = runIteration(w, id, {}, `node ${quoteArg(agent, 'posix')} < \${promptFile} --story \${storyId} --ws \${workspaceFolder}`);
    assert.equal(run.code, 0, run.stdout);
    assert.ok(!run.commandLine.includes('touch') && !run.commandLine.includes('demo'), `no value on the command line: ${run.commandLine}`);
    assert.equal(passesOf(w)[id], true);
    assert.equal(git(w, 'log', '-1', '--format=%s'), `feat: ${id} - Hostile $(touch pwned3)`);
    assert.deepEqual(
      readdirSync(w).filter((f) => f.startsWith('pwned')),
      [],
    );
    assert.match(path.basename(run.promptFile), /^\d{8}-\d{6}-a_b_touch_pwned_touch_pwned2\.md$/);
  });

  it('runs a whole loop on the demo: dependency order, one feat commit and one runs.jsonl line per iteration, stops when every story passes', () => {
    const w = ws();
    const loop = new LoopController({ maxIterations: 20 });
    const ran: string[] = [];
    let jsonl = '';
    const prdText = (): string | undefined => (existsSync(path.join(w, 'prd.json')) ? readFileSync(path.join(w, 'prd.json'), 'utf8') : undefined);
    for (;;) {
      const beforeText = prdText();
      const before = beforeText === undefined ? undefined : analyzePrd(beforeText);
      const step = loop.nextStep(before);
      if (step.kind === 'stop') {
        assert.equal(step.reason, 'all-pass');
        assert.equal(step.message, 'Stopped: every story passes (12/12).');
        break;
      }
      ran.push(step.storyId);
      const head = git(w, 'rev-parse', 'HEAD');
      const started = Date.now();
      // Every other iteration claims COMPLETE too early: the loop must go on.
      const run = runIteration(w, step.storyId, { FAKE_AGENT_MODE: ran.length % 2 === 0 ? 'early-complete' : 'pass' });
      const commits = git(w, 'log', '--format=%H%x09%s', `${head}..HEAD`)
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => ({ sha: l.split('\t')[0], subject: l.split('\t')[1] }));
      assert.ok(before);
      const { line } = completeIteration(loop, {
        storyId: step.storyId,
        storyTitle: step.storyTitle,
        agent: 'custom',
        started,
        ended: Date.now(),
        exitCode: run.code,
        stopped: false,
        completeSignal: run.complete,
        before,
        after: prdText() === undefined ? undefined : analyzePrd(prdText() ?? ''),
        commits,
        promptFile: path.relative(w, run.promptFile),
        iteration: step.iteration,
        loopId: 'test-loop',
      });
      jsonl += serializeRun(line);
    }
    // The order readiness projects: priority among ready stories, dependencies first.
    assert.deepEqual(ran, ['US-006', 'US-005', 'US-007', 'US-008', 'US-009', 'US-010', 'US-011', 'US-012']);
    const feats = git(w, 'log', '--format=%s').split('\n').filter((s) => s.startsWith('feat: '));
    assert.equal(feats.length, 8);
    const { runs, errors } = parseRuns(jsonl);
    assert.deepEqual(errors, []);
    assert.equal(runs.length, 8);
    assert.deepEqual(
      runs.map((r) => r.outcome),
      ['passed', 'false-complete', 'passed', 'false-complete', 'passed', 'false-complete', 'passed', 'passed'],
    );
    assert.ok(runs.every((r) => r.commit !== null && r.storyPasses && r.exitCode === 0));
    assert.equal(runs[7].complete, true);
    assert.equal(summarizeRuns(runs).iterations, 8);
    assert.equal(loop.status.falseCompletions, 3);
    assert.equal(readdirSync(path.join(w, '.ralph', 'prompts')).length, 8);
    assert.equal(git(w, 'status', '--porcelain'), '');
  });
});
