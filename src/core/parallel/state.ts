/**
 * The merge queue's state, `.ralph/parallel.json`: one record per story of a parallel run, so
 * that after a window reload, a crash or a killed process the run can resume (finished worktrees
 * merge, orphaned ones are listed with their commits, nothing holding unmerged commits is lost).
 * Written atomically by src/node/parallel/stateFile.ts; read here with zod, so a damaged file
 * gives a message that names the place, never a raw JavaScript error.
 */
import { z } from 'zod';

export const PARALLEL_STATE_FILE = '.ralph/parallel.json';

export const STORY_RUN_STATES = ['running', 'done', 'merging', 'merged', 'conflict', 'check-failed', 'interrupted', 'orphaned'] as const;
export type StoryRunState = (typeof STORY_RUN_STATES)[number];

export const MERGE_MODES = ['merge', 'rebase'] as const;
export type MergeMode = (typeof MERGE_MODES)[number];

const storyRecord = z
  .object({
    storyId: z.string().min(1),
    /** The worktree folder (absolute). */
    worktree: z.string().min(1),
    branch: z.string().min(1),
    /** The feature branch's head the worktree started from. */
    base: z.string().regex(/^[0-9a-f]{40,64}$/),
    state: z.enum(STORY_RUN_STATES),
    /** The merge commit (or the last rebased commit) on the feature branch, once merged. */
    mergeCommit: z.string().regex(/^[0-9a-f]{40,64}$/).optional(),
    /** The feature branch's head when its merge began (state `merging`): a merge cut off half-way goes back there. */
    before: z.string().regex(/^[0-9a-f]{40,64}$/).optional(),
    /** Conflicting files (state `conflict`). */
    conflicts: z.array(z.string()).optional(),
    /** What the user should know: the check's output, stories whose edits were not merged, … */
    note: z.string().optional(),
    /** Commits on the branch not on the feature branch (state `orphaned`): `<sha> <subject>`. */
    commits: z.array(z.string()).optional(),
    updated: z.string(),
  })
  .passthrough();
export type StoryRunRecord = z.infer<typeof storyRecord>;

export const parallelStateSchema = z
  .object({
    version: z.literal(1),
    /** The feature branch the stories merge into. */
    featureBranch: z.string().min(1),
    mergeMode: z.enum(MERGE_MODES),
    stories: z.array(storyRecord),
  })
  .passthrough();
export type ParallelState = z.infer<typeof parallelStateSchema>;

export type ParsedState = { readonly ok: true; readonly state: ParallelState } | { readonly ok: false; readonly message: string };

/** Reads the text of `.ralph/parallel.json`: the state, or a message naming what is wrong and where. */
export function parseParallelState(text: string): ParsedState {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `${PARALLEL_STATE_FILE} is not valid JSON (${e instanceof Error ? e.message : String(e)}).` };
  }
  const r = parallelStateSchema.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0];
    const at = issue.path.length > 0 ? issue.path.join('.') : 'the top level';
    return { ok: false, message: `${PARALLEL_STATE_FILE}: ${at}: ${issue.message}.` };
  }
  return { ok: true, state: r.data };
}

/** The text written: two-space JSON and a final line end (readable, and diffs well). */
export function formatParallelState(state: ParallelState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}

/** The state with one story's record replaced (or added), stamped with `now`. */
export function withStory(state: ParallelState, record: Omit<StoryRunRecord, 'updated'>, now: Date): ParallelState {
  const next = { ...record, updated: now.toISOString() } as StoryRunRecord;
  const i = state.stories.findIndex((s) => s.storyId === record.storyId);
  const stories = i < 0 ? [...state.stories, next] : state.stories.map((s, k) => (k === i ? next : s));
  return { ...state, stories };
}
