/**
 * The progress.txt model: a tolerant, line-based parser for the append-only log Ralph agents keep.
 *
 *   # Ralph Progress Log                     <- header: every line before the first section
 *   Started: 2025-03-11 10:00:00
 *   ---
 *
 *   ## Codebase Patterns                     <- patterns section: bullets (and paragraph lines)
 *   - Use `sql<number>` template tag for database queries
 *
 *   ---
 *
 *   ## 2025-03-11 10:15 - US-001             <- one entry per iteration: `<date time> - <story id>`
 *   Thread: https://ampcode.com/threads/abc  <- optional
 *   - Initialized Next.js project            <- summary bullets
 *   - Files changed: package.json, a.ts      <- or `Files changed:` followed by bullets
 *   - **Learnings for future iterations:**
 *     - This project uses the App Router     <- learnings (any indentation)
 *   ---                                      <- separator; belongs to the entry before it
 *
 * Tolerated: other heading levels (`###`, even `#` for dated headings), `[date] US-001: title`,
 * headings with a story id and no date, CRLF / CR line ends, a BOM, missing sections, fenced code,
 * unknown sections (kept as `other`), and the `## Compacted history` section that compaction writes.
 * Every element carries 0-based line numbers ([line, endLine) ranges, endLine exclusive).
 * The parser never throws; empty or binary input gives an empty model with a problem.
 */
import { splitList } from '../text';

export type Eol = '\n' | '\r\n' | '\r';

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

interface SectionBase {
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

/** The lines of a text (without line ends) and the offset where each starts. */
export interface SplitText {
  readonly lines: string[];
  readonly starts: number[];
  /** Whether the text ends with a line end. */
  readonly finalEol: boolean;
}

export function splitLines(text: string): SplitText {
  const lines: string[] = [];
  const starts: number[] = [];
  const n = text.length;
  let start = 0;
  if (text.indexOf('\r') < 0) {
    // Fast path: only \n line ends.
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      lines.push(text.slice(start, nl));
      starts.push(start);
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
  } else {
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) {
        lines.push(text.slice(start, i));
        starts.push(start);
        i += c === 13 && text.charCodeAt(i + 1) === 10 ? 2 : 1;
        start = i;
      } else {
        i++;
      }
    }
  }
  const finalEol = n > 0 && start === n;
  if (!finalEol && n > 0) {
    lines.push(text.slice(start));
    starts.push(start);
  }
  return { lines, starts, finalEol };
}

/** The line end the text uses most (first seen wins ties); `\n` when it has none. */
export function detectEol(text: string): Eol {
  const crlf = text.indexOf('\r\n');
  if (crlf >= 0) {
    return '\r\n';
  }
  const lf = text.indexOf('\n');
  const cr = text.indexOf('\r');
  if (cr >= 0 && (lf < 0 || cr < lf)) {
    return '\r';
  }
  return '\n';
}

/** Decodes file bytes as UTF-8 (BOM kept, so writing back changes nothing). */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
}

/** True when the text looks like a binary file (NUL characters, or mostly undecodable bytes). */
export function looksBinary(text: string): boolean {
  const sample = text.length > 65536 ? text.slice(0, 65536) : text;
  if (sample.includes('\u0000')) {
    return true;
  }
  let bad = 0;
  for (let i = 0; i < sample.length; i++) {
    if (sample.charCodeAt(i) === 0xfffd) {
      bad++;
    }
  }
  return sample.length > 0 && bad / sample.length > 0.1;
}

// ---------------------------------------------------------------------------------------------
// Line classification

/** Shared empty list for items without continuation lines (replaced on the first push). */
const NO_MORE: readonly string[] = Object.freeze([]) as readonly string[];

function addMore(item: ProgressItem, line: string, endLine: number): void {
  const m = item as { more: readonly string[]; endLine: number };
  if (m.more === NO_MORE) {
    m.more = [line];
  } else {
    (m.more as string[]).push(line);
  }
  m.endLine = endLine;
}

const HEADING = /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const SEPARATOR = /^[ \t]{0,3}(?:-[ \t]*){3,}$|^[ \t]{0,3}(?:\*[ \t]*){3,}$|^[ \t]{0,3}(?:_[ \t]*){3,}$|^[ \t]{0,3}={3,}[ \t]*$/;
const BULLET = /^([ \t]*)(?:[-*+•]|\d{1,3}[.)])(?:[ \t]+(.*?))?[ \t]*$/;
const FENCE = /^[ \t]{0,3}(```|~~~)/;
const NUMBERED = /^[ \t]*\d{1,3}[.)](?:[ \t]+(.*))?$/;
const DATE_LED =
  /^\[?(\d{4}-\d{2}-\d{2}(?:[ T_]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[ ]?(?:Z|UTC|GMT|[+-]\d{2}:?\d{2}))?)?)\]?/;
const STORY_TOKEN = /(?:^|[^\w-])\[?([A-Z][A-Z0-9]*-\d+[A-Za-z0-9]*)\]?(?![\w-])/;
const LEAD_ID = /^\[?([A-Za-z][\w.]*-?\d[\w.-]*|[A-Za-z][\w.]*-[\w.-]*\d[\w.-]*)\]?(?=$|[\s:,)\]]|[ ]-)/;
const DATED_TOKEN_ID = /^\[?([A-Za-z0-9][\w./-]*?)\]?(?=:(?:[ \t]|$)|[ \t]+[-–—|][ \t]+|[ \t]*$)/;
const SEPARATORS_AROUND = /^[\s\-–—:|,]+/;
const THREAD = /^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?thread(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*<?(\S+?)>?[ \t]*$/i;
const LABEL_COLON = /^(#{1,6}[ \t]+)?(\*\*|__)?[ \t]*([^:*_]{1,60}?)[ \t]*(?::[ \t]*(?:\*\*|__)|(?:\*\*|__)[ \t]*:|:)(.*)$/;
const LABEL_BOLD = /^(\*\*|__)[ \t]*([^:*_]{1,60}?)[ \t]*(?:\*\*|__)[ \t]*$/;
const LABEL_HEADING = /^#{1,6}[ \t]+([^:]{1,60}?)[ \t]*:?[ \t]*$/;
const FILES_LABEL = /^files?[ \t]+(?:changed|modified|touched|created|updated)$|^changed[ \t]+files$/i;
/**
 * Labels people write over their learnings: `Learnings for future iterations`, `Learnings`,
 * `Lessons (learned)`, `Key notes`, `Notes for next developer`, `Gotchas`, `Insights`,
 * `Takeaways`, each optionally followed by `for …`/`to …` and a parenthesised note.
 */
const LEARNINGS_LABEL =
  /^(?:key[ \t]+|important[ \t]+)?(?:learnings?|lessons?(?:[ \t]+learned)?|notes?|gotchas?|insights?|takeaways?|caveats?)(?:[ \t]+(?:for|to)[ \t]+[^()]*)?(?:[ \t]*\([^)]*\))?$/i;

/**
 * A label line such as `**Learnings for future iterations:**`, `- Files changed: a, b`, `### Learnings`:
 * the label and what follows it. Undefined for other lines.
 */
function labelOf(line: string): { label: string; rest: string } | undefined {
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

const PATTERNS_NAME = /^(?:\*\*|__)?(?:codebase|code|reusable|project)?[ \t]*patterns?(?:\*\*|__)?[ \t]*:?$/i;
const COMPACTED_NAME = /^(?:\*\*|__)?compacted[ \t]+history\b/i;
const ITERATIONS = /^iterations?:[ \t]*(\d+)(?:[ \t]*\((.*?)(?:[ \t]+(?:to|…|\.\.\.|–|—)[ \t]+(.*?))?\))?/i;
const SUMMARY_COUNT = /(\d+)[ \t]+(?:older[ \t]+)?(?:iterations?|entr(?:y|ies))(?:[ \t]*\((.*?)(?:[ \t]+(?:to|…|–|—)[ \t]+(.*?))?\))?/i;

interface Heading {
  level: number;
  text: string;
}

function headingOf(line: string): Heading | undefined {
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

function plainHeadingName(text: string): string {
  return text.replace(/^[*_`]+|[*_`]+$/g, '').trim();
}

// ---------------------------------------------------------------------------------------------
// Entry bodies

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
  // A parenthesised note after a blank is not part of the path; `src/app/(public)/x.tsx` keeps its own.
  s = s.replace(/(^|\s)\([^)]*\)/g, ' ').replace(/[`*]/g, '').trim();
  // "src/a.ts - what changed": keep the path.
  const dash = /^(\S+)\s+(?:-|–|—|:)\s+/.exec(s);
  if (dash) {
    s = dash[1];
  }
  return s.replace(/[.,;:]+$/, '').trim();
}

export { splitList };

/** `src/a.ts - what changed, and why` → `src/a.ts`; a list of paths is kept whole. */
function withoutDescription(item: string): string {
  const m = /^(.*?\S)\s+(?:-|–|—)\s+/.exec(item);
  return m ? m[1] : item;
}

/** Leading blanks of a line, up to `maxCols` columns (tabs to the next multiple of 4): how many columns and characters. */
function leadingBlanks(line: string, maxCols = Number.POSITIVE_INFINITY): { cols: number; chars: number } {
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

function indentOf(line: string): number {
  return leadingBlanks(line).cols;
}

function stripIndent(line: string, cols: number): string {
  return line.slice(leadingBlanks(line, cols).chars);
}

interface MutableBody {
  thread?: { url: string; line: number };
  summary: ProgressItem[];
  files: string[];
  filesLine?: number;
  learnings: ProgressItem[];
  learningsLine?: number;
  learningsStyle?: { indent: number; bullet: boolean };
  separatorLine?: number;
}

/**
 * Parses the lines [from, to) of an entry (or a compacted story) after its heading. Returns the
 * body and the exclusive end of its last content line.
 */
function parseBody(lines: readonly string[], from: number, to: number, headingLine: number): { body: MutableBody; contentEnd: number } {
  const body: MutableBody = { summary: [], files: [], learnings: [] };
  const seenFiles = new Set<string>();
  const addFile = (raw: string): void => {
    const f = cleanFile(raw);
    if (f && !seenFiles.has(f)) {
      seenFiles.add(f);
      body.files.push(f);
    }
  };
  let mode: 'summary' | 'files' | 'learnings' = 'summary';
  let modeIndent = -1;
  let last: ProgressItem | undefined;
  let contentEnd = headingLine + 1;
  let fence = false;
  const push = (list: ProgressItem[], text: string, line: number, indent: number): void => {
    last = { text, line, endLine: line + 1, indent, more: NO_MORE };
    list.push(last);
  };
  for (let i = from; i < to; i++) {
    const line = lines[i];
    if (fence) {
      if (FENCE.test(line)) {
        fence = false;
      }
      contentEnd = i + 1;
      if (last) {
        addMore(last, stripIndent(line, last.indent), i + 1);
      }
      continue;
    }
    // Indentation (columns) and the first non-blank character, without allocating.
    const len = line.length;
    let p = 0;
    let indent = 0;
    while (p < len) {
      const c = line.charCodeAt(p);
      if (c === 32) {
        indent++;
      } else if (c === 9) {
        indent += 4 - (indent % 4);
      } else {
        break;
      }
      p++;
    }
    if (p === len) {
      continue;
    }
    const c0 = line.charCodeAt(p);
    if ((c0 === 45 || c0 === 42 || c0 === 95 || c0 === 61) && p <= 3 && SEPARATOR.test(line)) {
      body.separatorLine = i;
      mode = 'summary';
      modeIndent = -1;
      last = undefined;
      continue;
    }
    contentEnd = i + 1;
    if ((c0 === 96 || c0 === 126) && FENCE.test(line)) {
      fence = true;
      if (last && indent > last.indent) {
        addMore(last, stripIndent(line, last.indent), i + 1);
      } else {
        push(mode === 'learnings' ? body.learnings : body.summary, line.trim(), i, indent);
      }
      continue;
    }
    // Bullet text (undefined when the line is not a bullet), and where the content starts.
    let bulletText: string | undefined;
    let q = p;
    if (c0 === 45 || c0 === 42 || c0 === 43 || c0 === 0x2022) {
      const c1 = p + 1 < len ? line.charCodeAt(p + 1) : -1;
      if (c1 === -1) {
        bulletText = '';
        q = len;
      } else if (c1 === 32 || c1 === 9) {
        bulletText = line.slice(p + 2).trim();
        q = p + 2;
        while (q < len && (line.charCodeAt(q) === 32 || line.charCodeAt(q) === 9)) {
          q++;
        }
      }
    } else if (c0 >= 48 && c0 <= 57) {
      const m = NUMBERED.exec(line);
      if (m) {
        bulletText = (m[1] ?? '').trim();
        q = len - (m[1] ?? '').length;
      }
    }
    const bullet = bulletText !== undefined;
    const cq = q < len ? line.charCodeAt(q) : -1;
    let lab: { label: string; rest: string } | undefined;
    if (cq === 42 || cq === 95 || cq === 35 || (cq !== -1 && line.indexOf(':', q) >= 0 && line.indexOf(':', q) - q <= 64)) {
      // Only labels that start with t(hread, takeaways), f(iles), c(hanged files, caveats), l(earnings, lessons),
      // k(ey notes), n(otes), g(otchas), i(nsights, important notes) matter.
      let r = q;
      while (r < len) {
        const c = line.charCodeAt(r);
        if (c === 42 || c === 95 || c === 35 || c === 32 || c === 9) {
          r++;
        } else {
          break;
        }
      }
      const c = r < len ? line.charCodeAt(r) | 0x20 : 0;
      if (c === 116 || c === 102 || c === 99 || c === 108 || c === 107 || c === 110 || c === 103 || c === 105) {
        lab = labelOf(line);
      }
    }
    const isFiles = lab !== undefined && FILES_LABEL.test(lab.label);
    const isLearnings = !isFiles && lab !== undefined && LEARNINGS_LABEL.test(lab.label);
    // Nested bullets and wrapped lines continue the item above.
    if (last && indent > last.indent && !isFiles && !isLearnings && !(bullet && mode === 'files')) {
      addMore(last, stripIndent(line, last.indent), i + 1);
      continue;
    }
    const th = lab !== undefined && !body.thread && /^thread$/i.test(lab.label) ? THREAD.exec(line) : null;
    if (th) {
      body.thread = { url: th[1], line: i };
      last = undefined;
      continue;
    }
    if (isFiles) {
      if (body.filesLine === undefined) {
        body.filesLine = i;
      }
      last = undefined;
      if (lab!.rest) {
        for (const f of splitList(lab!.rest)) {
          addFile(f);
        }
        mode = 'summary';
        modeIndent = -1;
      } else {
        mode = 'files';
        modeIndent = bullet ? indent : -1;
      }
      continue;
    }
    if (isLearnings) {
      if (body.learningsLine === undefined) {
        body.learningsLine = i;
        body.learningsStyle = { indent, bullet };
      }
      mode = 'learnings';
      modeIndent = bullet ? indent : -1;
      last = undefined;
      if (lab!.rest) {
        push(body.learnings, lab!.rest, i, indent + 2);
        last = undefined;
      }
      continue;
    }
    if (bulletText !== undefined) {
      const text = bulletText;
      // After `- **Learnings:**`, bullets at the label's own indentation are learnings too (a flat
      // list, or one more learning after nested ones), up to the next label, separator or heading:
      // the learnings block ends an entry, and a bullet kept as a learning is never lost.
      if (mode === 'learnings' && indent >= modeIndent) {
        push(body.learnings, text, i, indent);
      } else if (mode === 'files' && indent > modeIndent) {
        // One item per line: `path - what changed` (the description may hold commas).
        for (const f of splitList(withoutDescription(text))) {
          addFile(f);
        }
        last = undefined;
      } else {
        mode = 'summary';
        modeIndent = -1;
        push(body.summary, text, i, indent);
      }
      continue;
    }
    // A paragraph line.
    if (mode === 'learnings' && modeIndent < 0 && !headingOf(line.trim())) {
      push(body.learnings, line.trim(), i, indent);
      continue;
    }
    if (mode === 'files' && modeIndent < 0 && !headingOf(line.trim()) && !/\s/.test(line.trim())) {
      addFile(line);
      last = undefined;
      continue;
    }
    mode = 'summary';
    modeIndent = -1;
    push(body.summary, line.trim(), i, indent);
  }
  return { body, contentEnd };
}

function parseItems(lines: readonly string[], from: number, to: number): { items: ProgressItem[]; contentEnd: number } {
  const items: ProgressItem[] = [];
  let last: ProgressItem | undefined;
  let contentEnd = from;
  let fence = false;
  for (let i = from; i < to; i++) {
    const line = lines[i];
    if (fence || FENCE.test(line)) {
      if (fence && FENCE.test(line)) {
        fence = false;
      } else if (!fence) {
        fence = true;
      }
      contentEnd = i + 1;
      if (last) {
        addMore(last, stripIndent(line, last.indent), i + 1);
      }
      continue;
    }
    if (line.trim() === '') {
      continue;
    }
    if (SEPARATOR.test(line)) {
      last = undefined;
      continue;
    }
    contentEnd = i + 1;
    const indent = indentOf(line);
    if (last && indent > last.indent) {
      addMore(last, stripIndent(line, last.indent), i + 1);
      continue;
    }
    if (headingOf(line)) {
      last = undefined;
      continue;
    }
    const b = BULLET.exec(line);
    last = { text: b ? (b[2] ?? '') : line.trim(), line: i, endLine: i + 1, indent, more: NO_MORE };
    items.push(last);
  }
  return { items, contentEnd };
}

// ---------------------------------------------------------------------------------------------
// The document

export function parseProgressBytes(bytes: Uint8Array): ProgressDoc {
  return parseProgress(decodeText(bytes));
}

export function parseProgress(text: string): ProgressDoc {
  return parseProgressSplit(text).doc;
}

/** The model and the split lines it was made from (for callers that need line offsets too). */
export function parseProgressSplit(text: string): { doc: ProgressDoc; split: SplitText } {
  const split = splitLines(text);
  return { doc: parseSplit(text, split), split };
}

function parseSplit(text: string, split: SplitText): ProgressDoc {
  const problems: ProgressProblem[] = [];
  const eol = detectEol(text);
  if (text.trim() === '' || text === '\uFEFF') {
    problems.push({ code: 'empty', message: 'progress.txt is empty: no header, Codebase Patterns or iteration entries yet.', line: 0, severity: 'warning' });
    return { eol, lineCount: split.lines.length, header: { line: 0, endLine: split.lines.length }, sections: [], entries: [], problems };
  }
  if (looksBinary(text)) {
    problems.push({
      code: 'binary',
      message: 'progress.txt does not look like text (it contains NUL bytes or is not UTF-8); it was not read. Nothing was changed.',
      line: 0,
      severity: 'error',
    });
    return { eol, lineCount: 0, header: { line: 0, endLine: 0 }, sections: [], entries: [], problems };
  }
  return parseLines(split.lines, eol, problems);
}

interface Start {
  line: number;
  heading: Heading;
  kind: ProgressSection['kind'];
  entry?: EntryHeading;
}

function parseLines(lines: readonly string[], eol: Eol, problems: ProgressProblem[]): ProgressDoc {
  const n = lines.length;
  // Pass 1: where sections start.
  const starts: Start[] = [];
  let fence = false;
  let current: Start | undefined;
  for (let i = 0; i < n; i++) {
    let line = lines[i];
    if (i === 0 && line.charCodeAt(0) === 0xfeff) {
      line = line.slice(1);
    }
    const c = line.charCodeAt(0);
    if (c === 96 || c === 126 || c === 32) {
      if (FENCE.test(line)) {
        fence = !fence;
        continue;
      }
    }
    if (fence || c !== 35) {
      continue;
    }
    const h = headingOf(line);
    if (!h) {
      continue;
    }
    const name = plainHeadingName(h.text);
    let start: Start | undefined;
    const topLevel = current === undefined || h.level <= Math.max(2, current.heading.level);
    if (current?.kind === 'compacted' && h.level > current.heading.level && !DATE_LED.test(h.text.replace(/^\*\*/, '').trim())) {
      // A story of the compacted history.
      continue;
    }
    if (COMPACTED_NAME.test(name)) {
      start = { line: i, heading: h, kind: 'compacted' };
    } else if (topLevel && PATTERNS_NAME.test(name)) {
      start = { line: i, heading: h, kind: 'patterns' };
    } else {
      const eh = parseEntryHeading(h.text);
      const inStoryish = current !== undefined && (current.kind === 'entry' || current.kind === 'compacted');
      if (eh && (eh.dated || !inStoryish || h.level <= current!.heading.level)) {
        if (eh.dated || h.level >= 2 || current !== undefined) {
          start = { line: i, heading: h, kind: 'entry', entry: eh };
        }
      } else if (!eh && (h.level === 2 || (h.level === 1 && current !== undefined))) {
        start = { line: i, heading: h, kind: 'other' };
      } else if (!eh && current === undefined && h.level >= 2) {
        start = { line: i, heading: h, kind: 'other' };
      } else if (!eh && current !== undefined && h.level < current.heading.level) {
        start = { line: i, heading: h, kind: 'other' };
      }
    }
    if (start) {
      starts.push(start);
      current = start;
    }
  }
  // Pass 2: the sections.
  const sections: ProgressSection[] = [];
  const entries: ProgressEntry[] = [];
  let patterns: PatternsSection | undefined;
  let compacted: CompactedSection | undefined;
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k];
    const end = k + 1 < starts.length ? starts[k + 1].line : n;
    const base = { line: s.line, endLine: end, heading: lines[s.line], level: s.heading.level };
    if (s.kind === 'entry') {
      const { body, contentEnd } = parseBody(lines, s.line + 1, end, s.line);
      const eh = s.entry!;
      const entry: ProgressEntry = {
        kind: 'entry',
        line: base.line,
        endLine: base.endLine,
        heading: base.heading,
        level: base.level,
        contentEndLine: contentEnd,
        date: eh.date,
        storyId: eh.storyId,
        title: eh.title,
        thread: body.thread,
        summary: body.summary,
        files: body.files,
        filesLine: body.filesLine,
        learnings: body.learnings,
        learningsLine: body.learningsLine,
        learningsStyle: body.learningsStyle,
        separatorLine: body.separatorLine,
      };
      if (!eh.storyId) {
        problems.push({
          code: 'no-story-id',
          message: `The entry "${s.heading.text}" names no story id (expected "## <date time> - <story id>").`,
          line: s.line,
          severity: 'warning',
        });
      }
      sections.push(entry);
      entries.push(entry);
    } else if (s.kind === 'patterns') {
      const { items, contentEnd } = parseItems(lines, s.line + 1, end);
      const sec: PatternsSection = { kind: 'patterns', ...base, contentEndLine: Math.max(contentEnd, s.line + 1), items };
      sections.push(sec);
      patterns ??= sec;
    } else if (s.kind === 'compacted') {
      const sec = parseCompacted(lines, s, end);
      sections.push(sec);
      compacted ??= sec;
    } else {
      let contentEnd = s.line + 1;
      for (let i = s.line + 1; i < end; i++) {
        if (lines[i].trim() !== '' && !SEPARATOR.test(lines[i])) {
          contentEnd = i + 1;
        }
      }
      sections.push({ kind: 'other', ...base, contentEndLine: contentEnd });
    }
  }
  const headerEnd = starts.length > 0 ? starts[0].line : n;
  return { eol, lineCount: n, header: { line: 0, endLine: headerEnd }, sections, patterns, entries, compacted, problems };
}

function parseCompacted(lines: readonly string[], s: Start, end: number): CompactedSection {
  // Stories are the deeper headings inside the section.
  const storyStarts: number[] = [];
  let fence = false;
  for (let i = s.line + 1; i < end; i++) {
    if (FENCE.test(lines[i])) {
      fence = !fence;
      continue;
    }
    const h = !fence ? headingOf(lines[i]) : undefined;
    if (h && h.level > s.heading.level) {
      storyStarts.push(i);
    }
  }
  const introEnd = storyStarts.length > 0 ? storyStarts[0] : end;
  const intro = lines.slice(s.line + 1, introEnd);
  let entriesSummarised: number | undefined;
  let firstDate: string | undefined;
  let lastDate: string | undefined;
  for (const l of intro) {
    const m = SUMMARY_COUNT.exec(l);
    if (m) {
      entriesSummarised = Number(m[1]);
      firstDate = m[2]?.trim() || undefined;
      lastDate = m[3]?.trim() || undefined;
      break;
    }
  }
  const stories: CompactedStory[] = [];
  let contentEnd = s.line + 1;
  for (let i = s.line + 1; i < introEnd; i++) {
    if (lines[i].trim() !== '' && !SEPARATOR.test(lines[i])) {
      contentEnd = i + 1;
    }
  }
  for (let k = 0; k < storyStarts.length; k++) {
    const line = storyStarts[k];
    const storyEnd = k + 1 < storyStarts.length ? storyStarts[k + 1] : end;
    const h = headingOf(lines[line])!;
    const t = h.text.trim();
    const m = /^(\S+)(?:[ \t]+(?:-|–|—|:)[ \t]+(.*))?$/.exec(t);
    const storyId = (m ? m[1] : t).replace(/^\[|\]$/g, '').replace(/:$/, '');
    const title = m?.[2]?.trim() || undefined;
    const { body, contentEnd: ce } = parseBody(lines, line + 1, storyEnd, line);
    contentEnd = Math.max(contentEnd, ce);
    let iterations: number | undefined;
    let fd: string | undefined;
    let ld: string | undefined;
    const summary: ProgressItem[] = [];
    for (const item of body.summary) {
      const it = ITERATIONS.exec(item.text);
      if (it && iterations === undefined) {
        iterations = Number(it[1]);
        fd = it[2]?.trim() || undefined;
        ld = it[3]?.trim() || fd;
      } else {
        summary.push(item);
      }
    }
    stories.push({ storyId, title, line, endLine: storyEnd, heading: lines[line], iterations, firstDate: fd, lastDate: ld, ...body, summary });
  }
  return {
    kind: 'compacted',
    line: s.line,
    endLine: end,
    heading: lines[s.line],
    level: s.heading.level,
    contentEndLine: contentEnd,
    intro,
    stories,
    entriesSummarised,
    firstDate,
    lastDate,
  };
}

// ---------------------------------------------------------------------------------------------
// Views of the model

export interface StoryLearning {
  readonly text: string;
  /** Nested lines under the learning bullet. */
  readonly more: readonly string[];
  readonly line: number;
  /** Heading line of the entry (or compacted story) it belongs to. */
  readonly entryLine: number;
  readonly date?: string;
  readonly compacted: boolean;
}

export interface StoryLearnings {
  readonly storyId: string;
  /** Newest first. */
  readonly learnings: StoryLearning[];
  /** Heading line of the newest entry of the story. */
  readonly newestEntryLine: number;
  readonly newestDate?: string;
}

/**
 * Learnings grouped by story, stories ordered by their newest entry (newest first), learnings of
 * each story newest first (entries), then those kept in the compacted history.
 * Entries without a story id are grouped under `(no story id)`.
 */
export function learningsByStory(doc: ProgressDoc): StoryLearnings[] {
  const groups = new Map<string, { storyId: string; learnings: StoryLearning[]; newestEntryLine: number; newestDate?: string; order: number }>();
  let order = 0;
  const group = (id: string) => {
    let g = groups.get(id);
    if (!g) {
      g = { storyId: id, learnings: [], newestEntryLine: -1, order: 0 };
      groups.set(id, g);
    }
    return g;
  };
  for (let k = doc.entries.length - 1; k >= 0; k--) {
    const e = doc.entries[k];
    const g = group(e.storyId ?? '(no story id)');
    if (g.newestEntryLine < 0) {
      g.newestEntryLine = e.line;
      g.newestDate = e.date;
      g.order = order++;
    }
    for (const l of e.learnings) {
      g.learnings.push({ text: l.text, more: l.more, line: l.line, entryLine: e.line, date: e.date, compacted: false });
    }
  }
  if (doc.compacted) {
    for (let k = doc.compacted.stories.length - 1; k >= 0; k--) {
      const s = doc.compacted.stories[k];
      const g = group(s.storyId);
      if (g.newestEntryLine < 0) {
        g.newestEntryLine = s.line;
        g.newestDate = s.lastDate;
        g.order = order++;
      }
      for (const l of s.learnings) {
        g.learnings.push({ text: l.text, more: l.more, line: l.line, entryLine: s.line, date: s.lastDate, compacted: true });
      }
    }
  }
  return [...groups.values()]
    .sort((a, b) => a.order - b.order)
    .map(({ storyId, learnings, newestEntryLine, newestDate }) => ({ storyId, learnings, newestEntryLine, newestDate }));
}

/** What the Learnings list shows: every learning (compacted history included) and the stories they are grouped under. */
export function learningCounts(groups: readonly StoryLearnings[]): { learnings: number; stories: number } {
  return { learnings: groups.reduce((n, g) => n + g.learnings.length, 0), stories: groups.length };
}

/** `14 in 5 stories`: the Learnings header. */
export function describeLearningCounts(groups: readonly StoryLearnings[]): string {
  const { learnings, stories } = learningCounts(groups);
  return `${learnings} in ${stories} stor${stories === 1 ? 'y' : 'ies'}`;
}

/** The newest entry of a story (last in file order), if any. */
export function newestEntryOf(doc: ProgressDoc, storyId: string): ProgressEntry | undefined {
  for (let k = doc.entries.length - 1; k >= 0; k--) {
    if (doc.entries[k].storyId === storyId) {
      return doc.entries[k];
    }
  }
  return undefined;
}

/** The newest `count` entries, newest last, as their lines of text (for agent prompts). */
export function recentEntriesText(text: string, doc: ProgressDoc, count: number): string {
  if (count <= 0 || doc.entries.length === 0) {
    return '';
  }
  const { lines } = splitLines(text);
  const first = doc.entries[Math.max(0, doc.entries.length - count)];
  const last = doc.entries[doc.entries.length - 1];
  return lines.slice(first.line, last.endLine).join('\n');
}

/** The Codebase Patterns section's text (heading excluded), or '' when there is none. */
export function patternsText(text: string, doc: ProgressDoc): string {
  if (!doc.patterns) {
    return '';
  }
  const { lines } = splitLines(text);
  return lines.slice(doc.patterns.line + 1, doc.patterns.contentEndLine).join('\n').trim();
}
