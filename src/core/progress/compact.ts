/**
 * Structure-aware compaction of progress.txt.
 *
 * Over the threshold, the file becomes:
 *   1. everything before the first iteration entry, VERBATIM (the header and the Codebase
 *      Patterns section, found by parsing, not "the first N lines");
 *   2. a `## Compacted history` section: per story (first-seen order) its id, title, number of
 *      iterations and dates, the files it changed and its learnings (exact duplicates removed).
 *      An existing Compacted history section is merged into it, never nested;
 *   3. sections that are not iteration entries found among the summarised ones, VERBATIM;
 *   4. the newest entries totalling about `keepRecentLines` lines (cut at an entry heading),
 *      VERBATIM, with everything after them.
 * Summary bullets of summarised entries are dropped: the caller saves the original first.
 * Compacting the result again changes nothing (no entry is left to summarise). Linear time.
 */
import { type ProgressEntry, type ProgressItem, type ProgressSection, parseProgressSplit } from './parse';
import { splitList } from '../text';

export interface CompactionOptions {
  /** Compact only when the file has more lines than this. Default 400. */
  readonly threshold?: number;
  /** About how many of the newest lines to keep verbatim (whole entries). Default 200. */
  readonly keepRecentLines?: number;
  /** When the compaction happens (written in the summary's intro line). Default: now. */
  readonly now?: Date;
}

export interface CompactionPlan {
  readonly changed: boolean;
  /** The compacted text (the input itself when unchanged). */
  readonly text: string;
  /** Why nothing changed, or what was done, in one sentence. */
  readonly reason: string;
  readonly linesBefore: number;
  readonly linesAfter: number;
  /** Entries summarised by this run. */
  readonly entriesSummarised: number;
  /** Ids of the stories whose entries this run summarised, first-seen order. */
  readonly stories: string[];
  /** Entries kept verbatim at the end. */
  readonly entriesKept: number;
  /** The replaced lines: [startLine, endLine) of the input became [startLine, newEndLine) of the output. */
  readonly replaced?: { readonly startLine: number; readonly endLine: number; readonly newEndLine: number };
  /**
   * Set when the file stays over the threshold because the newest entries are kept word for word
   * (about `keepRecentLines` lines): what to change is said by `stillOverAdvice`.
   */
  readonly stillOver?: { readonly threshold: number; readonly keepRecentLines: number };
}

export const DEFAULT_THRESHOLD = 400;
export const DEFAULT_KEEP_RECENT_LINES = 200;
export const NO_STORY_ID = '(no story id)';

interface StoryAcc {
  storyId: string;
  title?: string;
  iterations: number;
  firstDate?: string;
  lastDate?: string;
  files: string[];
  fileSet: Set<string>;
  learnings: { text: string; more: readonly string[] }[];
  learningKeys: Set<string>;
}

/** Lines of a text, like splitLines(text).lines.length, without splitting. */
function countLines(text: string): number {
  if (text.length === 0) {
    return 0;
  }
  let n = 0;
  if (text.indexOf('\r') < 0) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
      n++;
    }
  } else {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
        n++;
      }
    }
  }
  const last = text.charCodeAt(text.length - 1);
  return last === 10 || last === 13 ? n : n + 1;
}

function unchanged(text: string, linesBefore: number, reason: string, entriesKept = 0, stillOver?: CompactionPlan['stillOver']): CompactionPlan {
  return { changed: false, text, reason, linesBefore, linesAfter: linesBefore, entriesSummarised: 0, stories: [], entriesKept, ...(stillOver ? { stillOver } : {}) };
}

/**
 * What to change when compaction cannot bring the file under the threshold, naming the knobs the
 * caller offers (settings in VS Code, options on the command line); undefined when it can.
 */
export function stillOverAdvice(plan: CompactionPlan, knobs: { readonly keep: string; readonly threshold: string }): string | undefined {
  const o = plan.stillOver;
  if (!o) {
    return undefined;
  }
  return (
    `${plan.linesAfter} lines remain, over the threshold of ${o.threshold}: the newest ${plan.entriesKept} entr${plan.entriesKept === 1 ? 'y is' : 'ies are'} ` +
    `kept word for word (about ${o.keepRecentLines} lines, ${knobs.keep}). To compact further, lower ${knobs.keep}; or raise ${knobs.threshold} if this length is fine.`
  );
}

export function planCompaction(text: string, options: CompactionOptions = {}): CompactionPlan {
  const threshold = Math.max(0, options.threshold ?? DEFAULT_THRESHOLD);
  const keep = Math.max(0, options.keepRecentLines ?? DEFAULT_KEEP_RECENT_LINES);
  const now = options.now ?? new Date();
  const { doc, split } = parseProgressSplit(text);
  const n = doc.lineCount;
  const fatal = doc.problems.find((p) => p.code === 'binary' || p.code === 'empty');
  if (fatal) {
    return unchanged(text, n, fatal.message);
  }
  if (n <= threshold) {
    return unchanged(text, n, `${n} lines, not over the threshold of ${threshold}: nothing to compact.`, doc.entries.length);
  }
  const sections = doc.sections;
  const ms = sections.findIndex((s) => s.kind === 'entry' || s.kind === 'compacted');
  if (ms < 0) {
    return unchanged(text, n, `${n} lines but no iteration entries to summarise.`);
  }
  // The cut: the earliest entry such that it and everything after it fits in `keep` lines
  // (at least the newest entry when keep > 0).
  let cut = sections.length;
  const lastEntryIdx = findLastEntry(sections, ms);
  if (keep > 0 && lastEntryIdx >= 0) {
    cut = lastEntryIdx;
    for (let k = lastEntryIdx - 1; k >= ms; k--) {
      if (sections[k].kind !== 'entry') {
        continue;
      }
      if (n - sections[k].line <= keep) {
        cut = k;
      } else {
        break;
      }
    }
  }
  const middle = sections.slice(ms, cut);
  const summarised = middle.filter((s): s is ProgressEntry => s.kind === 'entry');
  const entriesKept = sections.slice(cut).filter((s) => s.kind === 'entry').length;
  if (summarised.length === 0) {
    return unchanged(text, n, `${n} lines, but every iteration entry is among the newest ~${keep} lines: nothing older to summarise.`, entriesKept, { threshold, keepRecentLines: keep });
  }

  // Per story, first-seen order: the existing compacted history first, then the entries.
  const stories = new Map<string, StoryAcc>();
  let previousCount = 0;
  let firstDate: string | undefined;
  let lastDate: string | undefined;
  let level = 6;
  for (const e of doc.entries) {
    level = Math.min(level, e.level);
  }
  const summarisedIds: string[] = [];
  const summarisedIdSet = new Set<string>();
  const kept: ProgressSection[] = [];
  for (const s of middle) {
    if (s.kind === 'compacted') {
      level = s.level;
      previousCount += s.entriesSummarised ?? s.stories.reduce((a, st) => a + (st.iterations ?? 1), 0);
      firstDate ??= s.firstDate ?? s.stories.find((st) => st.firstDate)?.firstDate;
      lastDate = s.lastDate ?? lastDate;
      for (const st of s.stories) {
        mergeStory(stories, st.storyId, st.title, st.iterations ?? 1, st.firstDate, st.lastDate, st.files, st.learnings);
      }
    } else if (s.kind === 'entry') {
      // Entries without an id (date-only headings) are grouped per date (a heading that does not
      // start with the date, so that it reads back as a story of the history), the others together.
      const id = s.storyId ?? (s.date ? `${NO_STORY_ID} ${s.date}` : NO_STORY_ID);
      if (!summarisedIdSet.has(id)) {
        summarisedIdSet.add(id);
        summarisedIds.push(id);
      }
      firstDate ??= s.date;
      lastDate = s.date ?? lastDate;
      // Entries without an id are grouped together; their heading text is not a title.
      mergeStory(stories, id, s.storyId ? s.title : undefined, 1, s.date, s.date, s.files, s.learnings);
    } else {
      kept.push(s);
    }
  }

  const eol = doc.eol;
  const usesSeparators = doc.entries.some((e) => e.separatorLine !== undefined);
  const total = previousCount + summarised.length;
  const block: string[] = [];
  const h = '#'.repeat(Math.max(1, level));
  block.push(`${h} Compacted history`);
  const range = firstDate && lastDate && firstDate !== lastDate ? ` (${firstDate} to ${lastDate})` : firstDate ? ` (${firstDate})` : '';
  block.push(
    `Summary of ${total} older iteration${total === 1 ? '' : 's'}${range}, compacted ${stamp(now)}. ` +
      'Per story: the files it changed and its learnings. The full entries were saved under .ralph/archive/.',
  );
  for (const st of stories.values()) {
    block.push('');
    block.push(`${h}# ${st.storyId}${st.title ? ` - ${st.title}` : ''}`);
    const dates = st.firstDate && st.lastDate && st.firstDate !== st.lastDate ? ` (${st.firstDate} to ${st.lastDate})` : st.firstDate ? ` (${st.firstDate})` : '';
    block.push(`- Iterations: ${st.iterations}${dates}`);
    if (st.files.length > 0) {
      block.push(`- Files changed: ${st.files.map(listItem).join(', ')}`);
    }
    if (st.learnings.length > 0) {
      block.push(`- **Learnings for future iterations:**`);
      for (const l of st.learnings) {
        block.push(`  - ${l.text}`, ...l.more.map((m) => `  ${m}`));
      }
    }
  }
  if (usesSeparators) {
    block.push('---');
  }
  block.push('');

  const { starts } = split;
  const offsetOf = (line: number) => (line < starts.length ? starts[line] : text.length);
  const prefix = text.slice(0, offsetOf(sections[ms].line));
  let prefixText = prefix;
  // The block starts on a line of its own.
  if (prefixText.length > 0 && !/[\r\n]$/.test(prefixText)) {
    prefixText += eol;
  }
  const middleText = block.join(eol) + eol + kept.map((s) => text.slice(offsetOf(s.line), offsetOf(s.endLine))).join('');
  const tail = cut < sections.length ? text.slice(offsetOf(sections[cut].line)) : '';
  const out = prefixText + middleText + tail;
  const linesAfter = countLines(out);
  const startLine = sections[ms].line;
  const endLine = cut < sections.length ? sections[cut].line : n;
  const newEndLine = countLines(prefixText + middleText);
  return {
    changed: true,
    text: out,
    reason:
      `${n} lines over the threshold of ${threshold}: summarised ${summarised.length} entr${summarised.length === 1 ? 'y' : 'ies'} ` +
      `of ${summarisedIds.length} stor${summarisedIds.length === 1 ? 'y' : 'ies'}, kept the newest ${entriesKept} verbatim; ${linesAfter} lines now.`,
    linesBefore: n,
    linesAfter,
    entriesSummarised: summarised.length,
    stories: summarisedIds,
    entriesKept,
    replaced: { startLine, endLine, newEndLine },
    ...(linesAfter > threshold && entriesKept > 0 ? { stillOver: { threshold, keepRecentLines: keep } } : {}),
  };
}

function findLastEntry(sections: readonly ProgressSection[], from: number): number {
  for (let k = sections.length - 1; k >= from; k--) {
    if (sections[k].kind === 'entry') {
      return k;
    }
  }
  return -1;
}

function mergeStory(
  stories: Map<string, StoryAcc>,
  id: string,
  title: string | undefined,
  iterations: number,
  firstDate: string | undefined,
  lastDate: string | undefined,
  files: readonly string[],
  learnings: readonly ProgressItem[],
): void {
  let st = stories.get(id);
  if (!st) {
    st = { storyId: id, title, iterations: 0, files: [], fileSet: new Set(), learnings: [], learningKeys: new Set() };
    stories.set(id, st);
  }
  st.title ??= title;
  st.iterations += iterations;
  st.firstDate ??= firstDate;
  st.lastDate = lastDate ?? st.lastDate;
  for (const f of files) {
    if (!st.fileSet.has(f)) {
      st.fileSet.add(f);
      st.files.push(f);
    }
  }
  for (const l of learnings) {
    const text = l.text.trim();
    if (text === '' && l.more.length === 0) {
      continue;
    }
    const key = `${text}\n${l.more.join('\n')}`;
    if (!st.learningKeys.has(key)) {
      st.learningKeys.add(key);
      st.learnings.push({ text, more: l.more });
    }
  }
}

function stamp(d: Date): string {
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * A file name as an item of the compacted `Files changed:` list: in backticks when it would not be
 * read back as itself (a comma, or a bracket left open: `src/b (draft.ts`).
 */
function listItem(file: string): string {
  const back = splitList(`${file}, x`);
  return (back.length === 2 && back[0] === file) || file.includes('`') ? file : `\`${file}\``;
}
