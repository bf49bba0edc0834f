import type { TextRange } from '../text';
import type { DependencyKey } from './dependencyKeys';

/** A JSON path: object keys and array indices from the root. */
export type JsonPath = readonly (string | number)[];

export type ProblemCode =
  // Errors: the file cannot be read, or a story is ambiguous or unrunnable.
  | 'encoding'
  | 'empty-file'
  | 'syntax'
  | 'too-deep'
  | 'no-stories'
  | 'schema'
  | 'duplicate-id'
  | 'unknown-blocked-by'
  | 'self-dependency'
  | 'cycle'
  // Warnings: read anyway, and said so.
  | 'shape'
  | 'missing-id'
  | 'missing-field'
  | 'field-synonym'
  | 'priority'
  | 'status'
  | 'dependency-keys'
  | 'option-like-id';

/** Problems about the dependency graph: they block stories but leave the file readable. */
export const graphProblemCodes: ReadonlySet<ProblemCode> = new Set(['unknown-blocked-by', 'self-dependency', 'cycle']);

interface DependencyEdit {
  /** What the fix does, shown as the quick-fix title. */
  readonly title: string;
  readonly storyIndex: number;
  /** Where the story object is (userStories[storyIndex] in the standard shape). */
  readonly storyPath: JsonPath;
  /** The dependency array the id is in. */
  readonly key: DependencyKey;
  readonly blockedId: string;
  /** Index of the element inside that array. */
  readonly elementIndex: number;
}

/** Remove `blockedId` from the story's dependency array. */
export interface RemoveDependencyFix extends DependencyEdit {
  readonly kind: 'remove-blocked-by';
}

/** Replace `blockedId` by `replacement` (the near match "did you mean" found). */
export interface ReplaceDependencyFix extends DependencyEdit {
  readonly kind: 'replace-blocked-by';
  readonly replacement: string;
}

/** Give every story without an id the id in `ids` (same order as `storyPaths`). */
export interface WriteIdsFix {
  readonly kind: 'write-ids';
  readonly title: string;
  readonly storyPaths: readonly JsonPath[];
  readonly ids: readonly string[];
}

/** Convert a non-standard shape to {"userStories": [...]}: rename the list's key, unwrap, or wrap a top-level array. */
export interface ConvertShapeFix {
  readonly kind: 'convert-shape';
  readonly title: string;
  /** Path of the story list to move under a root "userStories". */
  readonly list: JsonPath;
}

export type ProblemFix = RemoveDependencyFix | ReplaceDependencyFix | WriteIdsFix | ConvertShapeFix;

/** One dependency of a cycle: `storyId` waits on `waitsOn` at `range`. */
export interface CycleEdge {
  readonly storyId: string;
  readonly storyIndex: number;
  readonly waitsOn: string;
  readonly range: TextRange;
  readonly fix: RemoveDependencyFix;
}

export interface Problem {
  readonly code: ProblemCode;
  readonly message: string;
  readonly severity: 'error' | 'warning';
  readonly range: TextRange;
  /** Id of the story the problem is about, when there is one. */
  readonly storyId?: string;
  /** Index of that story in the story list. */
  readonly storyIndex?: number;
  /** For cycles: the path, first id repeated at the end (A → B → C → A). */
  readonly cycle?: readonly string[];
  /** For cycles: every dependency of the cycle, each with its place and the fix that removes it. */
  readonly edges?: readonly CycleEdge[];
  readonly fixes?: readonly ProblemFix[];
}

/** An id as messages show it: at most 60 characters, so a message never grows with a huge id. */
export function shortId(id: string): string {
  return id.length > 60 ? `${id.slice(0, 57)}…` : id;
}

/** `A → B → C → A`, abbreviated for long cycles: `A → B → C → … 3,996 more … → Y → A`. */
export function formatCycle(ids: readonly string[]): string {
  const shown = (xs: readonly string[]): string => xs.map(shortId).join(' → ');
  if (ids.length <= 9) {
    return shown(ids);
  }
  const hidden = ids.length - 5;
  return `${shown(ids.slice(0, 3))} → … ${hidden.toLocaleString('en-US')} more … → ${shown(ids.slice(-2))}`;
}
