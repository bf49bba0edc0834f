/**
 * Which GitHub issues a story belongs to: its `issue` field (a number, "#42", "GH-0042" or an
 * issue URL), then `GH-<n>` / `#<n>` in its id, title or notes. Pure.
 */
import { getNodeValue, parseTree } from 'jsonc-parser';
import { nodeAt } from '../prd/document';

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
 * The `issue` field of each story, read at the path where the PRD model found the story (every
 * shape the model reads: userStories, another key, a wrapper, phases, a bare array). The model does
 * not carry unknown fields, so it is read here; the result is in the order of `stories`.
 */
export function issueFieldsOf(text: string, stories: readonly { readonly path: readonly (string | number)[] }[]): unknown[] {
  // The parse tree, not parsed objects: a "__proto__" key in a story would become its prototype
  // and lend it an "issue" it does not have.
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  return stories.map((story) => {
    const node = root && nodeAt(root, story.path);
    const issue = node?.type === 'object' ? nodeAt(node, ['issue']) : undefined;
    return issue ? getNodeValue(issue) : undefined;
  });
}
