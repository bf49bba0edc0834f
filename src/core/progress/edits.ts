/**
 * Minimal edits to progress.txt: each returns TextEdits (offset, length, content) that the host
 * applies as one undoable WorkspaceEdit. The `…Append` forms return the text to append at the end
 * of the file when the edit is exactly such an append (so the host can append atomically while an
 * agent may be writing), else undefined.
 *
 * New lines follow the file's own style: its line ends, heading level, date format, bullet
 * marker, learnings heading and `---` separators. Edits on a binary file are empty.
 */
import type { TextEdit } from '../textEdit';
import { type Eol, type ProgressDoc, type ProgressEntry, newestEntryOf, parseProgress, splitLines, type SplitText } from './parse';

export type { TextEdit };

export const LEARNINGS_HEADING = '**Learnings for future iterations:**';

export interface NewEntryOptions {
  /** Appended to the heading: `## <date> - <id> - <title>`. */
  readonly title?: string;
  /** Summary bullets (one string may hold several lines: one bullet each). */
  readonly summary?: string | readonly string[];
  readonly learnings?: readonly string[];
  readonly thread?: string;
  readonly filesChanged?: readonly string[];
}

export { applyEdits as applyTextEdits } from '../textEdit';

/** The text to append when `edits` is a single insertion at the end of `text`; else undefined. */
export function appendOnly(text: string, edits: readonly TextEdit[]): string | undefined {
  if (edits.length === 1 && edits[0].offset === text.length && edits[0].length === 0) {
    return edits[0].content;
  }
  return undefined;
}

/** One line of text for a bullet: line breaks folded, a leading bullet marker removed. */
export function oneLine(s: string): string {
  return s
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim()
    .replace(/^(?:[-*+]|\d+[.)])\s+/, '')
    .trim();
}

function eolOf(doc: ProgressDoc): string {
  return doc.eol;
}

function leadingWs(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function markerOf(line: string): string {
  const m = /^[ \t]*([-*+])[ \t]/.exec(line);
  return m ? m[1] : '-';
}

/** An insertion of whole lines after line `k` (k = -1: at the very start). */
function insertLinesAfter(text: string, split: SplitText, k: number, newLines: readonly string[], eol: string): TextEdit {
  const { lines, starts, finalEol } = split;
  if (k + 1 < lines.length) {
    return { offset: starts[k + 1], length: 0, content: newLines.map((l) => l + eol).join('') };
  }
  if (lines.length === 0) {
    return { offset: text.length, length: 0, content: newLines.map((l) => l + eol).join('') };
  }
  if (finalEol) {
    return { offset: text.length, length: 0, content: newLines.map((l) => l + eol).join('') };
  }
  // The last line has no line end: keep it that way.
  return { offset: text.length, length: 0, content: eol + newLines.join(eol) };
}

/** Whether entries end with a `---` line (the standard format; also the default for a file without entries). */
function usesSeparators(doc: ProgressDoc): boolean {
  const last = doc.entries[doc.entries.length - 1];
  return last ? last.separatorLine !== undefined : true;
}

/** Whether the file puts `---` before each entry instead of after it. */
function sepBefore(doc: ProgressDoc, lines: readonly string[]): boolean {
  const last = doc.entries[doc.entries.length - 1];
  if (!last || last.separatorLine !== undefined) {
    return false;
  }
  for (let i = last.line - 1; i >= 0; i--) {
    if (lines[i].trim() !== '') {
      return /^\s*---+\s*$/.test(lines[i]);
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------

/** Dates in the format the file already uses (local time): `2026-11-18 14:02` by default. */
export function formatDate(now: Date, like?: string): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const day = `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
  if (like !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(like)) {
    return day;
  }
  const sep = like !== undefined && /^\d{4}-\d{2}-\d{2}T/.test(like) ? 'T' : ' ';
  const seconds = like !== undefined && /\d{1,2}:\d{2}:\d{2}/.test(like);
  return `${day}${sep}${p(now.getHours())}:${p(now.getMinutes())}${seconds ? `:${p(now.getSeconds())}` : ''}`;
}

/** Appends a bullet to the Codebase Patterns section, creating the section after the header when missing. */
export function addCodebasePattern(text: string, pattern: string): TextEdit[] {
  const doc = parseProgress(text);
  if (doc.problems.some((p) => p.code === 'binary')) {
    return [];
  }
  const eol = eolOf(doc);
  const split = splitLines(text);
  const { lines, starts } = split;
  const item = oneLine(pattern);
  const sec = doc.patterns;
  if (sec) {
    const last = sec.items[sec.items.length - 1];
    if (last) {
      const src = lines[last.line];
      const isBullet = /^[ \t]*(?:[-*+])[ \t]/.test(src);
      const bullet = `${isBullet ? leadingWs(src) : ''}${markerOf(src)} ${item}`;
      return [insertLinesAfter(text, split, last.endLine - 1, [bullet], eol)];
    }
    return [insertLinesAfter(text, split, sec.line, [`- ${item}`], eol)];
  }
  const seps = usesSeparators(doc);
  const block = ['## Codebase Patterns', `- ${item}`, '', ...(seps ? ['---', ''] : [])];
  const first = doc.sections[0];
  if (first) {
    const prev = first.line > 0 ? lines[first.line - 1] : '';
    const lead = prev.trim() !== '' && !/^\s*---+\s*$/.test(prev) ? [''] : [];
    return [{ offset: starts[first.line], length: 0, content: [...lead, ...block].map((l) => l + eol).join('') }];
  }
  // No sections yet: after the header, at the end.
  const lastLine = lines[lines.length - 1];
  const lead = lines.length > 0 && lastLine.trim() !== '' ? [''] : [];
  const body = [...lead, '## Codebase Patterns', `- ${item}`];
  return [appendLines(text, split, body, eol)];
}

function appendLines(text: string, split: SplitText, newLines: readonly string[], eol: string): TextEdit {
  const prefix = split.lines.length > 0 && !split.finalEol ? eol : '';
  return { offset: text.length, length: 0, content: prefix + newLines.map((l) => l + eol).join('') };
}

/**
 * Appends a learning to the newest entry of `storyId` (under its learnings heading, which is
 * created when the entry has none); without such an entry, appends a new entry for the story.
 */
export function addLearning(text: string, storyId: string, learning: string, now: Date): TextEdit[] {
  const doc = parseProgress(text);
  if (doc.problems.some((p) => p.code === 'binary')) {
    return [];
  }
  const entry = newestEntryOf(doc, storyId);
  if (!entry) {
    return newProgressEntry(text, storyId, now, { learnings: [learning] });
  }
  const eol = eolOf(doc);
  const split = splitLines(text);
  const { lines } = split;
  const item = oneLine(learning);
  const last = entry.learnings[entry.learnings.length - 1];
  if (last) {
    const src = lines[last.line];
    const onHeading = last.line === entry.learningsLine;
    const ws = onHeading ? leadingWs(src) + '  ' : leadingWs(src);
    const marker = onHeading ? '-' : markerOf(src);
    return [insertLinesAfter(text, split, last.endLine - 1, [`${ws}${marker} ${item}`], eol)];
  }
  if (entry.learningsLine !== undefined) {
    const src = lines[entry.learningsLine];
    const style = entry.learningsStyle ?? { indent: 0, bullet: false };
    const ws = style.bullet ? leadingWs(src) + '  ' : leadingWs(src);
    return [insertLinesAfter(text, split, entry.learningsLine, [`${ws}${markerOf(src)} ${item}`], eol)];
  }
  const bulletStyle = entryUsesBullets(entry, lines);
  const marker = entry.summary.length > 0 ? markerOf(lines[entry.summary[0].line]) : '-';
  const block = bulletStyle ? [`${marker} ${LEARNINGS_HEADING}`, `  ${marker} ${item}`] : [LEARNINGS_HEADING, `${marker} ${item}`];
  return [insertLinesAfter(text, split, entry.contentEndLine - 1, block, eol)];
}

function entryUsesBullets(entry: ProgressEntry, lines: readonly string[]): boolean {
  const firstSummary = entry.summary[0];
  if (firstSummary) {
    return /^[ \t]*[-*+][ \t]/.test(lines[firstSummary.line]);
  }
  if (entry.filesLine !== undefined) {
    return /^[ \t]*[-*+][ \t]/.test(lines[entry.filesLine]);
  }
  return true;
}

/** Appends a new iteration entry at the end, in the file's format. An empty file gets the standard header first. */
export function newProgressEntry(text: string, storyId: string, now: Date, options: NewEntryOptions = {}): TextEdit[] {
  const doc = parseProgress(text);
  if (doc.problems.some((p) => p.code === 'binary')) {
    return [];
  }
  const eol: Eol = doc.eol;
  const split = splitLines(text);
  const { lines } = split;
  const lastEntry = doc.entries[doc.entries.length - 1];
  const level = lastEntry?.level ?? 2;
  const date = formatDate(now, lastEntry?.date);
  const title = options.title ? oneLine(options.title) : '';
  const heading = `${'#'.repeat(Math.max(2, level))} ${date} - ${storyId.trim()}${title ? ` - ${title}` : ''}`;
  const summaries = typeof options.summary === 'string' ? options.summary.split(/\r\n|\n|\r/) : (options.summary ?? []);
  const body: string[] = [];
  if (options.thread) {
    body.push(`Thread: ${options.thread.trim()}`);
  }
  for (const s of summaries) {
    const t = oneLine(s);
    if (t) {
      body.push(`- ${t}`);
    }
  }
  if (options.filesChanged && options.filesChanged.length > 0) {
    body.push(`- Files changed: ${options.filesChanged.join(', ')}`);
  }
  const learnings = (options.learnings ?? []).map(oneLine).filter((l) => l !== '');
  if (learnings.length > 0) {
    const bulletHeading = lastEntry?.learningsStyle ? lastEntry.learningsStyle.bullet : true;
    if (bulletHeading) {
      body.push(`- ${LEARNINGS_HEADING}`, ...learnings.map((l) => `  - ${l}`));
    } else {
      body.push(LEARNINGS_HEADING, ...learnings.map((l) => `- ${l}`));
    }
  }
  const before = sepBefore(doc, lines);
  const after = !before && usesSeparators(doc);
  const out: string[] = [];
  if (text.trim() === '' || text === '\uFEFF') {
    out.push('# Ralph Progress Log', `Started: ${formatDate(now, '2000-01-01 00:00:00')}`, '---', '');
    out.push(heading, ...body, ...(after ? ['---'] : []));
    return [{ offset: text.length, length: 0, content: out.map((l) => l + eol).join('') }];
  }
  const lastLine = lines[lines.length - 1] ?? '';
  if (lastLine.trim() !== '') {
    out.push('');
  }
  if (before) {
    out.push('---', '');
  }
  out.push(heading, ...body, ...(after ? ['---'] : []));
  return [appendLines(text, split, out, eol)];
}

export function addCodebasePatternAppend(text: string, pattern: string): string | undefined {
  return appendOnly(text, addCodebasePattern(text, pattern));
}

/**
 * The learning as text to append at the end (the host appends it with O_APPEND while an agent may
 * be appending too), or undefined when it goes inside the file. An append must be right wherever
 * it lands: an agent may append a new entry between our read and our append, so a bare bullet for
 * the last entry could end up under the agent's entry. The append is therefore self-describing: a
 * new entry of the story holding the learning.
 */
export function addLearningAppend(text: string, storyId: string, learning: string, now: Date): string | undefined {
  if (appendOnly(text, addLearning(text, storyId, learning, now)) === undefined) {
    return undefined;
  }
  return appendOnly(text, newProgressEntry(text, storyId, now, { learnings: [learning] }));
}

export function newProgressEntryAppend(text: string, storyId: string, now: Date, options: NewEntryOptions = {}): string | undefined {
  return appendOnly(text, newProgressEntry(text, storyId, now, options));
}
