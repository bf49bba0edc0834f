/**
 * Agent iterations in the real extension host (issue 3): the run commands drive the fake agent
 * (test/fixtures/fake-agent.mjs) in real terminals on a git working copy of the demo; every test
 * checks what a user would see afterwards on disk (prd.json, progress.txt, .ralph/runs.jsonl,
 * archive/, git) and what the command resolved to. The working copy is restored after each test.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, waitFor, waitForTree, workspaceFolder } from './helpers';
import { log } from './log';
import {
  ensureGitWorkspace,
  expectedRunOrder,
  fakeAgentPath,
  fakeAgentProcesses,
  git,
  GIT_IDENTITY,
  median,
  type Pristine,
  prdStories,
  ralphTerminals,
  readJson,
  resetSettings,
  restoreWorkspace,
  runCommand,
  runsJsonl,
  stopAndCloseTerminals,
  today,
  useCustomPrd,
  useFakeAgent,
  watchTerminals,
  ws,
} from './runHelpers';

const US006_TERMINAL = 'Ralph: US-006 — Sort tasks by priority';

/** Untracked or modified paths other than the workspace settings this suite writes. */
function dirtyPaths(): string[] {
  return git('status', '--porcelain')
    .split('\n')
    .filter((l) => l !== '' && !/^\?\? \.vscode\/$/.test(l));
}

function assertOnlyPassesChanged(before: string, ids: readonly string[]): void {
  const b = JSON.parse(before) as { userStories: { id: string; passes: boolean }[] };
  const after = readJson<{ userStories: { id: string; passes: boolean }[] }>('prd.json');
  for (const s of b.userStories) {
    s.passes = s.passes || ids.includes(s.id);
  }
  assert.deepEqual(after, b, `prd.json should differ from before only in "passes" of ${ids.join(', ')}`);
}

suite('agent iterations (run commands, loop rules, runs.jsonl) with the fake agent', function () {
  this.timeout(60_000);
  let pristine: Pristine;
  let movedGit: string | undefined;

  suiteSetup(async () => {
    await api();
    pristine = ensureGitWorkspace();
    assert.equal(pristine.baseBranch, 'main', 'the demo copy should be committed on main');
    assert.ok(fs.existsSync(fakeAgentPath()), `fake agent not found at ${fakeAgentPath()}`);
  });

  /** Questions about a dirty working tree asked during the test (a test that expects one answers it). */
  let dirtyQuestions: string[][] = [];
  setup(async () => {
    dirtyQuestions = [];
    await answerDirtyTree(undefined);
  });

  /**
   * Answers the question asked before a run on a dirty working tree (through the confirmation seam)
   * with `choice` (undefined: the user closed it), and records the paths it named.
   */
  async function answerDirtyTree(choice: 'Commit First…' | 'Stash and Run' | 'Run Anyway' | undefined): Promise<void> {
    (await api()).answerConfirmations((q) => {
      const named = /has uncommitted changes \((.*)\)\. The agent commits/.exec(q.message);
      if (!named) {
        return undefined;
      }
      dirtyQuestions.push(named[1].split(', '));
      return choice;
    });
  }

  teardown(async function () {
    this.timeout(60_000);
    const unexpected = this.currentTest?.title.includes('dirty') ? [] : dirtyQuestions;
    (await api()).answerConfirmations(undefined);
    await stopAndCloseTerminals();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (movedGit) {
      fs.renameSync(movedGit, ws('.git'));
      movedGit = undefined;
    }
    await resetSettings();
    await restoreWorkspace(pristine);
    assert.deepEqual(unexpected, [], 'no test but the dirty-tree ones should be asked about uncommitted changes');
  });

  suiteTeardown(async () => {
    await resetSettings();
    await restoreWorkspace(pristine, { keepSettings: false });
  });

  test('"Run next ready story" runs US-006 in a terminal named after it and records one correct runs.jsonl line', async () => {
    await useFakeAgent({ mode: 'pass' });
    const a = await api();
    let seenName: string | undefined;
    const { value: result, opened, ms } = await watchTerminals(async () => {
      const p = vscode.commands.executeCommand<unknown>('ralph.runNext');
      // While it runs, the runner says which story and terminal.
      const state = await waitFor('the runner to report a running iteration with its terminal', () => {
        const s = a.runnerState();
        return s.running && s.terminalName ? s : undefined;
      }, 20_000);
      seenName = state.terminalName;
      assert.equal(state.storyId, 'US-006');
      assert.equal(state.iteration, 1);
      assert.equal(state.maxIterations, 1);
      return p;
    });
    const r = result as Awaited<ReturnType<typeof runCommand>> | undefined;
    assert.ok(r, 'ralph.runNext resolved to undefined (an error was shown)');
    log(`      command → terminal opened: ${Math.round(opened[0]?.atMs ?? NaN)} ms; whole iteration: ${Math.round(ms)} ms`);

    assert.equal(seenName, US006_TERMINAL);
    assert.deepEqual(opened.map((o) => o.name), [US006_TERMINAL], 'exactly one terminal, named after the story');
    assert.equal(a.runnerState().running, false, 'the runner should be idle once the command resolved');
    assert.equal(r.stop.reason, 'max-iterations', r.stop.message);
    assert.equal(r.iterations.length, 1);
    assert.equal(r.iterations[0].outcome, 'passed');
    assert.equal(r.iterations[0].progress, true);
    assert.equal(r.iterations[0].falseComplete, false);

    // prd.json: only US-006 changed, to passing.
    assert.equal(prdStories().find((s) => s.id === 'US-006')?.passes, true);
    assertOnlyPassesChanged(pristine.prd, ['US-006']);
    const progress = fs.readFileSync(ws('progress.txt'), 'utf8');
    assert.ok(progress.startsWith(pristine.progress), 'progress.txt should only have been appended to');
    assert.match(progress.slice(pristine.progress.length), /## \d{4}-\d\d-\d\d \d\d:\d\d - US-006\n/);

    // Exactly one correct line in runs.jsonl.
    const runs = runsJsonl();
    assert.equal(runs.length, 1, `runs.jsonl: ${JSON.stringify(runs)}`);
    const run = runs[0];
    assert.equal(run.storyId, 'US-006');
    assert.equal(run.storyTitle, 'Sort tasks by priority');
    assert.equal(run.agent, 'node', 'a command line of the user\'s own is recorded under its program');
    assert.equal(run.exitCode, 0);
    assert.equal(run.outcome, 'passed');
    assert.equal(run.passingBefore, 4);
    assert.equal(run.passingAfter, 5);
    assert.equal(run.storyPasses, true);
    assert.equal(run.complete, false);
    assert.equal(run.iteration, 1);
    assert.ok(run.commit, 'the feat commit should be recorded');
    assert.ok(run.commit.subject.startsWith('feat: US-006'), `commit subject: ${run.commit.subject}`);
    assert.equal(run.commit.subject, 'feat: US-006 - Sort tasks by priority');
    assert.equal(run.commit.sha, git('rev-parse', 'HEAD'));
    const start = Date.parse(run.start);
    const end = Date.parse(run.end);
    assert.ok(Number.isFinite(start) && Number.isFinite(end) && end >= start, `start ${run.start}, end ${run.end}`);
    assert.equal(run.durationMs, end - start);
    assert.ok(!Number.isNaN(Date.parse(run.loopId)), `loopId: ${run.loopId}`);
    assert.match(run.promptFile, /^\.ralph\/prompts\/\d{8}-\d{6}-US-006\.md$/);
    const prompt = fs.readFileSync(ws(run.promptFile), 'utf8');
    assert.match(prompt, /^Story ID: US-006$/m);

    // git: the PRD's branch was created from main and holds the story's commit; nothing left over.
    assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD'), 'ralph/task-priority');
    assert.equal(git('log', '-1', '--format=%s'), 'feat: US-006 - Sort tasks by priority');
    assert.equal(git('rev-parse', 'HEAD~1'), pristine.baseSha, 'the branch starts at main');
    assert.deepEqual(dirtyPaths(), [], '.ralph/ ignores itself and the agent committed its changes');
    assert.equal(fs.readFileSync(ws('.ralph', 'last-branch'), 'utf8').trim(), 'ralph/task-priority');

    // The Stories tree follows: US-005 is next.
    await waitForTree('US-005 to be next after US-006 passed', (n) => /^US-005 · /.test(n[0]?.label ?? ''));
  });

  test('a loop completes the blocked chain in dependency order and stops because every story passes; the Runs view lists it newest first', async function () {
    this.timeout(120_000);
    await useFakeAgent({ mode: 'pass' });
    const stories = prdStories();
    const expected = expectedRunOrder(stories);
    assert.deepEqual(expected, ['US-006', 'US-005', 'US-007', 'US-008', 'US-009', 'US-010', 'US-011', 'US-012'], 'the demo order the rules give');

    // When shell integration becomes available in each agent terminal (the command is sent then).
    const integrated = new Map<vscode.Terminal, number>();
    const execStart = new Map<vscode.Terminal, number>();
    const execEnd = new Map<vscode.Terminal, number>();
    const subs = [
      vscode.window.onDidChangeTerminalShellIntegration((e) => {
        if (!integrated.has(e.terminal)) {
          integrated.set(e.terminal, performance.now());
        }
      }),
      vscode.window.onDidStartTerminalShellExecution((e) => void execStart.set(e.terminal, performance.now())),
      vscode.window.onDidEndTerminalShellExecution((e) => void execEnd.set(e.terminal, performance.now())),
    ];
    const sub = { dispose: () => subs.forEach((d) => d.dispose()) };
    const t0 = performance.now();
    const { value: r, opened, ms } = await watchTerminals(() => runCommand('ralph.startLoop', 20)).finally(() => sub.dispose());
    assert.equal(r.stop.reason, 'all-pass', r.stop.message);
    assert.match(r.stop.message, /every story passes \(12\/12\)/);
    assert.equal(r.iterations.length, 8);
    assert.deepEqual(r.iterations.map((i) => i.outcome), Array(8).fill('passed'));
    assert.deepEqual(r.iterations.map((i) => i.iteration), [1, 2, 3, 4, 5, 6, 7, 8]);

    const runs = runsJsonl();
    const order = runs.map((x) => x.storyId);
    assert.deepEqual(order, expected, 'runs.jsonl order');
    // Every story ran after all of its blockers.
    for (const s of stories.filter((x) => !x.passes)) {
      for (const b of s.blockedBy ?? []) {
        const blocker = stories.find((x) => x.id === b);
        if (blocker?.passes) {
          continue;
        }
        assert.ok(order.indexOf(b) < order.indexOf(s.id), `${s.id} ran before its blocker ${b}: ${order.join(' → ')}`);
      }
    }
    assert.deepEqual(runs.map((x) => [x.passingBefore, x.passingAfter]), expected.map((_, i) => [4 + i, 5 + i]));
    assert.deepEqual(runs.map((x) => x.iteration), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(new Set(runs.map((x) => x.loopId)).size, 1, 'one loop id for the whole loop');
    assert.ok(runs.every((x) => x.outcome === 'passed' && x.exitCode === 0 && x.storyPasses));
    assert.deepEqual(runs.map((x) => x.complete), [false, false, false, false, false, false, false, true], 'COMPLETE only when every story passes');
    assert.deepEqual(runs.map((x) => x.commit?.subject), expected.map((id) => `feat: ${id} - ${stories.find((s) => s.id === id)?.title}`));
    assert.deepEqual(new Set(runs.map((x) => x.promptFile)).size, 8, 'one prompt file per iteration');
    assert.deepEqual(git('log', '--format=%s', `${pristine.baseSha}..HEAD`).split('\n').reverse(), runs.map((x) => x.commit?.subject));
    assert.ok(prdStories().every((s) => s.passes));
    assert.deepEqual(opened.map((o) => o.name.replace(/ — .*/, '')), expected.map((id) => `Ralph: ${id}`), 'one terminal per iteration, named after its story');

    // The Runs view: the summary first, then the iterations newest first.
    const a = await api();
    const snap = await waitFor('the Runs view to list 8 runs', async () => {
      const s = await a.runsSnapshot();
      return s.filter((n) => n.contextValue?.startsWith('run ')).length === 8 ? s : undefined;
    });
    assert.equal(snap[0].contextValue, 'runsSummary');
    assert.match(snap[0].label, /^8 iterations · 8 stories completed · 100% success · avg \S+$/);
    const runNodes = snap.slice(1, 9);
    assert.deepEqual(runNodes.map((n) => n.label.split(':')[0]), [...expected].reverse(), 'newest first');
    assert.ok(runNodes.every((n) => n.icon === 'pass-filled' && /^story passes · /.test(n.description ?? '')), JSON.stringify(runNodes));

    // Figures: time from command to the first terminal, and the harness's overhead per iteration.
    const agentMs = timeFakeAgentAlone(expected, pristine);
    const perIteration = ms / runs.length;
    const terminalPhase = median(runs.map((x) => x.durationMs));
    const gaps = runs.slice(1).map((x, i) => Date.parse(x.start) - Date.parse(runs[i].end));
    log(`      loop of ${runs.length}: ${Math.round(ms)} ms; command → first terminal ${Math.round(opened[0].atMs)} ms`);
    log(`      per iteration: wall ${Math.round(perIteration)} ms (terminal phase median ${Math.round(terminalPhase)} ms, between iterations median ${Math.round(median(gaps))} ms); fake agent alone median ${Math.round(agentMs)} ms`);
    const shellReady = opened.filter((o) => integrated.has(o.terminal)).map((o) => (integrated.get(o.terminal) ?? 0) - t0 - o.atMs);
    const phase = (from: Map<vscode.Terminal, number> | undefined, to: Map<vscode.Terminal, number>): number =>
      median(opened.filter((o) => to.has(o.terminal) && (!from || from.has(o.terminal))).map((o) => (to.get(o.terminal) ?? 0) - (from ? from.get(o.terminal) ?? 0 : t0 + o.atMs)));
    log(`      terminal open → shell integration ready: median ${Math.round(median(shellReady))} ms (${shellReady.length}/${opened.length} terminals)`);
    log(`      shell integration → command started ${Math.round(phase(integrated, execStart))} ms; command started → ended (agent in the terminal) ${Math.round(phase(execStart, execEnd))} ms`);
    log(`      harness overhead per iteration ≈ ${Math.round(perIteration - agentMs)} ms (wall − agent alone)`);
  });

  test('an agent that claims COMPLETE too early does not stop the loop: false completions are recorded and the loop goes on', async () => {
    await useCustomPrd(
      {
        projectName: 'Tiny',
        branchName: 'ralph/tiny',
        description: 'Three stories',
        userStories: [
          { id: 'T-1', title: 'First', priority: 1, passes: false, description: 'one', acceptanceCriteria: ['a'] },
          { id: 'T-2', title: 'Second', priority: 2, passes: false, description: 'two', acceptanceCriteria: ['b'], blockedBy: ['T-1'] },
          { id: 'T-3', title: 'Third', priority: 3, passes: false, description: 'three', acceptanceCriteria: ['c'] },
        ],
      },
      3,
    );
    await useFakeAgent({ mode: 'early-complete' });
    const r = await runCommand('ralph.startLoop', 10);
    assert.equal(r.stop.reason, 'all-pass', r.stop.message);
    assert.deepEqual(r.iterations.map((i) => i.outcome), ['false-complete', 'false-complete', 'passed']);
    assert.deepEqual(r.iterations.map((i) => i.falseComplete), [true, true, false]);
    assert.ok(r.iterations[0].notes.some((n) => /^False completion: .*1\/3 pass.*the loop goes on/.test(n)), JSON.stringify(r.iterations[0].notes));
    const runs = runsJsonl();
    assert.deepEqual(runs.map((x) => x.storyId), ['T-1', 'T-2', 'T-3']);
    assert.deepEqual(runs.map((x) => x.outcome), ['false-complete', 'false-complete', 'passed']);
    assert.deepEqual(runs.map((x) => x.complete), [true, true, true]);
    assert.deepEqual(runs.map((x) => x.passingAfter), [1, 2, 3]);
    assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD'), 'ralph/tiny');
  });

  test('an agent that hits its usage limit: the status bar counts down to the printed reset, then the story runs again and passes (issue 21)', async function () {
    this.timeout(120_000);
    // The pretend agent counts its attempts in .git: a count left by an earlier run would skip the limit.
    const attempts = ws('.git', 'fake-agent-attempts');
    fs.rmSync(attempts, { recursive: true, force: true });
    try {
      // Claude Code's real message, "Claude AI usage limit reached|<epoch>", with a reset 4 s ahead, then a pass.
      const command = `FAKE_AGENT_RESET_S=4 FAKE_AGENT_PLAN='{"US-006": ["limit", "pass"]}' node "${fakeAgentPath()}" \${promptFile}`;
      const c = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
      await c.update('agent.preset', 'custom', vscode.ConfigurationTarget.Workspace);
      await c.update('agent.command', command, vscode.ConfigurationTarget.Workspace);
      const a = await api();
      const done = vscode.commands.executeCommand<Awaited<ReturnType<typeof runCommand>> | undefined>('ralph.runNext');
      const shown = await waitFor('the status bar countdown', () => {
        const text = a.statusBarSnapshot().text;
        return /^\$\(watch\) Ralph: limit — resumes in 0:0\d$/.test(text) ? text : undefined;
      }, 60_000, () => a.statusBarSnapshot());
      log(`      status bar while waiting: ${shown}`);
      const r = await done;
      assert.ok(r, 'ralph.runNext resolved to undefined (an error was shown)');
      assert.deepEqual(r.iterations.map((i) => i.outcome), ['rate-limited', 'passed'], r.stop.message);
      const runs = runsJsonl();
      assert.deepEqual(runs.map((x) => [x.storyId, x.outcome]), [['US-006', 'rate-limited'], ['US-006', 'passed']]);
      assert.ok(runs[0].resetAt && Date.parse(runs[1].start) >= Date.parse(runs[0].resetAt), `${runs[0].resetAt} → ${runs[1].start}`);
      assert.equal(prdStories().find((x) => x.id === 'US-006')?.passes, true);
      assert.doesNotMatch(a.statusBarSnapshot().text, /limit/);
    } finally {
      fs.rmSync(attempts, { recursive: true, force: true });
    }
  });

  test('ralph.agent.maxLimitedInARow: a loop whose agent keeps hitting its limit stops with its own reason and says when the agent said it resets (issue 21)', async function () {
    this.timeout(120_000);
    const attempts = ws('.git', 'fake-agent-attempts');
    fs.rmSync(attempts, { recursive: true, force: true });
    const c = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
    try {
      // limited every time, the reset an hour ahead: with the breaker at 1 the loop never waits
      const command = `FAKE_AGENT_RESET_S=3600 FAKE_AGENT_PLAN='{"US-006": ["limit", "limit"]}' node "${fakeAgentPath()}" \${promptFile}`;
      await c.update('agent.preset', 'custom', vscode.ConfigurationTarget.Workspace);
      await c.update('agent.command', command, vscode.ConfigurationTarget.Workspace);
      await c.update('agent.maxLimitedInARow', 1, vscode.ConfigurationTarget.Workspace);
      const r = await runCommand('ralph.startLoop', 5);
      assert.equal(r.stop.reason, 'rate-limit', r.stop.message);
      assert.match(r.stop.message, /^Stopped: the agent hit its usage or rate limit in 1 run in a row \(last: US-006; it said the limit resets at \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
      assert.deepEqual(runsJsonl().map((x) => x.outcome), ['rate-limited']);
    } finally {
      await c.update('agent.maxLimitedInARow', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(attempts, { recursive: true, force: true });
    }
  });

  test('the no-progress breaker stops a stuck loop after 2 iterations', async () => {
    await useFakeAgent({ mode: 'no-progress' });
    const r = await runCommand('ralph.startLoop', 10);
    assert.equal(r.stop.reason, 'no-progress', r.stop.message);
    assert.match(r.stop.message, /no story turned to passing in 2 consecutive iterations/);
    assert.equal(r.iterations.length, 2);
    const runs = runsJsonl();
    assert.deepEqual(runs.map((x) => [x.storyId, x.outcome, x.exitCode, x.passingBefore, x.passingAfter, x.commit]), [
      ['US-006', 'no-progress', 0, 4, 4, null],
      ['US-006', 'no-progress', 0, 4, 4, null],
    ]);
    assert.equal(fs.readFileSync(ws('prd.json'), 'utf8'), pristine.prd, 'prd.json unchanged');
    assert.equal(git('rev-parse', 'HEAD'), pristine.baseSha, 'no commit');
  });

  test('the failures breaker stops after 2 consecutive non-zero exits', async () => {
    await useFakeAgent({ mode: 'fail' });
    const r = await runCommand('ralph.startLoop', 10);
    assert.equal(r.stop.reason, 'failures', r.stop.message);
    assert.match(r.stop.message, /exited with an error in 2 consecutive iterations \(last: exit code 3 on US-006\)/);
    assert.deepEqual(r.iterations.map((i) => i.outcome), ['failed', 'failed']);
    assert.deepEqual(runsJsonl().map((x) => [x.storyId, x.outcome, x.exitCode]), [
      ['US-006', 'failed', 3],
      ['US-006', 'failed', 3],
    ]);
    assert.equal(fs.readFileSync(ws('prd.json'), 'utf8'), pristine.prd, 'prd.json unchanged');
  });

  test('"Stop after this iteration" lets the running iteration finish and starts no other', async () => {
    await useFakeAgent({ mode: 'pass', delayMs: 3000 });
    const a = await api();
    const loop = runCommand('ralph.startLoop', 20);
    await waitFor('the first iteration to be running', () => a.runnerState().running && a.runnerState().terminalName !== undefined, 20_000);
    const t0 = performance.now();
    assert.equal(await vscode.commands.executeCommand('ralph.stopAfterIteration'), true);
    assert.equal(a.runnerState().running, true, 'the iteration goes on after the request');
    const r = await loop;
    log(`      stop requested → loop ended ${Math.round(performance.now() - t0)} ms later (agent delay 3000 ms)`);
    assert.equal(r.stop.reason, 'stop-requested', r.stop.message);
    assert.match(r.stop.message, /stop after the current iteration; 1 iteration ran/);
    assert.equal(r.iterations.length, 1);
    assert.equal(r.iterations[0].outcome, 'passed', 'the running iteration finished normally');
    const runs = runsJsonl();
    assert.deepEqual(runs.map((x) => [x.storyId, x.outcome, x.exitCode]), [['US-006', 'passed', 0]]);
    assert.equal(prdStories().find((s) => s.id === 'US-005')?.passes, false, 'no second iteration ran');
    assert.equal(a.runnerState().running, false);
    assert.equal(ralphTerminals().length, 1);
  });

  test('"Stop now" ends an agent that never exits; the run is recorded as stopped', async () => {
    const ready = path.join(os.tmpdir(), `ralph-hang-ready-${process.pid}-${Date.now()}`);
    await useFakeAgent({ mode: 'hang', readyFile: ready });
    const a = await api();
    const loop = runCommand('ralph.startLoop', 5);
    await waitFor('the first iteration to be running', () => a.runnerState().running && a.runnerState().terminalName !== undefined, 20_000);
    // Wait until the agent process itself runs (the prompt file is on its command line).
    const promptDir = ws('.ralph', 'prompts');
    await waitFor('the hanging fake agent process to start', () => fakeAgentProcesses(promptDir).length > 0, 20_000);
    await waitFor('the fake agent to report that it waits forever', () => fs.existsSync(ready), 20_000);
    fs.rmSync(ready);
    const t0 = performance.now();
    assert.equal(await vscode.commands.executeCommand('ralph.stopNow'), true);
    const r = await loop;
    log(`      "Stop now" → loop ended ${Math.round(performance.now() - t0)} ms later`);
    assert.equal(r.stop.reason, 'stop-requested', r.stop.message);
    assert.match(r.stop.message, /you stopped the loop/);
    assert.deepEqual(r.iterations.map((i) => i.outcome), ['stopped']);
    const runs = runsJsonl();
    assert.deepEqual(runs.map((x) => [x.storyId, x.outcome, x.exitCode, x.storyPasses]), [['US-006', 'stopped', null, false]]);
    await waitFor('no fake agent process left', () => fakeAgentProcesses(promptDir).length === 0, 10_000, () => fakeAgentProcesses(promptDir));
    assert.equal(fs.readFileSync(ws('prd.json'), 'utf8'), pristine.prd, 'prd.json unchanged');
    assert.equal(a.runnerState().running, false);
  });

  test('a branch change archives the previous run and starts a fresh progress.txt', async () => {
    await useFakeAgent({ mode: 'pass' });
    fs.mkdirSync(ws('.ralph'), { recursive: true });
    fs.writeFileSync(ws('.ralph', 'last-branch'), 'ralph/old-feature\n');
    const r = await runCommand('ralph.runNext');
    assert.equal(r.iterations.length, 1, r.stop.message);
    assert.equal(r.iterations[0].outcome, 'passed');

    const archive = ws('archive', `${today()}-old-feature`);
    assert.ok(fs.existsSync(archive), `${archive} should exist; archive/ has ${fs.existsSync(ws('archive')) ? fs.readdirSync(ws('archive')).join(', ') : 'nothing'}`);
    assert.deepEqual(fs.readdirSync(archive).sort(), ['prd.json', 'progress.txt']);
    assert.equal(fs.readFileSync(path.join(archive, 'prd.json'), 'utf8'), pristine.prd, 'the archived prd.json is the one before the run');
    assert.equal(fs.readFileSync(path.join(archive, 'progress.txt'), 'utf8'), pristine.progress, 'the archived progress.txt is the previous one');

    const progress = fs.readFileSync(ws('progress.txt'), 'utf8');
    assert.match(progress, /^# Ralph Progress Log\nStarted: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n---\n/, 'a fresh progress.txt');
    assert.ok(!progress.includes('## Codebase Patterns'), 'the previous feature\'s entries are not in the fresh progress.txt');
    assert.match(progress, /## \d{4}-\d\d-\d\d \d\d:\d\d - US-006\n/, 'the new iteration appended its entry');
    assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD'), 'ralph/task-priority');
    assert.equal(fs.readFileSync(ws('.ralph', 'last-branch'), 'utf8').trim(), 'ralph/task-priority');
    assert.equal(git('log', '-1', '--format=%s'), 'feat: US-006 - Sort tasks by priority');
    const runs = runsJsonl();
    assert.equal(runs.length, 1);
    assert.equal(runs[0].commit?.subject, 'feat: US-006 - Sort tasks by priority');

    // The Runs view lists the archive.
    const snap = await (await api()).runsSnapshot();
    const archives = snap.find((n) => n.contextValue === 'archives');
    assert.ok(archives, `no Archives node: ${JSON.stringify(snap)}`);
    assert.equal(archives.description, '1 previous feature');
  });

  test('a dirty working tree: the user is asked before any run; Cancel runs nothing and archives nothing', async () => {
    await useFakeAgent({ mode: 'pass' });
    fs.mkdirSync(ws('.ralph'), { recursive: true });
    fs.writeFileSync(ws('.ralph', 'last-branch'), 'ralph/old-feature\n');
    fs.appendFileSync(ws('README.md'), '\nlocal edit\n');
    fs.writeFileSync(ws('NOTES.md'), 'an untracked file the agent\'s git add -A would sweep in\n');
    const { value: r, opened } = await watchTerminals(() => runCommand('ralph.runNext'));
    assert.deepEqual(dirtyQuestions.map((l) => [...l].sort()), [['NOTES.md', 'README.md']], 'asked once, about README.md and NOTES.md (.ralph/ never counts)');
    assert.equal(r.stop.reason, 'cancelled', r.stop.message);
    assert.deepEqual(opened, [], 'no agent terminal');
    assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD'), 'main', 'no checkout');
    assert.equal(fs.existsSync(ws('archive')), false, 'nothing archived');
    assert.equal(fs.readFileSync(ws('progress.txt'), 'utf8'), pristine.progress, 'progress.txt untouched');
    assert.equal(fs.readFileSync(ws('.ralph', 'last-branch'), 'utf8'), 'ralph/old-feature\n', 'the last branch is still the old one');
    assert.deepEqual(runsJsonl(), []);
    assert.equal((await api()).runnerState().running, false);
    // A loop asks too.
    const loop = await runCommand('ralph.startLoop', 3);
    assert.equal(loop.stop.reason, 'cancelled');
    assert.equal(dirtyQuestions.length, 2);
  });

  test('a dirty working tree: Run anyway proceeds, and what the agent left uncommitted is recorded and shown', async () => {
    await useFakeAgent({ mode: 'pass' });
    fs.appendFileSync(ws('README.md'), '\nlocal edit\n');
    await answerDirtyTree('Run Anyway');
    const r = await runCommand('ralph.runNext');
    assert.deepEqual(dirtyQuestions, [['README.md']]);
    assert.deepEqual(r.iterations.map((i) => i.outcome), ['passed'], r.stop.message);
    const runs = runsJsonl();
    assert.equal(runs.length, 1);
    assert.deepEqual(runs[0].uncommitted, ['README.md'], 'the change the agent did not commit is in its runs.jsonl line');
    assert.equal(git('log', '-1', '--format=%s'), 'feat: US-006 - Sort tasks by priority');
    const snap = await waitFor('the Runs view to show the run', async () => {
      const s = await (await api()).runsSnapshot();
      return s.find((n) => n.contextValue?.startsWith('run ')) ?? undefined;
    });
    assert.match(snap.description ?? '', /1 uncommitted/);
  });

  test('a dirty working tree: Stash and run stashes the edits (not .ralph/) and the agent\'s commit holds only its own changes', async () => {
    await useFakeAgent({ mode: 'pass' });
    fs.appendFileSync(ws('README.md'), '\nlocal edit\n');
    await answerDirtyTree('Stash and Run');
    const r = await runCommand('ralph.runNext');
    assert.deepEqual(r.iterations.map((i) => i.outcome), ['passed'], r.stop.message);
    assert.deepEqual(git('show', '--name-only', '--format=', 'HEAD').split('\n').sort(), ['prd.json', 'progress.txt']);
    assert.match(git('stash', 'list'), /ralph: uncommitted changes before the run/);
    assert.deepEqual(runsJsonl()[0].uncommitted, undefined);
    git('stash', 'drop');
  });

  test('an invalid prd.json: no agent runs, the result says invalid-prd', async () => {
    await useFakeAgent({ mode: 'pass' });
    fs.writeFileSync(ws('prd.json'), '{\n  "branchName": "ralph/task-priority",\n  "userStories": [\n    { "id": "US-1", "title": \n');
    await waitForTree('the tree to show the problems of prd.json', (n) => n.some((x) => /problems? in prd\.json/.test(x.label)));
    const { value: r, opened } = await watchTerminals(() => runCommand('ralph.runNext'));
    assert.equal(r.stop.reason, 'invalid-prd', r.stop.message);
    assert.match(r.stop.message, /no agent was run/);
    assert.ok(r.stop.details.length > 0 && r.stop.details.every((d) => /^prd\.json:\d+:\d+: /.test(d)), JSON.stringify(r.stop.details));
    assert.equal(r.iterations.length, 0);
    assert.deepEqual(opened.map((o) => o.name), [], 'no terminal');
    assert.deepEqual(runsJsonl(), []);
    assert.equal(fs.existsSync(ws('.ralph', 'prompts')), false, 'no prompt written');
    assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD'), 'main', 'no branch switch');
  });

  test('no prd.json: "Start loop" stops with prd-missing and runs nothing', async () => {
    await useFakeAgent({ mode: 'pass' });
    fs.rmSync(ws('prd.json'));
    await waitForTree('the tree to empty', (n) => n.length === 0);
    const { value: r, opened } = await watchTerminals(() => runCommand('ralph.startLoop', 3, workspaceFolder().uri));
    assert.equal(r.stop.reason, 'prd-missing', r.stop.message);
    assert.equal(r.iterations.length, 0);
    assert.deepEqual(opened, []);
    assert.deepEqual(runsJsonl(), []);
  });

  test('an agent that deletes prd.json: the iteration is recorded as an error and the loop stops with prd-missing', async () => {
    await useFakeAgent({ mode: 'delete-prd' });
    const r = await runCommand('ralph.startLoop', 5);
    assert.equal(r.stop.reason, 'prd-missing', r.stop.message);
    assert.match(r.stop.message, /does not exist any more/);
    assert.deepEqual(r.iterations.map((i) => i.outcome), ['error']);
    assert.deepEqual(runsJsonl().map((x) => [x.storyId, x.outcome, x.exitCode, x.passingBefore]), [['US-006', 'error', 0, 4]]);
  });

  test('without a git repository runs still work; git steps are skipped and no commit is recorded', async () => {
    await useFakeAgent({ mode: 'pass' });
    movedGit = path.join(path.dirname(ws()), `git-backup-${process.pid}`);
    fs.renameSync(ws('.git'), movedGit);
    const r = await runCommand('ralph.runNext');
    assert.deepEqual(r.iterations.map((i) => i.outcome), ['passed'], r.stop.message);
    assert.ok(r.iterations[0].notes.every((n) => !/no "feat: US-006/.test(n)), `git was not checked, so a missing commit is no finding: ${JSON.stringify(r.iterations[0].notes)}`);
    const runs = runsJsonl();
    assert.deepEqual(runs.map((x) => [x.storyId, x.outcome, x.exitCode, x.commit]), [['US-006', 'passed', 0, null]]);
    assert.equal(prdStories().find((s) => s.id === 'US-006')?.passes, true);
    assert.equal(fs.existsSync(ws('.git')), false, 'no repository was created');
  });

  test('with ralph.progress.autoCompact, a long progress.txt is compacted (original saved, action logged) before the iteration', async () => {
    await useFakeAgent({ mode: 'pass' });
    const original = fs.readFileSync(ws('progress.txt'), 'utf8');
    let long = original;
    for (let i = 0; i < 60; i++) {
      long += `\n## 2026-11-1${i % 9} 10:${String(i % 60).padStart(2, '0')} - US-00${1 + (i % 4)}\n- Iteration ${i}\n- Files changed: src/gen/f${i}.ts\n- **Learnings for future iterations:**\n  - Auto learning ${i}\n---\n`;
    }
    fs.writeFileSync(ws('progress.txt'), long);
    git('add', 'progress.txt');
    git(...GIT_IDENTITY, 'commit', '-q', '-m', 'long progress.txt');
    await vscode.workspace.getConfiguration('ralph', workspaceFolder().uri).update('progress.autoCompact', true, vscode.ConfigurationTarget.Workspace);

    const r = await runCommand('ralph.runNext');
    assert.deepEqual(r.iterations.map((i) => i.outcome), ['passed'], r.stop.message);
    const log = fs.readFileSync(ws('.ralph/compaction.log'), 'utf8').trim().split('\n');
    assert.equal(log.length, 1, `one compaction logged: ${JSON.stringify(log)}`);
    const saved = fs.readdirSync(ws('.ralph/archive')).filter((f) => f.startsWith('progress-'));
    assert.equal(saved.length, 1);
    assert.equal(fs.readFileSync(ws('.ralph/archive', saved[0]), 'utf8'), long, 'the saved original is byte-identical');
    const after = fs.readFileSync(ws('progress.txt'), 'utf8');
    assert.match(after, /^## Compacted history/m);
    assert.ok(after.split('\n').length < long.split('\n').length, 'progress.txt is shorter');
    for (let i = 0; i < 60; i++) {
      assert.ok(after.includes(`Auto learning ${i}`), `learning ${i} kept`);
    }
    assert.match(after.trimEnd().split('\n---').slice(-2).join('\n'), /US-006/, "the agent's own entry follows the compaction");
  });

  test('a line an agent stalled past auto-compaction wrote to the replaced progress.txt is carried into it before the next iteration', async () => {
    await useFakeAgent({ mode: 'pass' });
    let long = fs.readFileSync(ws('progress.txt'), 'utf8');
    for (let i = 0; i < 60; i++) {
      long += `\n## 2026-11-1${i % 9} 10:00 - US-00${1 + (i % 4)}\n- Iteration ${i}\n- **Learnings for future iterations:**\n  - Auto learning ${i}\n---\n`;
    }
    fs.writeFileSync(ws('progress.txt'), long);
    git('add', 'progress.txt');
    git(...GIT_IDENTITY, 'commit', '-q', '-m', 'long progress.txt');
    await vscode.workspace.getConfiguration('ralph', workspaceFolder().uri).update('progress.autoCompact', true, vscode.ConfigurationTarget.Workspace);
    // An agent's `echo >> progress.txt` that opened the file before auto-compaction replaced it, and
    // was held (a loaded machine) until compaction had stopped following the old file.
    const stalled = fs.openSync(ws('progress.txt'), 'a');
    const late = '\n## 2026-11-20 10:00 - US-099\n- written by an agent stalled past the compaction\n';
    try {
      const first = await runCommand('ralph.runNext');
      assert.deepEqual(first.iterations.map((i) => i.outcome), ['passed'], first.stop.message);
      assert.match(fs.readFileSync(ws('progress.txt'), 'utf8'), /^## Compacted history/m, 'compacted before the first iteration');
      fs.writeSync(stalled, late);
    } finally {
      fs.closeSync(stalled);
    }
    const second = await runCommand('ralph.runNext');
    assert.deepEqual(second.iterations.map((i) => i.outcome), ['passed'], second.stop.message);
    const after = fs.readFileSync(ws('progress.txt'), 'utf8');
    assert.equal(after.split(late).length - 1, 1, 'the late entry is in progress.txt once');
    assert.ok(after.indexOf(late) < after.lastIndexOf('## '), 'carried before the second iteration, whose entry follows it');
  });

  test('story ids with shell metacharacters and slashes run safely (nothing executed, file names sanitised)', async () => {
    const ids = ['US-1;touch PWNED', 'a/b$(touch PWNED2)', "q'`touch PWNED3`"];
    await useCustomPrd(
      {
        projectName: 'Hostile',
        branchName: 'ralph/hostile',
        description: 'ids that a shell would love to run',
        userStories: ids.map((id, i) => ({ id, title: `Title $(touch PWNED4) & ${i}`, priority: i + 1, passes: false, description: 'x; rm -rf /tmp/nothing', acceptanceCriteria: ['ok'] })),
      },
      3,
    );
    await useFakeAgent({ mode: 'pass', storyArg: true });
    const { value: r, opened } = await watchTerminals(() => runCommand('ralph.startLoop', 5));
    assert.equal(r.stop.reason, 'all-pass', r.stop.message);
    const runs = runsJsonl();
    assert.deepEqual(runs.map((x) => [x.storyId, x.outcome, x.exitCode]), ids.map((id) => [id, 'passed', 0]));
    assert.deepEqual(runs.map((x) => x.commit?.subject), ids.map((id, i) => `feat: ${id} - Title $(touch PWNED4) & ${i}`));
    assert.deepEqual(opened.map((o) => o.name), ids.map((id, i) => `Ralph: ${id} — Title $(touch PWNED4) & ${i}`.slice(0, 80)));
    for (const x of runs) {
      assert.match(x.promptFile, /^\.ralph\/prompts\/\d{8}-\d{6}-[A-Za-z0-9._-]+\.md$/, 'a sanitised prompt file name');
      assert.ok(fs.existsSync(ws(x.promptFile)));
    }
    const pwned = (dir: string): string[] => fs.readdirSync(dir).filter((f) => f.startsWith('PWNED'));
    assert.deepEqual(pwned(ws()), [], 'nothing ran in the workspace');
    assert.deepEqual(pwned(path.dirname(ws())), []);
    assert.deepEqual(pwned(os.homedir()), []);
  });

  test('"Preview prompt" returns the prompt of a story without running or writing anything', async () => {
    await useFakeAgent({ mode: 'pass' });
    const us006 = prdStories().find((s) => s.id === 'US-006');
    assert.ok(us006);
    const { value: text, opened } = await watchTerminals(() => vscode.commands.executeCommand<string | undefined>('ralph.previewPrompt', 'US-006'));
    assert.ok(typeof text === 'string', 'ralph.previewPrompt should return the prompt text');
    assert.match(text, /^Story ID: US-006$/m);
    for (const c of us006.acceptanceCriteria) {
      assert.ok(text.includes(c), `the prompt lacks the acceptance criterion "${c}"`);
    }
    assert.ok(text.includes('feat: US-006 - Sort tasks by priority'), 'the prompt names the commit message');
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.getText(), text, 'the prompt is shown in an editor');
    assert.equal(editor?.document.languageId, 'markdown');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');

    // Without an argument: the next ready story.
    const next = await vscode.commands.executeCommand<string | undefined>('ralph.previewPrompt');
    assert.match(next ?? '', /^Story ID: US-006$/m);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');

    assert.deepEqual(opened, [], 'no terminal');
    assert.equal(fs.existsSync(ws('.ralph', 'prompts')), false, 'no prompt file written');
    assert.deepEqual(runsJsonl(), []);
  });
  /** A custom agent `my-agent --story ${storyId} < ${promptFile}` that records the --story argument it received. */
  async function useRecordingAgent(bin: string, received: string): Promise<void> {
    fs.writeFileSync(path.join(bin, 'my-agent'), `#!/bin/sh\nprintf '%s' "$2" > "${received}"\nexec node "${fakeAgentPath()}" "$@"\n`, { mode: 0o755 });
    const c = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
    await c.update('agent.preset', 'custom', vscode.ConfigurationTarget.Workspace);
    await c.update('agent.command', `"${path.join(bin, 'my-agent')}" --story \${storyId} < \${promptFile}`, vscode.ConfigurationTarget.Workspace);
  }

  function assertNothingRan(bin: string): void {
    for (const dir of [ws(), path.dirname(ws()), os.homedir(), bin]) {
      assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith('pwned')), [], `nothing ran in ${dir}`);
    }
  }

  test('a story id with shell syntax never reaches the command line: the agent gets the exact id, nothing else runs', async () => {
    // Schema-valid (no control character), and every kind of shell syntax a quote-based defence could get wrong.
    const id = 'Q"; touch pwned1; echo \'$(touch pwned2)`touch pwned3`\\';
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-my-agent-'));
    const received = path.join(bin, 'story-arg.txt');
    fs.writeFileSync(ws('Qfile'), 'a file for tab completion to find\n');
    git('add', 'Qfile');
    await useCustomPrd({ projectName: 'Hostile', branchName: 'ralph/hostile', description: 'd', userStories: [{ id, title: 'Hostile', priority: 1, passes: false, description: 'x', acceptanceCriteria: ['a'] }] }, 1);
    await useRecordingAgent(bin, received);
    try {
      const r = await runCommand('ralph.startLoop', 1);
      assert.deepEqual(r.iterations.map((i) => i.outcome), ['passed'], r.stop.message);
      assert.equal(fs.readFileSync(received, 'utf8'), id, 'the agent received the exact id');
      assertNothingRan(bin);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  test('a story id with a TAB (the tab-completion exploit) is a schema error: nothing runs', async () => {
    const id = 'Q\t; touch pwned; echo \\';
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-my-agent-'));
    const received = path.join(bin, 'story-arg.txt');
    fs.writeFileSync(ws('Qfile'), 'a file for tab completion to find\n');
    git('add', 'Qfile');
    fs.writeFileSync(ws('prd.json'), `${JSON.stringify({ projectName: 'Tab', branchName: 'ralph/tab', description: 'd', userStories: [{ id, title: 'Tab', priority: 1, passes: false, description: 'x', acceptanceCriteria: ['a'] }] }, null, 2)}\n`);
    git('commit', '-q', '-am', 'test: a prd.json with a TAB in an id');
    await waitForTree('the tree to say prd.json cannot be read (control character in an id)', (nodes) => /control character/.test(JSON.stringify(nodes)), 2);
    await useRecordingAgent(bin, received);
    try {
      const r = await runCommand('ralph.startLoop', 1);
      assert.equal(r.stop.reason, 'invalid-prd', r.stop.message);
      assert.deepEqual(r.iterations, [], 'no iteration ran');
      assert.equal(fs.existsSync(received), false, 'the agent never started');
      assertNothingRan(bin);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  test('the extension\'s prompt never holds a file outside the workspace (spec links with ../ or a symlink out, /dev/zero)', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOP-SECRET-TOKEN\n');
    fs.symlinkSync(path.join(outside, 'secret.txt'), ws('specs', 'linked.md'));
    const rel = path.relative(ws(), path.join(outside, 'secret.txt'));
    const up = '../'.repeat(ws().split(path.sep).length + 1);
    fs.writeFileSync(
      ws('specs', 'INDEX.md'),
      `# Pin\n\n## Priority\nKeywords: priority, sort, tasks\nSpec: ${rel}\n\n## Sorting\nKeywords: sort, priority\nSpec: specs/linked.md\n\n## Zero\nKeywords: priority, tasks\nSpec: ${up}dev/zero\n`,
    );
    try {
      const text = await vscode.commands.executeCommand<string | undefined>('ralph.previewPrompt', 'US-006');
      assert.ok(typeof text === 'string', 'the preview resolves to the prompt');
      assert.ok(!text.includes('TOP-SECRET-TOKEN'), 'the secret outside the workspace reached the prompt');
      assert.match(text, /specs\/linked\.md is listed in the Pin but was not read: .*outside the workspace folder/);
      assert.match(text, /dev\/zero is listed in the Pin but was not read/);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test('a symlinked .ralph/ leading outside the workspace is refused with a message, never written through', async () => {
    await useFakeAgent({ mode: 'pass' });
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-outside-state-'));
    fs.symlinkSync(outside, ws('.ralph'));
    try {
      const { value: r, opened } = await watchTerminals(() => vscode.commands.executeCommand<unknown>('ralph.runNext'));
      assert.equal(r, undefined, 'the run ends with an error message');
      assert.deepEqual(opened, []);
      assert.deepEqual(fs.readdirSync(outside), [], 'nothing written outside');
    } finally {
      fs.rmSync(ws('.ralph'));
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test('a ralph.prdPath leading outside the workspace is not run', async () => {
    await useFakeAgent({ mode: 'pass' });
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-outside-prd-'));
    fs.writeFileSync(path.join(outside, 'prd.json'), pristine.prd);
    const c = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
    await c.update('prdPath', path.relative(ws(), path.join(outside, 'prd.json')), vscode.ConfigurationTarget.Workspace);
    try {
      const { value: r, opened } = await watchTerminals(() => vscode.commands.executeCommand<unknown>('ralph.startLoop', 1, workspaceFolder().uri));
      assert.equal(r, undefined, 'the run ends with an error message');
      assert.deepEqual(opened, []);
      assert.equal(fs.readFileSync(path.join(outside, 'prd.json'), 'utf8'), pristine.prd);
    } finally {
      await c.update('prdPath', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test('agent terminals: the running one and the last ralph.terminals.keepFinished finished ones stay, older ones close; a run\'s row reaches its terminal', async function () {
    this.timeout(120_000);
    await useFakeAgent({ mode: 'pass' });
    await vscode.workspace.getConfiguration('ralph', workspaceFolder().uri).update('terminals.keepFinished', 2, vscode.ConfigurationTarget.Workspace);
    const { value: r, opened } = await watchTerminals(() => runCommand('ralph.startLoop', 4));
    assert.equal(r.iterations.length, 4, r.stop.message);
    assert.equal(opened.length, 4);
    await waitFor('two agent terminals left', () => ralphTerminals().length === 2, 10_000, () => ralphTerminals().map((t) => t.name));
    assert.deepEqual(ralphTerminals().map((t) => t.name), opened.slice(2).map((o) => o.name), 'the newest two are kept');
    const snap = await (await api()).runsSnapshot();
    const rows = snap.filter((n) => n.contextValue?.startsWith('run '));
    assert.deepEqual(rows.map((n) => /\bterminal\b/.test(n.contextValue ?? '')), [true, true, false, false], 'newest first: the two with a terminal');
    const runs = runsJsonl();
    const shown = await vscode.commands.executeCommand('ralph.showRunTerminal', { folder: workspaceFolder(), run: runs[2] });
    assert.equal(shown, true);
    await waitFor(`the terminal of ${runs[2].storyId} to be the active one`, () => vscode.window.activeTerminal?.name === opened[2].name, 10_000, () => vscode.window.activeTerminal?.name);
    assert.equal(await vscode.commands.executeCommand('ralph.showRunTerminal', { folder: workspaceFolder(), run: runs[0] }), false, 'a closed terminal is not shown');
  });
});

/**
 * Runs the fake agent directly (no VS Code, no terminal) on a scratch git copy of the demo, once
 * per story in `order`, and returns the median run time: the agent's own share of an iteration.
 */
function timeFakeAgentAlone(order: readonly string[], files: Pristine): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-agent-alone-'));
  try {
    fs.writeFileSync(path.join(dir, 'prd.json'), files.prd);
    fs.writeFileSync(path.join(dir, 'progress.txt'), files.progress);
    const g = (...args: string[]): void => void execFileSync('git', [...GIT_IDENTITY, ...args], { cwd: dir, stdio: 'ignore' });
    g('init', '-q', '-b', 'main');
    g('add', '-A');
    g('commit', '-q', '-m', 'fixture');
    const times: number[] = [];
    for (const id of order) {
      const prompt = path.join(dir, `prompt-${times.length}.md`);
      fs.writeFileSync(prompt, `## Story\n\nStory ID: ${id}\n`);
      const t0 = performance.now();
      execFileSync('node', [fakeAgentPath(), prompt], { cwd: dir, env: { ...process.env, FAKE_AGENT_MODE: 'pass' }, stdio: 'ignore' });
      times.push(performance.now() - t0);
    }
    return median(times);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
