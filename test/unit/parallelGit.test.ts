/**
 * The parallel engine's git helpers that read several things in one process (issue 19: fewer git
 * processes on a merge's critical path): `showFiles` answers as `showFile` does, one by one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { git as runGit, gitTurn, showFile, showFiles, withGitUrgency } from '../../src/node/parallel/git';
import { commitMaker, commitTreeMerge } from '../../src/node/parallel/treeMerge';
import { branchAndChanges, uncommitted } from '../../src/node/parallel/worktrees';
import { git } from './parallelRepo';

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

describe('parallel: the order of git processes', () => {
  it('a merge\'s git process goes before a worktree change\'s, which goes before the rest, whatever the order they asked in', async () => {
    // Every turn taken: the next ones wait.
    const held = await Promise.all([gitTurn(), gitTurn(), gitTurn()]);
    const started: string[] = [];
    const ask = (name: string, level?: 0 | 1 | 2): Promise<void> => {
      const take = async (): Promise<void> => {
        const done = await gitTurn();
        started.push(name);
        done();
      };
      return level === undefined ? take() : withGitUrgency(level, take);
    };
    const all = Promise.all([ask('observe a'), ask('observe b', 2), ask('worktree', 1), ask('merge', 0), ask('observe c')]);
    held.forEach((done) => done());
    await all;
    assert.deepEqual(started, ['merge', 'worktree', 'observe a', 'observe b', 'observe c']);
  });

  it('many git processes asked at once all run, and a turn is given back when git fails', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-gitturn-'));
    try {
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => runGit(dir, i % 2 ? ['rev-parse', '--git-dir'] : ['--version'])));
      assert.equal(results.filter((r) => r.code === 0).length, 6, 'git --version everywhere');
      assert.equal(results.filter((r) => r.code !== 0).length, 6, 'not a repository: a failure, not a hang');
      // All turns are free again: three can be taken at once without waiting.
      const again = await Promise.race([Promise.all([gitTurn(), gitTurn(), gitTurn()]), new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000))]);
      assert.ok(again, 'every turn was given back');
      again.forEach((done) => done());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Found by a hostile review: the hand-over of a turn, and a fast-import that cannot start.
  it('a turn given back goes to the most urgent waiter, not to a newcomer of the same tick; never more than 3 at once', async () => {
    const held = await Promise.all([gitTurn(), gitTurn(), gitTurn()]);
    const order: string[] = [];
    let active = 3;
    let most = 3;
    const take = (name: string, level: 0 | 2) =>
      withGitUrgency(level, async () => {
        const done = await gitTurn();
        active++;
        most = Math.max(most, active);
        order.push(name);
        return () => {
          active--;
          done();
        };
      });
    const merge = take('merge', 0);
    await new Promise((r) => setImmediate(r)); // the merge waits in the queue now
    active--;
    held[0]();
    // A finished agent's read asks in the same tick.
    const observe = take('observe', 2);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['merge'], 'the merge took the turn given back; the newcomer waits');
    active--;
    held[1]();
    const ends = await Promise.all([merge, observe]);
    assert.deepEqual(order, ['merge', 'observe']);
    active--;
    held[2]();
    ends.forEach((end) => end());
    assert.ok(most <= 3, `at most 3 at once, saw ${most}`);
  });

  it('a fast-import that cannot even start (spawn throws: E2BIG) gives its turn back, and says so', async function () {
    this.timeout(30_000);
    const head = '0123456789abcdef0123456789abcdef01234567';
    const run = {};
    await commitMaker(process.cwd(), run); // the run's first merge asked git var already
    const saved = process.env.RALPH_TEST_BIG;
    process.env.RALPH_TEST_BIG = 'x'.repeat(200_000); // one variable over the kernel's 128 KiB limit
    try {
      for (let k = 0; k < 3; k++) {
        await assert.rejects(commitTreeMerge(process.cwd(), { head, theirs: head, tree: head, replace: [], message: 'm', reflogAction: 'merge x' }, run), /^ParallelError: Making the merge commit: git fast-import could not start/);
      }
    } finally {
      if (saved === undefined) {
        delete process.env.RALPH_TEST_BIG;
      } else {
        process.env.RALPH_TEST_BIG = saved;
      }
    }
    const again = await Promise.race([Promise.all([gitTurn(), gitTurn(), gitTurn()]), new Promise<undefined>((r) => setTimeout(() => r(undefined), 3000))]);
    assert.ok(again, 'every turn was given back (else every later git process of the run waits forever)');
    again.forEach((done) => done());
  });
});
