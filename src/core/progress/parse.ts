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
 *
 * The parser's modules: text.ts (line splitting, line ends, decoding), model.ts (the types),
 * lines.ts (classifying lines), body.ts (entry bodies), this file (the document), views.ts (read views).
 */
import { parseBody, parseItems } from './body';
import { COMPACTED_NAME, DATE_LED, type EntryHeading, FENCE, type Heading, headingOf, ITERATIONS, parseEntryHeading, PATTERNS_NAME, plainHeadingName, SEPARATOR, SUMMARY_COUNT } from './lines';
import type { CompactedSection, CompactedStory, PatternsSection, ProgressDoc, ProgressEntry, ProgressItem, ProgressProblem, ProgressSection } from './model';
import { decodeText, detectEol, type Eol, looksBinary, splitLines, type SplitText } from './text';

// The modules of the progress.txt parser, re-exported: importers use this one entry point.
export type * from './model';
export { splitList } from '../text';
export { cleanFile, type EntryHeading, parseEntryHeading } from './lines';
export { decodeText, detectEol, looksBinary, splitLines, type Eol, type SplitText } from './text';
export * from './views';

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
    // One space is enough before the title: the rest is trimmed (a `[ \t]+(.*)` pair would backtrack).
    const m = /^(\S+)(?:[ \t]+(?:-|–|—|:)[ \t](.*))?$/.exec(t);
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
