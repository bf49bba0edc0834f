/**
 * The worktrees of a run's merged stories, waiting for its next stories: `reuseWorktree` makes one
 * the next story's for the price of the files that differ, where `git worktree add` writes every
 * tracked file again and `git worktree remove` deletes them all (seconds in a large repository).
 */
import { type AddOptions, type RepoInfo, reuseWorktree, type StoryWorktree } from './worktrees';

export class SpareWorktrees {
  private readonly spares: StoryWorktree[] = [];

  /** At most `max()` wait (one a slot); more are not needed at once. */
  constructor(private readonly max: () => number) {}

  /** Keeps a merged story's worktree; returns the one to remove now, past the limit. */
  keep(wt: StoryWorktree): StoryWorktree | undefined {
    this.spares.push(wt);
    return this.spares.length > Math.max(1, this.max()) ? this.spares.shift() : undefined;
  }

  /**
   * A spare made the worktree of `storyId`; `drop` is a spare that could not be taken (it holds
   * something: remove it as usual, which says why it is kept). Throws, keeping the spare, when the
   * story cannot have a worktree at all.
   */
  async take(repo: RepoInfo, storyId: string, options: AddOptions): Promise<{ wt?: StoryWorktree; drop?: StoryWorktree }> {
    const spare = this.spares.pop();
    if (!spare) {
      return {};
    }
    try {
      const wt = await reuseWorktree(repo, spare, storyId, options);
      return wt ? { wt } : { drop: spare };
    } catch (e) {
      this.spares.push(spare);
      throw e;
    }
  }

  /** Every spare, for removal (the loop is over). */
  drain(): StoryWorktree[] {
    return this.spares.splice(0);
  }
}
