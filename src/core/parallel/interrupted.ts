/**
 * What a reopened window finds of a parallel run that did not end (issue 19, crash safety): from
 * `.ralph/parallel.json` and what git shows of each kept worktree, whether the run was under way
 * when it was cut off (a story running, finished or merging: states a run that ended never leaves),
 * how many stories were in flight and how many finished but were not merged (the notification),
 * and one row per kept worktree for the Needs You node, until it is resumed or removed. Pure.
 */
import type { ParallelState, StoryRunState } from './state';

/** Why a kept worktree is listed (besides a conflict or a failed check a run left). */
export type KeptWhy = 'interrupted' | 'unmerged' | 'orphaned';

/** What git shows of one recorded story's worktree. */
export interface KeptFacts {
  /** Its agent finished: the `feat:` commit is there and the story passes in its worktree. */
  readonly finished: boolean;
  /** Commits on its branch not on the feature branch, `<sha> <subject>`. */
  readonly commits: readonly string[];
}

export interface OrphanFacts {
  readonly folder: string;
  readonly branch: string;
  readonly commits: readonly string[];
}

export interface KeptRow {
  /** The story (an orphan: its folder's name, as resume records it). */
  readonly storyId: string;
  readonly why: KeptWhy | 'conflict' | 'check-failed';
  readonly worktree: string;
  readonly branch: string;
  readonly commits: readonly string[];
  readonly conflictFiles?: readonly string[];
  readonly message: string;
}

export interface InterruptedRun {
  readonly featureBranch: string;
  /** The run was cut off: a story was running, finished or merging. */
  readonly underWay: boolean;
  /** Stories whose agent was cut off before it finished. */
  readonly inFlight: readonly string[];
  /** Stories whose agent finished whose work is not on the feature branch yet. */
  readonly unmerged: readonly string[];
  readonly rows: readonly KeptRow[];
}

/** The states only a run under way leaves behind. */
const UNDER_WAY: readonly StoryRunState[] = ['running', 'done', 'merging'];

const commitCount = (n: number): string => `${n} commit${n === 1 ? '' : 's'}`;

function listed(commits: readonly string[]): string {
  const shown = commits.slice(0, 3).map((c) => c.replace(/^([0-9a-f]{8})[0-9a-f]*/, '$1'));
  return shown.length === 0 ? '' : ` (${shown.join('; ')}${commits.length > shown.length ? `; ${commits.length - shown.length} more` : ''})`;
}

/**
 * The run as the state file and git show it. `facts` is per recorded story id (a story without
 * facts counts as holding nothing and not finished); `orphans` are worktrees of the feature branch
 * no record names.
 */
export function interruptedRun(state: ParallelState, facts: ReadonlyMap<string, KeptFacts>, orphans: readonly OrphanFacts[] = []): InterruptedRun {
  const feature = state.featureBranch;
  const inFlight: string[] = [];
  const unmerged: string[] = [];
  const rows: KeptRow[] = [];
  for (const r of state.stories) {
    if (r.state === 'merged') {
      continue;
    }
    const f = facts.get(r.storyId) ?? { finished: false, commits: [] };
    const kept = `its worktree ${r.worktree} is kept with ${commitCount(f.commits.length)} not on ${feature}${listed(f.commits)}`;
    const base = { storyId: r.storyId, worktree: r.worktree, branch: r.branch, commits: f.commits };
    if (r.state === 'orphaned') {
      const commits = f.commits.length > 0 ? f.commits : (r.commits ?? []);
      rows.push({ ...base, commits, why: 'orphaned', message: `${r.worktree}: a worktree no run knows, on ${r.branch}, with ${commitCount(commits.length)} not on ${feature}${listed(commits)}.` });
    } else if (r.state === 'conflict') {
      rows.push({ ...base, why: 'conflict', conflictFiles: r.conflicts, message: `${r.storyId}: its merge into ${feature} conflicted${r.conflicts?.length ? ` in ${r.conflicts.join(', ')}` : ''}; ${kept}.` });
    } else if (r.state === 'check-failed') {
      rows.push({ ...base, why: 'check-failed', message: `${r.storyId}: the check failed after its merge, which was undone; ${kept}.` });
    } else if (f.finished && UNDER_WAY.includes(r.state)) {
      unmerged.push(r.storyId);
      rows.push({ ...base, why: 'unmerged', message: `${r.storyId}: its agent finished but the run stopped before merging it; ${kept}. Resume merges it.` });
    } else {
      if (UNDER_WAY.includes(r.state)) {
        inFlight.push(r.storyId);
      }
      rows.push({ ...base, why: 'interrupted', message: `${r.storyId}: its agent was cut off before it finished; ${kept}. Resume continues it there.` });
    }
  }
  for (const o of orphans) {
    rows.push({ storyId: o.folder.split(/[\\/]/).filter(Boolean).pop() ?? o.folder, why: 'orphaned', worktree: o.folder, branch: o.branch, commits: o.commits, message: `${o.folder}: a worktree no run knows, on ${o.branch}, with ${commitCount(o.commits.length)} not on ${feature}${listed(o.commits)}.` });
  }
  return { featureBranch: feature, underWay: state.stories.some((r) => UNDER_WAY.includes(r.state)), inFlight, unmerged, rows };
}

/** The one notification: "a parallel run in app was interrupted (2 stories in flight, 1 finished but not merged)." */
export function interruptedMessage(folderName: string, run: Pick<InterruptedRun, 'inFlight' | 'unmerged'>): string {
  const n = run.inFlight.length;
  return `a parallel run in ${folderName} was interrupted (${n} ${n === 1 ? 'story' : 'stories'} in flight, ${run.unmerged.length} finished but not merged).`;
}
