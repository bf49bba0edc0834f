/**
 * The merge queue (src/node/parallel/mergeQueue.ts, mergeStory.ts) and resume (resume.ts) with
 * real git in temporary repositories and pretend agents that commit in their worktrees.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PARALLEL_STATE_FILE, type ParallelState } from '../../src/core/parallel/state';
import { MergeQueue } from '../../src/node/parallel/mergeQueue';
import { ParallelStateStore } from '../../src/node/parallel/stateFile';
import { updateFromFeature } from '../../src/node/parallel/storyRun';
import { resumeParallel } from '../../src/node/parallel/resume';
import { addWorktree, preflight, type RepoInfo, type StoryWorktree } from '../../src/node/parallel/worktrees';
import { agentWork, cleanRepos, FEATURE, git, makeRepo, passing, PROGRESS, readJson } from './parallelRepo';

const stateOf = (root: string): ParallelState => readJson<ParallelState>(path.join(root, PARALLEL_STATE_FILE));
const status = (root: string): string => git(root, 'status', '--porcelain', '--untracked-files=all');
const count = (text: string, needle: string): number => text.split(needle).length - 1;

async function setUp(ids: readonly string[], gitVersion?: [number, number]): Promise<{ root: string; repo: RepoInfo; wts: Record<string, StoryWorktree> }> {
  const root = makeRepo();
  const found = await preflight(root, FEATURE);
  const repo = gitVersion ? { ...found, gitVersion } : found;
  const wts: Record<string, StoryWorktree> = {};
  for (const id of ids) {
    wts[id] = await addWorktree(repo, id);
  }
  return { root, repo, wts };
}

describe('parallel: the merge queue', function () {
  this.timeout(120_000);
  after(cleanRepos);

  it('merges done stories one at a time with --no-ff: passes set, learnings appended, AGENTS.md merged as text, worktrees removed', async () => {
    const { root, repo, wts } = await setUp(['US-001', 'US-002']);
    agentWork(wts['US-001'].folder, 'US-001', { files: { 'src/a.ts': 'export const a = 1;\n' }, agentsNote: { after: '## Module A', line: '- a learned' } });
    agentWork(wts['US-002'].folder, 'US-002', { files: { 'src/b.ts': 'export const b = 2;\n' }, agentsNote: { after: '## Module B', line: '- b learned' } });
    const queue = new MergeQueue(repo, new ParallelStateStore(root), { order: ['US-002', 'US-001'] });
    const outcomes = await queue.mergeAll([wts['US-001'], wts['US-002']]);
    assert.deepEqual(
      outcomes.map((o) => [o.storyId, o.kind]),
      [
        ['US-002', 'merged'],
        ['US-001', 'merged'],
      ],
    );
    assert.deepEqual(passing(root), ['US-001', 'US-002']);
    const progress = readFileSync(path.join(root, 'progress.txt'), 'utf8');
    assert.ok(progress.startsWith(PROGRESS));
    assert.equal(count(progress, 'learning of US-001'), 1);
    assert.equal(count(progress, 'learning of US-002'), 1);
    const agents = readFileSync(path.join(root, 'AGENTS.md'), 'utf8');
    assert.match(agents, /## Module A\n- a learned\n/);
    assert.match(agents, /## Module B\n- b learned\n/);
    // Two merge commits on the feature branch, each with the story's feat: commit as second parent.
    const merges = git(root, 'log', '--merges', '--format=%s').split('\n');
    assert.deepEqual(merges, ['Merge ralph/demo-US-001: US-001', 'Merge ralph/demo-US-002: US-002']);
    const feats = git(root, 'log', '--format=%s', FEATURE).split('\n').filter((s) => s.startsWith('feat: '));
    assert.deepEqual(feats.sort(), ['feat: US-001 - Story US-001', 'feat: US-002 - Story US-002']);
    assert.equal(status(root), '');
    assert.ok(!existsSync(wts['US-001'].folder) && !existsSync(wts['US-002'].folder));
    assert.deepEqual(
      stateOf(root).stories.map((s) => [s.storyId, s.state, s.mergeCommit?.length]),
      [
        ['US-002', 'merged', 40],
        ['US-001', 'merged', 40],
      ],
    );
  });

  for (const [label, version] of [
    ['found with git merge-tree', undefined],
    ['found by merging, on git older than 2.38', [2, 30] as [number, number]],
  ] as const) {
    it(`a conflict stops that story only (${label}): merge aborted, main tree clean, files named, worktree kept`, async () => {
      const { root, repo, wts } = await setUp(['US-001', 'US-002', 'US-003'], version);
      agentWork(wts['US-001'].folder, 'US-001', { files: { 'src/shared.ts': 'export const value = 10;\n' } });
      agentWork(wts['US-002'].folder, 'US-002', { files: { 'src/shared.ts': 'export const value = 20;\n' } });
      agentWork(wts['US-003'].folder, 'US-003', { files: { 'src/c.ts': 'export const c = 3;\n' } });
      const queue = new MergeQueue(repo, new ParallelStateStore(root));
      const outcomes = await queue.mergeAll([wts['US-001'], wts['US-002'], wts['US-003']]);
      assert.deepEqual(
        outcomes.map((o) => o.kind),
        ['merged', 'conflict', 'merged'],
      );
      assert.deepEqual(outcomes[1].kind === 'conflict' && outcomes[1].files, ['src/shared.ts']);
      assert.equal(status(root), '');
      assert.equal(existsSync(path.join(root, '.git', 'MERGE_HEAD')), false);
      assert.deepEqual(passing(root), ['US-001', 'US-003']);
      assert.equal(readFileSync(path.join(root, 'src', 'shared.ts'), 'utf8'), 'export const value = 10;\n');
      assert.ok(existsSync(wts['US-002'].folder));
      const rec = stateOf(root).stories.find((s) => s.storyId === 'US-002');
      assert.equal(rec?.state, 'conflict');
      assert.deepEqual(rec?.conflicts, ['src/shared.ts']);
    });
  }

  it('prd.json and progress.txt never conflict: both stories changed them, both merge', async () => {
    // Each worktree set its own passes and appended its own entry: a text merge would conflict.
    const { root, repo, wts } = await setUp(['US-001', 'US-002']);
    agentWork(wts['US-001'].folder, 'US-001', { learning: 'one' });
    agentWork(wts['US-002'].folder, 'US-002', { learning: 'two' });
    const queue = new MergeQueue(repo, new ParallelStateStore(root));
    const outcomes = await queue.mergeAll([wts['US-001'], wts['US-002']]);
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['merged', 'merged'],
    );
    const progress = readFileSync(path.join(root, 'progress.txt'), 'utf8');
    assert.equal(count(progress, '  - one\n'), 1);
    assert.equal(count(progress, '  - two\n'), 1);
    assert.deepEqual(passing(root), ['US-001', 'US-002']);
  });

  it('a failing check undoes that merge and marks the story for a retry; its commits stay on its branch', async () => {
    const { root, repo, wts } = await setUp(['US-001', 'US-002']);
    agentWork(wts['US-001'].folder, 'US-001', { files: { 'src/a.ts': 'export const a = 1;\n' } });
    agentWork(wts['US-002'].folder, 'US-002', { files: { 'src/broken.ts': 'BROKEN\n' } });
    const queue = new MergeQueue(repo, new ParallelStateStore(root), { checkCommand: 'if grep -rq BROKEN src; then echo "1 test failed: broken.ts"; exit 3; fi' });
    const first = await queue.merge(wts['US-001']);
    assert.equal(first.kind, 'merged');
    const head = git(root, 'rev-parse', 'HEAD');
    const second = await queue.merge(wts['US-002']);
    assert.equal(second.kind, 'check-failed');
    assert.equal(second.kind === 'check-failed' && second.exitCode, 3);
    assert.match(second.kind === 'check-failed' ? second.output : '', /1 test failed: broken\.ts/);
    assert.equal(git(root, 'rev-parse', 'HEAD'), head);
    assert.equal(status(root), '');
    assert.deepEqual(passing(root), ['US-001']);
    assert.ok(existsSync(wts['US-002'].folder));
    assert.match(git(root, 'log', '--format=%s', wts['US-002'].branch), /feat: US-002/);
    const rec = stateOf(root).stories.find((s) => s.storyId === 'US-002');
    assert.equal(rec?.state, 'check-failed');
    assert.match(rec?.note ?? '', /The check failed \(exit 3\); the merge was undone and the story awaits a retry/);
  });

  it('edits a worktree made to other stories in prd.json are not merged, and are reported', async () => {
    const { root, repo, wts } = await setUp(['US-001']);
    agentWork(wts['US-001'].folder, 'US-001', { alsoPasses: ['US-004'] });
    const outcome = await new MergeQueue(repo, new ParallelStateStore(root)).merge(wts['US-001']);
    assert.equal(outcome.kind, 'merged');
    assert.deepEqual(outcome.kind === 'merged' && outcome.ignoredStories, ['US-004']);
    assert.deepEqual(passing(root), ['US-001']);
    assert.match(stateOf(root).stories[0].note ?? '', /prd\.json edits to other stories were not merged: US-004/);
  });

  it('a story without its feat: commit, or that does not pass in its worktree, is not merged', async () => {
    const { root, repo, wts } = await setUp(['US-001', 'US-002']);
    agentWork(wts['US-001'].folder, 'US-001', { noCommit: true });
    writeFileSync(path.join(wts['US-002'].folder, 'src', 'x.ts'), 'x\n');
    git(wts['US-002'].folder, 'add', '-A');
    git(wts['US-002'].folder, 'commit', '-q', '-m', 'feat: US-002 - Story US-002');
    const queue = new MergeQueue(repo, new ParallelStateStore(root));
    const [a, b] = await queue.mergeAll([wts['US-001'], wts['US-002']]);
    assert.match(a.kind === 'not-done' ? a.reason : a.kind, /has no "feat: US-001 - …" commit/);
    assert.match(b.kind === 'not-done' ? b.reason : b.kind, /US-002 does not pass in the worktree's prd\.json/);
    assert.equal(git(root, 'rev-parse', 'HEAD'), repo.head);
    assert.deepEqual(
      stateOf(root).stories.map((s) => [s.storyId, s.state]),
      [
        ['US-001', 'interrupted'],
        ['US-002', 'interrupted'],
      ],
    );
    assert.match(stateOf(root).stories[0].note ?? '', /^Not merged: its branch ralph\/demo-US-001 has no "feat: US-001 - …" commit/);
  });

  it('a retry after a conflict brings the feature branch into the worktree without text-merging prd.json or progress.txt; its next merge reports no other story', async () => {
    const { root, repo, wts } = await setUp(['US-001', 'US-002']);
    const [a, b] = [wts['US-001'], wts['US-002']];
    agentWork(a.folder, 'US-001', { files: { 'src/shared.ts': 'export const value = 10;\n' } });
    agentWork(b.folder, 'US-002', { files: { 'src/shared.ts': 'export const value = 20;\n' } });
    const queue = new MergeQueue(repo, new ParallelStateStore(root), { removeMerged: false });
    assert.equal((await queue.merge(b)).kind, 'merged');
    assert.equal((await queue.merge(a)).kind, 'conflict');

    const update = await updateFromFeature(a, FEATURE, { prd: 'prd.json', progress: 'progress.txt' });
    assert.deepEqual(update.files, ['src/shared.ts']);
    // Its memory files as the rules make them: the feature branch's, with its own story's passes and learnings.
    assert.deepEqual(passing(a.folder), ['US-001', 'US-002']);
    const wtProgress = readFileSync(path.join(a.folder, 'progress.txt'), 'utf8');
    assert.equal(count(wtProgress, 'learning of US-001'), 1);
    assert.equal(count(wtProgress, 'learning of US-002'), 1);
    writeFileSync(path.join(a.folder, 'src', 'shared.ts'), 'export const value = 30;\n');
    git(a.folder, 'add', '-A');
    git(a.folder, 'commit', '-q', '--no-edit');

    const again = await queue.merge(update.worktree);
    assert.equal(again.kind, 'merged');
    assert.deepEqual(again.kind === 'merged' ? again.ignoredStories : undefined, []);
    assert.deepEqual(passing(root), ['US-001', 'US-002']);
    const progress = readFileSync(path.join(root, 'progress.txt'), 'utf8');
    assert.equal(count(progress, 'learning of US-001'), 1);
    assert.equal(count(progress, 'learning of US-002'), 1);
  });

  it('rebase mode replays the story’s commits on the feature branch: linear history, prd.json and progress.txt from the rules', async () => {
    const { root, repo, wts } = await setUp(['US-001', 'US-002']);
    agentWork(wts['US-001'].folder, 'US-001', { files: { 'src/a.ts': 'a\n' } });
    agentWork(wts['US-002'].folder, 'US-002', { files: { 'src/b.ts': 'b\n' } });
    const outcomes = await new MergeQueue(repo, new ParallelStateStore(root), { mode: 'rebase' }).mergeAll([wts['US-001'], wts['US-002']]);
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['merged', 'merged'],
    );
    assert.equal(git(root, 'log', '--merges', '--format=%s'), '');
    assert.deepEqual(git(root, 'log', '--format=%s', '-2').split('\n'), ['feat: US-002 - Story US-002', 'feat: US-001 - Story US-001']);
    assert.deepEqual(passing(root), ['US-001', 'US-002']);
    const progress = readFileSync(path.join(root, 'progress.txt'), 'utf8');
    assert.equal(count(progress, 'learning of US-001'), 1);
    assert.equal(count(progress, 'learning of US-002'), 1);
    assert.equal(status(root), '');
    // Each branch now points at its replayed commits (as after git rebase), so its worktree went.
    assert.ok(!existsSync(wts['US-001'].folder) && !existsSync(wts['US-002'].folder));
    assert.deepEqual(
      stateOf(root).stories.map((s) => s.state),
      ['merged', 'merged'],
    );
  });
});

describe('parallel: resume after a crash', function () {
  this.timeout(120_000);
  after(cleanRepos);

  it('finished-but-unmerged worktrees merge, a cut-off agent is interrupted, orphaned worktrees are listed with their commits, nothing unmerged is deleted', async () => {
    const { root, repo, wts } = await setUp(['US-001', 'US-002', 'US-003']);
    const store = new ParallelStateStore(root);
    const queue = new MergeQueue(repo, store);
    // What the state file said when the process died.
    await queue.record(wts['US-001'], 'running');
    await queue.record(wts['US-002'], 'running');
    await queue.record(wts['US-003'], 'done');
    agentWork(wts['US-001'].folder, 'US-001', { files: { 'src/a.ts': 'a\n' } });
    agentWork(wts['US-002'].folder, 'US-002', { files: { 'src/b.ts': 'b\n' }, noCommit: true });
    agentWork(wts['US-003'].folder, 'US-003', { files: { 'src/c.ts': 'c\n' } });
    // A worktree no record knows (added, then the process died before writing the state).
    const orphan = await addWorktree(repo, 'US-004');
    writeFileSync(path.join(orphan.folder, 'src', 'd.ts'), 'd\n');
    git(orphan.folder, 'add', '-A');
    git(orphan.folder, 'commit', '-q', '-m', 'wip: US-004 half done');

    const report = await resumeParallel(root);
    assert.deepEqual(
      report.merged.map((o) => [o.storyId, o.kind]),
      [
        ['US-001', 'merged'],
        ['US-003', 'merged'],
      ],
    );
    assert.deepEqual(report.interrupted, ['US-002']);
    assert.equal(report.orphaned.length, 1);
    assert.equal(report.orphaned[0].branch, 'ralph/demo-US-004');
    assert.match(report.orphaned[0].commits[0], /^[0-9a-f]{40} wip: US-004 half done$/);
    assert.deepEqual(passing(root), ['US-001', 'US-003']);
    // Kept: the cut-off agent's uncommitted work and the orphan's commit.
    assert.equal(readFileSync(path.join(wts['US-002'].folder, 'src', 'b.ts'), 'utf8'), 'b\n');
    assert.ok(existsSync(orphan.folder));
    assert.equal(git(root, 'status', '--porcelain'), '');
    const states = Object.fromEntries(stateOf(root).stories.map((s) => [s.storyId, s.state]));
    assert.deepEqual(states, { 'US-001': 'merged', 'US-002': 'interrupted', 'US-003': 'merged', 'US-004': 'orphaned' });
    assert.deepEqual(
      stateOf(root).stories.find((s) => s.storyId === 'US-004')?.commits?.map((c) => c.slice(41)),
      ['wip: US-004 half done'],
    );
    // Resuming again changes nothing and deletes nothing.
    const again = await resumeParallel(root);
    assert.deepEqual(again.merged, []);
    assert.ok(existsSync(orphan.folder) && existsSync(wts['US-002'].folder));
  });

  it('a merge cut off half-way in the main tree is undone and done again; one whose commit was made is recorded merged', async () => {
    const { root, repo, wts } = await setUp(['US-001', 'US-002']);
    const queue = new MergeQueue(repo, new ParallelStateStore(root));
    agentWork(wts['US-001'].folder, 'US-001', { files: { 'src/a.ts': 'a\n' } });
    agentWork(wts['US-002'].folder, 'US-002', { files: { 'src/b.ts': 'b\n' } });
    // US-002 merged completely, but the process died before the state said so.
    await queue.record(wts['US-002'], 'merging', { before: repo.head });
    const done = await new MergeQueue(repo, new ParallelStateStore(path.join(root, '.ralph', 'elsewhere')), { removeMerged: false }).merge(wts['US-002']);
    assert.equal(done.kind, 'merged');
    // US-001: the process died inside git merge (MERGE_HEAD, a dirty main tree).
    await queue.record(wts['US-001'], 'merging', { before: git(root, 'rev-parse', 'HEAD') });
    // It stops on prd.json and progress.txt (both sides changed them): exit 1, a merge under way.
    assert.equal(spawnSync('git', ['merge', '--no-ff', '--no-commit', wts['US-001'].branch], { cwd: root }).status, 1);
    assert.notEqual(git(root, 'status', '--porcelain'), '');

    const report = await resumeParallel(root);
    assert.deepEqual(
      report.merged.map((o) => [o.storyId, o.kind]),
      [['US-001', 'merged']],
    );
    assert.deepEqual(report.removed, ['US-002']);
    assert.deepEqual(passing(root), ['US-001', 'US-002']);
    assert.equal(git(root, 'log', '--merges', '--format=%s').split('\n').length, 2);
    assert.equal(git(root, 'status', '--porcelain'), '');
    assert.deepEqual(
      stateOf(root).stories.map((s) => [s.storyId, s.state]),
      [
        ['US-002', 'merged'],
        ['US-001', 'merged'],
      ],
    );
  });

  it('a merge whose check the crash cut off is checked again; a failure undoes it', async () => {
    const { root, repo, wts } = await setUp(['US-001']);
    agentWork(wts['US-001'].folder, 'US-001', { files: { 'src/broken.ts': 'BROKEN\n' } });
    // Merged (no check then), and the process died before the state said so.
    await new MergeQueue(repo, new ParallelStateStore(root)).record(wts['US-001'], 'merging', { before: repo.head });
    await new MergeQueue(repo, new ParallelStateStore(path.join(root, '.ralph', 'elsewhere')), { removeMerged: false }).merge(wts['US-001']);
    const report = await resumeParallel(root, { checkCommand: 'if grep -rq BROKEN src; then exit 4; fi' });
    assert.match(report.notes.join('\n'), /US-001: The check failed \(exit 4\) after resuming; the merge was undone/);
    assert.equal(git(root, 'rev-parse', 'HEAD'), repo.head);
    assert.deepEqual(passing(root), []);
    assert.equal(stateOf(root).stories[0].state, 'check-failed');
    assert.ok(existsSync(wts['US-001'].folder));
  });
});
