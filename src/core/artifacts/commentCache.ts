/**
 * The comments of an issue as last read from GitHub, kept so that offline (GitHub unreachable) the
 * documents they linked still show as linked, marked as cached (issue 18 item 7). Only what the
 * Issues view needs is kept: the issue's title, state and labels, and its artifact comments (the
 * ones that link a document); never a token, never other comments. Pure: the extension stores it
 * in its workspace state, read back through `parseCommentCache`, which drops whatever does not fit.
 */
import { z } from 'zod';
import { type IssueComment, parseArtifactComment } from './protocol';
import type { RepoRef } from './url';

export interface CachedIssue {
  /** When the comments were read from GitHub (ISO time). */
  readonly fetchedAt: string;
  readonly title?: string;
  readonly state?: string;
  readonly labels: readonly string[];
  /** The artifact comments only, oldest first. */
  readonly comments: readonly IssueComment[];
}

/** Cached issues by `cacheKey`. */
export type CommentCache = Readonly<Record<string, CachedIssue>>;

/** At most this many artifact comments per issue are kept (the newest): enough for every kind and its history. */
export const MAX_CACHED_COMMENTS = 50;

/** Which repository and issue an entry belongs to: another repository's comments are never used. */
export function cacheKey(repo: RepoRef, issue: number): string {
  return `${repo.host}/${repo.owner}/${repo.repo}#${issue}`;
}

/** What is kept of an issue just read: its artifact comments (the newest MAX_CACHED_COMMENTS), with the fields the view reads. */
export function cachedIssueOf(issue: { title?: string; state?: string; labels?: readonly string[] }, comments: readonly IssueComment[], fetchedAt: Date): CachedIssue {
  const linking = comments.filter((c) => {
    const p = parseArtifactComment(c);
    return p !== null && 'artifact' in p;
  });
  return {
    fetchedAt: fetchedAt.toISOString(),
    title: issue.title,
    state: issue.state,
    labels: [...(issue.labels ?? [])],
    comments: linking.slice(-MAX_CACHED_COMMENTS).map((c) => ({
      id: c.id,
      body: c.body,
      created_at: c.created_at,
      html_url: c.html_url,
      user: c.user?.login !== undefined ? { login: c.user.login } : null,
      author_association: c.author_association,
    })),
  };
}

/** The fields of an issue comment that the protocol reads (the GitHub client checks its answers with it too). */
export const issueCommentSchema = z.object({
  id: z.number(),
  body: z.string().nullish(),
  created_at: z.string().optional(),
  html_url: z.string().optional(),
  user: z.object({ login: z.string().optional() }).nullish(),
  author_association: z.string().nullish(),
});

const entrySchema = z.object({
  fetchedAt: z.string().refine((s) => !Number.isNaN(Date.parse(s))),
  title: z.string().optional(),
  state: z.string().optional(),
  labels: z.array(z.string()),
  comments: z.array(issueCommentSchema).max(MAX_CACHED_COMMENTS),
});

/** The cache as stored, with every entry that does not have the expected shape dropped (never throws). */
export function parseCommentCache(stored: unknown): Record<string, CachedIssue> {
  const out: Record<string, CachedIssue> = {};
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    return out;
  }
  for (const [key, value] of Object.entries(stored)) {
    const r = entrySchema.safeParse(value);
    if (r.success) {
      out[key] = r.data;
    }
  }
  return out;
}

/** How long ago `fetchedAt` was, in words: "just now", "5 min ago", "3 h ago", "2 days ago". */
export function ageOf(fetchedAt: string, now: Date): string {
  const minutes = Math.floor((now.getTime() - Date.parse(fetchedAt)) / 60_000);
  if (Number.isNaN(minutes)) {
    return 'at an unknown time';
  }
  if (minutes < 1) {
    return 'just now';
  }
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 48) {
    return `${hours} h ago`;
  }
  return `${Math.floor(hours / 24)} days ago`;
}
