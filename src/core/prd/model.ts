/**
 * The story model every reader of prd.json produces (the fast path, the parse-tree path) and every
 * consumer uses (validation, readiness, the views, the prompt, the CLI). Types only.
 */
import type { LineIndex, TextRange } from '../text';
import type { DependencyKey } from './dependencyKeys';
import type { JsonPath, Problem } from './problems';

export type { JsonPath } from './problems';

export interface BlockedByRef {
  readonly id: string;
  /** Index inside the dependency array (`key`). */
  readonly elementIndex: number;
  readonly range: TextRange;
  /** The key of the array this id is in (blockedBy or one of its aliases). */
  readonly key: DependencyKey;
}

export interface Story {
  /** Position in the story list (userStories, or the list found in a non-standard shape). */
  readonly index: number;
  /** The story's id; `#<n>` (its 1-based position) when the file gives none. Never empty. */
  readonly id: string;
  /** True when `id` is derived from the position because the story has no usable id. */
  readonly idDerived: boolean;
  readonly title: string;
  /** Lower runs first; words (critical, high, …, P0 …) are mapped; Infinity when missing (runs last, in file order). */
  readonly priority: number;
  readonly passes: boolean;
  readonly description: string;
  readonly acceptanceCriteria: readonly string[];
  /** Every dependency, from blockedBy and its aliases (dependsOn, dependencies, depends_on), in key then element order. */
  readonly blockedBy: readonly BlockedByRef[];
  /** The ids of `blockedBy`, without repeats. */
  readonly dependencies: readonly string[];
  /** The dependency key this story uses (the first present in DEPENDENCY_KEYS order), if any. */
  readonly dependencyKey?: DependencyKey;
  readonly notes?: string;
  /**
   * The files the story is expected to change (`files`, optional, paths as written): hints for the
   * parallel loop's same-file guard (core/loop/sameFile.ts), which keeps two stories that change the
   * same file from running at once.
   */
  readonly files?: readonly string[];
  /**
   * The story's `issue` field as written (a number, "#42", "GH-0042", an issue URL, or a list of
   * them), read by core/artifacts/storyIssues.ts. Only the story's own key: a "__proto__" key is
   * data in both readers, never a prototype that could lend the story an issue.
   */
  readonly issue?: unknown;
  /** Where the story object is in the file, e.g. ["userStories", 3] or ["prd", "stories", 0]. */
  readonly path: JsonPath;
  /** The whole story object. */
  readonly range: TextRange;
  /** The id value, or the object's opening brace when there is none. */
  readonly idRange: TextRange;
  readonly passesRange?: TextRange;
  readonly criteriaRanges: readonly TextRange[];
}

/**
 * Where the stories were found. `standard`: a root object with "userStories". The others are
 * shapes other tools write; their stories are read and shown, with a warning and a quick fix.
 */
export type PrdShapeKind = 'standard' | 'other-key' | 'wrapper' | 'array' | 'phases' | 'none';

export interface PrdShape {
  readonly kind: PrdShapeKind;
  /** Paths of the story lists (one, or one per phase; none for `none`). */
  readonly lists: readonly JsonPath[];
  /** For people: `"stories" (27 entries)`, `a top-level array (130 entries)`, … */
  readonly found: string;
}

export interface PrdDocument {
  readonly text: string;
  readonly lines: LineIndex;
  /** The file's name as the user knows it (prd.json unless told otherwise), used in messages. */
  readonly fileName: string;
  readonly projectName?: string;
  readonly branchName?: string;
  readonly description?: string;
  readonly stories: readonly Story[];
  /** Problems found while reading (encoding, syntax, shape, fields); validation adds graph problems. */
  readonly problems: readonly Problem[];
  /** False when no list of stories could be found (nothing to show). */
  readonly hasStories: boolean;
  readonly shape: PrdShape;
}
