/**
 * The parallel loop in VS Code (issue 19, "In VS Code"): Start Parallel Loop… drives the fake
 * agent (test/fixtures/fake-agent.mjs, one mode per story through FAKE_AGENT_PLAN) in real
 * terminals, one git worktree per story, on a git copy of the demo; the tests check what a user
 * sees: the Needs You node and its badge, one notification per item, prd.json, the feature
 * branch's log, runs.jsonl, Retry after a conflict resolved by hand, Stop All. And the serial
 * runner holds the workspace run lock the CLI's `run` takes.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { acquireRunLock } from '../../src/node/parallel/runLock';
import type { TreeSnapshotNode } from '../../src/api';
import { answering, api, expectCommandError, findStory, storyState, waitFor, waitForTree, workspaceFolder } from './helpers';
import {
  ensureGitWorkspace,
  fakeAgentPath,
  fakeAgentProcesses,
  git,
  GIT_IDENTITY,
  type Pristine,
  prdStories,
  resetSettings,
  restoreWorkspace,
  root,
  runsJsonl,
  stopAndCloseTerminals,
  useCustomPrd,
  useFakeAgent,
  ws,
} from './runHelpers';

const FEATURE = 'ralph/parallel-host';
const CHECK = `node -e "process.exit(require('fs').existsSync('CHECK_FAILS')?1:0)"`;
const PLAN = { 'US-001': 'pass', 'US-002': 'conflict', 'US-003': 'conflict', 'US-004': 'break-check' };

/** The Task Graph's run message, as a page receives it. */
interface RunState {
  readonly type: 'run';
  readonly running: boolean;
  readonly stories: readonly { storyId: string; iteration?: number; maxIterations?: number; startedAt?: number }[];
}

interface Stop {
  readonly reason: string;
  readonly message: string;
  readonly needsYou: readonly { storyId: string; why: string; message: string }[];
}

function fourStories(): unknown {
  const story = (n: number) => ({ id: `US-00${n}`, title: `Story ${n}`, description: `Story ${n}`, acceptanceCriteria: ['it works'], priority: n, passes: false });
  return { project: 'Parallel', branchName: FEATURE, description: 'four independent stories', userStories: [1, 2, 3, 4].map(story) };
}

async function settings(values: Record<string, unknown>): Promise<void> {
  const c = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
  for (const [k, v] of Object.entries(values)) {
    await c.update(k, v, vscode.ConfigurationTarget.Workspace);
  }
}

/** The agent: the fake agent with a mode per story (on its command line: the terminal's environment is not the host's). */
async function useParallelAgent(env: string, tag: string): Promise<void> {
  await settings({ 'agent.preset': 'custom', 'agent.command': `${env} node "${fakeAgentPath()}" \${promptFile} --tag ${tag}` });
}

function featureLog(): string[] {
  return git('log', '--format=%s', FEATURE).split('\n');
}

/** Removes the worktrees a run made (and their folder beside the workspace). */
function removeWorktrees(): void {
  const listed = git('worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length));
  for (const wt of listed.slice(1)) {
    execFileSync('git', [...GIT_IDENTITY, 'worktree', 'remove', '--force', '--force', wt], { cwd: root(), stdio: 'ignore' });
  }
  git('worktree', 'prune');
  fs.rmSync(path.join(path.dirname(root()), `.${path.basename(root())}-ralph-worktrees`), { recursive: true, force: true });
}

function needsYouNode(nodes: readonly TreeSnapshotNode[]): TreeSnapshotNode | undefined {
  return nodes.find((n) => /^Needs You \(\d+\)$/.test(n.label));
}

suite('the parallel loop in VS Code (issue 19)', function () {
  this.timeout(180_000);
  let pristine: Pristine;

  suiteSetup(() => {
    pristine = ensureGitWorkspace();
    assert.ok(fs.existsSync(fakeAgentPath()));
  });

  teardown(async function () {
    this.timeout(60_000);
    const a = await api();
    if (a.parallelState().running) {
      await vscode.commands.executeCommand('ralph.parallel.stopAll');
      await waitFor('the parallel run to stop', () => !a.parallelState().running, 30_000);
    }
    // What an ended run kept is listed once the folder's checks settle (answered Not Now, should one ask).
    await answering(undefined, () => vscode.commands.executeCommand('ralph.parallel.checkInterrupted', workspaceFolder()));
    // The items a run left open stay until the user skips them.
    for (const i of a.parallelState().needsYou) {
      await vscode.commands.executeCommand('ralph.needsYou.skip', i.storyId);
    }
    await stopAndCloseTerminals();
    await resetSettings();
    await settings({ 'parallel.checkCommand': undefined, 'parallel.maxAgents': undefined });
    removeWorktrees();
    await restoreWorkspace(pristine);
    // Forget the worktrees an ended run kept (listed from .ralph/parallel.json, now gone).
    await answering(undefined, () => vscode.commands.executeCommand('ralph.parallel.checkInterrupted', workspaceFolder()));
  });

  async function onFeatureBranch(prd = fourStories(), storyCount = 4): Promise<void> {
    git('reset', '-q', '--hard');
    git('clean', '-q', '-fd', '-e', '.vscode');
    git('checkout', '-q', '-b', FEATURE);
    await useCustomPrd(prd, storyCount);
  }

  test('Run Wave runs the stories ready now, each once: a story its merge made ready does not start', async () => {
    const prd = fourStories() as { userStories: { id: string; blockedBy?: string[] }[] };
    prd.userStories[2].blockedBy = ['US-001'];
    await onFeatureBranch(prd);
    await useParallelAgent(`FAKE_AGENT_PLAN='${JSON.stringify({ 'US-001': 'pass', 'US-002': 'pass', 'US-004': 'pass' })}'`, 'par-wave');
    const stop = await vscode.commands.executeCommand<Stop | undefined>('ralph.parallel.runWave');
    assert.ok(stop, 'Run Wave resolved to undefined: the run could not start (see the log)');
    assert.deepEqual(Object.fromEntries(prdStories().map((s) => [s.id, s.passes])), { 'US-001': true, 'US-002': true, 'US-003': false, 'US-004': true }, stop.message);
    assert.deepEqual(runsJsonl().map((l) => l.storyId).sort(), ['US-001', 'US-002', 'US-004']);
  });

  test('two stories merge, one conflicts, one fails its check: Needs You with a badge and one notification each; Retry after resolving the conflict by hand merges', async () => {
    const a = await api();
    await onFeatureBranch();
    await useParallelAgent(`FAKE_AGENT_PLAN='${JSON.stringify(PLAN)}'`, 'par-mixed');
    await settings({ 'parallel.checkCommand': CHECK });

    const stop = await vscode.commands.executeCommand<Stop | undefined>('ralph.parallel.startLoop', 10, 3);
    assert.ok(stop, 'Start Parallel Loop… resolved to undefined: the run could not start (see the log)');
    const conflicted = stop.needsYou.find((n) => n.why === 'conflict')?.storyId ?? '';
    const winner = conflicted === 'US-002' ? 'US-003' : 'US-002';
    assert.deepEqual(stop.needsYou.map((n) => [n.storyId, n.why]).sort(), [[conflicted, 'conflict'], ['US-004', 'check-failed']].sort(), stop.message);

    // What the user sees: the Needs You node first, its rows, the badge, one notification per item.
    const nodes = await waitForTree('the Needs You node with two items', (n) => needsYouNode(n)?.children?.length === 2, 2);
    assert.equal(nodes[0].label, 'Needs You (2)');
    const rows = needsYouNode(nodes)?.children ?? [];
    assert.deepEqual(rows.map((r) => r.label).sort(), [`${conflicted} — merge conflict in shared.txt`, 'US-004 — the check failed after its merge'].sort());
    assert.match(rows.find((r) => r.label.startsWith(conflicted))?.tooltip ?? '', /conflicted/);
    assert.match(rows.find((r) => r.label.startsWith(conflicted))?.contextValue ?? '', /\bopenConflict\b/);
    assert.equal(a.parallelState().badge, 2);
    await waitFor('a notification per item', () => a.parallelState().notifications.length >= 2);
    await a.whenIdle();
    assert.equal(a.parallelState().notifications.length, 2, `one notification per item, not per refresh: ${JSON.stringify(a.parallelState().notifications)}`);

    // prd.json, the feature branch, runs.jsonl.
    const passes = Object.fromEntries(prdStories().map((s) => [s.id, s.passes]));
    assert.deepEqual(passes, { 'US-001': true, [winner]: true, [conflicted]: false, 'US-004': false });
    const log = featureLog();
    assert.ok(log.some((l) => l.startsWith('feat: US-001')) && log.some((l) => l.startsWith(`feat: ${winner}`)), log.join('\n'));
    assert.ok(!log.some((l) => l.startsWith(`feat: ${conflicted}`)), log.join('\n'));
    const lines = runsJsonl();
    assert.equal(lines.length, 4, JSON.stringify(lines));
    const merge = Object.fromEntries(lines.map((l) => [l.storyId, l.parallel?.merge]));
    assert.deepEqual(merge, { 'US-001': 'merged', [winner]: 'merged', [conflicted]: 'conflict', 'US-004': 'check-failed' });
    assert.ok(lines.every((l) => l.parallel && l.parallel.worktree !== '' && l.parallel.branch.startsWith(FEATURE)), JSON.stringify(lines));

    // The Runs view: the loop, its one wave with what became of each story, each run's merge outcome.
    const loop = await waitFor('the Runs view to show the parallel loop with its four runs', async () => {
      const found = (await a.runsSnapshot(3)).find((n) => n.label.startsWith('Parallel loop'));
      return found?.children?.[0]?.children?.length === 4 ? found : undefined;
    });
    assert.equal(loop.label, 'Parallel loop (1 wave, 4 runs)');
    assert.equal(loop.children?.[0].label, 'Wave 1 (4 stories: 2 merged, 1 conflict, 1 check failed)');
    const outcome = Object.fromEntries((loop.children?.[0].children ?? []).map((r) => [r.label.split(':')[0], (r.description ?? '').split(' · ')[0]]));
    assert.match(outcome['US-001'], /^merged [0-9a-f]{7}$/, JSON.stringify(outcome));
    assert.equal(outcome[conflicted], 'conflict');
    assert.equal(outcome['US-004'], 'check failed');
    // Only the merged runs are green: the others passed in their worktrees, and that is all.
    const icons = Object.fromEntries((loop.children?.[0].children ?? []).map((r) => [r.label.split(':')[0], r.icon]));
    assert.deepEqual(icons, { 'US-001': 'pass-filled', [winner]: 'pass-filled', [conflicted]: 'git-merge', 'US-004': 'git-merge' });
    assert.match(loop.children?.[0].children?.find((r) => r.label.startsWith(conflicted))?.description ?? '', /^conflict · passed in its worktree, not merged · /);

    // The user resolves the conflict by hand: Open Conflict brings the feature branch into the worktree.
    const files = await vscode.commands.executeCommand<string[]>('ralph.needsYou.openConflict', conflicted);
    assert.equal(files.length, 1);
    assert.equal(path.basename(files[0]), 'shared.txt');
    assert.match(fs.readFileSync(files[0], 'utf8'), /^<<<<<<< /m);
    const wt = path.dirname(files[0]);
    fs.writeFileSync(files[0], `${winner}\n${conflicted}\n`);
    execFileSync('git', [...GIT_IDENTITY, 'commit', '-qam', 'resolve the conflict'], { cwd: wt });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');

    const retried = await vscode.commands.executeCommand<Stop | undefined>('ralph.needsYou.retry', conflicted);
    assert.ok(retried, 'Retry resolved to undefined: its run could not start');
    assert.equal(prdStories().find((s) => s.id === conflicted)?.passes, true);
    assert.ok(featureLog().some((l) => l.startsWith(`feat: ${conflicted}`)), featureLog().join('\n'));
    await waitFor('one item left, the badge at 1', () => a.parallelState().needsYou.length === 1 && a.parallelState().badge === 1, 10_000, () => a.parallelState());
    assert.equal(a.parallelState().needsYou[0].storyId, 'US-004');
  });

  test('an agent that hits its usage limit in a parallel run: the status bar counts down, one notification per wait, Resume Now resumes and the story passes (issue 21)', async function () {
    this.timeout(240_000);
    const a = await api();
    // The pretend agent counts its attempts in .git: a count left by an earlier run would skip the limits.
    const attempts = ws('.git', 'fake-agent-attempts');
    fs.rmSync(attempts, { recursive: true, force: true });
    const one = fourStories() as { userStories: unknown[] };
    await onFeatureBranch({ ...one, userStories: one.userStories.slice(0, 1) }, 1);
    // Claude Code's real "Claude AI usage limit reached|<epoch>", its reset 10 minutes ahead: only Resume Now ends the waits in time.
    await useParallelAgent(`FAKE_AGENT_RESET_S=600 FAKE_AGENT_PLAN='${JSON.stringify({ 'US-001': ['limit', 'limit', 'pass'] })}'`, 'par-limit');
    const limitNotices: { message: string; choices: readonly string[] }[] = [];
    // The first wait's notification is closed (Resume Now comes from the status bar); the second's Resume Now is pressed.
    a.answerConfirmations((q) => {
      if (!/hit its limit/.test(q.message)) {
        return undefined;
      }
      limitNotices.push(q);
      return limitNotices.length === 2 ? 'Resume Now' : undefined;
    });
    try {
      const started = Date.now();
      const run = vscode.commands.executeCommand<Stop | undefined>('ralph.parallel.startLoop', 5, 1);
      const shown = await waitFor('the status bar countdown of the parallel wait', () => {
        const bar = a.statusBarSnapshot();
        return /^\$\(watch\) Ralph: limit — resumes in (?:9|10):\d\d$/.test(bar.text) ? bar : undefined;
      }, 90_000, () => a.statusBarSnapshot());
      assert.match(shown.tooltip ?? '', /hit its limit on US-001: it runs again at .*Click to resume now/);
      assert.equal(shown.command, 'ralph.resumeNow');
      // The Task Graph counts the story down on its mark too.
      const graphRun = await waitFor('the graph mark of the waiting story', () => {
        const m = a.taskGraphRunSnapshot() as { stories?: { storyId: string; resumesAt?: number }[] } | undefined;
        return m?.stories?.find((st) => st.storyId === 'US-001' && st.resumesAt !== undefined);
      }, 20_000, () => a.taskGraphRunSnapshot());
      assert.ok((graphRun.resumesAt ?? 0) > Date.now() + 8 * 60_000, `resumes at the reset, ${JSON.stringify(graphRun)}`);
      // A few ticks of the countdown are no new wait: one notification so far.
      const ticked = await waitFor('the countdown to tick', () => (a.statusBarSnapshot().text !== shown.text ? a.statusBarSnapshot().text : undefined), 10_000);
      assert.match(ticked, /resumes in/);
      assert.equal(limitNotices.length, 1, JSON.stringify(limitNotices));
      assert.match(limitNotices[0].message, /^Ralph: .* hit its limit; US-001 runs again at .*, after its reset time\.$/);
      assert.deepEqual(limitNotices[0].choices, ['Resume Now', 'Stop']);

      // A click on the status bar item: its command ends the wait.
      assert.equal(await vscode.commands.executeCommand(shown.command), true);
      const stop = await run;
      assert.ok(stop, 'Start Parallel Loop… resolved to undefined: the run could not start (see the log)');
      assert.ok(Date.now() - started < 5 * 60_000, 'the waits ended before the reset: Resume Now resumed');
      assert.equal(limitNotices.length, 2, `one notification per wait: ${JSON.stringify(limitNotices)}`);
      assert.equal(prdStories()[0].passes, true, stop.message);
      assert.deepEqual(runsJsonl().map((l) => [l.storyId, l.outcome]), [['US-001', 'rate-limited'], ['US-001', 'rate-limited'], ['US-001', 'passed']]);
      assert.doesNotMatch(a.statusBarSnapshot().text, /limit/);
    } finally {
      a.answerConfirmations(undefined);
      fs.rmSync(attempts, { recursive: true, force: true });
    }
  });

  test('Stop All ends the running agents; while they run, their rows show "running"', async () => {
    const a = await api();
    await onFeatureBranch();
    await useParallelAgent('FAKE_AGENT_MODE=hang', 'par-stopall');
    await settings({ 'parallel.maxAgents': 2 });
    const run = vscode.commands.executeCommand<Stop | undefined>('ralph.parallel.startLoop', 10, 2);
    await waitFor('two hanging agents', () => fakeAgentProcesses('par-stopall').length === 2, 60_000, () => a.parallelState());
    const tree = await waitForTree('US-001 and US-002 marked running', (n) => storyState(findStory(n, 'US-001')) === 'running' && storyState(findStory(n, 'US-002')) === 'running', 1, 20_000);
    assert.match(findStory(tree, 'US-001').description ?? '', /^running · 1\/10\b/);
    assert.equal(storyState(findStory(tree, 'US-003')), 'ready', 'no third agent above maxAgents');

    assert.equal(await vscode.commands.executeCommand('ralph.parallel.stopAll'), true);
    const stop = await run;
    assert.ok(stop);
    await waitFor('no fake agent left running', () => fakeAgentProcesses('par-stopall').length === 0, 20_000, () => fakeAgentProcesses('par-stopall'));
    assert.equal(a.parallelState().running, false);
    assert.ok(prdStories().every((s) => !s.passes));
  });

  test('Stop This Agent on a running row ends that story\'s agent only: it needs you, the other agent works on', async () => {
    const a = await api();
    await onFeatureBranch();
    await useParallelAgent('FAKE_AGENT_MODE=hang', 'par-stopone');
    const run = vscode.commands.executeCommand<Stop | undefined>('ralph.parallel.startLoop', 2, 2);
    await waitFor('two hanging agents', () => fakeAgentProcesses('par-stopone').length === 2, 60_000, () => a.parallelState());
    await waitForTree('US-001 and US-002 marked running', (n) => storyState(findStory(n, 'US-001')) === 'running' && storyState(findStory(n, 'US-002')) === 'running', 1, 20_000);

    assert.equal(await vscode.commands.executeCommand('ralph.parallel.stopAgent', 'US-001'), true);
    await waitFor('one fake agent left', () => fakeAgentProcesses('par-stopone').length === 1, 20_000, () => fakeAgentProcesses('par-stopone'));
    await waitFor('US-001 under Needs You as stopped', () => a.parallelState().needsYou.some((i) => i.storyId === 'US-001' && i.why === 'stopped'), 20_000, () => a.parallelState());
    await waitForTree(
      'US-002 still running, US-001 no more and listed under Needs You',
      (n) => storyState(findStory(n, 'US-002')) === 'running' && storyState(findStory(n, 'US-001')) !== 'running' && needsYouNode(n)?.children?.[0]?.label === 'US-001 — you stopped its agent',
      2,
      20_000,
    );
    assert.equal(a.parallelState().running, true, 'the run goes on');

    await vscode.commands.executeCommand('ralph.parallel.stopAll');
    assert.ok(await run);
  });

  test('the Task Graph marks each running story with its own i/N and start; its mark shows that story\'s agent terminal', async () => {
    const a = await api();
    await onFeatureBranch();
    await useParallelAgent('FAKE_AGENT_MODE=hang', 'par-graph');
    await settings({ 'parallel.maxAgents': 2 });
    const before = Date.now();
    const run = vscode.commands.executeCommand<Stop | undefined>('ralph.parallel.startLoop', 10, 2);
    await waitFor('two hanging agents', () => fakeAgentProcesses('par-graph').length === 2, 60_000, () => a.parallelState());

    // What a page receives when it (re)loads: the run status, every running story with its mark.
    const graphRun = async (): Promise<RunState | undefined> => (await a.taskGraphReceive({ type: 'ready' })).replies.find((m): m is RunState => (m as RunState).type === 'run');
    const marked = await waitFor('the graph to mark US-001 and US-002 as running', async () => {
      const m = await graphRun();
      return m && m.stories.length === 2 ? m : undefined;
    }, 20_000, graphRun);
    assert.equal(marked.running, true);
    // i/N: the loop's iterations are counted across its agents, so the two are the 1st and 2nd of 10.
    assert.deepEqual(marked.stories.map((r) => r.storyId).sort(), ['US-001', 'US-002']);
    assert.deepEqual(marked.stories.map((r) => [r.iteration, r.maxIterations]).sort(), [[1, 10], [2, 10]]);
    for (const r of marked.stories) {
      assert.ok(r.startedAt !== undefined && r.startedAt >= before - 1_000 && r.startedAt <= Date.now(), `${r.storyId} started at ${r.startedAt}`);
    }

    // Clicking a mark: that story's terminal becomes the active one, whichever was active before.
    for (const id of ['US-002', 'US-001']) {
      const { rejected, replies } = await a.taskGraphReceive({ type: 'showTerminal', id });
      assert.equal(rejected, false);
      assert.deepEqual(replies, [], `no error for ${id}'s mark`);
      await waitFor(`the terminal of ${id} to be the active one`, () => vscode.window.activeTerminal?.name === `Ralph: ${id} — Story ${id.slice(-1)}`, 10_000, () => vscode.window.activeTerminal?.name);
    }
    // A story no agent works on has no terminal: said in the graph, not a raw error.
    const none = await a.taskGraphReceive({ type: 'showTerminal', id: 'US-003' });
    assert.deepEqual(none.replies.map((m) => (m as { message?: string }).message), ["The terminal of US-003's agent is closed or not in this window."]);
    // A malformed request is refused by validation.
    assert.equal((await a.taskGraphReceive({ type: 'showTerminal', id: 42 })).rejected, true);

    assert.equal(await vscode.commands.executeCommand('ralph.parallel.stopAll'), true);
    await run;
    const after = await waitFor('no mark once the agents stopped', async () => {
      const m = await graphRun();
      return m && m.stories.length === 0 ? m : undefined;
    }, 20_000, graphRun);
    assert.equal(after.running, false);
  });

  test('a serial run holds the workspace run lock: the CLI\'s run is refused meanwhile, and it is free afterwards', async () => {
    const a = await api();
    git('reset', '-q', '--hard');
    git('clean', '-q', '-fd', '-e', '.vscode');
    await useFakeAgent({ mode: 'pass', delayMs: 3000 });
    const run = vscode.commands.executeCommand<unknown>('ralph.runNext');
    await waitFor('the serial run to start its agent', () => a.runnerState().running && a.runnerState().storyId !== undefined, 20_000);
    await assert.rejects(acquireRunLock(root(), 'the ralph-workbench run command'), /Another run is using this workspace \(VS Code/);
    assert.ok(await run, 'the run ended with a result');
    const lock = await acquireRunLock(root(), 'the ralph-workbench run command');
    await lock.release();
  });

  test('a run a crash cut off is offered once on reopening; Needs You lists its worktrees; Remove Worktree refuses one holding commits; Resume merges the finished story and reruns the cut-off ones', async () => {
    const a = await api();
    await onFeatureBranch();
    await useParallelAgent('FAKE_AGENT_MODE=hang', 'par-crash');
    const stateFile = ws('.ralph', 'parallel.json');
    const runsFile = ws('.ralph', 'runs.jsonl');
    const running = () => (fs.existsSync(stateFile) ? (JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { stories: { storyId: string; state: string; worktree: string }[] }).stories.filter((r) => r.state === 'running') : []);
    const run = vscode.commands.executeCommand<Stop | undefined>('ralph.parallel.startLoop', 10, 3);
    await waitFor('three agents at work, recorded running', () => fakeAgentProcesses('par-crash').length === 3 && running().length === 3, 60_000, () => a.parallelState());
    const worktreeOf = Object.fromEntries(running().map((r) => [r.storyId, r.worktree]));

    // The extension host dies here. What it leaves: the state file as it was, runs.jsonl without
    // the lines of the runs cut off, and the run lock of a process that no longer exists. (The
    // run is stopped for real, then its files are put back as the dead host left them.)
    const crashed = fs.readFileSync(stateFile, 'utf8');
    const runsBefore = fs.existsSync(runsFile) ? fs.readFileSync(runsFile, 'utf8') : undefined;
    await vscode.commands.executeCommand('ralph.parallel.stopAll');
    await run;
    await waitFor('no fake agent left running', () => fakeAgentProcesses('par-crash').length === 0, 20_000);
    fs.writeFileSync(stateFile, crashed);
    if (runsBefore === undefined) {
      fs.rmSync(runsFile, { force: true });
    } else {
      fs.writeFileSync(runsFile, runsBefore);
    }
    const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((r) => dead.on('exit', r));
    fs.mkdirSync(ws('.ralph', 'run.lock'), { recursive: true });
    fs.writeFileSync(ws('.ralph', 'run.lock', 'owner.json'), JSON.stringify({ holder: 'VS Code', pid: dead.pid, host: hostname(), since: new Date().toISOString() }));
    // While the window was gone, US-002's agent finished (its commit, passing in its worktree).
    const prompt = path.join(worktreeOf['US-002'], '.ralph', 'crash-prompt.md');
    fs.writeFileSync(prompt, 'Story ID: US-002\n');
    execFileSync(process.execPath, [fakeAgentPath(), prompt], { cwd: worktreeOf['US-002'], env: { ...process.env, FAKE_AGENT_MODE: 'pass', FAKE_AGENT_PLAN: '{"US-002":"pass"}' }, stdio: 'ignore' });
    // And a worktree of the feature branch no record names, with a commit of its own.
    const orphan = path.join(path.dirname(worktreeOf['US-001']), 'US-009');
    git('worktree', 'add', '-q', '-b', `${FEATURE}-US-009`, orphan);
    fs.writeFileSync(path.join(orphan, 'nine.txt'), 'nine\n');
    execFileSync('git', [...GIT_IDENTITY, 'add', 'nine.txt'], { cwd: orphan });
    execFileSync('git', [...GIT_IDENTITY, 'commit', '-qm', 'wip: nine'], { cwd: orphan });
    const perItem = a.parallelState().notifications.length;

    // Reopening: one notification with the counts; the kept worktrees under Needs You.
    const { questions } = await answering(undefined, () => vscode.commands.executeCommand('ralph.parallel.checkInterrupted', workspaceFolder()));
    assert.deepEqual(
      questions.map((q) => [q.message, q.choices]),
      [[`Ralph: a parallel run in ${workspaceFolder().name} was interrupted (2 stories in flight, 1 finished but not merged).`, ['Resume', 'Show Worktrees']]],
    );
    const nodes = await waitForTree('the Needs You node with the four kept worktrees', (n) => needsYouNode(n)?.children?.length === 4, 2);
    assert.deepEqual(
      (needsYouNode(nodes)?.children ?? []).map((r) => r.label).sort(),
      ['US-001 — interrupted, worktree kept, 0 commits not merged', 'US-002 — finished, not merged, 1 commit not merged', 'US-003 — interrupted, worktree kept, 0 commits not merged', 'US-009 — a worktree no run knows, 1 commit not merged'],
    );
    assert.equal(a.parallelState().badge, 4);
    assert.equal(a.parallelState().notifications.length, perItem, 'no notification per kept worktree: the one above tells of them');
    const again = await answering(undefined, () => vscode.commands.executeCommand('ralph.parallel.checkInterrupted', workspaceFolder()));
    assert.deepEqual(again.questions, [], 'one notification, not one per check');

    // The orphan holds a commit the feature branch lacks: not removed, and the user is told how many.
    const refused = await expectCommandError('ralph.needsYou.removeWorktree', () => vscode.commands.executeCommand('ralph.needsYou.removeWorktree', 'US-009'));
    assert.match(refused, /has 1 commit\(s\) not on ralph\/parallel-host .*Removing it would lose that work/);
    assert.ok(fs.existsSync(path.join(orphan, 'nine.txt')));

    // Resume: US-002 merges as it is (its agent not run again), US-001 and US-003 run again in their worktrees, then US-004.
    await useParallelAgent(`FAKE_AGENT_PLAN='${JSON.stringify({ 'US-001': 'pass', 'US-002': 'pass', 'US-003': 'pass', 'US-004': 'pass' })}'`, 'par-resume');
    const stop = await vscode.commands.executeCommand<Stop | undefined>('ralph.parallel.resume', workspaceFolder());
    assert.ok(stop, 'Resume resolved to undefined: the run could not start (see the log)');
    assert.ok(prdStories().every((s) => s.passes), JSON.stringify(prdStories()));
    const log = featureLog();
    for (const id of ['US-001', 'US-002', 'US-003', 'US-004']) {
      assert.equal(log.filter((l) => l.startsWith(`feat: ${id} `)).length, 1, log.join('\n'));
    }
    assert.deepEqual(runsJsonl().map((l) => l.storyId).sort(), ['US-001', 'US-003', 'US-004']);
    await waitFor('only the orphan left under Needs You', () => a.parallelState().needsYou.map((i) => i.storyId).join() === 'US-009', 10_000, () => a.parallelState());
    assert.ok(!fs.existsSync(ws('.ralph', 'run.lock')), 'the run lock was released');
  });
});
