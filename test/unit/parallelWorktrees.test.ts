/**
 * The worktree manager (src/node/parallel/worktrees.ts), the run lock and the queue's state file,
 * with real git in temporary repositories: each refusal's message, add and remove, and that a
 * worktree holding unmerged commits is never removed.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { firstLine, ParallelError } from '../../src/node/parallel/git';
import { acquireRunLock, RUN_LOCK, RUN_LOCK_OWNER } from '../../src/node/parallel/runLock';
import { ParallelStateStore } from '../../src/node/parallel/stateFile';
import { addWorktree, defaultWorktreeRoot, preflight, removeWorktree, type RepoInfo, reuseWorktree, type StoryWorktree } from '../../src/node/parallel/worktrees';
import { agentWork, cleanRepos, FEATURE, git, makeRepo } from './parallelRepo';

async function refusal(p: Promise<unknown>, code: ParallelError['code'], message: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ParallelError, String(e));
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  });
}

describe('parallel: worktrees', function () {
  this.timeout(60_000);
  after(cleanRepos);

  it('adds a worktree per story on <branchName>-<storyId> from the feature head, outside the repository', async () => {
    const root = makeRepo();
    const repo = await preflight(root, FEATURE);
    const wt = await addWorktree(repo, 'US-001');
    assert.equal(wt.branch, 'ralph/demo-US-001');
    assert.equal(wt.folder, path.join(path.dirname(root), '.repo-ralph-worktrees', 'US-001'));
    assert.equal(defaultWorktreeRoot(root), path.dirname(wt.folder));
    assert.equal(git(wt.folder, 'rev-parse', 'HEAD'), repo.head);
    assert.equal(git(wt.folder, 'symbolic-ref', '--short', 'HEAD'), 'ralph/demo-US-001');
  });

  it('refuses a folder that is not a git repository, naming git', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-par-nogit-'));
    try {
      await refusal(preflight(dir), 'not-a-repo', /is not a git repository: running stories in parallel needs git worktrees/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses git older than 2.20, saying which version was found', async () => {
    const root = makeRepo();
    const bin = path.join(path.dirname(root), 'oldgit');
    mkdirSync(bin);
    // A git that says it is 2.19 and otherwise is the real one.
    const real = git(root, '--exec-path');
    writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "git version 2.19.6"; exit 0; fi\nexec "${real}/git" "$@"\n`);
    chmodSync(path.join(bin, 'git'), 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${saved ?? ''}`;
    try {
      await refusal(preflight(root), 'git-too-old', /needs git 2\.20 or later; this machine has git 2\.19/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('refuses a detached HEAD and another branch than the feature branch', async () => {
    const root = makeRepo();
    await refusal(preflight(root, 'ralph/other'), 'detached-head', /is on ralph\/demo, not on the feature branch ralph\/other/);
    git(root, 'checkout', '-q', '--detach');
    await refusal(preflight(root, FEATURE), 'detached-head', /has a detached HEAD: check out the feature branch \(ralph\/demo\)/);
  });

  it('refuses a feature branch with uncommitted changes, naming them (.ralph/ does not count)', async () => {
    const root = makeRepo();
    mkdirSync(path.join(root, '.ralph'));
    writeFileSync(path.join(root, '.ralph', 'runs.jsonl'), '{}\n');
    await preflight(root, FEATURE);
    writeFileSync(path.join(root, 'src', 'shared.ts'), 'export const value = 2;\n');
    writeFileSync(path.join(root, 'notes.md'), 'new\n');
    await refusal(preflight(root, FEATURE), 'dirty', /The feature branch ralph\/demo has uncommitted changes \((?:notes\.md, src\/shared\.ts|src\/shared\.ts, notes\.md)\): commit or stash them first/);
  });

  it('refuses a worktree folder that exists, a story id that is not a folder name, and a branch git refuses', async () => {
    const root = makeRepo();
    const repo = await preflight(root, FEATURE);
    mkdirSync(path.join(defaultWorktreeRoot(root), 'US-002'), { recursive: true });
    await refusal(addWorktree(repo, 'US-002'), 'folder-exists', /The worktree folder .*US-002 exists already/);
    await refusal(addWorktree(repo, '../x'), 'bad-story-id', /The story id "\.\.\/x" cannot name a worktree folder: it contains "\/"/);
    // An existing branch of that name: its commits could be lost, so no.
    git(root, 'branch', 'ralph/demo-US-003');
    await refusal(addWorktree(repo, 'US-003'), 'bad-branch', /The branch ralph\/demo-US-003 exists already/);
    // A name git refuses because a branch below it exists (refs/heads/ralph/demo-US-004/x).
    git(root, 'branch', 'ralph/demo-US-004/x');
    await refusal(addWorktree(repo, 'US-004'), 'git', /git could not add the worktree of US-004/);
    assert.ok(!existsSync(path.join(defaultWorktreeRoot(root), 'US-004')));
  });

  it('removes a worktree only when the feature branch holds all its commits', async () => {
    const root = makeRepo();
    // As in a user's repository: nothing excludes .ralph/ but the main tree's own .ralph/.gitignore.
    writeFileSync(path.join(root, '.git', 'info', 'exclude'), '');
    const repo = await preflight(root, FEATURE);
    const wt = await addWorktree(repo, 'US-001');
    agentWork(wt.folder, 'US-001', { files: { 'src/a.ts': 'export const a = 1;\n' } });
    await refusal(removeWorktree(repo, wt), 'unmerged', /The worktree of US-001 was kept: its branch ralph\/demo-US-001 has 1 commit\(s\) not on ralph\/demo \([0-9a-f]{8} feat: US-001 - Story US-001\)/);
    assert.ok(existsSync(wt.folder));
    git(root, 'merge', '-q', '--no-ff', '--no-edit', wt.branch);
    // Uncommitted work in the worktree is kept too.
    writeFileSync(path.join(wt.folder, 'scratch.txt'), 'mine\n');
    await refusal(removeWorktree(repo, wt), 'unmerged', /has uncommitted changes \(scratch\.txt\)/);
    rmSync(path.join(wt.folder, 'scratch.txt'));
    // The story's prompt under its .ralph/ is runtime state, not work: it does not keep the worktree.
    writeFileSync(path.join(wt.folder, '.ralph', 'prompt.md'), '# US-001\n');
    await removeWorktree(repo, wt);
    assert.ok(!existsSync(wt.folder));
    assert.equal(git(root, 'branch', '--list', wt.branch), '');
    assert.equal(git(root, 'worktree', 'list', '--porcelain').includes(wt.folder), false);
  });
});

describe('parallel: a merged story\'s worktree reused for the next story', function () {
  this.timeout(60_000);
  after(cleanRepos);

  /** Every path under a worktree (its .git file aside), with each file's text. */
  function tree(folder: string, rel = ''): string[] {
    return readdirSync(path.join(folder, rel), { withFileTypes: true }).flatMap((e) => {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (p === '.git') {
        return [];
      }
      return e.isDirectory() ? [`${p}/`, ...tree(folder, p)] : [`${p}: ${readFileSync(path.join(folder, p), 'utf8')}`];
    });
  }

  async function mergedSpare(): Promise<{ root: string; repo: RepoInfo; spare: StoryWorktree }> {
    const root = makeRepo();
    writeFileSync(path.join(root, '.git', 'info', 'exclude'), '.ralph/\ndist/\n');
    const repo = await preflight(root, FEATURE);
    const spare = await addWorktree(repo, 'US-001');
    agentWork(spare.folder, 'US-001', { files: { 'src/a.ts': 'export const a = 1;\n' } });
    // What the last story left that git does not track: a build's output, its prompt.
    mkdirSync(path.join(spare.folder, 'dist'));
    writeFileSync(path.join(spare.folder, 'dist', 'a.js'), 'built\n');
    mkdirSync(path.join(spare.folder, '.ralph', 'prompts'));
    writeFileSync(path.join(spare.folder, '.ralph', 'prompts', 'US-001.md'), '# US-001\n');
    // Another story merged meanwhile: the feature branch moved past the spare's branch.
    git(root, 'merge', '-q', '--no-ff', '--no-edit', spare.branch);
    writeFileSync(path.join(root, 'src', 'later.ts'), 'export const later = 1;\n');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'later work');
    return { root, repo, spare };
  }

  it('becomes what git worktree add gives the next story: its branch from the feature head, its folder, nothing of the last story', async () => {
    const { root, repo, spare } = await mergedSpare();
    const reused = await reuseWorktree(repo, spare, 'US-002');
    const fresh = await addWorktree(repo, 'US-003');
    assert.ok(reused);
    assert.deepEqual(reused, { storyId: 'US-002', branch: 'ralph/demo-US-002', folder: path.join(defaultWorktreeRoot(root), 'US-002'), base: git(root, 'rev-parse', 'HEAD') });
    assert.equal(git(reused.folder, 'symbolic-ref', '--short', 'HEAD'), 'ralph/demo-US-002');
    assert.equal(git(reused.folder, 'rev-parse', 'HEAD'), git(root, 'rev-parse', 'HEAD'));
    const status = (folder: string) => git(folder, 'status', '--porcelain', '--untracked-files=all', '--ignored');
    assert.equal(status(reused.folder), '!! .ralph/.gitignore');
    assert.equal(status(reused.folder), status(fresh.folder));
    assert.deepEqual(tree(reused.folder), tree(fresh.folder));
    assert.ok(!existsSync(spare.folder), 'the merged story\'s folder is gone');
    assert.equal(git(root, 'branch', '--list', spare.branch), '', 'and its merged branch');
    const listed = git(root, 'worktree', 'list', '--porcelain');
    assert.ok(listed.includes(`worktree ${reused.folder}\n`) && listed.includes('branch refs/heads/ralph/demo-US-002'));
    assert.ok(!listed.includes(spare.folder));
  });

  it('is not taken, and not touched, when it holds a commit the feature branch lacks or an uncommitted change, or is on another branch', async () => {
    const { root, repo, spare } = await mergedSpare();
    git(spare.folder, 'checkout', '-q', '-b', 'stray');
    assert.equal(await reuseWorktree(repo, spare, 'US-002'), undefined);
    git(spare.folder, 'checkout', '-q', spare.branch);
    git(spare.folder, 'branch', '-q', '-D', 'stray');
    writeFileSync(path.join(spare.folder, 'scratch.txt'), 'mine\n');
    assert.equal(await reuseWorktree(repo, spare, 'US-002'), undefined);
    git(spare.folder, 'add', 'scratch.txt');
    git(spare.folder, 'commit', '-qm', 'wip: more');
    assert.equal(await reuseWorktree(repo, spare, 'US-002'), undefined);
    assert.equal(git(spare.folder, 'symbolic-ref', '--short', 'HEAD'), spare.branch);
    assert.equal(readFileSync(path.join(spare.folder, 'dist', 'a.js'), 'utf8'), 'built\n');
    assert.equal(git(root, 'branch', '--list', 'ralph/demo-US-002'), '');
    // A story that cannot have a worktree is refused as addWorktree refuses it.
    await refusal(reuseWorktree(repo, spare, '../x'), 'bad-story-id', /cannot name a worktree folder/);
  });
});

describe('parallel: git messages', () => {
  it('names git\'s reason, not its progress line ("Preparing worktree …" before a fatal:)', () => {
    assert.equal(firstLine("Preparing worktree (new branch 'ralph/bench-US-010')\nfatal: cannot lock ref 'refs/heads/ralph/bench-US-010': File exists.\n"), "cannot lock ref 'refs/heads/ralph/bench-US-010': File exists.");
    assert.equal(firstLine('\nerror: pathspec did not match\n'), 'pathspec did not match');
    assert.equal(firstLine('Already up to date.\n'), 'Already up to date.');
    assert.equal(firstLine(''), 'no message');
  });
});

describe('parallel: the workspace run lock', function () {
  this.timeout(30_000);
  after(cleanRepos);

  it('refuses a second run of the same workspace, naming the holder; free again once released', async () => {
    const root = makeRepo();
    const first = await acquireRunLock(root, 'VS Code');
    await refusal(acquireRunLock(root, 'the CLI'), 'locked', /Another run is using this workspace \(VS Code, process \d+, since .*\)/);
    await first.release();
    const second = await acquireRunLock(root, 'the CLI');
    await second.release();
  });

  it('takes at once the fresh lock of a holder on this machine that is gone (killed), not that of one still running', async () => {
    const root = makeRepo();
    const lock = path.join(root, RUN_LOCK);
    const owner = (pid: number) => writeFileSync(path.join(root, RUN_LOCK_OWNER), JSON.stringify({ holder: 'the ralph-workbench run command', pid, host: hostname(), since: new Date().toISOString() }));
    // A fresh lock (just refreshed) of a process that is running: refused.
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      mkdirSync(lock, { recursive: true });
      owner(live.pid as number);
      await refusal(acquireRunLock(root, 'the CLI'), 'locked', /Another run is using this workspace \(the ralph-workbench run command, process \d+/);
    } finally {
      live.kill('SIGKILL');
    }
    // The same lock once its process is gone: taken, with no wait for the stale time.
    await new Promise((r) => (live.exitCode !== null || live.signalCode !== null ? r(undefined) : live.on('exit', r)));
    const started = Date.now();
    const taken = await acquireRunLock(root, 'the CLI');
    assert.ok(Date.now() - started < 5_000);
    await taken.release();
  });

  it('a lock held while it is refreshed is still released whole: the next run takes it', async () => {
    const root = makeRepo();
    const lock = path.join(root, RUN_LOCK);
    const first = await acquireRunLock(root, 'VS Code');
    const taken = statSync(lock).mtimeMs;
    // proper-lockfile refreshes the folder's mtime while the lock is held (every stale/5).
    const deadline = Date.now() + 20_000;
    while (statSync(lock).mtimeMs === taken) {
      assert.ok(Date.now() < deadline, 'the lock was never refreshed');
      await new Promise((r) => setTimeout(r, 100));
    }
    await first.release();
    assert.ok(!existsSync(lock), 'released: the lock folder is gone');
    const second = await acquireRunLock(root, 'the CLI');
    await second.release();
  });

  it('a lock just taken, whose holder has not said who it is yet, is never taken for a dead holder\'s: an old owner file does not count', async () => {
    const root = makeRepo();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const oldOwner = (): void => writeFileSync(path.join(root, '.ralph', 'run.lock.owner.json'), JSON.stringify({ holder: 'old', pid: gone, host: hostname(), since: 'then' }));
    // A holds the lock; a dead holder's owner file is where a second run looks.
    const a = await acquireRunLock(root, 'the CLI');
    oldOwner();
    await refusal(acquireRunLock(root, 'VS Code'), 'locked', /Another run/);
    await a.release();
    // The window itself: the lock folder just made by a run (its mkdir), nothing written by it yet.
    mkdirSync(path.join(root, RUN_LOCK), { recursive: true });
    oldOwner();
    await refusal(acquireRunLock(root, 'VS Code'), 'locked', /Another run/);
    assert.ok(existsSync(path.join(root, RUN_LOCK)));
  });

  it('a lock whose holder was killed before it wrote its name is taken over once older than that could take (not only after the stale time)', async () => {
    const root = makeRepo();
    mkdirSync(path.join(root, RUN_LOCK), { recursive: true });
    const old = new Date(Date.now() - 5_000);
    utimesSync(path.join(root, RUN_LOCK), old, old);
    const lock = await acquireRunLock(root, 'the CLI');
    assert.match(readFileSync(path.join(root, RUN_LOCK, 'owner.json'), 'utf8'), /"holder":"the CLI"/);
    await lock.release();
  });

  it('the lock of a dead holder is taken over by one of two runs trying at once, never by both', async () => {
    const root = makeRepo();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    mkdirSync(path.join(root, RUN_LOCK), { recursive: true });
    writeFileSync(path.join(root, RUN_LOCK, 'owner.json'), JSON.stringify({ holder: 'old', pid: gone, host: hostname(), since: 'then' }));
    const both = await Promise.allSettled([acquireRunLock(root, 'the CLI'), acquireRunLock(root, 'VS Code')]);
    assert.equal(both.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(both.map((r) => r.status === 'rejected' ? String(r.reason) : 'taken')));
    for (const r of both) {
      if (r.status === 'fulfilled') {
        await r.value.release();
      }
    }
  });

  it('takes over the lock of a holder that crashed (stale)', async () => {
    const root = makeRepo();
    // What a crashed holder leaves: the lock folder, no longer refreshed.
    const lock = path.join(root, RUN_LOCK);
    mkdirSync(lock, { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const taken = await acquireRunLock(root, 'the CLI');
    await taken.release();
  });
});

describe('parallel: the queue state file', function () {
  after(cleanRepos);

  it('a damaged .ralph/parallel.json gives a message with the place, not a JavaScript error', async () => {
    const root = makeRepo();
    mkdirSync(path.join(root, '.ralph'));
    writeFileSync(path.join(root, '.ralph', 'parallel.json'), '{"version":1,"featureBranch":"x","mergeMode":"merge","stories":[{"storyId":"US-1"}]}');
    await assert.rejects(new ParallelStateStore(root).read(), /\.ralph\/parallel\.json: stories\.0\.worktree: .*expected string.*\. Fix or delete it/);
    writeFileSync(path.join(root, '.ralph', 'parallel.json'), '{"version":');
    await assert.rejects(new ParallelStateStore(root).read(), /\.ralph\/parallel\.json is not valid JSON/);
  });
});
