/**
 * Resume (src/node/parallel/resume.ts) after a crash in the middle of a merge, when the user has
 * moved on meanwhile: what a crash left is told apart from the user's own work (commits made on
 * the feature branch since, a merge of their own under way), and only Ralph's half-merge is undone.
 * Real git in temporary repositories, pretend agents committing in their worktrees.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PARALLEL_STATE_FILE, type ParallelState } from '../../src/core/parallel/state';
import { MergeQueue } from '../../src/node/parallel/mergeQueue';
import { resumeParallel } from '../../src/node/parallel/resume';
import { ParallelStateStore } from '../../src/node/parallel/stateFile';
import { addWorktree, preflight } from '../../src/node/parallel/worktrees';
import { agentWork, cleanRepos, FEATURE, git, makeRepo, passing, readJson } from './parallelRepo';

const stateOf = (root: string): ParallelState => readJson<ParallelState>(path.join(root, PARALLEL_STATE_FILE));
const isAncestor = (root: string, a: string, b: string): boolean => spawnSync('git', ['merge-base', '--is-ancestor', a, b], { cwd: root }).status === 0;

/** A repository with US-001 finished in its worktree and recorded `merging` from the feature head (the crash). */
async function cutOffMerging(mode: 'merge' | 'rebase' = 'merge') {
  const root = makeRepo();
  const repo = await preflight(root, FEATURE);
  const wt = await addWorktree(repo, 'US-001');
  agentWork(wt.folder, 'US-001', { files: { 'src/a.ts': 'export const a = 1;\n' } });
  const store = new ParallelStateStore(root);
  await store.update({ version: 1, featureBranch: FEATURE, mergeMode: mode, stories: [] }, (s) => s);
  await new MergeQueue(repo, store, { mode }).record(wt, 'merging', { before: repo.head });
  return { root, repo, wt };
}

/** A second story commit, and the crash after the replay's first step: its first commit copied onto the feature branch (as replay() does). */
function halfReplayed(root: string, wt: { folder: string; branch: string }): void {
    writeFileSync(path.join(wt.folder, 'src', 'a2.ts'), 'more\n');
    git(wt.folder, 'add', '-A');
    git(wt.folder, 'commit', '-q', '-m', 'feat: US-001 - second part');
    const first = git(root, 'rev-list', '--reverse', `${FEATURE}..${wt.branch}`).split('\n')[0];
    git(root, 'cherry-pick', '--no-commit', first);
    git(root, 'checkout', 'HEAD', '--', 'prd.json', 'progress.txt');
    git(root, 'commit', '-q', '-C', first);
}

function commitOnFeature(root: string, file: string, text: string, message: string): string {
  writeFileSync(path.join(root, 'src', file), text);
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', message);
  return git(root, 'rev-parse', 'HEAD');
}

describe('parallel: resume after a crash, when the user moved on meanwhile', function () {
  this.timeout(120_000);
  after(cleanRepos);

  it('a commit made on the feature branch after a merge was cut off is kept: the story merges on top of it', async () => {
    const { root, wt } = await cutOffMerging();
    const userCommit = commitOnFeature(root, 'user.ts', 'user work\n', 'user: my fix');

    const report = await resumeParallel(root);
    assert.ok(isAncestor(root, userCommit, 'HEAD'), 'the user commit is still on the feature branch');
    assert.equal(readFileSync(path.join(root, 'src', 'user.ts'), 'utf8'), 'user work\n');
    assert.deepEqual(
      report.merged.map((o) => [o.storyId, o.kind]),
      [['US-001', 'merged']],
    );
    assert.ok(isAncestor(root, wt.branch, 'HEAD') || !existsSync(wt.folder));
    assert.deepEqual(passing(root), ['US-001']);
  });

  it('a half-finished replay (rebase mode) under a commit of the user is not undone: nothing is dropped, the user is told', async () => {
    const { root, wt } = await cutOffMerging('rebase');
    halfReplayed(root, wt);
    // Then the user committed.
    const userCommit = commitOnFeature(root, 'user.ts', 'user work\n', 'user: my fix');

    const report = await resumeParallel(root);
    assert.equal(git(root, 'rev-parse', 'HEAD'), userCommit);
    assert.match(report.notes.join('\n'), /US-001.*user: my fix|US-001.*not undone/);
    assert.equal(stateOf(root).stories.find((s) => s.storyId === 'US-001')?.state, 'interrupted');
  });

  it('a half-finished replay (rebase mode) with nothing after it is undone, and the story replayed again whole', async () => {
    const { root, repo, wt } = await cutOffMerging('rebase');
    halfReplayed(root, wt);

    const report = await resumeParallel(root, { mode: 'rebase' });
    assert.deepEqual(
      report.merged.map((o) => [o.storyId, o.kind]),
      [['US-001', 'merged']],
    );
    // The story's two commits, once each, on top of where the merge began.
    assert.deepEqual(git(root, 'log', '--format=%s', `${repo.head}..HEAD`).split('\n'), ['feat: US-001 - second part', 'feat: US-001 - Story US-001']);
    assert.deepEqual(passing(root), ['US-001']);
  });

  it('a merge of the user\'s own under way in the main tree is left alone: resume refuses, naming it, and the resolution is kept', async () => {
    const root = makeRepo();
    const repo = await preflight(root, FEATURE);
    const wt = await addWorktree(repo, 'US-001');
    await new MergeQueue(repo, new ParallelStateStore(root)).record(wt, 'interrupted');
    git(root, 'checkout', '-q', '-b', 'other');
    writeFileSync(path.join(root, 'src', 'shared.ts'), 'export const value = 2;\n');
    git(root, 'commit', '-qam', 'other');
    git(root, 'checkout', '-q', FEATURE);
    writeFileSync(path.join(root, 'src', 'shared.ts'), 'export const value = 3;\n');
    git(root, 'commit', '-qam', 'feature');
    assert.equal(spawnSync('git', ['merge', 'other'], { cwd: root }).status, 1);
    writeFileSync(path.join(root, 'src', 'shared.ts'), 'export const value = 42; // carefully resolved\n');

    await assert.rejects(resumeParallel(root), /merge .*under way|merge in progress/i);
    assert.equal(readFileSync(path.join(root, 'src', 'shared.ts'), 'utf8'), 'export const value = 42; // carefully resolved\n');
    assert.ok(existsSync(path.join(root, '.git', 'MERGE_HEAD')));
  });

  it('a replay cut off between cherry-pick --no-commit and its commit (rebase mode) is Ralph\'s own: undone and merged again', async () => {
    const { root, wt } = await cutOffMerging('rebase');
    git(root, 'cherry-pick', '--no-commit', wt.branch);
    assert.notEqual(git(root, 'status', '--porcelain'), '');

    const report = await resumeParallel(root);
    assert.deepEqual(
      report.merged.map((o) => [o.storyId, o.kind]),
      [['US-001', 'merged']],
    );
    assert.deepEqual(passing(root), ['US-001']);
    assert.equal(git(root, 'status', '--porcelain'), '');
  });

  it('staged changes that are not a cut-off replay of the story are the user\'s: resume refuses and keeps them', async () => {
    const { root } = await cutOffMerging('rebase');
    writeFileSync(path.join(root, 'src', 'shared.ts'), 'export const value = 7; // mine\n');
    git(root, 'add', '-A');

    await assert.rejects(resumeParallel(root), /uncommitted changes/);
    assert.equal(readFileSync(path.join(root, 'src', 'shared.ts'), 'utf8'), 'export const value = 7; // mine\n');
  });

  it('a story already passing in the main prd.json, cut off while merging, is merged again, not taken for merged', async () => {
    const { root, wt } = await cutOffMerging();
    // The feature branch says US-001 passes (set by hand), but the story's commits are not on it.
    const prd = readFileSync(path.join(root, 'prd.json'), 'utf8').replace(/("id": "US-001"[^}]*?"passes": )false/, '$1true');
    writeFileSync(path.join(root, 'prd.json'), prd);
    git(root, 'commit', '-qam', 'mark US-001 by hand');
    assert.deepEqual(passing(root), ['US-001']);

    const report = await resumeParallel(root);
    assert.deepEqual(
      report.merged.map((o) => [o.storyId, o.kind]),
      [['US-001', 'merged']],
    );
    assert.ok(existsSync(path.join(root, 'src', 'a.ts')), "the story's work is on the feature branch");
    assert.ok(!existsSync(wt.folder) || isAncestor(root, wt.branch, 'HEAD'));
  });
});
