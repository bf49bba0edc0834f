/**
 * Merging one finished story's worktree into the feature branch (the main working tree). prd.json
 * and progress.txt never go through git's text merge: whatever git makes of them is replaced by
 * the feature branch's own text plus the story's `passes` (one minimal edit) and the worktree's
 * new progress entries (append-only union). Every other file, AGENTS.md included, merges as text;
 * a conflict there stops this story only: the merge is aborted and the main tree left clean.
 * Then the optional check command runs; when it fails the merge is undone and the story is
 * marked for a retry (its branch and worktree keep every commit).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { planPrdMerge } from '../../core/parallel/prdMerge';
import { unionProgress } from '../../core/parallel/progressUnion';
import type { MergeMode } from '../../core/parallel/state';
import { detectFeatCommit } from '../../core/runs/runs';
import { applyEdits } from '../../core/textEdit';
import { atLeast, commitsNotOn, firstLine, git, gitOk, ParallelError, showFile, showFiles } from './git';
import { commitMaker, commitTreeMerge, hasMergeHooks, mergeTree } from './treeMerge';
import { branchAndChanges, type RepoInfo, type StoryWorktree } from './worktrees';

export interface MergeOptions {
  /** `merge` (default: `git merge --no-ff`) or `rebase` (the story's commits replayed on the feature branch). */
  readonly mode?: MergeMode;
  /** Run in the main working tree after the merge (e.g. `npm test`); a non-zero exit undoes the merge. */
  readonly checkCommand?: string;
  /** The longest the check may run (default 30 min); past it, it counts as failed. */
  readonly checkTimeoutMs?: number;
  /** Repository-relative paths (default `prd.json`, `progress.txt`). */
  readonly prdPath?: string;
  readonly progressPath?: string;
}

export type MergeOutcome =
  | {
      readonly kind: 'merged';
      readonly storyId: string;
      /** The feature branch's new head. */
      readonly commit: string;
      /** Other stories the worktree's prd.json changed: not merged. */
      readonly ignoredStories: readonly string[];
      /** progress.txt entries appended (story ids) and Codebase Patterns added. */
      readonly progressEntries: readonly string[];
      readonly patterns: number;
    }
  | { readonly kind: 'not-done'; readonly storyId: string; readonly reason: string }
  | { readonly kind: 'conflict'; readonly storyId: string; readonly files: readonly string[] }
  | { readonly kind: 'check-failed'; readonly storyId: string; readonly exitCode: number | undefined; readonly output: string };

const posix = (p: string): string => p.split(path.sep).join('/');

/** The worktree's file as on disk; its branch's when the folder is gone (after a crash, say). */
async function readWorktree(root: string, wt: StoryWorktree, rel: string): Promise<string | undefined> {
  try {
    return await readFile(path.join(wt.folder, rel), 'utf8');
  } catch {
    return showFile(root, `refs/heads/${wt.branch}`, rel);
  }
}

interface Memory {
  readonly prd: string;
  readonly progress?: string;
  readonly ignored: readonly string[];
  readonly entries: readonly string[];
  readonly patterns: number;
}

/**
 * Whether the story is done (its `feat: <id> - …` commit is on its branch and it passes in the
 * worktree's prd.json), and if so the main prd.json and progress.txt as they must be after the merge.
 */
async function planMemory(repo: RepoInfo, wt: StoryWorktree, head: string, prdRel: string, progressRel: string): Promise<Memory | string> {
  // The feature branch's and the worktree's start's prd.json and progress.txt in one git process.
  const [commits, [mainPrd, basePrd, mainProgress, baseProgress], wtPrd, wtProgress] = await Promise.all([
    commitsNotOn(repo.root, `refs/heads/${wt.branch}`, head),
    showFiles(repo.root, [
      { rev: head, path: prdRel },
      { rev: wt.base, path: prdRel },
      { rev: head, path: progressRel },
      { rev: wt.base, path: progressRel },
    ]),
    readWorktree(repo.root, wt, prdRel),
    readWorktree(repo.root, wt, progressRel),
  ]);
  if (!detectFeatCommit(commits, wt.storyId)) {
    return `its branch ${wt.branch} has no "feat: ${wt.storyId} - …" commit that is not on ${repo.featureBranch} yet`;
  }
  if (mainPrd === undefined || wtPrd === undefined) {
    return `${prdRel} is missing from ${mainPrd === undefined ? repo.featureBranch : 'the worktree'}`;
  }
  const plan = planPrdMerge(mainPrd, basePrd, wtPrd, wt.storyId);
  if (!plan.ok) {
    return plan.message;
  }
  // A progress.txt the feature branch does not have yet is taken whole (its header too).
  const union = wtProgress === undefined || mainProgress === undefined ? undefined : unionProgress(mainProgress, baseProgress, wtProgress);
  return {
    prd: applyEdits(mainPrd, plan.edits),
    progress: union ? union.text : (mainProgress ?? wtProgress),
    ignored: plan.ignored,
    entries: union?.entries ?? [],
    patterns: union?.patterns ?? 0,
  };
}

/** Conflicting paths git reports in the main tree now (`git diff --diff-filter=U`). */
async function unmergedPaths(root: string): Promise<string[]> {
  const out = await gitOk(root, ['diff', '--name-only', '--diff-filter=U', '-z'], 'Listing conflicts');
  return out.split('\0').filter((p) => p !== '');
}

/** Writes prd.json and progress.txt as planned and stages them (this also settles git's conflicts in them). */
async function writeMemory(root: string, memory: Memory, prdRel: string, progressRel: string): Promise<void> {
  await writeFile(path.join(root, prdRel), memory.prd);
  const files = [prdRel];
  if (memory.progress !== undefined) {
    await writeFile(path.join(root, progressRel), memory.progress);
    files.push(progressRel);
  }
  await gitOk(root, ['add', '--', ...files], 'Staging prd.json and progress.txt');
}

/** Puts back what the feature branch has of prd.json and progress.txt (drops a story commit's changes to them). */
async function restoreMemory(root: string, rels: readonly string[]): Promise<void> {
  for (const rel of rels) {
    const inHead = (await git(root, ['cat-file', '-e', `HEAD:${rel}`])).code === 0;
    if (inHead) {
      await gitOk(root, ['checkout', 'HEAD', '--', rel], `Keeping ${rel} as the feature branch has it`);
    } else {
      await git(root, ['rm', '--cached', '--force', '--quiet', '--ignore-unmatch', '--', rel]);
    }
  }
}

/** Undo a merge under way in the main tree (it was clean before: nothing of the user's is touched). */
async function abortMerge(root: string, before: string): Promise<void> {
  await git(root, ['merge', '--abort']);
  await git(root, ['cherry-pick', '--abort']);
  await git(root, ['reset', '--merge', before]);
}

/**
 * Merges a story's worktree branch into the feature branch checked out in `repo.root`, which
 * must be clean. Returns the outcome; throws ParallelError only when the main tree is not in a
 * state to merge (dirty, on another branch) or git itself fails.
 */
export async function mergeStory(repo: RepoInfo, wt: StoryWorktree, options: MergeOptions = {}, onStart?: (before: string) => Promise<void>): Promise<MergeOutcome> {
  const heads = await git(repo.root, ['rev-parse', 'HEAD', `refs/heads/${wt.branch}^{commit}`]);
  const [before, theirs] = heads.stdout.trim().split('\n');
  const ready = heads.code === 0 && theirs !== undefined && theirs !== '';
  // Written while the merge reads (the next story may wait on this merge); nothing changes before it is.
  const started = ready && onStart ? onStart(before) : Promise.resolve();
  started.catch(() => undefined);
  try {
    return await mergeFrom(repo, wt, options, { before, theirs, ready, started, failure: heads.stderr });
  } finally {
    await started;
  }
}

async function mergeFrom(
  repo: RepoInfo,
  wt: StoryWorktree,
  options: MergeOptions,
  { before, theirs, ready, started, failure }: { before: string; theirs: string; ready: boolean; started: Promise<void>; failure: string },
): Promise<MergeOutcome> {
  const prdRel = posix(options.prdPath ?? 'prd.json');
  const progressRel = posix(options.progressPath ?? 'progress.txt');
  const memoryFiles = new Set([prdRel, progressRel]);
  const storyId = wt.storyId;
  // Independent looks at once (the next story may wait on this merge): the branch and the files of
  // the main tree, and, reading only (a merged tree is objects, no ref or file), what the merge
  // needs: prd.json and progress.txt as they must become, the merged tree, the hooks.
  const planned = ready ? planMemory(repo, wt, before, prdRel, progressRel) : undefined;
  const merged = ready && atLeast(repo.gitVersion, 2, 38) ? mergeTree(repo.root, before, theirs) : undefined;
  const hooks = hasMergeHooks(repo.root, repo);
  const maker = commitMaker(repo.root, repo); // asked at a run's first merge only
  // Settled here too, so that a refusal below leaves no rejection unhandled.
  for (const p of [planned, merged, hooks, maker]) {
    p?.catch(() => undefined);
  }
  const { branch: current = '', paths: dirty } = await branchAndChanges(repo.root);
  if (current !== repo.featureBranch) {
    throw new ParallelError('detached-head', `The main worktree is on ${current || 'a detached HEAD'}, not on ${repo.featureBranch}: ${storyId} was not merged.`);
  }
  if (dirty.length > 0) {
    throw new ParallelError('dirty', `The main worktree has uncommitted changes (${dirty.slice(0, 5).join(', ')}): ${storyId} was not merged; commit or stash them and merge again.`);
  }
  if (!planned) {
    throw new ParallelError('git', `Reading the branch ${wt.branch} of ${storyId}: git rev-parse failed: ${firstLine(failure)}`);
  }
  const memory = await planned;
  if (typeof memory === 'string') {
    return { kind: 'not-done', storyId, reason: memory };
  }
  // Off the main tree: a conflict is found (and a merge made, below) without touching its files when git can.
  const treeMerge = await merged;
  const others = treeMerge?.conflicted.filter((f) => !memoryFiles.has(f));
  if (others && others.length > 0) {
    return { kind: 'conflict', storyId, files: others };
  }
  const mode = options.mode ?? 'merge';
  let commit: string;
  await started;
  if (mode === 'merge' && treeMerge?.contentsOnly && memory.progress !== undefined && !(await hooks)) {
    const made = await commitTreeMerge(repo.root, {
      head: before,
      theirs,
      tree: treeMerge.tree,
      replace: [
        { path: prdRel, text: memory.prd },
        { path: progressRel, text: memory.progress },
      ],
      message: mergeMessage(wt),
      reflogAction: `merge ${wt.branch}`,
    }, repo);
    if ('refused' in made) {
      throw inTheWay(storyId, made.refused);
    }
    commit = made.commit;
  } else {
    // The normal way: a hook to run, an older git, a rename or delete of prd.json or progress.txt, rebase mode.
    let conflict: string[] | undefined;
    try {
      conflict = mode === 'rebase' ? await replay(repo, wt, memory, prdRel, progressRel) : await mergeNoFf(repo, wt, memory, prdRel, progressRel);
    } catch (e) {
      await abortMerge(repo.root, before); // a replay's first commits go too
      throw e;
    }
    if (conflict) {
      await abortMerge(repo.root, before);
      return { kind: 'conflict', storyId, files: conflict };
    }
    commit = await gitOk(repo.root, ['rev-parse', 'HEAD'], 'Reading the merge');
  }
  if (options.checkCommand) {
    const check = await runCheck(repo.root, options.checkCommand, options.checkTimeoutMs ?? 30 * 60_000);
    if (check.exitCode !== 0) {
      // --keep: the feature branch goes back; a file the check changed that the merge also changed stops it (nothing lost).
      const undo = await git(repo.root, ['reset', '--keep', before]);
      if (undo.code !== 0) {
        throw new ParallelError('git', `The check failed after merging ${storyId}, and git could not undo the merge: ${firstLine(undo.stderr)}. The merge is ${commit.slice(0, 8)}.`);
      }
      return { kind: 'check-failed', storyId, exitCode: check.exitCode, output: check.output };
    }
  }
  if ((options.mode ?? 'merge') === 'rebase') {
    await moveRebasedBranch(repo.root, wt, commit);
  }
  return { kind: 'merged', storyId, commit, ignoredStories: memory.ignored, progressEntries: memory.entries, patterns: memory.patterns };
}

/**
 * After a replay, the story's branch points at the replayed commits, as `git rebase` leaves a
 * branch: the feature branch then holds all of it and the worktree can go. A worktree with
 * uncommitted changes keeps its branch where it was (git refuses, nothing is touched).
 */
async function moveRebasedBranch(root: string, wt: StoryWorktree, commit: string): Promise<void> {
  if (existsSync(wt.folder)) {
    await git(wt.folder, ['reset', '--keep', commit]);
  } else {
    await git(root, ['branch', '--force', wt.branch, commit]);
  }
}

const mergeMessage = (wt: StoryWorktree): string => `Merge ${wt.branch}: ${wt.storyId}`;

/**
 * Not the story's conflict: git refused to write over a file of the user's (untracked, or changed
 * since the clean-tree check). The merge refuses naming it; the story stays done, to merge later.
 */
function inTheWay(storyId: string, gitOutput: string): ParallelError {
  // git names the files on the lines after its reason, each indented by a tab.
  const files = gitOutput
    .split(/\r?\n/)
    .filter((l) => l.startsWith('\t'))
    .map((l) => l.trim());
  const reason = files.length > 0 ? `${firstLine(gitOutput).replace(/:$/, '')}: ${files.slice(0, 5).join(', ')}.` : firstLine(gitOutput);
  return new ParallelError('dirty', `A file in the main worktree is in the way of merging ${storyId}: ${reason} Move it away or commit it, then merge again; nothing was changed.`);
}

/** git's own words for a file in the way (its messages are in English here: LC_ALL=C). */
const IN_THE_WAY = /would be overwritten by|untracked working tree files? would be/i;

/** `git merge --no-ff`; returns the conflicting files (other than prd.json and progress.txt), if any. */
async function mergeNoFf(repo: RepoInfo, wt: StoryWorktree, memory: Memory, prdRel: string, progressRel: string): Promise<string[] | undefined> {
  const r = await git(repo.root, ['merge', '--no-ff', '--no-commit', '--no-edit', `refs/heads/${wt.branch}`]);
  if (r.code !== 0) {
    const files = (await unmergedPaths(repo.root)).filter((f) => f !== prdRel && f !== progressRel);
    if (files.length === 0 && IN_THE_WAY.test(r.stderr + r.stdout)) {
      throw inTheWay(wt.storyId, r.stderr || r.stdout);
    }
    if (files.length > 0 || (await git(repo.root, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD'])).code !== 0) {
      return files.length > 0 ? files : [`(git merge failed: ${firstLine(r.stderr || r.stdout)})`];
    }
  }
  await restoreMemory(repo.root, [prdRel, progressRel]);
  await writeMemory(repo.root, memory, prdRel, progressRel);
  const c = await git(repo.root, ['commit', '--no-edit', '-m', mergeMessage(wt)]);
  if (c.code !== 0) {
    return [`(git commit failed: ${firstLine(c.stderr || c.stdout)})`];
  }
  return undefined;
}

/**
 * The story's commits replayed, oldest first, on the feature branch (a rebase that never
 * text-merges prd.json or progress.txt): each keeps its author and message; the last one also
 * carries the planned prd.json and progress.txt.
 */
async function replay(repo: RepoInfo, wt: StoryWorktree, memory: Memory, prdRel: string, progressRel: string): Promise<string[] | undefined> {
  const commits = (await commitsNotOn(repo.root, `refs/heads/${wt.branch}`, 'HEAD')).reverse();
  for (let i = 0; i < commits.length; i++) {
    const last = i === commits.length - 1;
    const r = await git(repo.root, ['cherry-pick', '--no-commit', commits[i].sha]);
    if (r.code !== 0) {
      const unmerged = await unmergedPaths(repo.root);
      const files = unmerged.filter((f) => f !== prdRel && f !== progressRel);
      if (unmerged.length === 0 && IN_THE_WAY.test(r.stderr + r.stdout)) {
        throw inTheWay(wt.storyId, r.stderr || r.stdout);
      }
      if (files.length > 0 || unmerged.length === 0) {
        // No conflict listed: git refused the commit itself (a merge commit, say).
        return files.length > 0 ? files : [`(git cherry-pick ${commits[i].sha.slice(0, 8)} failed: ${firstLine(r.stderr || r.stdout)})`];
      }
    }
    await restoreMemory(repo.root, [prdRel, progressRel]);
    if (last) {
      await writeMemory(repo.root, memory, prdRel, progressRel);
    }
    if ((await git(repo.root, ['diff', '--cached', '--quiet'])).code === 0) {
      continue; // only prd.json / progress.txt changed in this commit: nothing to keep
    }
    const c = await git(repo.root, ['commit', '-C', commits[i].sha]);
    if (c.code !== 0) {
      return [`(git commit failed: ${firstLine(c.stderr || c.stdout)})`];
    }
  }
  await git(repo.root, ['cherry-pick', '--quit']);
  return undefined;
}

/** At most this much of the check's output is kept (its end: where test runners say what failed). */
const CHECK_OUTPUT_LIMIT = 16 * 1024;

/** Runs the check command in `cwd`: its exit code and the end of its output. */
export async function runCheck(cwd: string, command: string, timeoutMs: number): Promise<{ exitCode: number | undefined; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(command, { cwd, shell: true, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32', windowsHide: true });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-CHECK_OUTPUT_LIMIT);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const timer = setTimeout(() => {
      output += `\n(the check ran over ${Math.round(timeoutMs / 1000)} s and was stopped)`;
      try {
        process.kill(process.platform === 'win32' ? (child.pid ?? 0) : -(child.pid ?? 0), 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ exitCode: undefined, output: `The check command could not start: ${e.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code ?? undefined, output });
    });
  });
}
