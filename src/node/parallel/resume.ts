/**
 * Resuming a parallel run after a window reload, a crash or a killed process, from
 * `.ralph/parallel.json` and what git shows: a merge left half-way in the main tree is undone;
 * a story whose agent finished (its `feat:` commit made, passing in its worktree) is merged; one
 * whose agent was cut off is recorded `interrupted` (its worktree and commits kept, to re-attach
 * or retry); worktrees of the feature branch that the state does not know are recorded
 * `orphaned` with their commits. Nothing that holds a commit the feature branch lacks is deleted.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { errorMessage } from '../../core/errorMessage';
import type { ParallelState, StoryRunRecord } from '../../core/parallel/state';
import { commitsNotOn, git, topOf } from './git';
import { finishedInWorktree } from './storyRun';
import { cutOffMerge, settleMainTree } from './halfMerge';
import { MergeQueue, type QueueOptions, type QueueOutcome } from './mergeQueue';
import { runCheck } from './mergeStory';
import { ParallelStateStore } from './stateFile';
import { defaultWorktreeRoot, listWorktrees, preflight, removeWorktree, type StoryWorktree } from './worktrees';

export interface ResumeOptions extends QueueOptions {
  /** The parent folder of the worktrees (default: `defaultWorktreeRoot`). */
  readonly worktreeRoot?: string;
}

export interface OrphanedWorktree {
  readonly folder: string;
  readonly branch: string;
  /** Commits not on the feature branch, `<sha> <subject>`, newest first. */
  readonly commits: readonly string[];
}

export interface ResumeReport {
  /** What the queue did with each finished-but-unmerged story. */
  readonly merged: readonly QueueOutcome[];
  /** Stories whose agent was cut off (their worktrees kept). */
  readonly interrupted: readonly string[];
  readonly orphaned: readonly OrphanedWorktree[];
  /** Worktrees of merged stories removed now. */
  readonly removed: readonly string[];
  /** Worktrees kept, and why. */
  readonly notes: readonly string[];
}

const worktreeOf = (r: StoryRunRecord): StoryWorktree => ({ storyId: r.storyId, branch: r.branch, folder: r.worktree, base: r.base });

/**
 * The check of a merge the crash may have cut off (it runs after the merge commit): run again.
 * A failure undoes the merge when it is the feature branch's last commit (as the queue would),
 * else it is only reported: commits made after it are never dropped.
 */
async function checkAgain(root: string, r: StoryRunRecord, options: ResumeOptions): Promise<{ state: 'check-failed' | 'merged'; note: string } | undefined> {
  if (!options.checkCommand) {
    return undefined;
  }
  const check = await runCheck(root, options.checkCommand, options.checkTimeoutMs ?? 30 * 60_000);
  if (check.exitCode === 0) {
    return undefined;
  }
  const parent = (await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD^1'])).stdout.trim();
  if (r.before && parent === r.before && (await git(root, ['reset', '--keep', r.before])).code === 0) {
    return { state: 'check-failed', note: `The check failed (exit ${check.exitCode ?? 'none'}) after resuming; the merge was undone and the story awaits a retry.\n${check.output.slice(-2000)}` };
  }
  return { state: 'merged', note: `The check failed (exit ${check.exitCode ?? 'none'}) after resuming, and the merge is not the feature branch's last commit: it was kept; undo it by hand if needed.\n${check.output.slice(-2000)}` };
}

export async function resumeParallel(folder: string, options: ResumeOptions = {}): Promise<ResumeReport> {
  const prdRel = options.prdPath ?? 'prd.json';
  const top = (await topOf(folder)) ?? folder;
  const store = new ParallelStateStore(top);
  const state = await store.read();
  await settleMainTree(top, state, { prd: prdRel, progress: options.progressPath ?? 'progress.txt' });
  const repo = await preflight(top, state?.featureBranch);
  const queue = new MergeQueue(repo, store, { ...options, mode: options.mode ?? state?.mergeMode });
  const records = state?.stories ?? [];
  const interrupted: string[] = [];
  const removed: string[] = [];
  const notes: string[] = [];
  const toMerge: StoryWorktree[] = [];

  for (const r of records) {
    const branchExists = (await git(top, ['rev-parse', '--verify', '--quiet', `refs/heads/${r.branch}`])).code === 0;
    // A merged story's worktree and branch go (removeWorktree refuses when they hold anything unmerged).
    const tidy = async (): Promise<void> => {
      if (existsSync(r.worktree) || branchExists) {
        try {
          await removeWorktree(repo, worktreeOf(r));
          removed.push(r.storyId);
        } catch (e) {
          notes.push(errorMessage(e));
        }
      }
    };
    if (r.state === 'merged') {
      await tidy();
      continue;
    }
    if (r.state !== 'running' && r.state !== 'done' && r.state !== 'merging') {
      continue; // conflict, check-failed, interrupted, orphaned: the user decides
    }
    // Merged already (a crash after the last commit of the merge, before the state said so), not
    // merged, or cut off half-way: told from git's history, never from prd.json (a story can pass
    // in the main prd.json while its commits are not merged).
    const cut = r.state === 'merging' ? await cutOffMerge(top, r, repo.featureBranch) : undefined;
    if (cut?.kind === 'kept') {
      await queue.record(worktreeOf(r), 'interrupted', { note: cut.note });
      notes.push(cut.note);
      interrupted.push(r.storyId);
      continue;
    }
    const merged = cut?.kind === 'merged';
    if (merged) {
      const failed = await checkAgain(top, r, options);
      if (failed) {
        await queue.record(worktreeOf(r), failed.state, { note: failed.note });
        notes.push(`${r.storyId}: ${failed.note}`);
        continue;
      }
      await queue.record(worktreeOf(r), 'merged', { mergeCommit: (await git(top, ['rev-parse', 'HEAD'])).stdout.trim() });
      await tidy();
      continue;
    }
    if (!branchExists) {
      await queue.record(worktreeOf(r), 'interrupted', { note: `Its branch ${r.branch} is gone.` });
      interrupted.push(r.storyId);
      continue;
    }
    if (await finishedInWorktree(worktreeOf(r), prdRel, top)) {
      await queue.record(worktreeOf(r), 'done');
      toMerge.push(worktreeOf(r));
    } else {
      await queue.record(worktreeOf(r), 'interrupted', { note: 'Its agent did not finish (the run stopped); its worktree and commits are kept for a retry.' });
      interrupted.push(r.storyId);
    }
  }
  const mergedOutcomes = await queue.mergeAll(toMerge);

  const orphaned = await findOrphans(top, repo.featureBranch, records, options.worktreeRoot);
  for (const o of orphaned) {
    const base = (await git(top, ['merge-base', `refs/heads/${repo.featureBranch}`, `refs/heads/${o.branch}`])).stdout.trim() || repo.head;
    await queue.record({ storyId: path.basename(o.folder), branch: o.branch, folder: o.folder, base }, 'orphaned', {
      commits: [...o.commits],
      note: o.commits.length > 0 ? `A worktree no run knows, with ${o.commits.length} commit(s) not on ${repo.featureBranch}: kept.` : 'A worktree no run knows; it holds no unmerged commit.',
    });
  }
  return { merged: mergedOutcomes, interrupted, orphaned, removed, notes };
}

/**
 * Worktrees of the feature branch that no record names (a run killed between `git worktree add`
 * and its first record, or one made by hand in the worktree folder), with their commits not on
 * the feature branch: resume records them `orphaned`; a reopened window lists them.
 */
export async function findOrphans(top: string, featureBranch: string, records: readonly Pick<StoryRunRecord, 'worktree'>[], worktreeRoot?: string): Promise<OrphanedWorktree[]> {
  const known = new Set(records.map((r) => path.resolve(r.worktree)));
  const root = path.resolve(worktreeRoot ?? defaultWorktreeRoot(top));
  const orphaned: OrphanedWorktree[] = [];
  for (const w of await listWorktrees(top)) {
    const folderAbs = path.resolve(w.folder);
    const ours = folderAbs.startsWith(root + path.sep) || (w.branch?.startsWith(`${featureBranch}-`) ?? false);
    if (!ours || known.has(folderAbs) || folderAbs === path.resolve(top) || !w.branch) {
      continue;
    }
    const commits = (await commitsNotOn(top, `refs/heads/${w.branch}`, `refs/heads/${featureBranch}`)).map((c) => `${c.sha} ${c.subject}`);
    orphaned.push({ folder: w.folder, branch: w.branch, commits });
  }
  return orphaned;
}

export type { ParallelState };

/**
 * Whether a merged story still has its worktree or branch: a run killed before removing it, or in
 * the middle of reusing it for the next story. Resume tidies it (removeWorktree keeps anything unmerged).
 */
export async function mergedLeftovers(root: string, state: ParallelState): Promise<boolean> {
  const merged = state.stories.filter((s) => s.state === 'merged');
  if (merged.some((s) => existsSync(s.worktree))) {
    return true;
  }
  const branches = new Set((await git(root, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/'])).stdout.split('\n'));
  return merged.some((s) => branches.has(s.branch));
}
