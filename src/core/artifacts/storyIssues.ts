/**
 * Which GitHub issues a story belongs to: its `issue` field (a number, "#42", "GH-0042" or an
 * issue URL), then `GH-<n>` / `#<n>` in its id, title or notes. Pure.
 */
import { parse as parseJsonc } from 'jsonc-parser';

export interface StoryLike {
  readonly id: string;
  readonly title?: string;
  readonly notes?: string;
  /** The story's `issue` field, as written in prd.json. */
  readonly issue?: unknown;
}

const MENTION_RE = /(?:\bGH-|(?<![\w&/])#)(\d{1,9})(?!\d)/gi;

function fromField(v: unknown): number[] {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) {
    return [v];
  }
  if (typeof v === 'string') {
    const url = /\/issues\/(\d{1,9})(?!\d)/.exec(v);
    if (url) {
      return [Number(url[1])];
    }
    const t = v.trim();
    if (/^\d{1,9}$/.test(t)) {
      return [Number(t)];
    }
    return mentions(t);
  }
  if (Array.isArray(v)) {
    return v.flatMap(fromField);
  }
  return [];
}

function mentions(text: string | undefined): number[] {
  const out: number[] = [];
  for (const m of (text ?? '').matchAll(MENTION_RE)) {
    const n = Number.parseInt(m[1], 10);
    if (n > 0) {
      out.push(n);
    }
  }
  return out;
}

/** The issue numbers of a story, the `issue` field first, without duplicates. */
export function issuesOfStory(story: StoryLike): number[] {
  const all = [...fromField(story.issue), ...mentions(story.id), ...mentions(story.title), ...mentions(story.notes)];
  return [...new Set(all)];
}

/**
 * The `issue` field of each story, by story index, from prd.json text (userStories, stories,
 * tasks, or a bare array). The PRD model does not carry unknown fields, so it is read here.
 */
export function issueFieldsByIndex(text: string): unknown[] {
  const data = parseJsonc(text, [], { allowTrailingComma: true, disallowComments: false }) as unknown;
  const list = Array.isArray(data)
    ? data
    : data && typeof data === 'object'
      ? ((data as Record<string, unknown>).userStories ?? (data as Record<string, unknown>).stories ?? (data as Record<string, unknown>).tasks)
      : undefined;
  return Array.isArray(list) ? list.map((s) => (s && typeof s === 'object' ? (s as Record<string, unknown>).issue : undefined)) : [];
}
