/**
 * AGENTS.md helpers: the skeleton, the headings of a file, inserting a note under a heading, and
 * finding the nearest AGENTS.md up from a file. Pure: file-system access comes in as callbacks.
 */
import { splitLines } from './progress/parse';
import type { TextEdit } from './textEdit';

export const AGENTS_MD_SECTIONS = ['Overview', 'Patterns', 'Gotchas', 'Dependencies', 'Testing'] as const;

const HINTS: Record<(typeof AGENTS_MD_SECTIONS)[number], string> = {
  Overview: 'What this module does and how it fits in.',
  Patterns: 'Conventions every change here follows (e.g. "All API calls go through `apiClient`").',
  Gotchas: 'Non-obvious requirements and traps (e.g. "When changing X, also update Y").',
  Dependencies: 'Services, environment variables and modules this code needs.',
  Testing: 'How to run and write the tests for this module.',
};

/** A new AGENTS.md: a title and the five sections, each with a one-line hint. */
export function agentsMdSkeleton(title = 'Module', eol = '\n'): string {
  const lines = [`# ${title}`, ''];
  for (const s of AGENTS_MD_SECTIONS) {
    lines.push(`## ${s}`, `- ${HINTS[s]}`, '');
  }
  lines.pop();
  return lines.join(eol) + eol;
}

export interface MdHeading {
  readonly text: string;
  readonly level: number;
  /** 0-based line of the heading. */
  readonly line: number;
  /** Exclusive end of its section: the next heading of the same or a higher level, or the line count. */
  readonly endLine: number;
}

/**
 * An ATX heading line (`## Title ##`): its level and text, read by hand (the expression
 * `^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$` backtracks polynomially on long runs of spaces).
 */
function atxHeading(l: string): { level: number; text: string } | undefined {
  let level = 0;
  while (level < l.length && l.charCodeAt(level) === 35) {
    level++;
  }
  const blank = (c: number): boolean => c === 32 || c === 9;
  if (level < 1 || level > 6 || !blank(l.charCodeAt(level))) {
    return undefined;
  }
  let start = level;
  while (start < l.length && blank(l.charCodeAt(start))) {
    start++;
  }
  let end = l.length;
  while (end > start && blank(l.charCodeAt(end - 1))) {
    end--;
  }
  // A closing run of # counts only after a blank inside the text.
  let k = end;
  while (k > start && l.charCodeAt(k - 1) === 35) {
    k--;
  }
  if (k < end && k > start && blank(l.charCodeAt(k - 1))) {
    end = k;
  }
  return { level, text: l.slice(start, end).trim() };
}
const FENCE = /^[ \t]{0,3}(```|~~~)/;

/** ATX headings outside code fences, with the extent of their sections. */
export function listHeadings(text: string): MdHeading[] {
  const { lines } = splitLines(text);
  const found: { text: string; level: number; line: number }[] = [];
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const l = i === 0 ? lines[i].replace(/^\uFEFF/, '') : lines[i];
    if (FENCE.test(l)) {
      fence = !fence;
      continue;
    }
    const h = !fence && l.charCodeAt(0) === 35 ? atxHeading(l) : undefined;
    if (h) {
      found.push({ ...h, line: i });
    }
  }
  return found.map((h, k) => {
    let end = lines.length;
    for (let j = k + 1; j < found.length; j++) {
      if (found[j].level <= h.level) {
        end = found[j].line;
        break;
      }
    }
    return { ...h, endLine: end };
  });
}

function norm(s: string): string {
  return s
    .replace(/[*_`]/g, '')
    .replace(/[:\s]+$/, '')
    .trim()
    .toLowerCase();
}

/** The section heading for a name: exact (case-insensitive) first, then one that starts with or contains it. */
export function findSection(text: string, section: string): MdHeading | undefined {
  const all = listHeadings(text);
  // Sections are the `##`-and-deeper headings; a file of only `#` headings uses those.
  const hs = all.some((h) => h.level >= 2) ? all.filter((h) => h.level >= 2) : all;
  const want = norm(section);
  if (want === '') {
    return undefined;
  }
  return hs.find((h) => norm(h.text) === want) ?? hs.find((h) => norm(h.text).startsWith(want)) ?? hs.find((h) => norm(h.text).includes(want));
}

/**
 * Appends a note as a bullet at the end of a section (after its last non-blank line); creates the
 * section at the end of the file when missing. Multi-line notes become one bullet with indented
 * continuation lines. Works on files without any heading, and on empty files.
 */
export function insertNote(text: string, section: string, note: string): TextEdit[] {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const { lines, starts, finalEol } = splitLines(text);
  const noteLines = note
    .trim()
    .replace(/^(?:[-*+])\s+/, '')
    .split(/\r\n|\n|\r/)
    .map((l) => l.trimEnd());
  const h = findSection(text, section);
  if (h) {
    let last = h.line;
    let marker = '-';
    let indent = '';
    let fence = false;
    for (let i = h.line + 1; i < h.endLine; i++) {
      if (FENCE.test(lines[i])) {
        fence = !fence;
      }
      if (lines[i].trim() !== '') {
        last = i;
      }
      const b = !fence ? /^([ \t]*)([-*+])[ \t]/.exec(lines[i]) : null;
      if (b && b[1].length === 0) {
        marker = b[2];
        indent = b[1];
      }
    }
    const bullet = [`${indent}${marker} ${noteLines[0]}`, ...noteLines.slice(1).map((l) => (l === '' ? '' : `${indent}  ${l}`))];
    if (last + 1 < lines.length) {
      return [{ offset: starts[last + 1], length: 0, content: bullet.map((l) => l + eol).join('') }];
    }
    if (finalEol) {
      return [{ offset: text.length, length: 0, content: bullet.map((l) => l + eol).join('') }];
    }
    return [{ offset: text.length, length: 0, content: eol + bullet.join(eol) }];
  }
  // A new section at the end, at the level the file's sections use.
  const levels = listHeadings(text)
    .map((x) => x.level)
    .filter((l) => l >= 2);
  const level = levels.length > 0 ? Math.min(...levels) : 2;
  const name = section.trim().replace(/^#+\s*/, '') || 'Notes';
  const block = [`${'#'.repeat(level)} ${name}`, `- ${noteLines[0]}`, ...noteLines.slice(1).map((l) => (l === '' ? '' : `  ${l}`))];
  let prefix = '';
  if (lines.length > 0) {
    if (!finalEol) {
      prefix += eol;
    }
    if (lines[lines.length - 1].trim() !== '') {
      prefix += eol;
    }
  }
  return [{ offset: text.length, length: 0, content: prefix + block.map((l) => l + eol).join('') }];
}

/**
 * The nearest AGENTS.md: in the file's folder, then each parent up to and including `root`.
 * Paths use the separator of `filePath` (`/` or `\`). Pass `isDirectory` when `filePath` is a folder.
 */
export function nearestAgentsMd(filePath: string, exists: (path: string) => boolean, root: string, isDirectory = false): string | undefined {
  const sep = filePath.includes('/') || !filePath.includes('\\') ? '/' : '\\';
  const trim = (p: string) => (p.length > 1 && (p.endsWith('/') || p.endsWith('\\')) && !/^[A-Za-z]:[\\/]$/.test(p) ? p.slice(0, -1) : p);
  const rootN = trim(root.replace(/[\\/]/g, sep));
  let dir = trim(filePath.replace(/[\\/]/g, sep));
  if (!isDirectory) {
    const i = dir.lastIndexOf(sep);
    dir = i > 0 ? dir.slice(0, i) : i === 0 ? sep : '.';
  }
  const inside = (d: string) => rootN === '' || rootN === '.' || d === rootN || d.startsWith(rootN.endsWith(sep) ? rootN : rootN + sep);
  for (let guard = 0; guard < 256; guard++) {
    if (!inside(dir)) {
      return undefined;
    }
    const candidate = dir === sep ? `${sep}AGENTS.md` : dir === '.' ? 'AGENTS.md' : `${dir}${sep}AGENTS.md`;
    if (exists(candidate)) {
      return candidate;
    }
    if (dir === rootN || dir === sep || dir === '.' || /^[A-Za-z]:\\?$/.test(dir)) {
      return undefined;
    }
    const i = dir.lastIndexOf(sep);
    dir = i > 0 ? dir.slice(0, i) : i === 0 ? sep : '.';
    if (/^[A-Za-z]:$/.test(dir)) {
      dir += sep;
    }
  }
  return undefined;
}
