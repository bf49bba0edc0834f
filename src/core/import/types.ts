/**
 * What an importer makes of another tool's backlog (issue 22): prd.json stories, each with the
 * `source` it came from, and a warning (with its line) for every item it could not map.
 */

/** The formats `ralph-workbench import` reads; `github` is read through the REST client, not a file. */
export const IMPORT_FORMATS = ['spec-kit', 'kiro', 'taskmaster', 'beads', 'backlog', 'github'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Where a story came from: re-import finds the stories it created by this. */
export interface StorySource {
  readonly format: ImportFormat;
  /** The file, relative to the workspace (GitHub: OWNER/REPO). */
  readonly file: string;
  /** The item's id as the source writes it. */
  readonly id: string;
}

/** A prd.json story, its keys in the order they are written. */
export interface ImportedStory {
  id: string;
  title: string;
  description: string;
  acceptanceCriteria: string[];
  priority: number;
  passes: boolean;
  blockedBy?: string[];
  notes?: string;
  source: StorySource;
}

export interface ImportWarning {
  /** 1-based line in the source file, when the item has one. */
  readonly line?: number;
  /** The file the line is in (a Backlog.md folder has many). */
  readonly file?: string;
  readonly message: string;
}

export interface ImportResult {
  readonly format: ImportFormat;
  readonly stories: ImportedStory[];
  readonly warnings: ImportWarning[];
}

/** An importer's failure on the whole input (malformed file, unknown tag): a message for a person. */
export class ImportError extends Error {}
