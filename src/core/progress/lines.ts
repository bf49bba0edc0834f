/**
 * Classifying the lines of progress.txt: headings, separators, bullets, fences, labels
 * (`Files changed:`, `Learnings …:`, `Thread:`), entry headings, file-list items and indentation.
 */
import type { ProgressItem } from './model';

/** Shared empty list for items without continuation lines (replaced on the first push). */
export const NO_MORE: readonly string[] = Object.freeze([]) as readonly string[];

export function addMore(item: ProgressItem, line: string, endLine: number): void {
  const m = item as { more: readonly string[]; endLine: number };
  if (m.more === NO_MORE) {
    m.more = [line];
  } else {
    (m.more as string[]).push(line);
  }
  m.endLine = endLine;
}

export const HEADING = /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
export const SEPARATOR = /^[ \t]{0,3}(?:-[ \t]*){3,}$|^[ \t]{0,3}(?:\*[ \t]*){3,}$|^[ \t]{0,3}(?:_[ \t]*){3,}$|^[ \t]{0,3}={3,}[ \t]*$/;
export const BULLET = /^([ \t]*)(?:[-*+•]|\d{1,3}[.)])(?:[ \t]+(.*?))?[ \t]*$/;
export const FENCE = /^[ \t]{0,3}(```|~~~)/;
export const NUMBERED = /^[ \t]*\d{1,3}[.)](?:[ \t]+(.*))?$/;
export const DATE_LED =
  /^\[?(\d{4}-\d{2}-\d{2}(?:[ T_]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[ ]?(?:Z|UTC|GMT|[+-]\d{2}:?\d{2}))?)?)\]?/;
export const STORY_TOKEN = /(?:^|[^\w-])\[?([A-Z][A-Z0-9]*-\d+[A-Za-z0-9]*)\]?(?![\w-])/;
export const LEAD_ID = /^\[?([A-Za-z][\w.]*-?\d[\w.-]*|[A-Za-z][\w.]*-[\w.-]*\d[\w.-]*)\]?(?=$|[\s:,)\]]|[ ]-)/;
export const DATED_TOKEN_ID = /^\[?([A-Za-z0-9][\w./-]*?)\]?(?=:(?:[ \t]|$)|[ \t]+[-–—|][ \t]+|[ \t]*$)/;
export const SEPARATORS_AROUND = /^[\s\-–—:|,]+/;
export const THREAD = /^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?thread(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*<?(\S+?)>?[ \t]*$/i;
export const LABEL_COLON = /^(#{1,6}[ \t]+)?(\*\*|__)?[ \t]*([^:*_]{1,60}?)[ \t]*(?::[ \t]*(?:\*\*|__)|(?:\*\*|__)[ \t]*:|:)(.*)$/;
export const LABEL_BOLD = /^(\*\*|__)[ \t]*([^:*_]{1,60}?)[ \t]*(?:\*\*|__)[ \t]*$/;
export const LABEL_HEADING = /^#{1,6}[ \t]+([^:]{1,60}?)[ \t]*:?[ \t]*$/;
export const FILES_LABEL = /^files?[ \t]+(?:changed|modified|touched|created|updated)$|^changed[ \t]+files$/i;
/**
 * Labels people write over their learnings: `Learnings for future iterations`, `Learnings`,
 * `Lessons (learned)`, `Key notes`, `Notes for next developer`, `Gotchas`, `Insights`,
 * `Takeaways`, each optionally followed by `for …`/`to …` and a parenthesised note.
 */
export const LEARNINGS_LABEL =
  /^(?:key[ \t]+|important[ \t]+)?(?:learnings?|lessons?(?:[ \t]+learned)?|notes?|gotchas?|insights?|takeaways?|caveats?)(?:[ \t]+(?:for|to)[ \t]+[^()]*)?(?:[ \t]*\([^)]*\))?$/i;

/**
 * A label line such as `**Learnings for future iterations:**`, `- Files changed: a, b`, `### Learnings`:
 * the label and what follows it. Undefined for other lines.
 */
export function labelOf(line: string): { label: string; rest: string } | undefined {
  let t = line.trimStart();
  const b = /^[-*+][ \t]+/.exec(t);
  if (b) {
    t = t.slice(b[0].length);
  }
  if (t.length > 4000) {
    return undefined;
  }
  let m = LABEL_COLON.exec(t);
  if (m) {
    const rest = m[4].replace(/^[ \t]*(?:\*\*|__)[ \t]*/, '').trim();
    return { label: m[3].trim(), rest };
  }
  m = LABEL_BOLD.exec(t);
  if (m) {
    return { label: m[2].trim(), rest: '' };
  }
  m = LABEL_HEADING.exec(t);
  if (m) {
    return { label: m[1].replace(/[*_]/g, '').trim(), rest: '' };
  }
  return undefined;
}

export const PATTERNS_NAME = /^(?:\*\*|__)?(?:codebase|code|reusable|project)?[ \t]*patterns?(?:\*\*|__)?[ \t]*:?$/i;
export const COMPACTED_NAME = /^(?:\*\*|__)?compacted[ \t]+history\b/i;
export const ITERATIONS = /^iterations?:[ \t]*(\d+)(?:[ \t]*\((.*?)(?:[ \t]+(?:to|…|\.\.\.|–|—)[ \t]+(.*?))?\))?/i;
export const SUMMARY_COUNT = /(\d+)[ \t]+(?:older[ \t]+)?(?:iterations?|entr(?:y|ies))(?:[ \t]*\((.*?)(?:[ \t]+(?:to|…|–|—)[ \t]+(.*?))?\))?/i;

export interface Heading {
  level: number;
  text: string;
}

export function headingOf(line: string): Heading | undefined {
  if (line.charCodeAt(0) !== 35 /* # */) {
    return undefined;
  }
  const m = HEADING.exec(line);
  return m ? { level: m[1].length, text: m[2] } : undefined;
}

export interface EntryHeading {
  readonly date?: string;
  readonly storyId?: string;
  readonly title?: string;
  /** Whether the heading starts with a date (those always start a new entry). */
  readonly dated: boolean;
}

/** Reads `2025-03-11 10:15 - US-001 - Title`, `[2025-03-11] US-001: Title`, `US-001 - Title`, `Iteration 3 - US-001`. */
export function parseEntryHeading(text: string): EntryHeading | undefined {
  const t = text.replace(/^\*\*|\*\*$/g, '').trim();
  const d = DATE_LED.exec(t);
  if (d) {
    let rest = t.slice(d[0].length).replace(SEPARATORS_AROUND, '');
    let storyId: string | undefined;
    const id = LEAD_ID.exec(rest);
    if (id) {
      storyId = id[1];
      rest = rest.slice(id[0].length).replace(SEPARATORS_AROUND, '');
    } else {
      // Any single token before `: `, ` - ` or the end is the id: `2026-03-22 - parity-icon: Icon`.
      const token = DATED_TOKEN_ID.exec(rest);
      if (token) {
        storyId = token[1];
        rest = rest.slice(token[0].length).replace(SEPARATORS_AROUND, '');
      } else {
        const any = STORY_TOKEN.exec(rest);
        if (any) {
          storyId = any[1];
        }
      }
    }
    const title = rest.trim();
    return { date: d[1], storyId, title: title || undefined, dated: true };
  }
  const lead = LEAD_ID.exec(t);
  const tok = lead && /\d/.test(lead[1]) && /[-_]/.test(lead[1]) ? { index: 0, id: lead[1], len: lead[0].length } : undefined;
  const m = tok ? undefined : STORY_TOKEN.exec(t);
  if (!tok && !m) {
    return undefined;
  }
  const storyId = tok ? tok.id : m![1];
  const after = tok ? t.slice(tok.len) : t.slice(m!.index + m![0].length);
  const title = after.replace(SEPARATORS_AROUND, '').trim();
  return { storyId, title: title || undefined, dated: false };
}

export function plainHeadingName(text: string): string {
  return text.replace(/^[*_`]+|[*_`]+$/g, '').trim();
}

/** Cleans one "files changed" element: backticks, markdown links and (notes) removed. */
const PLAIN_PATH = /^[\w./@+-]+$/;

export function cleanFile(raw: string): string {
  let s = raw.trim();
  if (PLAIN_PATH.test(s)) {
    return s.replace(/[.]+$/, '');
  }
  const link = /^\[([^\]]*)\]\(([^)]*)\)/.exec(s);
  if (link) {
    s = link[2] || link[1];
  }
  // A parenthesised note between blanks is not part of the path; `src/app/(public)/x.tsx` and
  // `src/a (old - new).ts` keep their own.
  s = s.replace(/(^|\s)\([^)]*\)(?=\s|$)/g, ' ').replace(/[`*]/g, '').trim();
  // "src/a.ts - what changed": keep the path.
  const dash = /^(\S+)\s+(?:-|–|—|:)\s+/.exec(s);
  if (dash) {
    s = dash[1];
  }
  return s.replace(/[.,;:]+$/, '').trim();
}


/**
 * `src/a.ts - what changed, and why` → `src/a.ts`; `src/a (old - new).ts - renamed` → `src/a (old - new).ts`;
 * a list of paths, or a line whose brackets do not close, is kept whole.
 */
export function withoutDescription(item: string): string {
  // Where ` - ` (or – —) stands outside brackets and backticks: a dash inside `(old - new)` is part
  // of the path. Brackets left open mean the line is not understood: it is kept whole.
  const cuts: number[] = [];
  let depth = 0;
  let tick = false;
  for (let i = 0; i < item.length; i++) {
    const c = item[i];
    if (c === '`') {
      tick = !tick;
    } else if (!tick && (c === '(' || c === '[')) {
      depth++;
    } else if (!tick && (c === ')' || c === ']')) {
      depth--;
      if (depth < 0) {
        return item;
      }
    } else if (!tick && depth === 0 && (c === '-' || c === '–' || c === '—') && i > 0 && /\s/.test(item[i - 1]) && /\s/.test(item[i + 1] ?? '')) {
      cuts.push(i);
    }
  }
  if (depth !== 0 || tick || cuts.length === 0) {
    return item;
  }
  const left = (cut: number): string => item.slice(0, cut).trimEnd();
  // Several cuts (`My File - Copy.ts - a copy`, `src/c.ts - added X - with Y`): the first whose left
  // side ends like a file name (an extension, a closing bracket or backtick, a slash).
  const fileLike = cuts.find((cut) => /(?:\.[A-Za-z0-9]{1,10}|[)\]`/])$/.test(left(cut)));
  if (fileLike !== undefined) {
    return left(fileLike);
  }
  // None does (`Makefile - new target`): the first cut, when what is left of it is one word.
  const first = left(cuts[0]);
  return first === '' || /\s/.test(first) ? item : first;
}

/** Leading blanks of a line, up to `maxCols` columns (tabs to the next multiple of 4): how many columns and characters. */
export function leadingBlanks(line: string, maxCols = Number.POSITIVE_INFINITY): { cols: number; chars: number } {
  let i = 0;
  let col = 0;
  while (i < line.length && col < maxCols) {
    const c = line.charCodeAt(i);
    if (c === 32) {
      col++;
    } else if (c === 9) {
      col += 4 - (col % 4);
    } else {
      break;
    }
    i++;
  }
  return { cols: col, chars: i };
}

export function indentOf(line: string): number {
  return leadingBlanks(line).cols;
}

export function stripIndent(line: string, cols: number): string {
  return line.slice(leadingBlanks(line, cols).chars);
}
