/**
 * Issue 20's issue-writing surface of the GitHub client: issues found by label, read, created and
 * updated; labels; sub-issues; dependencies ("blocked by"). Each answer is checked (answers.ts);
 * the writes go through the client's write queue (transport.ts). Where a write that GitHub
 * refuses may mean "already done" (a 422 on a dependency or a sub-issue that exists, a label that
 * exists, a 404 on a dependency already removed), it is resolved: a publish that resumes after an
 * interruption repeats writes that may have landed.
 */
import type { z } from 'zod';
import type { IssueSeen } from '../../core/github/publishPlan';
import { labelListSchema, remoteIssueListSchema, remoteIssueSchema, validationFailureSchema } from './answers';
import { GitHubError, gitHubSaid } from './errors';
import type { GitHubTransport, WriteFailure } from './transport';

/** An issue as GitHub answers it: what a publish reads (number, database id, title, body — '' when null —, state, labels) and more. */
export interface RemoteIssue extends IssueSeen {
  readonly htmlUrl?: string;
  readonly isPullRequest: boolean;
  /** `repository_url` of the answer: tells an issue of another repository (a cross-repo dependency). */
  readonly repositoryUrl?: string;
  /** `user.login` and `author_association` of the issue's author, when the answer has them. */
  readonly author?: { readonly login: string; readonly association: string };
}

export interface IssuePatch {
  title?: string;
  body?: string;
  state?: 'open' | 'closed';
  stateReason?: 'completed' | 'not_planned' | 'reopened';
  labels?: readonly string[];
}

const ISSUE = 'GET /repos/{owner}/{repo}/issues/{issue_number}';

export function toRemoteIssue(d: z.infer<typeof remoteIssueSchema>): RemoteIssue {
  return {
    number: d.number,
    id: d.id,
    title: d.title,
    body: d.body ?? '',
    state: d.state,
    labels: (d.labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== ''),
    htmlUrl: d.html_url,
    isPullRequest: d.pull_request !== undefined,
    repositoryUrl: d.repository_url,
    ...(d.user && d.author_association ? { author: { login: d.user.login, association: d.author_association } } : {}),
  };
}

const toIssues = (list: readonly z.infer<typeof remoteIssueSchema>[]): RemoteIssue[] => list.map(toRemoteIssue);

/** Every issue with the label, open and closed; pull requests dropped. */
export async function listIssuesWithLabel(t: GitHubTransport, label: string): Promise<RemoteIssue[]> {
  const all = await t.readAll('GET /repos/{owner}/{repo}/issues', { labels: label, state: 'all' }, remoteIssueListSchema, (p) => p);
  return toIssues(all).filter((i) => !i.isPullRequest);
}

export async function getIssueFull(t: GitHubTransport, number: number): Promise<RemoteIssue> {
  return toRemoteIssue(await t.read(ISSUE, { issue_number: number }, remoteIssueSchema));
}

async function writeIssue(t: GitHubTransport, route: string, params: Record<string, number>, body: Record<string, unknown>): Promise<RemoteIssue> {
  // With a schema, write() returns the checked answer (never undefined).
  return toRemoteIssue((await t.write(route, params, body, remoteIssueSchema))!);
}

export function createIssue(t: GitHubTransport, input: { title: string; body: string; labels?: readonly string[] }): Promise<RemoteIssue> {
  return writeIssue(t, 'POST /repos/{owner}/{repo}/issues', {}, { title: input.title, body: input.body, ...(input.labels ? { labels: [...input.labels] } : {}) });
}

export function updateIssue(t: GitHubTransport, number: number, patch: IssuePatch): Promise<RemoteIssue> {
  const body: Record<string, unknown> = {};
  for (const [key, field] of [['title', 'title'], ['body', 'body'], ['state', 'state'], ['stateReason', 'state_reason']] as const) {
    if (patch[key] !== undefined) {
      body[field] = patch[key];
    }
  }
  if (patch.labels) {
    body.labels = [...patch.labels];
  }
  return writeIssue(t, 'PATCH /repos/{owner}/{repo}/issues/{issue_number}', { issue_number: number }, body);
}

export async function listLabels(t: GitHubTransport): Promise<{ name: string; color: string; description: string }[]> {
  const all = await t.readAll('GET /repos/{owner}/{repo}/labels', {}, labelListSchema, (p) => p);
  return all.map((l) => ({ name: l.name, color: l.color, description: l.description ?? '' }));
}

/** A 422 whose `errors[].code` is `already_exists`. */
function alreadyExists(f: WriteFailure): boolean {
  const parsed = validationFailureSchema.safeParse(f.data);
  return f.status === 422 && parsed.success && (parsed.data.errors ?? []).some((e) => e.code === 'already_exists');
}

/** Creates a label; one that exists already (422 already_exists) is fine. */
export async function createLabel(t: GitHubTransport, label: { name: string; color: string; description?: string }): Promise<void> {
  const body = { name: label.name, color: label.color, ...(label.description !== undefined ? { description: label.description } : {}) };
  await t.write('POST /repos/{owner}/{repo}/labels', {}, body, undefined, { onFailure: (f) => (alreadyExists(f) ? 'done' : undefined) });
}

export async function listSubIssues(t: GitHubTransport, parent: number): Promise<RemoteIssue[]> {
  return toIssues(await t.readAll('GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues', { issue_number: parent }, remoteIssueListSchema, (p) => p));
}

/**
 * A POST that links two issues. A 422 may mean it is there already (a repeated write after an
 * interruption) or that GitHub refuses it, and its text does not say reliably which: `isThere`
 * reads back. There: resolves. Not there: GitHubError 'conflict' with `refused` as the message.
 */
async function link(t: GitHubTransport, route: string, number: number, body: Record<string, number>, isThere: () => Promise<boolean>, refused: (where: string) => string): Promise<void> {
  const params = { issue_number: number };
  try {
    await t.write(route, params, body);
  } catch (e) {
    if (!(e instanceof GitHubError) || e.status !== 422) {
      throw e;
    }
    if (await isThere()) {
      return;
    }
    throw new GitHubError('conflict', `${refused(t.where(params))} GitHub says: ${gitHubSaid(e)}`, 422);
  }
}

/**
 * Makes `childId` a sub-issue of `parent`. Already its sub-issue (a 422 on a repeated write):
 * resolves. A child that has another parent (or a parent that is full): GitHubError 'conflict'.
 */
export function addSubIssue(t: GitHubTransport, parent: number, childId: number): Promise<void> {
  return link(
    t,
    'POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues',
    parent,
    { sub_issue_id: childId },
    async () => (await listSubIssues(t, parent)).some((i) => i.id === childId),
    (where) => `GitHub refused to make issue id ${childId} a sub-issue of ${where} (422): it may have another parent, or the parent has 100 sub-issues already.`,
  );
}

export async function removeSubIssue(t: GitHubTransport, parent: number, childId: number): Promise<void> {
  await t.write('DELETE /repos/{owner}/{repo}/issues/{issue_number}/sub_issue', { issue_number: parent }, { sub_issue_id: childId });
}

/** The issues that block `number`. 404 (this GitHub has no dependencies API, or no such issue): 'not-found'. */
export async function listBlockedBy(t: GitHubTransport, number: number): Promise<RemoteIssue[]> {
  const params = { issue_number: number };
  try {
    return toIssues(await t.readAll('GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by', params, remoteIssueListSchema, (p) => p));
  } catch (e) {
    if (e instanceof GitHubError && e.kind === 'not-found') {
      throw new GitHubError('not-found', `GitHub has no issue dependencies for ${t.where(params)} (404): this GitHub (an older GitHub Enterprise Server?) has no dependencies API, or the issue is not there.`, 404);
    }
    throw e;
  }
}

/** Records that `blockerId` blocks `number`. Already recorded (422): resolves. Refused otherwise: 'conflict'. */
export function addBlockedBy(t: GitHubTransport, number: number, blockerId: number): Promise<void> {
  return link(
    t,
    'POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by',
    number,
    { issue_id: blockerId },
    async () => (await listBlockedBy(t, number)).some((i) => i.id === blockerId),
    (where) => `GitHub refused to mark ${where} as blocked by issue id ${blockerId} (422).`,
  );
}

/** Removes a dependency; one already gone (404) is fine. */
export async function removeBlockedBy(t: GitHubTransport, number: number, blockerId: number): Promise<void> {
  await t.write('DELETE /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by/{issue_id}', { issue_number: number, issue_id: blockerId }, {}, undefined, {
    onFailure: (f) => (f.status === 404 ? 'done' : undefined),
  });
}
