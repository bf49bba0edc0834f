/**
 * A parallel run that did not end, as a reopened window finds it (issue 19, crash safety): the
 * run lock says whether its holder is gone (a live CLI or window is never second-guessed), the
 * state file and git say what each kept worktree holds (src/core/parallel/interrupted.ts turns that
 * into the notification and the Needs You rows). Reads only; `removeKeptWorktree` is the one
 * change, and it refuses a worktree whose branch holds commits the feature branch lacks.
 */
import * as path from 'node:path';
import { interruptedRun, type InterruptedRun, type KeptFacts } from '../../core/parallel/interrupted';
import { commitsNotOn, ParallelError, topOf } from './git';
import { findOrphans } from './resume';
import { liveRunHolder } from './runLock';
import { ParallelStateStore } from './stateFile';
import { finishedInWorktree } from './storyRun';
import { removeWorktree } from './worktrees';

export interface InterruptedInspection {
  /** What the state file and git show; undefined when there is no state file (or no repository). */
  readonly run?: InterruptedRun;
  /** A live process holds the run lock (who): its run is not interrupted, nothing is offered. */
  readonly liveHolder?: string;
}

/** Throws a ParallelError naming the place when `.ralph/parallel.json` is damaged. */
export async function inspectInterrupted(folder: string, options: { readonly prdPath: string; readonly worktreeRoot?: string }): Promise<InterruptedInspection> {
  const top = await topOf(folder);
  if (!top) {
    return {};
  }
  const liveHolder = await liveRunHolder(top);
  if (liveHolder) {
    return { liveHolder };
  }
  const state = await new ParallelStateStore(top).read();
  if (!state) {
    return {};
  }
  const facts = new Map<string, KeptFacts>();
  for (const r of state.stories.filter((s) => s.state !== 'merged')) {
    const commits = (await commitsNotOn(top, `refs/heads/${r.branch}`, `refs/heads/${state.featureBranch}`).catch(() => [])).map((c) => `${c.sha} ${c.subject}`);
    const finished = await finishedInWorktree({ storyId: r.storyId, branch: r.branch, folder: r.worktree, base: r.base }, options.prdPath).catch(() => false);
    facts.set(r.storyId, { finished, commits });
  }
  const orphans = await findOrphans(top, state.featureBranch, state.stories, options.worktreeRoot).catch(() => []);
  return { run: interruptedRun(state, facts, orphans) };
}

/**
 * Removes a kept worktree and its branch, and forgets its record: only when the feature branch
 * holds every commit of it (and nothing is left uncommitted there); else it refuses, saying how many
 * commits removing it would lose.
 */
export async function removeKeptWorktree(folder: string, kept: { readonly storyId: string; readonly worktree: string; readonly branch: string }): Promise<void> {
  const top = (await topOf(folder)) ?? folder;
  const store = new ParallelStateStore(top);
  const state = await store.read();
  if (!state) {
    throw new ParallelError('state', `${folder} has no .ralph/parallel.json any more: the worktree ${kept.worktree} is not Ralph's to remove (git worktree list shows it).`);
  }
  try {
    await removeWorktree({ root: top, featureBranch: state.featureBranch }, { storyId: kept.storyId, branch: kept.branch, folder: kept.worktree });
  } catch (e) {
    if (e instanceof ParallelError && e.code === 'unmerged') {
      throw new ParallelError('unmerged', `${e.message} Removing it would lose that work: resume the run to merge it, or merge ${kept.branch} by hand first.`);
    }
    throw e;
  }
  const gone = path.resolve(kept.worktree);
  await store.update(state, (s) => ({ ...s, stories: s.stories.filter((r) => path.resolve(r.worktree) !== gone) }));
}
