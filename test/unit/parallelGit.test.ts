/**
 * The parallel engine's git helpers that read several things in one process (issue 19: fewer git
 * processes on a merge's critical path): `showFiles` answers as `showFile` does, one by one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { git as runGit, showFile, showFiles } from '../../src/node/parallel/git';
import { commitMaker, commitTreeMerge } from '../../src/node/parallel/treeMerge';
import { branchAndChanges, uncommitted } from '../../src/node/parallel/worktrees';
import { git, saveEnv } from './parallelRepo';

describe('parallel: git reads', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-git-'));
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.name', 'T');
    git(dir, 'config', 'user.email', 't@example.invalid');
    writeFileSync(path.join(dir, 'prd.json'), '{"userStories": ["é", "日本"]}\n');
    writeFileSync(path.join(dir, 'empty.txt'), '');
    writeFileSync(path.join(dir, 'crlf.txt'), 'a\r\nb\r\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'one');
    writeFileSync(path.join(dir, 'prd.json'), '{"userStories": []}\n');
    git(dir, 'commit', '-q', '-am', 'two');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('showFiles reads many rev:path at once, exactly as showFile reads each (missing ones, multibyte text, empty files, a tree, a bad revision)', async () => {
    const specs = [
      { rev: 'HEAD', path: 'prd.json' },
      { rev: 'HEAD~1', path: 'prd.json' },
      { rev: 'HEAD', path: 'missing.txt' },
      { rev: 'HEAD', path: 'empty.txt' },
      { rev: 'HEAD', path: 'crlf.txt' },
      { rev: 'no-such-branch', path: 'prd.json' },
      { rev: 'HEAD', path: '' },
      { rev: 'HEAD~1', path: 'prd.json' },
    ];
    const many = await showFiles(dir, specs);
    assert.deepEqual(many.slice(0, 6), await Promise.all(specs.slice(0, 6).map((s) => showFile(dir, s.rev, s.path))));
    assert.equal(many[1], '{"userStories": ["é", "日本"]}\n');
    assert.equal(many[2], undefined);
    assert.equal(many[6], undefined, 'a tree is not a file');
    assert.equal(many[7], many[1], 'the answers after a tree and a missing one stay in step');
  });

  it('a path git’s line-based input cannot carry is read on its own', async () => {
    assert.deepEqual(await showFiles(dir, [{ rev: 'HEAD', path: 'a\nb' }, { rev: 'HEAD', path: 'prd.json' }]), [undefined, '{"userStories": []}\n']);
  });

  it('branchAndChanges names the branch (none when detached) and lists what uncommitted lists, in one git process', async () => {
    writeFileSync(path.join(dir, 'new file.txt'), 'x');
    writeFileSync(path.join(dir, 'prd.json'), '{}\n');
    const both = await branchAndChanges(dir);
    assert.equal(both.branch, 'main');
    assert.deepEqual(both.paths, await uncommitted(dir));
    assert.deepEqual([...both.paths].sort(), ['new file.txt', 'prd.json']);
    git(dir, 'checkout', '-q', '--detach');
    assert.equal((await branchAndChanges(dir)).branch, undefined);
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'branch', '-q', '--set-upstream-to', 'main');
    assert.equal((await branchAndChanges(dir)).branch, 'main', 'an upstream is not part of the name');
    const unborn = mkdtempSync(path.join(tmpdir(), 'ralph-git-'));
    try {
      git(unborn, 'init', '-q', '-b', 'ralph/new');
      assert.equal((await branchAndChanges(unborn)).branch, 'ralph/new');
    } finally {
      rmSync(unborn, { recursive: true, force: true });
    }
  });
});

describe('parallel: the merge commit\'s git process', () => {
  it('a fast-import that cannot even start (spawn throws: E2BIG) is a clear refusal, and git runs again after it', async function () {
    this.timeout(30_000);
    const head = '0123456789abcdef0123456789abcdef01234567';
    const run = {};
    await commitMaker(process.cwd(), run); // the run's first merge asked git var already
    const restore = saveEnv('RALPH_TEST_BIG');
    process.env.RALPH_TEST_BIG = 'x'.repeat(200_000); // one variable over the kernel's 128 KiB limit
    try {
      await assert.rejects(commitTreeMerge(process.cwd(), { head, theirs: head, tree: head, replace: [], message: 'm', reflogAction: 'merge x' }, run), /^ParallelError: Making the merge commit: git fast-import could not start/);
    } finally {
      restore();
    }
    // The run goes on: the next git process starts as usual.
    assert.equal((await runGit(process.cwd(), ['--version'])).code, 0);
  });
});
