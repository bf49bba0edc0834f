import type { TextRange } from '../text';

export type ProblemCode =
  | 'encoding'
  | 'empty-file'
  | 'syntax'
  | 'schema'
  | 'duplicate-id'
  | 'unknown-blocked-by'
  | 'self-dependency'
  | 'cycle';

/** Problems about the dependency graph: they block stories but leave the file readable. */
export const graphProblemCodes: ReadonlySet<ProblemCode> = new Set(['unknown-blocked-by', 'self-dependency', 'cycle']);

export interface ProblemFix {
  /** What the fix does, shown as the quick-fix title. */
  readonly title: string;
  /** Remove `blockedId` from the blockedBy list of story `storyIndex`. */
  readonly kind: 'remove-blocked-by';
  readonly storyIndex: number;
  readonly blockedId: string;
  /** Index of the element inside the blockedBy array. */
  readonly elementIndex: number;
}

export interface Problem {
  readonly code: ProblemCode;
  readonly message: string;
  readonly severity: 'error' | 'warning';
  readonly range: TextRange;
  /** Id of the story the problem is about, when there is one. */
  readonly storyId?: string;
  /** Index of that story in userStories. */
  readonly storyIndex?: number;
  /** For cycles: the path, first id repeated at the end (A → B → C → A). */
  readonly cycle?: readonly string[];
  readonly fixes?: readonly ProblemFix[];
}
