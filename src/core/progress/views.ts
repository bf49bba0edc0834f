/** Read views of the progress.txt model: learnings by story and their counts, recent entries, the patterns text. */
import type { ProgressDoc, ProgressEntry } from './model';
import { splitLines } from './text';

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

/**
 * The files each story's entries list under `Files changed`, the compacted history's first, then
 * the entries in file order; each file once. What the same-file guard reads as a story's earlier attempts.
 */
export function filesChangedByStory(doc: ProgressDoc): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (storyId: string | undefined, files: readonly string[]) => {
    if (storyId === undefined || files.length === 0) {
      return;
    }
    const list = out.get(storyId) ?? [];
    for (const f of files) {
      if (!list.includes(f)) {
        list.push(f);
      }
    }
    out.set(storyId, list);
  };
  for (const s of doc.compacted?.stories ?? []) {
    add(s.storyId, s.files);
  }
  for (const e of doc.entries) {
    add(e.storyId, e.files);
  }
  return out;
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
