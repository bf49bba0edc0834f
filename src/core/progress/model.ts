/**
 * The progress.txt model (types only): what the parser (parse.ts) produces. See parse.ts for the
 * format it reads. Every element carries 0-based line numbers ([line, endLine) ranges, endLine exclusive).
 */
import type { Eol } from './text';

export type { Eol };

export interface ProgressProblem {
  readonly code: 'empty' | 'binary' | 'no-story-id';
  readonly message: string;
  /** 0-based line. */
  readonly line: number;
  readonly severity: 'error' | 'warning';
}

/** A bullet (or paragraph line) with its nested bullets / wrapped lines. */
export interface ProgressItem {
  /** The text after the bullet marker, trailing blanks removed. */
  readonly text: string;
  /** 0-based line of the bullet. */
  readonly line: number;
  /** Exclusive end line (after the last continuation line). */
  endLine: number;
  /** Column of the bullet marker (or of the text for paragraph lines). */
  readonly indent: number;
  /** Nested bullets and wrapped lines, as written minus this item's indentation. */
  readonly more: readonly string[];
}

export interface SectionBase {
  /** 0-based line of the heading. */
  readonly line: number;
  /** Exclusive end: the next section's heading line, or the line count. */
  endLine: number;
  /** The heading line as written. */
  readonly heading: string;
  /** Number of `#`. */
  readonly level: number;
  /** Exclusive end of the last line that is neither blank nor a separator. */
  contentEndLine: number;
}

/** What an iteration entry (or a story of the compacted history) says. */
export interface EntryBody {
  readonly thread?: { readonly url: string; readonly line: number };
  /** Summary bullets and paragraph lines: what was done. */
  readonly summary: ProgressItem[];
  /** Files changed, cleaned (backticks and parenthesised notes removed), in order, unique. */
  readonly files: string[];
  /** Line of the (first) `Files changed` line. */
  readonly filesLine?: number;
  readonly learnings: ProgressItem[];
  /** Line of the `**Learnings for future iterations:**` heading. */
  readonly learningsLine?: number;
  /** Indentation of the learnings heading and whether it is written as a bullet. */
  readonly learningsStyle?: { readonly indent: number; readonly bullet: boolean };
  /** Line of the last `---` separator inside the section. */
  readonly separatorLine?: number;
}

export interface ProgressEntry extends SectionBase, EntryBody {
  readonly kind: 'entry';
  /** `2025-03-11 10:15` as written (brackets removed). */
  readonly date?: string;
  readonly storyId?: string;
  readonly title?: string;
}

export interface PatternsSection extends SectionBase {
  readonly kind: 'patterns';
  readonly items: ProgressItem[];
}

export interface CompactedStory extends EntryBody {
  readonly storyId: string;
  readonly title?: string;
  readonly line: number;
  endLine: number;
  readonly heading: string;
  /** From the `- Iterations: N (first to last)` bullet. */
  readonly iterations?: number;
  readonly firstDate?: string;
  readonly lastDate?: string;
}

export interface CompactedSection extends SectionBase {
  readonly kind: 'compacted';
  /** Lines between the heading and the first story, as written. */
  readonly intro: string[];
  readonly stories: CompactedStory[];
  /** From the intro line `Summary of N older iterations (first to last)`. */
  readonly entriesSummarised?: number;
  readonly firstDate?: string;
  readonly lastDate?: string;
}

export interface OtherSection extends SectionBase {
  readonly kind: 'other';
}

export type ProgressSection = PatternsSection | ProgressEntry | CompactedSection | OtherSection;

export interface ProgressDoc {
  readonly eol: Eol;
  /** Number of lines (a final line end does not start another line). */
  readonly lineCount: number;
  /** Lines [0, endLine) before the first section. */
  readonly header: { readonly line: 0; readonly endLine: number };
  /** Every section in file order. */
  readonly sections: ProgressSection[];
  readonly patterns?: PatternsSection;
  /** Iteration entries in file order (oldest first). */
  readonly entries: ProgressEntry[];
  readonly compacted?: CompactedSection;
  readonly problems: ProgressProblem[];
}

