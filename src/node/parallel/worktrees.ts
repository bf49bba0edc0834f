/**
 * The worktree manager of a parallel run: each story gets a `git worktree add` on its own branch
 * `<branchName>-<storyId>` (sanitised), started from the feature branch's head, in a folder
 * outside the repository by default (`<repo>/../.<repo>-ralph-worktrees/<storyId>`). Everything a
 * user could get wrong is refused up front with a message that says what to do; a worktree is
 * removed only when its branch holds no commit the feature branch lacks.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { branchNameProblem, defaultWorktreeRootName, pathSegmentProblem, storyBranchName } from '../../core/parallel/names';
import { analyzePrd } from '../../core/prd/index';
import { fewPaths } from '../../core/runs/runs';
import { GitError, GitRepo } from '../gitRepo';
import { atLeast, commitsNotOn, firstLine, git, gitOk, gitVersion, ParallelError, topOf } from './git';

/** `git worktree add` from a start point, `list --porcelain` and `remove` are what we need: 2.20 has them all, well tested. */
export const MIN_GIT: readonly [number, number] = [2, 20];

export interface RepoInfo {
  /** The main working tree's top folder. */
  readonly root: string;
  readonly featureBranch: string;
  /** The feature branch's head when the repository was checked (a worktree starts from its head at that moment). */
  readonly head: string;
  readonly gitVersion: readonly [number, number];
}

export interface StoryWorktree {
  readonly storyId: string;
  readonly branch: string;
  /** The worktree's folder (absolute). */
  readonly folder: string;
  /** The feature branch's head it started from. */
  readonly base: string;
}

/** Ralph Workbench's own state never makes a tree dirty. */
const isRalphState = (p: string): boolean => p === '.ralph' || p.startsWith('.ralph/');

/**
 * Checks that `folder` can run stories in parallel and returns the repository: a git repository,
 * git ≥ 2.20, on a branch (the feature branch, when `featureBranch` is given), with no
 * uncommitted changes (a worktree starts from the last commit: uncommitted work would be missing
 * from every story, and a merge into a dirty tree could fail half-way).
 */
export async function preflight(folder: string, featureBranch?: string): Promise<RepoInfo> {
  const version = await gitVersion(folder);
  if (!version) {
    throw new ParallelError('not-a-repo', 'Running stories in parallel needs git, which was not found on PATH. Install git, or run one story at a time.');
  }
  if (!atLeast(version, MIN_GIT[0], MIN_GIT[1])) {
    throw new ParallelError('git-too-old', `Running stories in parallel needs git ${MIN_GIT.join('.')} or later; this machine has git ${version.join('.')}. Update git, or run one story at a time.`);
  }
  const root = await topOf(folder);
  if (!root) {
    throw new ParallelError('not-a-repo', `${folder} is not a git repository: running stories in parallel needs git worktrees. Run "git init" and commit, or run one story at a time.`);
  }
  const branch = await git(root, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (branch.code !== 0) {
    throw new ParallelError('detached-head', `${root} has a detached HEAD: check out the feature branch${featureBranch ? ` (${featureBranch})` : ''} before running stories in parallel.`);
  }
  const current = branch.stdout.trim();
  if (featureBranch !== undefined && current !== featureBranch) {
    throw new ParallelError('detached-head', `${root} is on ${current}, not on the feature branch ${featureBranch}: check it out before running stories in parallel.`);
  }
  const head = await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (head.code !== 0) {
    throw new ParallelError('not-a-repo', `${current} has no commit yet: commit once before running stories in parallel (a worktree starts from a commit).`);
  }
  const dirty = await uncommitted(root);
  if (dirty.length > 0) {
    throw new ParallelError('dirty', `The feature branch ${current} has uncommitted changes (${fewPaths(dirty)}): commit or stash them first, so every story starts from the same commit and merges land in a clean tree.`);
  }
  return { root, featureBranch: current, head: head.stdout.trim(), gitVersion: version };
}

/**
 * ralph.git.manageBranch for a parallel run, as the serial loop does: prd.json's `branchName`
 * checked out, or created from the default branch when missing, so story branches start from the
 * feature's head and merge into it. Returns what it did ("created the feature branch …"), or
 * undefined when nothing changed (no branchName, already on it, not a git repository: the
 * preflight names that). Refuses a branch name git would refuse and uncommitted changes.
 */
export async function checkOutPrdBranch(top: string, prdPath: string): Promise<string | undefined> {
  const prd = await readFile(path.join(top, prdPath), 'utf8').then(analyzePrd, () => undefined);
  const branch = prd?.doc.branchName;
  if (!branch) {
    return undefined;
  }
  const bad = branchNameProblem(branch);
  if (bad) {
    throw new ParallelError('bad-branch', `The branchName "${branch}" in ${prdPath} is not a valid git branch name: ${bad}. Fix it, then run again.`);
  }
  const repo = await GitRepo.open(top);
  if (!repo) {
    return undefined;
  }
  const result = await repo.ensureBranch(branch).catch((e: Error) => {
    throw new ParallelError(e instanceof GitError && /uncommitted/.test(e.message) ? 'dirty' : 'git', e.message);
  });
  if (result.action === 'already-on-branch') {
    return undefined;
  }
  return result.action === 'created' ? `created the feature branch ${branch} from ${result.from ?? 'HEAD'}` : `checked out the feature branch ${branch}`;
}

/** Paths with uncommitted changes (untracked files too), Ralph Workbench's `.ralph/` excepted. */
export async function uncommitted(root: string): Promise<string[]> {
  return (await statusOf(root, false)).paths;
}

/**
 * The branch checked out in `root` (undefined: a detached HEAD) and its uncommitted paths, in one
 * git process (`status --branch`): a merge asks both, and every git process costs the runner
 * several ms of its event loop.
 */
export async function branchAndChanges(root: string): Promise<{ branch: string | undefined; paths: string[] }> {
  return statusOf(root, true);
}

async function statusOf(root: string, withBranch: boolean): Promise<{ branch: string | undefined; paths: string[] }> {
  // Untrimmed: each entry starts with its two status columns, the first often a space.
  const r = await git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', ...(withBranch ? ['--branch'] : [])]);
  if (r.code !== 0) {
    throw new ParallelError('git', `Checking for uncommitted changes in ${root}: git status failed: ${firstLine(r.stderr)}`);
  }
  const paths: string[] = [];
  const parts = r.stdout.split('\0');
  let branch: string | undefined;
  if (withBranch && parts[0]?.startsWith('## ')) {
    // `## <branch>[...<upstream>][ [ahead n]]`, `## No commits yet on <branch>`, or `## HEAD (no branch)`.
    const head = parts.shift()?.slice(3) ?? '';
    const name = head.startsWith('No commits yet on ') ? head.slice('No commits yet on '.length) : head.split('...')[0].split(' [')[0];
    branch = head.startsWith('HEAD (no branch)') ? undefined : name;
  }
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i];
    if (entry.length < 4) {
      continue;
    }
    paths.push(entry.slice(3));
    if (entry[0] === 'R' || entry[0] === 'C') {
      i++; // the rename's source follows
    }
  }
  return { branch, paths: paths.filter((p) => !isRalphState(p)) };
}

/** The default parent folder of the worktrees: `<repo>/../.<repo>-ralph-worktrees`. */
export function defaultWorktreeRoot(repoRoot: string): string {
  return path.join(path.dirname(repoRoot), defaultWorktreeRootName(path.basename(repoRoot)));
}

export interface AddOptions {
  /** The parent folder of the worktrees (default: `defaultWorktreeRoot`). */
  readonly worktreeRoot?: string;
  /** The caller has just seen that the story's branch does not exist (`existingStoryWorktree`): no second look. */
  readonly branchIsNew?: boolean;
  /**
   * Given, tidying the new worktree does not wait for (deleting the merged spare's branch) is
   * handed here instead of awaited: the story's agent starts a git process sooner.
   */
  readonly later?: (work: Promise<unknown>) => void;
}

/** The branch and folder of a story's new worktree; refuses a name git would refuse and anything in the way. */
async function newPlace(repo: RepoInfo, storyId: string, options: AddOptions): Promise<{ branch: string; folder: string }> {
  const segment = pathSegmentProblem(storyId);
  if (segment) {
    throw new ParallelError('bad-story-id', `The story id ${JSON.stringify(storyId)} cannot name a worktree folder: ${segment}. Rename the story in prd.json.`);
  }
  const branch = storyBranchName(repo.featureBranch, storyId);
  const problem = branchNameProblem(branch);
  if (problem) {
    throw new ParallelError('bad-branch', `git refuses the branch name ${JSON.stringify(branch)}: ${problem}.`);
  }
  // branchNameProblem is git check-ref-format's rule (a property test holds it to git's); should
  // git's rules grow, the `worktree add -b` / `checkout -b` below refuses with git's own reason.
  // No git process for it: each costs the runner several ms of its event loop (spawn is synchronous).
  const exists = options.branchIsNew ? undefined : await git(repo.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
  if (exists?.code === 0) {
    throw new ParallelError('bad-branch', `The branch ${branch} exists already (an earlier run of ${storyId}?): merge or delete it before running ${storyId} again, so none of its commits is lost.`);
  }
  const folder = path.join(options.worktreeRoot ?? defaultWorktreeRoot(repo.root), storyId);
  if (existsSync(folder)) {
    throw new ParallelError('folder-exists', `The worktree folder ${folder} exists already: remove it (or the worktree, with "git worktree remove") before running ${storyId}.`);
  }
  return { branch, folder };
}

/** The feature branch as it is now (not as the run found it): a story that waited on others starts with their merged work. */
const featureHead = (repo: RepoInfo): Promise<string> => gitOk(repo.root, ['rev-parse', '--verify', `refs/heads/${repo.featureBranch}^{commit}`], `Reading ${repo.featureBranch}`);

/** Adds the worktree of one story, on a new branch from the feature branch's current head. */
export async function addWorktree(repo: RepoInfo, storyId: string, options: AddOptions = {}): Promise<StoryWorktree> {
  const { branch, folder } = await newPlace(repo, storyId, options);
  const head = await featureHead(repo);
  const r = await git(repo.root, ['worktree', 'add', '-b', branch, folder, head]);
  if (r.code !== 0) {
    throw new ParallelError('git', `git could not add the worktree of ${storyId} at ${folder}: ${firstLine(r.stderr)}.`);
  }
  await prepareRalphFolder(folder);
  return { storyId, branch, folder, base: head };
}

/**
 * The worktree of a merged story, made the worktree of another: what `addWorktree` would give
 * (its own branch from the feature branch's current head, at `<root>/<storyId>`, nothing else in
 * it), for the price of the files that differ instead of a checkout of every tracked file (seconds
 * in a large repository). Only a worktree whose branch the feature branch holds whole and that has
 * no uncommitted change is taken; its ignored files (a build's output) go, as `git worktree remove`
 * would delete them. Undefined, with the spare untouched, when it cannot be taken (then remove it
 * as usual: `removeWorktree` says why it is kept); throws, touching nothing, when the new story
 * cannot have a worktree at all.
 */
export async function reuseWorktree(repo: RepoInfo, spare: StoryWorktree, storyId: string, options: AddOptions = {}): Promise<StoryWorktree | undefined> {
  // Every question at once (the story's agent waits for this): where the spare is, whether its
  // branch is merged whole, its files, the feature branch's head.
  const [{ branch, folder }, ahead, st, head] = await Promise.all([
    newPlace(repo, storyId, options),
    commitsNotOn(repo.root, `refs/heads/${spare.branch}`, `refs/heads/${repo.featureBranch}`).catch(() => undefined),
    // Its branch (`## <branch>` first), then its files: a change or an untracked file keeps the
    // spare; ignored ones are leftovers (listed whole, a folder as one entry: git does not walk a
    // node_modules it ignores).
    git(spare.folder, ['status', '--branch', '--porcelain=v1', '-z', '--untracked-files=normal', '--ignored=matching']).catch(() => undefined),
    featureHead(repo),
  ]);
  const [on = '', ...files] = st?.code === 0 ? st.stdout.split('\0') : [];
  if (on !== `## ${spare.branch}` || ahead?.length !== 0) {
    return undefined;
  }
  const entries = files.filter((e) => e.length > 3 && !isRalphState(e.slice(3).replace(/\/$/, '')));
  if (entries.some((e) => !e.startsWith('!! '))) {
    return undefined;
  }
  for (const e of entries) {
    await rm(path.join(spare.folder, e.slice(3)), { recursive: true, force: true });
  }
  // Checked out in place, then moved: a run killed in between leaves a clean worktree on a branch
  // with nothing of its own, under the merged story's record, which the next run removes.
  const moved = await git(spare.folder, ['checkout', '-q', '-b', branch, head]);
  if (moved.code !== 0) {
    return undefined;
  }
  await rm(path.join(spare.folder, '.ralph'), { recursive: true, force: true });
  const r = await git(repo.root, ['worktree', 'move', spare.folder, folder]);
  if (r.code !== 0) {
    // Back as it was: the spare on its merged branch, to be removed as usual.
    await git(spare.folder, ['checkout', '-q', spare.branch]);
    await git(repo.root, ['branch', '-D', branch]);
    return undefined;
  }
  await prepareRalphFolder(folder);
  // Merged whole (checked above): -d cannot lose a commit.
  const tidy = git(repo.root, ['branch', '-d', spare.branch]);
  if (options.later) {
    options.later(tidy);
  } else {
    await tidy;
  }
  return { storyId, branch, folder, base: head };
}

/**
 * The story's prompt and logs go under its worktree's .ralph/, which git must ignore (as the
 * preparer makes it in the main tree): else `git worktree remove` would refuse the worktree as
 * untracked work.
 */
export async function prepareRalphFolder(folder: string): Promise<void> {
  await mkdir(path.join(folder, '.ralph'), { recursive: true });
  await writeFile(path.join(folder, '.ralph', '.gitignore'), '# Ralph Workbench runtime state (prompts, runs, logs): not for git\n*\n', { flag: 'wx' }).catch(() => undefined);
}

/**
 * Removes a story's worktree and its branch once the feature branch holds every commit of it
 * (`git worktree remove`, then `prune`; `git branch -d`, which refuses an unmerged branch too).
 * Refuses, deleting nothing, when the branch has commits the feature branch lacks or the worktree
 * has uncommitted changes.
 */
export async function removeWorktree(repo: Pick<RepoInfo, 'root' | 'featureBranch'>, wt: Pick<StoryWorktree, 'storyId' | 'branch' | 'folder'>): Promise<void> {
  const branchExists = (await git(repo.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${wt.branch}`])).code === 0;
  const listed = (ahead: readonly { sha: string; subject: string }[]): string =>
    `${ahead.length} commit(s) not on ${repo.featureBranch} (${ahead
      .slice(0, 3)
      .map((c) => `${c.sha.slice(0, 8)} ${c.subject}`)
      .join('; ')})`;
  if (branchExists) {
    const ahead = await commitsNotOn(repo.root, `refs/heads/${wt.branch}`, `refs/heads/${repo.featureBranch}`);
    if (ahead.length > 0) {
      throw new ParallelError('unmerged', `The worktree of ${wt.storyId} was kept: its branch ${wt.branch} has ${listed(ahead)}.`);
    }
  }
  if (existsSync(wt.folder)) {
    // A detached HEAD's commits live in the worktree alone (its HEAD and reflog): removing it loses them.
    const onBranch = await git(wt.folder, ['symbolic-ref', '--quiet', 'HEAD']);
    const head = onBranch.code === 0 ? '' : (await git(wt.folder, ['rev-parse', '--verify', '--quiet', 'HEAD'])).stdout.trim();
    const ahead = head ? await commitsNotOn(repo.root, head, `refs/heads/${repo.featureBranch}`) : [];
    if (ahead.length > 0) {
      throw new ParallelError('unmerged', `The worktree of ${wt.storyId} at ${wt.folder} was kept: its detached HEAD has ${listed(ahead)}; check out ${wt.branch} there (or make a branch of them) first.`);
    }
    const dirty = await uncommitted(wt.folder);
    if (dirty.length > 0) {
      throw new ParallelError('unmerged', `The worktree of ${wt.storyId} at ${wt.folder} was kept: it has uncommitted changes (${fewPaths(dirty)}).`);
    }
    const r = await git(repo.root, ['worktree', 'remove', wt.folder]);
    if (r.code !== 0) {
      throw new ParallelError('git', `git could not remove the worktree of ${wt.storyId} at ${wt.folder}: ${firstLine(r.stderr)}.`);
    }
  }
  await git(repo.root, ['worktree', 'prune']);
  if (branchExists) {
    const d = await git(repo.root, ['branch', '-d', wt.branch]);
    if (d.code !== 0) {
      throw new ParallelError('git', `The worktree of ${wt.storyId} was removed, but git kept its branch ${wt.branch}: ${firstLine(d.stderr)}.`);
    }
  }
}

export interface ListedWorktree {
  readonly folder: string;
  /** `refs/heads/…` stripped; undefined for a detached worktree. */
  readonly branch?: string;
  readonly head?: string;
}

/** `git worktree list --porcelain`, the main working tree first. */
export async function listWorktrees(root: string): Promise<ListedWorktree[]> {
  const out = await gitOk(root, ['worktree', 'list', '--porcelain'], 'Listing the worktrees');
  const list: ListedWorktree[] = [];
  for (const block of out.split(/\n\n+/)) {
    const lines = block.split('\n');
    const folder = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (folder) {
      const branch = lines.find((l) => l.startsWith('branch '))?.slice('branch refs/heads/'.length);
      const head = lines.find((l) => l.startsWith('HEAD '))?.slice('HEAD '.length);
      list.push({ folder, branch, head });
    }
  }
  return list;
}

/**
 * The story's own worktree or branch when one is there already: a run killed between
 * `git worktree add` and its first record, or in the middle of it, leaves a worktree the state
 * does not know, or a branch without its worktree. The story continues there: a branch holding
 * commits gets its worktree back (`git worktree add` without -b; `readded`: how many commits it
 * holds); one holding nothing is deleted, and the caller makes the worktree afresh. `absent`:
 * the story has no branch now (the caller need not look again).
 */
export async function existingStoryWorktree(repo: RepoInfo, worktreeRoot: string, storyId: string): Promise<{ wt?: StoryWorktree; readded?: number; absent?: true }> {
  const branch = storyBranchName(repo.featureBranch, storyId);
  const folder = path.resolve(worktreeRoot, storyId);
  if ((await git(repo.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).code !== 0) {
    return { absent: true };
  }
  await git(repo.root, ['worktree', 'prune']);
  const base = (await git(repo.root, ['merge-base', `refs/heads/${repo.featureBranch}`, `refs/heads/${branch}`])).stdout.trim();
  const found = (await listWorktrees(repo.root)).find((w) => w.branch === branch);
  if (found && path.resolve(found.folder) === folder) {
    return base ? { wt: { storyId, branch, folder: found.folder, base } } : {};
  }
  if (found || !base || existsSync(folder)) {
    return {}; // elsewhere, unrelated, or a folder in the way: addWorktree says what to do
  }
  const ahead = await commitsNotOn(repo.root, `refs/heads/${branch}`, `refs/heads/${repo.featureBranch}`);
  if (ahead.length === 0) {
    const deleted = await git(repo.root, ['branch', '-D', branch]);
    return deleted.code === 0 ? { absent: true } : {};
  }
  const r = await git(repo.root, ['worktree', 'add', folder, branch]);
  if (r.code !== 0) {
    return {};
  }
  await prepareRalphFolder(folder);
  return { wt: { storyId, branch, folder, base }, readded: ahead.length };
}
