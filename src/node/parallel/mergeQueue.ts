/**
 * The merge queue: finished stories merge into the feature branch one at a time (mergeStory.ts),
 * in the order of the schedule, and every step is recorded in `.ralph/parallel.json` before and
 * after it happens, so a crash at any moment can be resumed (resume.ts). A merged story's
 * worktree is removed when asked; one holding unmerged commits never is.
 */
import type { MergeMode, ParallelState, StoryRunRecord, StoryRunState } from '../../core/parallel/state';
import { withStory } from '../../core/parallel/state';
import { errorMessage } from '../../core/errorMessage';
import { type MergeOptions, type MergeOutcome, mergeStory } from './mergeStory';
import type { ParallelStateStore } from './stateFile';
import { type RepoInfo, removeWorktree, type StoryWorktree } from './worktrees';

export interface QueueOptions extends MergeOptions {
  /** Remove a story's worktree and branch once merged (default true). */
  readonly removeMerged?: boolean;
  /** Story ids in the schedule's order: `mergeAll` merges in this order (others after, as given). */
  readonly order?: readonly string[];
  /** The clock of the records (tests). */
  readonly now?: () => Date;
}

export type QueueOutcome = MergeOutcome & {
  /** Why the worktree of a merged story was kept (removal refused or failed). */
  readonly kept?: string;
};

export function emptyState(repo: RepoInfo, mode: MergeMode): ParallelState {
  return { version: 1, featureBranch: repo.featureBranch, mergeMode: mode, stories: [] };
}

/** A story its agent left unfinished is `interrupted`: kept, with its worktree, for a retry. */
const STATE_OF: Record<MergeOutcome['kind'], StoryRunState> = {
  merged: 'merged',
  conflict: 'conflict',
  'check-failed': 'check-failed',
  'not-done': 'interrupted',
};

export class MergeQueue {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repo: RepoInfo,
    private readonly store: ParallelStateStore,
    private readonly options: QueueOptions = {},
  ) {}

  private get mode(): MergeMode {
    return this.options.mode ?? 'merge';
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** Records a story's worktree and state (e.g. `running` when its agent starts, `done` when it ends). */
  record(wt: StoryWorktree, state: StoryRunState, extra: Partial<StoryRunRecord> = {}): Promise<ParallelState> {
    return this.store.update(emptyState(this.repo, this.mode), (s) =>
      withStory(s, { storyId: wt.storyId, worktree: wt.folder, branch: wt.branch, base: wt.base, ...extra, state }, this.now()),
    );
  }

  /** Merges one story after every merge queued before it. */
  merge(wt: StoryWorktree): Promise<QueueOutcome> {
    const next = this.chain.then(() => this.mergeNow(wt));
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Merges the stories one at a time, in the schedule's order. */
  async mergeAll(worktrees: readonly StoryWorktree[]): Promise<QueueOutcome[]> {
    const order = this.options.order ?? [];
    const rank = (id: string): number => {
      const i = order.indexOf(id);
      return i < 0 ? order.length : i;
    };
    const sorted = worktrees.map((wt, i) => ({ wt, i })).sort((a, b) => rank(a.wt.storyId) - rank(b.wt.storyId) || a.i - b.i);
    const out: QueueOutcome[] = [];
    for (const { wt } of sorted) {
      out.push(await this.merge(wt));
    }
    return out;
  }

  private async mergeNow(wt: StoryWorktree): Promise<QueueOutcome> {
    let outcome: MergeOutcome;
    try {
      // `merging`, with the head to go back to, is on disk before the merge changes anything (a resume undoes a half merge).
      outcome = await mergeStory(this.repo, wt, this.options, (before) => this.record(wt, 'merging', { before }).then(() => undefined));
    } catch (e) {
      // The main tree was not in a state to merge, or git failed: the story stays done, to merge later.
      await this.record(wt, 'done', { note: errorMessage(e) });
      throw e;
    }
    await this.record(wt, STATE_OF[outcome.kind], describe(outcome));
    if (outcome.kind !== 'merged' || this.options.removeMerged === false) {
      return outcome;
    }
    try {
      await removeWorktree(this.repo, wt);
      return outcome;
    } catch (e) {
      const kept = errorMessage(e);
      await this.record(wt, 'merged', { ...describe(outcome), note: kept });
      return { ...outcome, kept };
    }
  }
}

function describe(o: MergeOutcome): Partial<StoryRunRecord> {
  switch (o.kind) {
    case 'merged':
      return {
        mergeCommit: o.commit,
        note: o.ignoredStories.length > 0 ? `prd.json edits to other stories were not merged: ${o.ignoredStories.join(', ')}.` : undefined,
      };
    case 'conflict':
      return { conflicts: [...o.files], note: `Merge conflict in ${o.files.join(', ')}: the merge was aborted.` };
    case 'check-failed':
      return { note: `The check failed (exit ${o.exitCode ?? 'none'}); the merge was undone and the story awaits a retry.\n${o.output.slice(-2000)}` };
    case 'not-done':
      return { note: `Not merged: ${o.reason}.` };
  }
}
