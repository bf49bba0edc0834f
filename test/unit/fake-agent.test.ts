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
import { MergeQueue } from '../../src/node/parallel/mergeQueue';
import { ParallelStateStore } from '../../src/node/parallel/stateFile';
import { addWorktree, preflight } from '../../src/node/parallel/worktrees';
import { cleanRepos, FEATURE, git as gitIn, makeRepo, passing } from './parallelRepo';

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

/**
 * The modes the parallel runner's tests mix in one loop (FAKE_AGENT_PLAN), each run as the runner
 * runs an agent: cwd = the story's git worktree, on its own branch from the feature branch's head.
 */
describe('fake agent: per-story plans for parallel runs', function () {
  this.timeout(60000);
  after(cleanRepos);

  /** A worktree of `root` for the story, on `<feature>-<id>` from the feature branch's head. */
  function worktree(root: string, id: string): string {
    const folder = path.join(path.dirname(root), `wt-${id}`);
    gitIn(root, 'worktree', 'add', '-q', '-b', `${FEATURE}-${id}`, folder, FEATURE);
    return folder;
  }

  function runAgent(cwd: string, storyId: string, env: Record<string, string>): { code: number | null; stdout: string } {
    const prompt = buildPrompt({ prd: analyzePrd(readFileSync(path.join(cwd, 'prd.json'), 'utf8')), storyId });
    const file = path.join(path.dirname(cwd), `prompt-${storyId}.md`);
    writeFileSync(file, prompt);
    // Only what this test sets: none of the fake agent's variables from the environment of the run.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FAKE_AGENT_')));
    const r = spawnSync(process.execPath, [agent, file], { cwd, encoding: 'utf8', env: { ...inherited, ...env }, timeout: 30000 });
    return { code: r.status, stdout: r.stdout + r.stderr };
  }

  const files = (cwd: string, rev = 'HEAD'): string[] => gitIn(cwd, 'show', '--name-only', '--format=', rev).split('\n').sort();
  const subject = (cwd: string, rev = 'HEAD'): string => gitIn(cwd, 'log', '-1', '--format=%s', rev);
  const isAncestor = (cwd: string, a: string, b: string): boolean => spawnSync('git', ['merge-base', '--is-ancestor', a, b], { cwd }).status === 0;

  it('gives each story the mode the plan names (inline or in a file), and FAKE_AGENT_MODE to the others', () => {
    const root = makeRepo();
    const inline = JSON.stringify({ 'US-001': 'pass', 'US-002': 'no-progress' });
    const planFile = path.join(path.dirname(root), 'plan.json');
    writeFileSync(planFile, JSON.stringify({ 'US-003': 'fail' }));

    const one = worktree(root, 'US-001');
    const r1 = runAgent(one, 'US-001', { FAKE_AGENT_PLAN: inline, FAKE_AGENT_MODE: 'fail' });
    assert.equal(r1.code, 0, r1.stdout);
    assert.match(r1.stdout, /\(mode pass\)/);
    assert.equal(subject(one), 'feat: US-001 - Story US-001');
    // With a plan, a pass has content of its own besides the memory files.
    assert.deepEqual(files(one), ['prd.json', 'progress.txt', 'work/US-001.txt']);
    assert.equal(readFileSync(path.join(one, 'work', 'US-001.txt'), 'utf8'), 'US-001: Story US-001\n');

    const two = worktree(root, 'US-002');
    const r2 = runAgent(two, 'US-002', { FAKE_AGENT_PLAN: inline, FAKE_AGENT_MODE: 'fail' });
    assert.equal(r2.code, 0, r2.stdout);
    assert.match(r2.stdout, /looked at US-002 but changed nothing/);
    assert.equal(subject(two), 'initial');

    const three = worktree(root, 'US-003');
    const r3 = runAgent(three, 'US-003', { FAKE_AGENT_PLAN: planFile });
    assert.equal(r3.code, 3, r3.stdout);

    const four = worktree(root, 'US-004');
    const r4 = runAgent(four, 'US-004', { FAKE_AGENT_PLAN: inline, FAKE_AGENT_MODE: 'no-progress' });
    assert.equal(r4.code, 0, r4.stdout);
    assert.match(r4.stdout, /\(mode no-progress\)/);
  });

  it('refuses a plan it cannot use, saying what is wrong, and changes nothing', () => {
    const root = makeRepo();
    const cases: [string, RegExp][] = [
      ['{"US-001": ', /FAKE_AGENT_PLAN is not JSON/],
      ['{"US-001": 3}', /must map story ids to modes/],
      ['{"US-001": "explode"}', /unknown mode in FAKE_AGENT_PLAN for US-001 "explode"/],
      [path.join(path.dirname(root), 'missing.json'), /cannot read the FAKE_AGENT_PLAN file/],
    ];
    for (const [plan, message] of cases) {
      const r = runAgent(root, 'US-001', { FAKE_AGENT_PLAN: plan });
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stdout, message);
    }
    assert.equal(subject(root), 'initial');
    assert.equal(gitIn(root, 'status', '--porcelain'), '');
  });

  it('conflict: of two such stories run at once, the second to merge conflicts in shared.txt (the merge queue), a pass beside them merges', async () => {
    const root = makeRepo();
    const repo = await preflight(root, FEATURE);
    const plan = JSON.stringify({ 'US-001': 'conflict', 'US-002': 'conflict', 'US-003': 'pass' });
    const wts = [];
    for (const id of ['US-001', 'US-002', 'US-003']) {
      const wt = await addWorktree(repo, id);
      const r = runAgent(wt.folder, id, { FAKE_AGENT_PLAN: plan });
      assert.equal(r.code, 0, r.stdout);
      wts.push(wt);
    }
    assert.deepEqual(files(wts[0].folder), ['prd.json', 'progress.txt', 'shared.txt', 'work/US-001.txt']);
    assert.equal(readFileSync(path.join(wts[1].folder, 'shared.txt'), 'utf8'), 'US-002 changed this line\n');
    const outcomes = await new MergeQueue(repo, new ParallelStateStore(root)).mergeAll(wts);
    assert.deepEqual(
      outcomes.map((o) => [o.storyId, o.kind, o.kind === 'conflict' ? o.files : undefined]),
      [
        ['US-001', 'merged', undefined],
        ['US-002', 'conflict', ['shared.txt']],
        ['US-003', 'merged', undefined],
      ],
    );
    assert.deepEqual(passing(root), ['US-001', 'US-003']);
  });

  it('break-check: commits CHECK_FAILS, so the check after its merge fails and the merge is undone', async () => {
    const root = makeRepo();
    const repo = await preflight(root, FEATURE);
    const wt = await addWorktree(repo, 'US-001');
    const r = runAgent(wt.folder, 'US-001', { FAKE_AGENT_PLAN: JSON.stringify({ 'US-001': 'break-check' }) });
    assert.equal(r.code, 0, r.stdout);
    assert.deepEqual(files(wt.folder), ['CHECK_FAILS', 'prd.json', 'progress.txt', 'work/US-001.txt']);
    const checkCommand = `${quoteArg(process.execPath, 'posix')} -e "process.exit(require('fs').existsSync('CHECK_FAILS')?1:0)"`;
    const [outcome] = await new MergeQueue(repo, new ParallelStateStore(root), { checkCommand }).mergeAll([wt]);
    assert.equal(outcome.kind, 'check-failed');
    assert.deepEqual(passing(root), []);
    assert.equal(existsSync(path.join(root, 'CHECK_FAILS')), false);
  });

  it('a list of modes gives one per attempt at the story: break-check, then a retry in the same worktree that passes the check', async () => {
    const root = makeRepo();
    const repo = await preflight(root, FEATURE);
    const plan = JSON.stringify({ 'US-001': ['break-check', 'pass'], 'US-002': ['fail', 'pass'] });
    const wt = await addWorktree(repo, 'US-001');
    const checkCommand = `${quoteArg(process.execPath, 'posix')} -e "process.exit(require('fs').existsSync('CHECK_FAILS')?1:0)"`;
    const queue = new MergeQueue(repo, new ParallelStateStore(root), { checkCommand });
    const first = runAgent(wt.folder, 'US-001', { FAKE_AGENT_PLAN: plan });
    assert.match(first.stdout, /attempt 1 at US-001[\s\S]*\(mode break-check\)/);
    assert.equal((await queue.mergeAll([wt]))[0].kind, 'check-failed');
    const retry = runAgent(wt.folder, 'US-001', { FAKE_AGENT_PLAN: plan });
    assert.equal(retry.code, 0, retry.stdout);
    assert.match(retry.stdout, /attempt 2 at US-001[\s\S]*\(mode pass\)[\s\S]*removed CHECK_FAILS/);
    assert.equal((await queue.mergeAll([wt]))[0].kind, 'merged');
    assert.deepEqual(passing(root), ['US-001']);
    assert.equal(existsSync(path.join(root, 'CHECK_FAILS')), false);
    // Attempts are counted per story, across worktrees (the last mode repeats).
    const two = await addWorktree(repo, 'US-002');
    assert.equal(runAgent(two.folder, 'US-002', { FAKE_AGENT_PLAN: plan }).code, 3);
    assert.equal(runAgent(two.folder, 'US-002', { FAKE_AGENT_PLAN: plan }).code, 0);
    assert.match(runAgent(two.folder, 'US-002', { FAKE_AGENT_PLAN: plan }).stdout, /attempt 3 at US-002[\s\S]*\(mode pass\)/);
  });

  it('wrong-branch: the feat commit lands on <branch>-stray, checked out, and its own branch stays without it', () => {
    const root = makeRepo();
    const wt = worktree(root, 'US-001');
    const head = gitIn(root, 'rev-parse', FEATURE);
    const r = runAgent(wt, 'US-001', { FAKE_AGENT_MODE: 'wrong-branch' });
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /switched to a new branch ralph\/demo-US-001-stray/);
    assert.equal(gitIn(wt, 'branch', '--show-current'), `${FEATURE}-US-001-stray`);
    assert.equal(gitIn(root, 'rev-parse', `${FEATURE}-US-001`), head, 'its own branch did not move');
    assert.equal(subject(root, `${FEATURE}-US-001-stray`), 'feat: US-001 - Story US-001');
    assert.deepEqual(files(root, `${FEATURE}-US-001-stray`), ['prd.json', 'progress.txt', 'work/US-001.txt']);
  });

  it('rewrite-history: its branch has the feat commit but no longer contains the feature branch head', () => {
    const root = makeRepo();
    const wt = worktree(root, 'US-001');
    const head = gitIn(root, 'rev-parse', FEATURE);
    const r = runAgent(wt, 'US-001', { FAKE_AGENT_PLAN: JSON.stringify({ 'US-001': 'rewrite-history' }) });
    assert.equal(r.code, 0, r.stdout);
    const branch = `${FEATURE}-US-001`;
    assert.equal(gitIn(wt, 'branch', '--show-current'), branch);
    assert.equal(subject(wt), 'feat: US-001 - Story US-001');
    assert.deepEqual(files(wt), ['prd.json', 'progress.txt', 'work/US-001.txt']);
    assert.equal(isAncestor(root, head, branch), false, 'the feature branch head is no longer below its work');
    assert.equal(subject(wt, 'HEAD~1'), 'initial (rewritten by the fake agent)');
    assert.equal(gitIn(wt, 'status', '--porcelain'), '');
  });

  it('edit-other: passes its story and also another one in prd.json, and says which', () => {
    const root = makeRepo();
    const wt = worktree(root, 'US-002');
    const r = runAgent(wt, 'US-002', { FAKE_AGENT_MODE: 'edit-other' });
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /also marked US-001 as passing/);
    assert.deepEqual(passesOf(wt), { 'US-001': true, 'US-002': true, 'US-003': false, 'US-004': false });
    const chosen = worktree(root, 'US-003');
    runAgent(chosen, 'US-003', { FAKE_AGENT_MODE: 'edit-other', FAKE_AGENT_OTHER: 'US-004' });
    assert.deepEqual(passesOf(chosen), { 'US-001': false, 'US-002': false, 'US-003': true, 'US-004': true });
    assert.equal(subject(chosen), 'feat: US-003 - Story US-003');
  });

  it('sleep: works FAKE_AGENT_DELAY_MS, then does the story with a file of its own', () => {
    const root = makeRepo();
    const wt = worktree(root, 'US-001');
    const r = runAgent(wt, 'US-001', { FAKE_AGENT_MODE: 'sleep', FAKE_AGENT_DELAY_MS: '5' });
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /worked for 5 ms/);
    assert.deepEqual(files(wt), ['prd.json', 'progress.txt', 'work/US-001.txt']);
    assert.equal(passesOf(wt)['US-001'], true);
  });

  it('prints COMPLETE only when every story passes, as in the serial modes', () => {
    const root = makeRepo(makePrd([{ id: 'A' }, { id: 'B', passes: true }], { branchName: FEATURE }));
    const wt = worktree(root, 'A');
    const r = runAgent(wt, 'A', { FAKE_AGENT_PLAN: JSON.stringify({ A: 'conflict' }) });
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /<promise>COMPLETE<\/promise>/);
    const again = makeRepo();
    const r2 = runAgent(worktree(again, 'US-001'), 'US-001', { FAKE_AGENT_PLAN: JSON.stringify({ 'US-001': 'conflict' }) });
    assert.doesNotMatch(r2.stdout, /<promise>COMPLETE/);
  });
});
