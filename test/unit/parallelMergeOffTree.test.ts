/**
 * A story merged off the main tree (src/node/parallel/treeMerge.ts: git merge-tree, commit-tree,
 * reset --keep) leaves the main worktree exactly as the normal merge (git merge --no-ff, the
 * prd.json / progress.txt rules, git commit) does: two twin repositories with the same history
 * and the same clock, one merging each way (a hook makes the normal merge run, as it must, since
 * a merge made off the tree runs no hook), must end with the same commits, index, files, ORIG_HEAD.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MergeQueue } from '../../src/node/parallel/mergeQueue';
import { ParallelStateStore } from '../../src/node/parallel/stateFile';
import { addWorktree, preflight, type RepoInfo, type StoryWorktree } from '../../src/node/parallel/worktrees';
import { agentWork, type AgentWork, cleanRepos, FEATURE, git, makeRepo, saveEnv } from './parallelRepo';

/** Every file of the main tree (.git and .ralph aside): its text and whether it is executable. */
function files(root: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (p === '.git' || p === '.ralph') {
      continue;
    }
    if (e.isDirectory()) {
      Object.assign(out, files(root, p));
    } else {
      const exec = (statSync(path.join(root, p)).mode & 0o111) !== 0;
      out[p] = `${exec ? '[x] ' : ''}${readFileSync(path.join(root, p), 'utf8')}`;
    }
  }
  return out;
}

/** What a user (or git) can see of a main tree after a merge. */
function seen(root: string): Record<string, unknown> {
  return {
    head: git(root, 'rev-parse', 'HEAD'),
    origHead: git(root, 'rev-parse', 'ORIG_HEAD'),
    branch: git(root, 'symbolic-ref', 'HEAD'),
    index: git(root, 'ls-files', '--stage'),
    // Without a refresh: an index entry whose file's stat data it does not hold shows here.
    statDirty: git(root, 'diff-files', '--name-only'),
    status: git(root, 'status', '--porcelain', '--untracked-files=all'),
    files: files(root),
    inProgress: ['MERGE_HEAD', 'CHERRY_PICK_HEAD'].filter((ref) => existsSync(path.join(root, '.git', ref))),
  };
}

interface Twin {
  readonly root: string;
  readonly repo: RepoInfo;
  readonly queue: MergeQueue;
  readonly wts: Record<string, StoryWorktree>;
}

async function twin(ids: readonly string[], normal: boolean): Promise<Twin> {
  const root = makeRepo();
  writeFileSync(path.join(root, 'src', 'old.ts'), 'export const old = 0;\n');
  git(root, 'add', 'src/old.ts');
  git(root, 'commit', '-q', '-m', 'an old file');
  if (normal) {
    // Any hook a merge would run keeps the merge the normal way.
    writeFileSync(path.join(root, '.git', 'hooks', 'post-commit'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(root, '.git', 'hooks', 'post-commit'), 0o755);
  }
  const repo = await preflight(root, FEATURE);
  const wts: Record<string, StoryWorktree> = {};
  for (const id of ids) {
    wts[id] = await addWorktree(repo, id);
  }
  return { root, repo, wts, queue: new MergeQueue(repo, new ParallelStateStore(root), { removeMerged: false }) };
}

describe('parallel: a merge made off the main tree', function () {
  this.timeout(120_000);
  let restore = (): void => undefined;
  before(() => {
    restore = saveEnv('GIT_AUTHOR_DATE', 'GIT_COMMITTER_DATE');
    // One clock for both twins: equal commits have equal ids.
    process.env.GIT_AUTHOR_DATE = '2026-01-02T10:00:00Z';
    process.env.GIT_COMMITTER_DATE = '2026-01-02T10:00:00Z';
  });
  after(() => {
    restore();
    cleanRepos();
  });

  it('leaves the same commits, index, files and ORIG_HEAD as git merge --no-ff and git commit', async () => {
    const ids = ['US-001', 'US-002', 'US-003', 'US-004'];
    const fast = await twin(ids, false);
    const normal = await twin(ids, true);
    const work: Record<string, AgentWork> = {
      // A new file in a new folder, a note in AGENTS.md.
      'US-001': { files: { 'src/api/a.ts': 'export const a = 1;\n' }, agentsNote: { after: '## Module A', line: '- a learned' } },
      // A changed file, the other AGENTS.md note (a text merge), an executable script.
      'US-002': { files: { 'src/shared.ts': 'export const value = 2;\n', 'bin/run.sh': '#!/bin/sh\necho run\n' }, agentsNote: { after: '## Module B', line: '- b learned' } },
      // Conflicts with US-002 in src/shared.ts: not merged either way.
      'US-003': { files: { 'src/shared.ts': 'export const value = 3;\n' } },
      // A file removed; its learning and passes conflict as text with the three before it.
      'US-004': { files: { 'src/d.ts': 'export const d = 4;\n' } },
    };
    for (const t of [fast, normal]) {
      for (const id of ids) {
        if (id === 'US-004') {
          git(t.wts[id].folder, 'rm', '-q', 'src/old.ts');
        }
        if (id === 'US-002') {
          mkdirSync(path.join(t.wts[id].folder, 'bin'), { recursive: true });
        }
        agentWork(t.wts[id].folder, id, work[id]);
        if (id === 'US-002') {
          git(t.wts[id].folder, 'update-index', '--chmod=+x', 'bin/run.sh');
          git(t.wts[id].folder, 'commit', '-q', '--amend', '--no-edit');
        }
      }
    }
    const outcomes: string[] = [];
    for (const id of ids) {
      const [a, b] = [await fast.queue.merge(fast.wts[id]), await normal.queue.merge(normal.wts[id])];
      assert.equal(a.kind, b.kind, `${id}: the same outcome both ways`);
      assert.deepEqual(seen(fast.root), seen(normal.root), `${id}: the main tree as a normal merge leaves it`);
      outcomes.push(`${id} ${a.kind}`);
    }
    assert.deepEqual(outcomes, ['US-001 merged', 'US-002 merged', 'US-003 conflict', 'US-004 merged']);
    // The twins took different ways: the reflog says which.
    assert.match(git(fast.root, 'reflog', '-1', '--format=%gs'), /^merge ralph\/demo-US-004: /);
    assert.match(git(normal.root, 'reflog', '-1', '--format=%gs'), /^commit \(merge\): Merge ralph\/demo-US-004: US-004$/);
    assert.equal(files(fast.root)['bin/run.sh'], '[x] #!/bin/sh\necho run\n');
  });

  for (const [label, mode, gitVersion] of [
    ['made off the tree', 'merge', undefined],
    ['git merge, on git older than 2.38', 'merge', [2, 30]],
    ['replayed, rebase mode', 'rebase', undefined],
  ] as const) {
    it(`a file of the user's in the way of the merge (${label}) is not called a conflict: the merge refuses naming it, and the file is kept`, async () => {
      const root = makeRepo();
      // A repository that does not ignore .ralph/ (a run's own files are skipped by the clean-tree check).
      writeFileSync(path.join(root, '.git', 'info', 'exclude'), '');
      const found = await preflight(root, FEATURE);
      const repo = gitVersion ? { ...found, gitVersion } : found;
      const wt = await addWorktree(repo, 'US-001');
      // The story also commits a file under .ralph/; the user has their own file there in the main tree.
      writeFileSync(path.join(wt.folder, '.ralph', 'notes.md'), 'the agent\'s notes\n');
      git(wt.folder, 'add', '-f', '.ralph/notes.md');
      agentWork(wt.folder, 'US-001', { files: { 'src/a.ts': 'a\n' } });
      mkdirSync(path.join(root, '.ralph'), { recursive: true });
      writeFileSync(path.join(root, '.ralph', 'notes.md'), 'my notes\n');

      await assert.rejects(new MergeQueue(repo, new ParallelStateStore(root), { mode }).merge(wt), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'dirty', e.message);
        assert.match(e.message, /\.ralph\/notes\.md/);
        assert.doesNotMatch(e.message, /conflict/i);
        return true;
      });
      assert.equal(readFileSync(path.join(root, '.ralph', 'notes.md'), 'utf8'), 'my notes\n');
      assert.equal(git(root, 'rev-parse', 'HEAD'), repo.head);
      assert.equal(git(root, 'status', '--porcelain', '--untracked-files=no'), '');
    });
  }
});
