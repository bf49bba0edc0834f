/**
 * The parallel runner (src/node/parallel/runner.ts) end to end with real git: worktrees, the merge
 * queue, the check, runs.jsonl and the state file, with pretend agents that do in their worktree
 * what a Ralph agent does (agentWork), through a scripted executor (the same interface as the
 * process and terminal executors). Whole-process runs with the pretend agent CLI are in cli-run.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentExecutor, AgentExit, AgentHandle, AgentLaunch } from '../../src/core/loop/executor';
import { PARALLEL_STATE_FILE, type ParallelState } from '../../src/core/parallel/state';
import { parseRuns } from '../../src/core/runs/runs';
import { ParallelError } from '../../src/node/parallel/git';
import { MergeQueue } from '../../src/node/parallel/mergeQueue';
import { ParallelRunner, type ParallelRunOptions, type RunnerEvent } from '../../src/node/parallel/runner';
import { ParallelStateStore } from '../../src/node/parallel/stateFile';
import { StoryRun, type StoryRunContext } from '../../src/node/parallel/storyRun';
import { addWorktree, preflight } from '../../src/node/parallel/worktrees';
import { makePrd } from './helpers';
import { agentWork, cleanRepos, git, makeRepo, passing, readJson } from './parallelRepo';

type Behaviour = 'pass' | 'conflict' | 'break-check' | 'fail' | 'hang' | 'wrong-branch' | 'detached' | 'no-progress' | 'edit-other' | 'ask';

/** Runs each story's behaviour in its worktree, as an agent process would. */
function scriptedExecutor(plan: Record<string, Behaviour>, started: string[] = []): AgentExecutor {
  return {
    start(launch: AgentLaunch): AgentHandle {
      const id = launch.env.RALPH_STORY_ID;
      started.push(id);
      let settle!: (e: AgentExit) => void;
      const exit = new Promise<AgentExit>((r) => (settle = r));
      let stopped = false;
      const work = async (): Promise<void> => {
        await new Promise((r) => setImmediate(r));
        const cwd = launch.cwd;
        launch.onOutput?.(`working on ${id}\n`);
        switch (plan[id] ?? 'pass') {
          case 'pass':
            agentWork(cwd, id, { files: { [`src/${id}.ts`]: `export const id = '${id}';\n` } });
            break;
          case 'conflict':
            agentWork(cwd, id, { files: { 'src/shared.ts': `export const value = '${id}';\n` } });
            break;
          case 'break-check':
            agentWork(cwd, id, { files: { CHECK_FAILS: id } });
            break;
          case 'wrong-branch':
            git(cwd, 'checkout', '-q', '-b', `${id}-stray`);
            agentWork(cwd, id, { files: { [`src/${id}.ts`]: 'x\n' } });
            break;
          case 'detached':
            git(cwd, 'checkout', '-q', '--detach');
            agentWork(cwd, id, { files: { [`src/${id}.ts`]: 'x\n' } });
            break;
          case 'edit-other':
            agentWork(cwd, id, { files: { [`src/${id}.ts`]: 'x\n' }, alsoPasses: ['US-004'] });
            break;
          case 'no-progress':
            break;
          case 'ask':
            // Claude Code's `-p --output-format json` result, ending with a question; nothing committed.
            launch.onOutput?.(`${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, num_turns: 5, result: `I looked at ${id}.\n\nThe criteria do not say where sessions live. Should I use Redis, or keep them in Postgres?`, session_id: 's1' })}\n`);
            settle({ exitCode: 0, stopped: false, via: 'process' });
            return;
          case 'fail':
            launch.onOutput?.(`\u001b[31msrc/${id}.ts(4,2): error TS2322: Type 'string' is not assignable to type 'number'.\u001b[0m\n`);
            settle({ exitCode: 3, stopped: false, via: 'process' });
            return;
          case 'hang':
            return; // until stopped
        }
        launch.onOutput?.('<promise>COMPLETE</promise>\n');
        if (!stopped) {
          settle({ exitCode: 0, stopped: false, via: 'process' });
        }
      };
      void work();
      return {
        exit,
        stop: async () => {
          stopped = true;
          settle({ exitCode: undefined, stopped: true, via: 'process' });
          await exit;
        },
        dispose: () => undefined,
      };
    },
  };
}

const CHECK = `node -e "process.exit(require('fs').existsSync('CHECK_FAILS')?1:0)"`;

function options(over: Partial<ParallelRunOptions> = {}): ParallelRunOptions {
  return {
    config: { maxAgents: 4, maxIterations: 20, failureLimit: 2, noProgressLimit: 2 },
    mergeMode: 'merge',
    runTimeoutMs: 0,
    files: { prd: 'prd.json', progress: 'progress.txt', pin: 'specs/INDEX.md' },
    holder: 'a test',
    ...over,
  };
}

function runnerFor(root: string, plan: Record<string, Behaviour>, over: Partial<ParallelRunOptions> = {}, events: RunnerEvent[] = [], started: string[] = []): ParallelRunner {
  return new ParallelRunner(root, options(over), {
    executor: scriptedExecutor(plan, started),
    planAgent: (req) => ({ ok: true, commandLine: 'agent', env: { RALPH_STORY_ID: req.storyId, RALPH_PROMPT_FILE: req.promptPath }, warnings: [], agent: 'pretend' }),
    onEvent: (e) => events.push(e),
  });
}

const runsOf = (root: string) => parseRuns(readFileSync(path.join(root, '.ralph', 'runs.jsonl'), 'utf8')).runs;
const featSubjects = (root: string): string[] => git(root, 'log', '--format=%s', 'HEAD').split('\n').filter((s) => s.startsWith('feat:'));
const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe('parallel runner: a loop with real git and pretend agents', function () {
  this.timeout(120_000);
  after(cleanRepos);

  it('two stories succeed, one conflicts, one fails its check: merges, Needs You items, runs.jsonl, learnings once', async () => {
    const root = makeRepo();
    const events: RunnerEvent[] = [];
    const stop = await runnerFor(root, { 'US-001': 'pass', 'US-002': 'conflict', 'US-003': 'conflict', 'US-004': 'break-check' }, { checkCommand: CHECK }, events).run();

    assert.equal(stop.reason, 'needs-you', stop.message);
    // US-002 and US-003 change the same line: whichever finished first merged, the other conflicted.
    const conflicted = stop.needsYou.find((n) => n.why === 'conflict')?.storyId ?? '';
    const winner = conflicted === 'US-002' ? 'US-003' : 'US-002';
    assert.deepEqual(passing(root).sort(), ['US-001', winner].sort());
    assert.deepEqual(stop.needsYou.map((n) => [n.storyId, n.why]).sort(), [[conflicted, 'conflict'], ['US-004', 'check-failed']].sort());
    assert.ok(stop.needsYou.find((n) => n.storyId === conflicted)?.message.includes('conflict'), JSON.stringify(stop.needsYou));
    // Every feat commit of a merged story is reachable from the feature branch; the failed check's merge was undone.
    assert.deepEqual(featSubjects(root).sort(), ['feat: US-001 - Story US-001', `feat: ${winner} - Story ${winner}`].sort());
    assert.ok(!existsSync(path.join(root, 'CHECK_FAILS')));
    assert.equal(git(root, 'status', '--porcelain'), '');
    // The merges' scratch ref (fast-import needs one) is gone with the run; the user's refs are all there is.
    assert.equal(git(root, 'for-each-ref', '--format=%(refname)', 'refs/ralph/'), '');
    const progress = readFileSync(path.join(root, 'progress.txt'), 'utf8');
    assert.equal(count(progress, 'learning of US-001'), 1);
    assert.equal(count(progress, `learning of ${winner}`), 1);
    assert.equal(count(progress, `learning of ${conflicted}`), 0);
    // One line per agent run, with where it ran and what became of its work.
    const runs = runsOf(root);
    assert.equal(runs.length, 4);
    const merge = Object.fromEntries(runs.map((r) => [r.storyId, r.parallel?.merge]));
    assert.deepEqual(merge, { 'US-001': 'merged', [winner]: 'merged', [conflicted]: 'conflict', 'US-004': 'check-failed' });
    const us1 = runs.find((r) => r.storyId === 'US-001');
    assert.ok(us1?.parallel?.mergeCommit && git(root, 'merge-base', '--is-ancestor', us1.parallel.mergeCommit, 'HEAD') === '');
    assert.ok(us1?.parallel?.branch.endsWith('US-001'));
    assert.equal(us1?.outcome, 'passed');
    // The merged stories' worktrees are gone; the others are kept with their commits, recorded in the state.
    const state = readJson<ParallelState>(path.join(root, PARALLEL_STATE_FILE));
    const byId = Object.fromEntries(state.stories.map((s) => [s.storyId, s]));
    assert.equal(byId['US-001'].state, 'merged');
    assert.equal(byId[conflicted].state, 'conflict');
    assert.ok(existsSync(byId[conflicted].worktree));
    assert.ok(!existsSync(byId['US-001'].worktree));
    // The user saw each step.
    assert.ok(events.some((e) => e.kind === 'started' && e.storyId === 'US-004'));
    assert.equal(events.filter((e) => e.kind === 'needsYou').length, 2);
    assert.equal(events.at(-1)?.kind, 'stopped');
    // Each agent's output is in its log.
    const log = readFileSync(path.join(root, '.ralph', 'logs', `${runs[0].loopId}-US-001-1.log`), 'utf8');
    assert.match(log, /working on US-001/);
  });

  it('a conflict resolved by hand in the kept worktree merges on the next run, without running its agent again', async () => {
    const root = makeRepo(makePrd([{ id: 'US-001' }, { id: 'US-002' }], { branchName: 'ralph/demo' }));
    const first = await runnerFor(root, { 'US-001': 'conflict', 'US-002': 'conflict' }).run();
    assert.equal(first.reason, 'needs-you');
    const loser = first.needsYou[0].storyId;
    const record = readJson<ParallelState>(path.join(root, PARALLEL_STATE_FILE)).stories.find((s) => s.storyId === loser);
    assert.ok(record && existsSync(record.worktree));
    // The user brings the story branch up to date and resolves the conflict there.
    assert.throws(() => git(record.worktree, 'merge', '-q', 'ralph/demo'));
    writeFileSync(path.join(record.worktree, 'src', 'shared.ts'), "export const value = 'both';\n");
    git(record.worktree, 'commit', '-qam', 'resolve the conflict');
    const started: string[] = [];
    const events: RunnerEvent[] = [];
    const second = await runnerFor(root, {}, {}, events, started).run();
    assert.equal(second.reason, 'all-pass', second.message);
    assert.deepEqual(started, [], 'no agent ran again');
    assert.deepEqual(passing(root).sort(), ['US-001', 'US-002']);
    assert.equal(readFileSync(path.join(root, 'src', 'shared.ts'), 'utf8'), "export const value = 'both';\n");
    assert.ok(events.some((e) => e.kind === 'note' && /merges without running the agent again/.test(e.message)));
  });

  it('Stop All ends running agents: the stop says so, the worktrees are kept, a second run takes the lock', async () => {
    const root = makeRepo();
    const events: RunnerEvent[] = [];
    const runner = runnerFor(root, { 'US-001': 'hang', 'US-002': 'hang', 'US-003': 'hang', 'US-004': 'hang' }, {}, events);
    const done = runner.run();
    await waitFor(() => events.filter((e) => e.kind === 'started').length === 4, 'four agents start');
    runner.requestStop('now');
    const stop = await done;
    assert.equal(stop.reason, 'stop-requested');
    assert.equal(stop.needsYou.length, 0);
    const state = readJson<ParallelState>(path.join(root, PARALLEL_STATE_FILE));
    assert.deepEqual(state.stories.map((s) => s.state), ['interrupted', 'interrupted', 'interrupted', 'interrupted']);
    assert.equal(runsOf(root).filter((r) => r.outcome === 'stopped').length, 4);
    // The lock was released: the next run starts, re-attaches the kept worktrees and finishes.
    const stop2 = await runnerFor(root, {}).run();
    assert.equal(stop2.reason, 'all-pass', stop2.message);
    assert.deepEqual(passing(root).sort(), ['US-001', 'US-002', 'US-003', 'US-004']);
  });

  it('refuses a second run of the same workspace while one runs', async () => {
    const root = makeRepo();
    const events: RunnerEvent[] = [];
    const first = runnerFor(root, { 'US-001': 'hang', 'US-002': 'hang', 'US-003': 'hang', 'US-004': 'hang' }, {}, events);
    const done = first.run();
    await waitFor(() => events.some((e) => e.kind === 'started'), 'the first run starts');
    await assert.rejects(runnerFor(root, {}).run(), (e: unknown) => e instanceof ParallelError && e.code === 'locked' && /Another run is using this workspace \(a test/.test(e.message));
    first.requestStop('now');
    await done;
  });

  it('an agent that commits on another branch, one past its time limit, one that fails twice: each needs you with what was kept', async () => {
    const root = makeRepo();
    const stop = await runnerFor(root, { 'US-001': 'wrong-branch', 'US-002': 'hang', 'US-003': 'fail', 'US-004': 'pass' }, { runTimeoutMs: 1500 }).run();
    const why = Object.fromEntries(stop.needsYou.map((n) => [n.storyId, n]));
    assert.match(why['US-001'].message, /left the worktree on the branch US-001-stray instead of ralph\/demo-US-001.*commits are kept there/);
    assert.match(why['US-002'].message, /time limit/);
    assert.equal(why['US-003'].why, 'failures');
    // each failure recorded with its signature and its error lines as printed (the signature issue quotes them)
    const failed = runsOf(root).filter((r) => r.storyId === 'US-003');
    assert.deepEqual(failed.map((r) => [r.outcome, r.signature, r.errorLines]), [1, 2].map(() => ['failed', "<path>(<n>,<n>): error TS2322: Type '…' is not assignable to type '…'.", ["src/US-003.ts(4,2): error TS2322: Type 'string' is not assignable to type 'number'."]]));
    assert.deepEqual(passing(root), ['US-004']);
    // The stray commit is not lost.
    assert.match(git(root, 'log', '--format=%s', 'US-001-stray'), /feat: US-001/);
  });

  it('an agent that commits on a detached HEAD: it needs you, its commit is kept, the others merge', async () => {
    const root = makeRepo();
    const stop = await runnerFor(root, { 'US-001': 'detached' }).run();
    const why = stop.needsYou.find((n) => n.storyId === 'US-001');
    assert.match(why?.message ?? '', /left the worktree on a detached HEAD instead of ralph\/demo-US-001/, JSON.stringify(stop.needsYou));
    assert.deepEqual(passing(root).sort(), ['US-002', 'US-003', 'US-004']);
    const kept = readJson<ParallelState>(path.join(root, PARALLEL_STATE_FILE)).stories.find((s) => s.storyId === 'US-001');
    assert.match(git(kept?.worktree ?? root, 'log', '-1', '--format=%s', 'HEAD'), /^feat: US-001/);
  });

  it('an agent that also marks another story passing: its own story merges, the other edit does not, and the run says so', async () => {
    const root = makeRepo();
    const events: RunnerEvent[] = [];
    const stop = await runnerFor(root, { 'US-001': 'edit-other' }, { only: ['US-001'] }, events).run();
    assert.equal(stop.needsYou.length, 0);
    assert.deepEqual(passing(root), ['US-001']);
    assert.ok(events.some((e) => e.kind === 'note' && /US-001: its agent also changed US-004 in prd\.json; those edits were not merged/.test(e.message)), JSON.stringify(events.filter((e) => e.kind === 'note')));
  });

  it('a worktree a killed run added but never recorded is adopted by the next run, not refused as an existing branch', async () => {
    const root = makeRepo();
    // What a SIGKILL between `git worktree add` and the first record of parallel.json leaves.
    const wt = await addWorktree(await preflight(root), 'US-002');
    assert.ok(existsSync(wt.folder));
    const stop = await runnerFor(root, {}).run();
    assert.equal(stop.reason, 'all-pass', stop.message);
    assert.deepEqual(passing(root).sort(), ['US-001', 'US-002', 'US-003', 'US-004']);
    assert.ok(!existsSync(wt.folder), 'its worktree removed once merged');
  });

  it('a story branch that lost its worktree (a kill inside git worktree add or remove) is picked up: empty, made afresh; with commits, its worktree added again', async () => {
    const root = makeRepo();
    const repo = await preflight(root);
    // US-001: a branch with nothing on it and no worktree.
    git(root, 'branch', 'ralph/demo-US-001');
    // US-002: a branch holding a commit of work, its worktree folder gone.
    const wt = await addWorktree(repo, 'US-002');
    writeFileSync(path.join(wt.folder, 'src', 'half.ts'), 'export const half = 1;\n');
    git(wt.folder, 'add', '-A');
    git(wt.folder, 'commit', '-qm', 'wip: US-002 half done');
    git(root, 'worktree', 'remove', '--force', wt.folder);
    const events: RunnerEvent[] = [];
    const stop = await runnerFor(root, {}, {}, events).run();
    assert.equal(stop.reason, 'all-pass', stop.message);
    assert.deepEqual(passing(root).sort(), ['US-001', 'US-002', 'US-003', 'US-004']);
    assert.match(git(root, 'log', '--format=%s', 'HEAD'), /wip: US-002 half done/, 'the work on the branch reached the feature branch');
    assert.ok(events.some((e) => e.kind === 'note' && /US-002: its branch ralph\/demo-US-002 \(1 commit\(s\) not merged\) had lost its worktree/.test(e.message)));
  });

  for (const [moment, cut] of [
    ['after its checkout, before its move', (spare: string, feature: string) => git(spare, 'checkout', '-q', '-b', 'ralph/demo-US-002', feature)],
    ['after its move, before the merged branch is deleted', (spare: string, feature: string, target: string) => (git(spare, 'checkout', '-q', '-b', 'ralph/demo-US-002', feature), git(spare, 'worktree', 'move', spare, target))],
  ] as const) {
    it(`a run killed while reusing a merged story's worktree (${moment}) is picked up: the next story runs, nothing is left behind`, async () => {
      const root = makeRepo(makePrd([{ id: 'US-001' }, { id: 'US-002', dependsOn: ['US-001'] }], { branchName: 'ralph/demo' }));
      const repo = await preflight(root);
      const spare = await addWorktree(repo, 'US-001');
      agentWork(spare.folder, 'US-001', { files: { 'src/US-001.ts': 'x\n' } });
      const merged = await new MergeQueue(repo, new ParallelStateStore(root), { removeMerged: false }).merge(spare);
      assert.equal(merged.kind, 'merged');
      cut(spare.folder, git(root, 'rev-parse', 'HEAD'), path.join(path.dirname(spare.folder), 'US-002'));
      const stop = await runnerFor(root, {}).run();
      assert.equal(stop.reason, 'all-pass', stop.message);
      assert.deepEqual(passing(root).sort(), ['US-001', 'US-002']);
      assert.deepEqual(git(root, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')), [`worktree ${root}`]);
      assert.deepEqual(git(root, 'branch', '--format=%(refname:short)').split('\n').sort(), ['main', 'ralph/demo']);
    });
  }

  it('an agent asked to stop while its log is being opened is ended, not left running', async () => {
    const root = makeRepo();
    const wt = await addWorktree(await preflight(root), 'US-001');
    const ctx: StoryRunContext = {
      root,
      files: { prd: 'prd.json', progress: 'progress.txt', pin: 'specs/INDEX.md' },
      executor: scriptedExecutor({ 'US-001': 'hang' }),
      // The stop comes just after the plan is made: while the run opens its log, before the agent has a handle.
      planAgent: (req) => {
        setImmediate(() => void run.stop());
        return { ok: true, commandLine: 'agent', env: { RALPH_STORY_ID: req.storyId }, warnings: [], agent: 'pretend' };
      },
      timeoutMs: 0,
      now: () => new Date(),
    };
    const run = new StoryRun(ctx, { runId: 'r-1', storyId: 'US-001', storyTitle: 'Story US-001', worktree: wt });
    const result = await Promise.race([run.result, new Promise<undefined>((r) => setTimeout(() => r(undefined), 20_000))]);
    assert.equal(result?.outcome, 'stopped', 'the run ended as stopped');
  });

  it('--story runs only that story', async () => {
    const root = makeRepo();
    const started: string[] = [];
    const runner = runnerFor(root, {}, { only: ['US-002'] }, [], started);
    const stop = await runner.run();
    assert.deepEqual(started, ['US-002']);
    // Retry and Skip say when they did nothing (no Needs You item, a story already merged).
    assert.equal(runner.retry('US-001'), false);
    assert.equal(runner.skip('US-002'), false);
    assert.deepEqual(passing(root), ['US-002']);
    assert.equal(stop.needsYou.length, 0);
  });

  it('ralph.agent.fallback in parallel: while the agent is limited the story runs again at once with the first fallback preset that is not; runs.jsonl names the agent that ran', async () => {
    const root = makeRepo();
    const asked: (string | undefined)[] = [];
    const sleeps: number[] = [];
    const passOnly = scriptedExecutor({});
    let starts = 0;
    const runner = new ParallelRunner(root, options({ only: ['US-001'], fallback: ['claude', 'codex'] }), {
      executor: {
        start: (launch) => {
          starts++;
          if (starts > 1) {
            return passOnly.start(launch);
          }
          // the configured agent hits its limit, its reset an hour ahead
          launch.onOutput?.(`Claude AI usage limit reached|${Math.floor(Date.now() / 1000) + 3600}\n`);
          return { exit: Promise.resolve({ exitCode: 1, stopped: false, via: 'process' }), stop: async () => undefined, dispose: () => undefined };
        },
      },
      planAgent: (req) => {
        asked.push(req.presetId);
        return { ok: true, commandLine: 'agent', env: { RALPH_STORY_ID: req.storyId }, warnings: [], agent: req.presetId ?? 'claude' };
      },
      clock: { now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) },
    });
    const stop = await runner.run();
    assert.equal(stop.reason, 'all-pass', stop.message);
    assert.deepEqual(asked, [undefined, 'codex'], 'the configured agent first, then the first fallback that is not limited (claude itself is skipped)');
    assert.deepEqual(sleeps, [], 'no wait while another agent may run');
    assert.deepEqual(runsOf(root).map((r) => [r.storyId, r.agent, r.outcome]), [['US-001', 'claude', 'rate-limited'], ['US-001', 'codex', 'passed']]);
  });

  it('a story that waits on another starts once it has merged, in a worktree that holds its blocker', async () => {
    const root = makeRepo(makePrd([{ id: 'US-001' }, { id: 'US-002', dependsOn: ['US-001'] }], { branchName: 'ralph/demo' }));
    const events: RunnerEvent[] = [];
    // What the agent of each story finds in its worktree as it starts.
    const found: string[] = [];
    const runner = new ParallelRunner(root, options(), {
      executor: scriptedExecutor({}),
      planAgent: (req) => {
        found.push(`${req.storyId}: ${['src/US-001.ts', 'src/US-002.ts'].filter((f) => existsSync(path.join(req.cwd, f))).join(', ') || 'nothing'}`);
        return { ok: true, commandLine: 'agent', env: { RALPH_STORY_ID: req.storyId }, warnings: [], agent: 'pretend' };
      },
      onEvent: (e) => events.push(e),
    });
    const stop = await runner.run();
    assert.equal(stop.reason, 'all-pass');
    const order = events.filter((e) => e.kind === 'started' || e.kind === 'merged').map((e) => `${e.kind}:${e.storyId}`);
    assert.deepEqual(order, ['started:US-001', 'merged:US-001', 'started:US-002', 'merged:US-002']);
    assert.deepEqual(found, ['US-001: nothing', 'US-002: src/US-001.ts']);
    // US-002 ran in US-001's worktree, reused: none is left once the loop is over, nor a story branch.
    assert.deepEqual(git(root, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')), [`worktree ${root}`]);
    assert.deepEqual(git(root, 'branch', '--format=%(refname:short)').split('\n').sort(), ['main', 'ralph/demo']);
  });

  it('with manageBranch, a run started on main checks out prd.json\'s branchName first: story branches and merges are the feature\'s, main is untouched', async () => {
    const root = makeRepo();
    git(root, 'checkout', '-q', 'main');
    const mainHead = git(root, 'rev-parse', 'main');
    const events: RunnerEvent[] = [];
    const stop = await runnerFor(root, {}, { only: ['US-001'], manageBranch: true }, events).run();
    assert.equal(stop.needsYou.length, 0, stop.message);
    assert.equal(git(root, 'rev-parse', '--abbrev-ref', 'HEAD'), 'ralph/demo');
    assert.equal(git(root, 'rev-parse', 'main'), mainHead, 'nothing merged into main');
    assert.deepEqual(featSubjects(root), ['feat: US-001 - Story US-001']);
    assert.match(runsOf(root)[0].parallel?.branch ?? '', /^ralph\/demo-US-001$/);
    assert.ok(events.some((e) => e.kind === 'note' && e.message === 'checked out the feature branch ralph/demo'), JSON.stringify(events.filter((e) => e.kind === 'note')));
  });

  it('with manageBranch, a missing feature branch is created from the default branch; an invalid branchName refuses before anything changes', async () => {
    const root = makeRepo(makePrd([{ id: 'US-001' }], { branchName: 'ralph/new-feature' }));
    git(root, 'checkout', '-q', 'main');
    git(root, 'branch', '-q', '-D', 'ralph/demo');
    const events: RunnerEvent[] = [];
    await runnerFor(root, {}, { manageBranch: true }, events).run();
    assert.equal(git(root, 'rev-parse', '--abbrev-ref', 'HEAD'), 'ralph/new-feature');
    assert.ok(events.some((e) => e.kind === 'note' && /^created the feature branch ralph\/new-feature from main$/.test(e.message)));

    const bad = makeRepo(makePrd([{ id: 'US-001' }], { branchName: 'ralph/my feature' }));
    await assert.rejects(runnerFor(bad, {}, { manageBranch: true }).run(), (e: unknown) => e instanceof ParallelError && e.code === 'bad-branch' && /it contains a space/.test(e.message));
    assert.ok(!existsSync(path.join(bad, '.ralph', 'runs.jsonl')));
  });

  it('with manageBranch, uncommitted changes on another branch refuse the checkout and say so', async () => {
    const root = makeRepo();
    git(root, 'checkout', '-q', 'main');
    writeFileSync(path.join(root, 'src', 'shared.ts'), 'changed\n');
    await assert.rejects(runnerFor(root, {}, { manageBranch: true }).run(), (e: unknown) => e instanceof ParallelError && e.code === 'dirty' && /ralph\/demo/.test(e.message));
    assert.equal(git(root, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
  });

  it('leaves the main working tree clean in a repository that does not ignore .ralph/ (the runner\'s files ignore themselves)', async () => {
    const root = makeRepo();
    writeFileSync(path.join(root, '.git', 'info', 'exclude'), '');
    const stop = await runnerFor(root, {}, { only: ['US-001'] }).run();
    assert.equal(stop.needsYou.length, 0, stop.message);
    assert.deepEqual(passing(root), ['US-001']);
    assert.equal(git(root, 'status', '--porcelain', '--untracked-files=all'), '');
  });

  it('a full disk while the prompt is written: the story needs you with a clear message, not the failure breaker; nothing is lost; the next run finishes it', async () => {
    const root = makeRepo();
    const memory = ['prd.json', 'progress.txt', 'AGENTS.md'].map((f) => readFileSync(path.join(root, f), 'utf8'));
    const started: string[] = [];
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: 'ENOSPC' });
    const runner = new ParallelRunner(root, options({ only: ['US-001'] }), {
      executor: scriptedExecutor({}, started),
      planAgent: (req) => ({ ok: true, commandLine: 'agent', env: { RALPH_STORY_ID: req.storyId, RALPH_PROMPT_FILE: req.promptPath }, warnings: [], agent: 'pretend' }),
      writeFile: () => Promise.reject(full),
    });
    const stop = await runner.run();
    assert.equal(stop.reason, 'needs-you', stop.message);
    assert.deepEqual(stop.needsYou.map((n) => [n.storyId, n.why]), [['US-001', 'error']]);
    assert.equal(stop.needsYou[0].message, 'US-001 needs you: the disk is full: its prompt could not be written (nothing was started; free some space and Retry).');
    assert.deepEqual(started, [], 'no agent started without its prompt');
    assert.deepEqual(runsOf(root).map((r) => r.outcome), ['error'], 'recorded as an error, not as a failed agent');
    assert.deepEqual(['prd.json', 'progress.txt', 'AGENTS.md'].map((f) => readFileSync(path.join(root, f), 'utf8')), memory);
    assert.equal(git(root, 'status', '--porcelain'), '');
    // Space freed: the next run continues in the kept worktree and the story merges.
    const again = await runnerFor(root, {}, { only: ['US-001'] }).run();
    assert.deepEqual(again.needsYou, []);
    assert.deepEqual(passing(root), ['US-001']);
  });

  it('an agent that ends by asking a question needs you with its question (not the no-progress breaker); the others go on', async () => {
    const root = makeRepo();
    const started: string[] = [];
    const stop = await runnerFor(root, { 'US-001': 'ask', 'US-002': 'pass' }, { only: ['US-001', 'US-002'] }, [], started).run();
    assert.deepEqual(started.sort(), ['US-001', 'US-002'], 'asked once, not retried');
    assert.deepEqual(stop.needsYou.map((n) => [n.storyId, n.why, n.detail]), [['US-001', 'question', 'The criteria do not say where sessions live. Should I use Redis, or keep them in Postgres?']]);
    assert.equal(stop.needsYou[0].message, 'US-001 needs you: its agent asked a question (The criteria do not say where sessions live. Should I use Redis, or keep them in Postgres?).');
    assert.deepEqual(passing(root), ['US-002']);
    assert.equal(runsOf(root).find((r) => r.storyId === 'US-001')?.outcome, 'no-progress');
  });

  it('writes nothing when the feature branch has uncommitted changes', async () => {
    const root = makeRepo();
    writeFileSync(path.join(root, 'src', 'shared.ts'), 'changed\n');
    await assert.rejects(runnerFor(root, {}).run(), (e: unknown) => e instanceof ParallelError && e.code === 'dirty');
    assert.ok(!existsSync(path.join(root, '.ralph', 'runs.jsonl')));
  });
});

async function waitFor(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting until ${what}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
