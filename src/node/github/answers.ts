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

const labelRef = z.union([z.string(), z.object({ name: z.string().nullish() })]);

/** An issue as the issue-writing methods read it (issue 20): the database id and the body too. */
export const remoteIssueSchema = z.object({
  id: z.number(),
  number: z.number(),
  title: z.string(),
  body: z.string().nullish(),
  state: z.enum(['open', 'closed']),
  labels: z.array(labelRef).optional(),
  html_url: z.string().optional(),
  pull_request: z.unknown().optional(),
  repository_url: z.string().optional(),
  user: z.object({ login: z.string() }).nullish(),
  author_association: z.string().optional(),
});
export const remoteIssueListSchema = z.array(remoteIssueSchema);

/** A milestone as `GET /milestones` lists it (import github --milestone names one by title or number). */
export const milestoneListSchema = z.array(z.object({ number: z.number(), title: z.string() }));

export const labelSchema = z.object({ name: z.string(), color: z.string(), description: z.string().nullish() });
export const labelListSchema = z.array(labelSchema);

/** A 422's answer: `errors[].code` says why (`already_exists`). */
export const validationFailureSchema = z.object({ message: z.string().optional(), errors: z.array(z.object({ code: z.string().optional() }).passthrough()).optional() });

const RUN_STATUSES = ['queued', 'in_progress', 'completed', 'waiting', 'requested', 'pending'] as const;

export const workflowRunSchema = z.object({
  id: z.number(),
  name: z.string().nullish(),
  display_title: z.string(),
  // A status GitHub adds later reads as 'pending': not finished, so still followed.
  status: z.enum(RUN_STATUSES).catch('pending'),
  conclusion: z.string().nullable(),
  html_url: z.string(),
  head_branch: z.string().nullable(),
  event: z.string(),
  created_at: z.string(),
});
export const workflowRunPageSchema = z.object({ total_count: z.number(), workflow_runs: z.array(workflowRunSchema) });

export const workflowSchema = z.object({ id: z.number(), state: z.string(), path: z.string() });

export const pullSchema = z.object({
  number: z.number(),
  title: z.string(),
  state: z.enum(['open', 'closed']),
  merged_at: z.string().nullish(),
  // head.repo is null when the fork it came from was deleted.
  head: z.object({ ref: z.string(), sha: z.string().optional(), repo: z.object({ full_name: z.string() }).nullish() }),
  base: z.object({ ref: z.string() }),
  html_url: z.string(),
});
export const pullListSchema = z.array(pullSchema);

/** GET /repos/{o}/{r}/commits/{ref}/check-runs: a page of a commit's check runs. */
export const checkRunPageSchema = z.object({
  total_count: z.number(),
  check_runs: z.array(z.object({ name: z.string(), status: z.string(), conclusion: z.string().nullish() })),
});

/** An answer whose content is not used (a write's echo): any JSON value. */
export const anyAnswerSchema = z.unknown();

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
    const what = first.code === 'invalid_type' && /received undefined$/.test(first.message) ? 'missing' : first.message;
    return fail(request, `the answer is not what GitHub documents (${at}: ${what})`);
  }
  return parsed.data;
}

function fail(request: string, why: string): never {
  throw new GitHubError('bad-answer', `${request}: ${why}. GitHub, or a proxy in between, answered something else: try again later.`);
}
