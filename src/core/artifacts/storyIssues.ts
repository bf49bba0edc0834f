/**
 * Which GitHub issues a story belongs to: its `issue` field (a number, "#42", "GH-0042" or an
 * issue URL), then `GH-<n>` / `#<n>` in its id, title or notes. Pure.
 */
export interface StoryLike {
  readonly id: string;
  readonly title?: string;
  readonly notes?: string;
  /** The story's `issue` field, as written in prd.json (the model's Story.issue). */
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

/** The issue numbers the story's `issue` field names (not its mentions), without duplicates. */
export function issuesOfField(story: Pick<StoryLike, 'issue'>): number[] {
  return [...new Set(fromField(story.issue))];
}

/** The issue numbers of a story, the `issue` field first, without duplicates. */
export function issuesOfStory(story: StoryLike): number[] {
  const all = [...fromField(story.issue), ...mentions(story.id), ...mentions(story.title), ...mentions(story.notes)];
  return [...new Set(all)];
}
