/**
 * progress.txt after a story's worktree is merged: never git's text merge, an append-only union.
 * The worktree's NEW iteration entries (not in the file where it started, not in the main file
 * already) are appended to the main file as written; its new Codebase Patterns bullets join the
 * main file's patterns section (the one insertion that is not at the end, through the same
 * minimal edit as "Add Codebase Pattern"). Nothing of the main file changes otherwise, so no
 * learning is lost, and merging the same worktree twice adds nothing the second time.
 */
import { addCodebasePattern, applyTextEdits, oneLine } from '../progress/edits';
import { type ProgressDoc, parseProgress, splitLines } from '../progress/parse';

export interface ProgressUnion {
  /** The main file's new text (equal to it when there was nothing new). */
  readonly text: string;
  /** Entries appended (their story ids, in order). */
  readonly entries: readonly string[];
  /** Codebase Patterns bullets added. */
  readonly patterns: number;
}

/** An entry's identity: its lines up to its last content line, trailing blanks removed. */
function entryKeys(doc: ProgressDoc, lines: readonly string[]): string[] {
  return doc.entries.map((e) =>
    lines
      .slice(e.line, e.contentEndLine)
      .map((l) => l.trimEnd())
      .join('\n'),
  );
}

function patternKeys(doc: ProgressDoc): string[] {
  return (doc.patterns?.items ?? []).map((i) => oneLine([i.text, ...i.more].join(' ')));
}

/**
 * The union of the main progress.txt with what the worktree added since `baseText` (the file
 * where the worktree started; undefined when there was none).
 */
export function unionProgress(mainText: string, baseText: string | undefined, worktreeText: string): ProgressUnion {
  const main = parseProgress(mainText);
  const wt = parseProgress(worktreeText);
  if (wt.problems.some((p) => p.code === 'binary') || main.problems.some((p) => p.code === 'binary')) {
    return { text: mainText, entries: [], patterns: 0 };
  }
  const base = baseText === undefined ? undefined : parseProgress(baseText);
  const wtLines = splitLines(worktreeText).lines;
  const known = new Set([...entryKeys(main, splitLines(mainText).lines), ...(base && baseText !== undefined ? entryKeys(base, splitLines(baseText).lines) : [])]);

  // Patterns first (an insertion inside the file), then the entries at the end.
  let text = mainText;
  const knownPatterns = new Set([...patternKeys(main), ...(base ? patternKeys(base) : [])]);
  let patterns = 0;
  for (const p of patternKeys(wt)) {
    if (p !== '' && !knownPatterns.has(p)) {
      knownPatterns.add(p);
      text = applyTextEdits(text, addCodebasePattern(text, p));
      patterns++;
    }
  }

  const keys = entryKeys(wt, wtLines);
  const blocks: string[][] = [];
  const entries: string[] = [];
  wt.entries.forEach((e, k) => {
    if (!known.has(keys[k])) {
      known.add(keys[k]);
      // The whole section as written: heading, body, its `---` and the blank lines after.
      blocks.push(wtLines.slice(e.line, e.endLine));
      entries.push(e.storyId ?? e.heading);
    }
  });
  if (blocks.length > 0) {
    const eol = main.lineCount > 0 ? main.eol : wt.eol;
    const split = splitLines(text);
    const lead = split.lines.length > 0 && !split.finalEol ? eol : '';
    // A blank line between the last line and the new heading, as entries are written.
    const last = split.lines[split.lines.length - 1];
    const gap = last !== undefined && last.trim() !== '' ? eol : '';
    const body = blocks.map((b) => trimTrailingBlank(b).map((l) => l + eol).join('')).join(eol);
    text = `${text}${lead}${gap}${body}`;
  }
  return { text, entries, patterns };
}

function trimTrailingBlank(lines: readonly string[]): readonly string[] {
  let n = lines.length;
  while (n > 0 && lines[n - 1].trim() === '') {
    n--;
  }
  return lines.slice(0, n);
}
