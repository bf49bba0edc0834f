/**
 * A parallel run a crash cut off, as a reopened window finds it (src/core/parallel/interrupted.ts,
 * src/node/parallel/interrupted.ts): the notification's counts, the kept worktrees' rows, the run
 * lock (a live holder is never second-guessed), and Remove Worktree refusing what holds unmerged
 * commits. Real git in temporary repositories.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { interruptedMessage, interruptedRun } from '../../src/core/parallel/interrupted';
import { PARALLEL_STATE_FILE, type ParallelState } from '../../src/core/parallel/state';
import { inspectInterrupted, removeKeptWorktree } from '../../src/node/parallel/interrupted';
import { MergeQueue } from '../../src/node/parallel/mergeQueue';
import { acquireRunLock, RUN_LOCK, RUN_LOCK_OWNER } from '../../src/node/parallel/runLock';
import { ParallelStateStore } from '../../src/node/parallel/stateFile';
import { addWorktree, preflight, type RepoInfo, type StoryWorktree } from '../../src/node/parallel/worktrees';
import { agentWork, cleanRepos, FEATURE, git, makeRepo, readJson } from './parallelRepo';

const SHA = 'a'.repeat(40);
const record = (storyId: string, state: ParallelState['stories'][number]['state']) => ({ storyId, worktree: `/wt/${storyId}`, branch: `${FEATURE}-${storyId}`, base: SHA, state, updated: '2026-01-01T00:00:00.000Z' });

/** A pid that no process has any more. */
async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => p.on('exit', r));
  return p.pid as number;
}

/** The run lock as a holder left it: the lock folder, fresh, and who held it. */
function lockHeldBy(root: string, pid: number): void {
  mkdirSync(path.join(root, RUN_LOCK), { recursive: true });
  writeFileSync(path.join(root, RUN_LOCK_OWNER), JSON.stringify({ holder: 'VS Code', pid, host: hostname(), since: new Date().toISOString() }));
}

/** A repository whose state file records two stories' worktrees in `state`. */
async function recorded(state: 'running' | 'interrupted'): Promise<{ root: string; repo: RepoInfo; one: StoryWorktree; two: StoryWorktree }> {
  const root = makeRepo();
  const repo = await preflight(root, FEATURE);
  const queue = new MergeQueue(repo, new ParallelStateStore(root));
  const [one, two] = [await addWorktree(repo, 'US-001'), await addWorktree(repo, 'US-002')];
  await queue.record(one, state);
  await queue.record(two, state);
  return { root, repo, one, two };
}

describe('parallel: an interrupted run, as a reopened window finds it', function () {
  this.timeout(60_000);
  after(cleanRepos);

  it('counts the stories in flight and the finished-but-unmerged ones; every kept worktree is a row, merged ones are not', () => {
    const state: ParallelState = {
      version: 1,
      featureBranch: FEATURE,
      mergeMode: 'merge',
      stories: [record('US-001', 'running'), record('US-002', 'running'), record('US-003', 'done'), record('US-004', 'merged'), { ...record('US-005', 'conflict'), conflicts: ['src/a.ts'] }],
    };
    const facts = new Map([
      ['US-001', { finished: false, commits: [`${SHA} wip: US-001`] }],
      ['US-002', { finished: true, commits: [`${'b'.repeat(40)} feat: US-002 - Two`] }],
      ['US-003', { finished: true, commits: [] }],
    ]);
    const run = interruptedRun(state, facts, [{ folder: '/wt/US-009', branch: `${FEATURE}-US-009`, commits: [`${SHA} wip: nine`] }]);
    assert.equal(run.underWay, true);
    assert.deepEqual(run.inFlight, ['US-001']);
    assert.deepEqual(run.unmerged, ['US-002', 'US-003']);
    assert.deepEqual(
      run.rows.map((r) => [r.storyId, r.why]),
      [
        ['US-001', 'interrupted'],
        ['US-002', 'unmerged'],
        ['US-003', 'unmerged'],
        ['US-005', 'conflict'],
        ['US-009', 'orphaned'],
      ],
    );
    assert.equal(interruptedMessage('app', run), 'a parallel run in app was interrupted (1 story in flight, 2 finished but not merged).');
    assert.match(run.rows[0].message, /^US-001: its agent was cut off before it finished; its worktree \/wt\/US-001 is kept with 1 commit not on ralph\/demo \(aaaaaaaa wip: US-001\)/);
    assert.match(run.rows[4].message, /a worktree no run knows, on ralph\/demo-US-009, with 1 commit not on ralph\/demo/);
  });

  it('a run that ended (only conflicts, failed checks, interrupted stories left) was not under way: rows, no notification', () => {
    const state: ParallelState = { version: 1, featureBranch: FEATURE, mergeMode: 'merge', stories: [record('US-001', 'interrupted'), record('US-002', 'check-failed'), record('US-003', 'merged')] };
    const run = interruptedRun(state, new Map());
    assert.equal(run.underWay, false);
    assert.deepEqual(run.rows.map((r) => r.why), ['interrupted', 'check-failed']);
  });

  it('reads the state a killed run left (lock of a dead process): in flight, finished, orphaned with its commits', async () => {
    const { root, repo, two } = await recorded('running');
    agentWork(two.folder, 'US-002');
    const orphan = await addWorktree(repo, 'US-004');
    agentWork(orphan.folder, 'US-004', { noCommit: true });
    git(orphan.folder, 'add', '-A');
    git(orphan.folder, 'commit', '-q', '-m', 'wip: US-004 half done');
    lockHeldBy(root, await deadPid());

    const { run, liveHolder } = await inspectInterrupted(root, { prdPath: 'prd.json' });
    assert.equal(liveHolder, undefined);
    assert.ok(run);
    assert.deepEqual([run.inFlight, run.unmerged], [['US-001'], ['US-002']]);
    const orphanRow = run.rows.find((r) => r.why === 'orphaned');
    assert.equal(orphanRow?.branch, `${FEATURE}-US-004`);
    assert.match(orphanRow?.commits[0] ?? '', /^[0-9a-f]{40} wip: US-004 half done$/);
  });

  it('never offers the run of a live holder (a CLI still running): its lock is left alone', async () => {
    const root = makeRepo();
    const repo = await preflight(root, FEATURE);
    await new MergeQueue(repo, new ParallelStateStore(root)).record(await addWorktree(repo, 'US-001'), 'running');
    lockHeldBy(root, process.pid);
    const found = await inspectInterrupted(root, { prdPath: 'prd.json' });
    assert.equal(found.run, undefined);
    assert.match(found.liveHolder ?? '', /^VS Code, process \d+/);
    assert.ok(existsSync(path.join(root, RUN_LOCK)));
  });

  it('Remove Worktree refuses a worktree holding commits not on the feature branch, saying how many; removes one that holds none and forgets it', async () => {
    const { root, one: busy, two: empty } = await recorded('interrupted');
    agentWork(busy.folder, 'US-001');

    await assert.rejects(removeKeptWorktree(root, { storyId: 'US-001', worktree: busy.folder, branch: busy.branch }), /has 1 commit\(s\) not on ralph\/demo .*Removing it would lose that work/);
    assert.ok(existsSync(busy.folder));
    assert.match(git(root, 'log', '--format=%s', busy.branch), /feat: US-001/);

    await removeKeptWorktree(root, { storyId: 'US-002', worktree: empty.folder, branch: empty.branch });
    assert.ok(!existsSync(empty.folder));
    assert.deepEqual(
      readJson<ParallelState>(path.join(root, PARALLEL_STATE_FILE)).stories.map((s) => s.storyId),
      ['US-001'],
    );
  });

  it('Remove Worktree refuses a worktree whose HEAD was detached with commits of its own (its branch holds nothing): they are kept', async () => {
    const { root, one } = await recorded('interrupted');
    git(one.folder, 'checkout', '-q', '--detach');
    writeFileSync(path.join(one.folder, 'src', 'work.ts'), 'hours of agent work\n');
    git(one.folder, 'add', '-A');
    git(one.folder, 'commit', '-q', '-m', 'feat: US-001 - real work');
    const sha = git(one.folder, 'rev-parse', 'HEAD');

    await assert.rejects(removeKeptWorktree(root, { storyId: 'US-001', worktree: one.folder, branch: one.branch }), /detached HEAD.*1 commit\(s\) not on ralph\/demo.*Removing it would lose that work/);
    assert.ok(existsSync(one.folder));
    assert.equal(git(one.folder, 'rev-parse', 'HEAD'), sha);
  });

  it('a run from a workspace folder below the repository\'s top holds the repository\'s lock: never offered as interrupted; a run from the top is refused', async () => {
    const { root } = await recorded('running');
    const sub = path.join(root, 'app');
    mkdirSync(sub);
    const lock = await acquireRunLock(sub, 'the ralph-workbench run command');
    try {
      const found = await inspectInterrupted(sub, { prdPath: 'prd.json' });
      assert.equal(found.run, undefined);
      assert.match(found.liveHolder ?? '', /^the ralph-workbench run command, process \d+/);
      await assert.rejects(acquireRunLock(root, 'VS Code'), /Another run is using this workspace/);
    } finally {
      await lock.release();
    }
  });
});
