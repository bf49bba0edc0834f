/**
 * Which feature (prd.json `branchName`) a run belonged to. runs.jsonl does not record it: when a
 * new feature starts, the previous prd.json is archived to `archive/<YYYY-MM-DD>-<feature>/` (the
 * day it was archived, i.e. the day the feature ended) and runs.jsonl goes on. So the feature of a
 * run is read from the prd.json files that name its story:
 * 1. a parallel run's story branch is `<branchName>-<storyId>`: the feature whose branch it extends;
 * 2. else the features whose prd.json (current or archived) holds the story: of the archived ones,
 *    the earliest archived on or after the run's day (the run happened before that archive); when
 *    none was archived after it, the current prd.json when it holds the story, else the latest archive;
 * 3. else unknown (a story no prd.json names any more).
 */
import type { RunRecord } from '../runs/runs';

export interface FeatureStories {
  /** The prd.json's `branchName`. */
  readonly branchName: string;
  readonly storyIds: readonly string[];
  /** `YYYY-MM-DD` of its archive folder; absent for the current prd.json. */
  readonly archivedOn?: string;
}

/** The label of runs whose feature cannot be told. */
export const UNKNOWN_FEATURE = '(unknown feature)';

export type FeatureOf = (run: Pick<RunRecord, 'storyId' | 'start' | 'parallel'>) => string;

/** The rule above, as a function of a run (built once, then O(features of the story) per run). */
export function featureResolver(features: readonly FeatureStories[]): FeatureOf {
  const named = features.filter((f) => f.branchName !== '');
  const byStory = new Map<string, FeatureStories[]>();
  // Archived first, oldest first; the current prd.json last.
  const ordered = [...named].sort((a, b) => (a.archivedOn ?? '\uffff').localeCompare(b.archivedOn ?? '\uffff'));
  for (const f of ordered) {
    for (const id of new Set(f.storyIds)) {
      const list = byStory.get(id) ?? [];
      list.push(f);
      byStory.set(id, list);
    }
  }
  // Longest branch first, so `ralph/a-b` wins over `ralph/a` for `ralph/a-b-US-1`.
  const branches = [...new Set(named.map((f) => f.branchName))].sort((a, b) => b.length - a.length);
  return (run) => {
    const branch = run.parallel?.branch;
    if (branch) {
      const owner = branches.find((b) => branch.startsWith(`${b}-`));
      if (owner) {
        return owner;
      }
    }
    const candidates = byStory.get(run.storyId);
    if (!candidates) {
      return UNKNOWN_FEATURE;
    }
    const day = run.start.slice(0, 10);
    const archivedAfter = candidates.find((f) => f.archivedOn !== undefined && f.archivedOn >= day);
    return (archivedAfter ?? candidates.find((f) => f.archivedOn === undefined) ?? candidates[candidates.length - 1]).branchName;
  };
}

/** `2026-01-05-user-auth` → `2026-01-05`, or undefined when the folder name does not start with a date. */
export function archiveDay(folderName: string): string | undefined {
  return /^(\d{4}-\d{2}-\d{2})-/.exec(folderName)?.[1];
}
