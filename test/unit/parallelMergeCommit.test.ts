/**
 * The merge commit a merge made off the main tree writes with `git fast-import`
 * (src/node/parallel/treeMerge.ts): the same commit `git commit-tree` makes — its author and
 * committer by git's own rules and dated now in the local zone, prd.json and progress.txt at any
 * depth and under any name — and git's own commit where only git can make it (a signed one).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MergeQueue } from '../../src/node/parallel/mergeQueue';
import { ParallelStateStore } from '../../src/node/parallel/stateFile';
import { commitTreeMerge, MERGE_SCRATCH_REF } from '../../src/node/parallel/treeMerge';
import { addWorktree, preflight } from '../../src/node/parallel/worktrees';
import { agentWork, cleanRepos, FEATURE, git, makeRepo, passing, saveEnv } from './parallelRepo';

/** A merge off the tree says so in the reflog ("merge <branch>"); a normal one says "commit (merge)". */
const madeOffTheTree = (root: string): boolean => /^merge ralph\/demo-US-001: /.test(git(root, 'reflog', '-1', '--format=%gs'));

async function mergeOne(root: string, memoryDir?: string): Promise<string> {
  const repo = await preflight(root, FEATURE);
  const wt = await addWorktree(repo, 'US-001');
  agentWork(wt.folder, 'US-001', { files: { 'src/a.ts': 'export const a = 1;\n' }, memoryDir });
  const rel = (f: string): string => (memoryDir ? `${memoryDir}/${f}` : f);
  const outcome = await new MergeQueue(repo, new ParallelStateStore(root), { prdPath: rel('prd.json'), progressPath: rel('progress.txt') }).merge(wt);
  assert.equal(outcome.kind, 'merged', JSON.stringify(outcome));
  return git(root, 'rev-parse', 'HEAD');
}

describe('parallel: the merge commit made off the main tree', function () {
  this.timeout(60_000);
  let restore = (): void => undefined;
  beforeEach(() => (restore = saveEnv('TZ', 'GIT_AUTHOR_NAME')));
  afterEach(() => restore());
  after(cleanRepos);

  it('is dated now in the local time zone, by the author and committer git names (its environment included), on the feature branch only', async () => {
    process.env.TZ = 'Asia/Kolkata'; // +0530: a zone with minutes
    process.env.GIT_AUTHOR_NAME = 'Agent Author';
    const root = makeRepo();
    const before = Math.floor(Date.now() / 1000);
    const head = await mergeOne(root);
    const after = Math.ceil(Date.now() / 1000);
    assert.ok(madeOffTheTree(root));
    const [author, committer, parents] = git(root, 'log', '-1', '--format=%an <%ae> %at %ai%n%cn <%ce> %ct %ci%n%P').split('\n');
    assert.match(author, /^Agent Author <test@example\.invalid> \d+ .* \+0530$/);
    assert.match(committer, /^Test <test@example\.invalid> \d+ .* \+0530$/);
    for (const line of [author, committer]) {
      const at = Number(/> (\d+) /.exec(line)?.[1]);
      assert.ok(at >= before && at <= after, `${line}: dated between ${before} and ${after}`);
    }
    assert.equal(parents.split(' ').length, 2);
    assert.equal(git(root, 'cat-file', '-p', head).split('\n\n')[1], 'Merge ralph/demo-US-001: US-001\n'.trimEnd());
    assert.deepEqual(passing(root), ['US-001']);
    // The scratch ref fast-import needs holds nothing the feature branch lacks.
    assert.equal(git(root, 'merge-base', '--is-ancestor', MERGE_SCRATCH_REF, FEATURE), '');
  });

  it('puts prd.json and progress.txt in a folder whose name has spaces, quotes, a backslash and accents, keeping an executable mode', async () => {
    const dir = 'docs/my "ralph" c\\afé';
    const root = makeRepo();
    mkdirSync(path.join(root, dir), { recursive: true });
    git(root, 'mv', 'prd.json', 'progress.txt', dir);
    chmodSync(path.join(root, dir, 'progress.txt'), 0o755);
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'memory in a folder');
    await mergeOne(root, dir);
    assert.ok(madeOffTheTree(root));
    assert.equal(git(root, 'status', '--porcelain', '--untracked-files=all'), '');
    assert.match(readFileSync(path.join(root, dir, 'progress.txt'), 'utf8'), /## 2026-01-02 10:00 - US-001\n/);
    assert.match(git(root, 'ls-tree', 'HEAD', '--', `${dir}/progress.txt`), /^100755 blob /);
    assert.match(git(root, 'ls-tree', 'HEAD', '--', `${dir}/prd.json`), /^100644 blob /);
    assert.equal(JSON.parse(readFileSync(path.join(root, dir, 'prd.json'), 'utf8')).userStories[0].passes, true);
  });

  it('is signed when the repository signs its commits (git makes that commit, from the same tree)', async () => {
    const root = makeRepo();
    // A pretend gpg: git hands it the commit and reads a signature and gpg's status line back.
    const gpg = path.join(root, '..', 'fake-gpg.sh');
    writeFileSync(gpg, '#!/bin/sh\ncat >/dev/null\necho "[GNUPG:] SIG_CREATED D 1 8 00 1 ABCDEF" >&2\nprintf -- "-----BEGIN PGP SIGNATURE-----\\nfake\\n-----END PGP SIGNATURE-----\\n"\n');
    chmodSync(gpg, 0o755);
    git(root, 'config', 'gpg.program', gpg);
    git(root, 'config', 'user.signingkey', 'ABCDEF');
    git(root, 'config', 'commit.gpgsign', 'true');
    const head = await mergeOne(root);
    assert.ok(madeOffTheTree(root));
    assert.match(git(root, 'cat-file', '-p', head), /^gpgsig -----BEGIN PGP SIGNATURE-----$/m);
    assert.deepEqual(passing(root), ['US-001']);
  });

  it('a fast-import that fails is a clear refusal with git\'s reason, and the feature branch does not move', async () => {
    const root = makeRepo();
    const head = git(root, 'rev-parse', 'HEAD');
    const missing = '0123456789abcdef0123456789abcdef01234567';
    await assert.rejects(
      commitTreeMerge(root, { head, theirs: head, tree: missing, replace: [{ path: 'prd.json', text: '{}\n' }], message: 'Merge x', reflogAction: 'merge x' }),
      (e: Error & { code?: string }) => {
        assert.equal(e.code, 'git');
        assert.match(e.message, /^Making the merge commit: git fast-import failed: .+/);
        return true;
      },
    );
    assert.equal(git(root, 'rev-parse', 'HEAD'), head);
    assert.equal(git(root, 'status', '--porcelain'), '');
  });
});
