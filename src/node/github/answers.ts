/**
 * What each GitHub endpoint we read promises, checked with zod before anything uses it. An answer
 * that is not JSON (an HTML page from a proxy, a body cut off) or not the documented shape is a
 * GitHubError naming the request: never "no comments" (which would post a duplicate), never a
 * raw JavaScript error further on.
 */
import { z } from 'zod';
import { issueCommentSchema } from '../../core/artifacts/commentCache';
import type { IssueComment } from '../../core/artifacts/protocol';
import { GitHubError } from './errors';

/** A comment as the REST API answers it (shared with the offline comment cache, which reads it back). */
export const commentSchema = issueCommentSchema;

// zod drops every key a schema does not name: a field the protocol reads (IssueComment) but this
// schema forgot would silently read as absent (an author_association lost reads as NONE, and every
// link as untrusted). This line does not compile while such a key is missing.
type ForgottenCommentKeys = Exclude<keyof IssueComment, keyof z.infer<typeof commentSchema>>;
export const COMMENT_SCHEMA_KEEPS_EVERY_FIELD: [ForgottenCommentKeys] extends [never] ? true : ForgottenCommentKeys = true;

export const commentPageSchema = z.array(commentSchema);

export const issueSchema = z.object({
  number: z.number(),
  title: z.string(),
  state: z.string(),
  labels: z.array(z.union([z.string(), z.object({ name: z.string().nullish() })])).optional(),
  html_url: z.string().optional(),
  pull_request: z.unknown().optional(),
  /** How many comments the issue has: lets a cached comment page be checked (client.ts). */
  comments: z.number().optional(),
});

export const issueListSchema = z.array(issueSchema);

export const repositorySchema = z.object({ default_branch: z.string().nullish() });

/** What Octokit hands back: `data` is a string or ArrayBuffer when the body was not JSON. */
export interface RawAnswer {
  readonly data: unknown;
  readonly headers: Readonly<Record<string, string | number | undefined>>;
}

function byteLength(data: unknown): number {
  if (typeof data === 'string') {
    return new TextEncoder().encode(data).length;
  }
  return data instanceof ArrayBuffer ? data.byteLength : 0;
}

/**
 * The answer's data, checked against the schema. `request` names it in messages:
 * `GET /repos/acme/taskflow/issues/42/comments`.
 */
export function checkAnswer<T>(schema: z.ZodType<T>, answer: RawAnswer, request: string): T {
  const { data, headers } = answer;
  if (typeof data === 'string' || data instanceof ArrayBuffer || data === undefined || data === null) {
    const type = String(headers['content-type'] ?? 'no content type').split(';')[0].trim();
    const got = byteLength(data);
    const promised = Number(headers['content-length']);
    const why =
      Number.isFinite(promised) && promised > got
        ? `the answer was cut off (${got ? `${got} of ` : ''}${promised} bytes promised)`
        : `the answer is not JSON (${type}, ${got} byte${got === 1 ? '' : 's'})`;
    return fail(request, why);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const at = first.path.length ? first.path.join('.') : 'the answer';
    return fail(request, `the answer is not what GitHub documents (${at}: ${first.message})`);
  }
  return parsed.data;
}

function fail(request: string, why: string): never {
  throw new GitHubError('bad-answer', `${request}: ${why}. GitHub, or a proxy in between, answered something else: try again later.`);
}
