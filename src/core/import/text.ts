/** Small text helpers the importers share: lines, ids, priorities, checklist items. */
import type { ImportedStory, ImportFormat } from './types';

export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A field as text: a string trimmed, a number written out, anything else empty. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
}

/**
 * The rule for sub-items that are items of their own (beads' parent-child, Backlog.md's
 * parent_task_id, GitHub's sub-issues): the parent waits on its children, so each child joins the
 * parent's blockedBy. A link whose parent was not imported is handed to `missing` (reported).
 */
export function parentsWaitOnChildren<L extends { readonly parent: string; readonly child: string }>(byId: ReadonlyMap<string, ImportedStory>, links: readonly L[], missing: (link: L) => void): void {
  for (const link of links) {
    const p = byId.get(link.parent);
    if (p) {
      (p.blockedBy ??= []).push(link.child);
    } else {
      missing(link);
    }
  }
}

/** Line number (1-based) of an offset, after one linear pass over the text; each look-up is a binary search. */
export function lineFinder(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    starts.push(i + 1);
  }
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo + 1;
  };
}

/** The lines of a text, without their line ends. */
export function linesOf(text: string): string[] {
  return text.split(/\r?\n/);
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

/** Prefixes for ids that are bare numbers ("1", "2.1"), which would collide across sources. */
const NUMERIC_PREFIX: Partial<Record<ImportFormat, string>> = { taskmaster: 'TM-', kiro: 'KIRO-', github: 'GH-' };

/**
 * A valid prd.json story id for an original id (SPEC: not empty, no control character, no
 * leading or trailing space): control characters become spaces, the ends are trimmed, and a bare
 * number gets the format's prefix. Dependencies go through the same mapping, so they still match.
 */
export function storyId(format: ImportFormat, original: string | number): string {
  const clean = String(original).replace(CONTROL, ' ').trim();
  const prefix = NUMERIC_PREFIX[format];
  return prefix && /^\d+(?:\.\d+)*$/.test(clean) ? `${prefix}${clean}` : clean;
}

/** A priority word (Taskmaster, Backlog.md, a GitHub label P1) as prd.json reads one: critical 0, high 1, medium 2, low 3. */
export { priorityOfWord } from '../prd/story';
/** When the source gives none: medium. */
export const DEFAULT_PRIORITY = 2;

/** A checklist item of Markdown (`- [ ] text`, `* [x] text`): its state and text, or undefined. */
export function checklistItem(line: string): { done: boolean; text: string } | undefined {
  const m = /^\s*[-*+]\s+\[([ xX])\]/.exec(line);
  return m ? { done: m[1] !== ' ', text: line.slice(m[0].length).trim() } : undefined;
}

/** Every checklist item of a Markdown text, in order. */
export function checklistItems(text: string): string[] {
  const out: string[] = [];
  for (const line of linesOf(text)) {
    const item = checklistItem(line);
    if (item && item.text !== '') {
      out.push(item.text);
    }
  }
  return out;
}

/** A title for a long task text: its first line, cut at a word before `max` characters. The whole text stays in the story. */
export function titleOf(text: string, max = 100): string {
  const first = text.trim().split('\n')[0].trim();
  if (first.length <= max) {
    return first;
  }
  const cut = first.lastIndexOf(' ', max - 1);
  return `${first.slice(0, cut > max / 2 ? cut : max - 1)}…`;
}
