/**
 * Issue 20's Actions surface of the GitHub client: dispatch a workflow, read a workflow's state and
 * runs, list pull requests, assign an issue. Messages name the workflow file and say what to do
 * (a workflow not on the default branch, a disabled one).
 */
import { checkRunPageSchema, pullListSchema, workflowRunPageSchema, workflowSchema } from './answers';
import { GitHubError, gitHubSaid } from './errors';
import type { GitHubTransport, RouteParams } from './transport';

export interface WorkflowRun {
  readonly id: number;
  readonly name?: string;
  /** `display_title` (the workflow's run-name: our workflow names the story in it). */
  readonly displayTitle: string;
  readonly status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  readonly conclusion: string | null; // success, failure, cancelled, …
  readonly htmlUrl: string;
  readonly headBranch: string;
  readonly event: string;
  readonly createdAt: string;
}

export interface PullRequest {
  readonly number: number;
  readonly title: string;
  readonly state: 'open' | 'closed';
  readonly merged: boolean; // merged_at !== null
  readonly headRef: string; // head.ref
  readonly baseRef: string; // base.ref
  readonly htmlUrl: string;
  /** head.sha: whose check runs `listCheckRuns` reads. */
  readonly headSha?: string;
  /** Its head is not a branch of this repository (a fork, or a fork since deleted): never a story's pull request. */
  readonly fromFork: boolean;
}

/** One check run of a commit (a pull request's checks). */
export interface CheckRun {
  readonly name: string;
  readonly status: string;
  readonly conclusion: string | null;
}

/** A workflow's 404 or 422 said so a person knows what to do. */
function workflowFailure(t: GitHubTransport, file: string, e: unknown): unknown {
  if (!(e instanceof GitHubError)) {
    return e;
  }
  const repo = `${t.owner}/${t.repo}`;
  if (e.kind === 'not-found') {
    return new GitHubError('not-found', `The workflow ${file} is not on the default branch of ${repo} (404), or Actions is off for the repository: add the workflow (Add GitHub Actions Workflow), push it to the default branch, and check the token may read Actions.`, 404);
  }
  if (e.status === 422) {
    const disabled = /disabled/i.test(e.message);
    return new GitHubError(
      'other',
      disabled
        ? `The workflow ${file} is disabled on ${repo} (422): enable it in the repository's Actions tab, then dispatch again.`
        : `GitHub refused to start ${file} on ${repo} (422): ${gitHubSaid(e)}`,
      422,
    );
  }
  return e;
}

async function onWorkflow<T>(t: GitHubTransport, file: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw workflowFailure(t, file, e);
  }
}

/** Starts `workflowFile` on `ref` (204): the run appears a moment later (listWorkflowRuns). */
export async function dispatchWorkflow(t: GitHubTransport, workflowFile: string, ref: string, inputs: Record<string, string>): Promise<void> {
  await onWorkflow(t, workflowFile, () => t.write('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { workflow_id: workflowFile }, { ref, inputs }));
}

export async function getWorkflow(t: GitHubTransport, workflowFile: string): Promise<{ id: number; state: string; path: string }> {
  const d = await onWorkflow(t, workflowFile, () => t.read('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}', { workflow_id: workflowFile }, workflowSchema));
  return { id: d.id, state: d.state, path: d.path };
}

/** The workflow's runs, newest first, every page. */
export async function listWorkflowRuns(t: GitHubTransport, workflowFile: string, filter: { event?: string; status?: string; branch?: string } = {}): Promise<WorkflowRun[]> {
  const params: RouteParams = { workflow_id: workflowFile };
  for (const k of ['event', 'status', 'branch'] as const) {
    if (filter[k]) {
      params[k] = filter[k];
    }
  }
  const runs = await onWorkflow(t, workflowFile, () => t.readAll('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', params, workflowRunPageSchema, (p) => p.workflow_runs));
  return runs.map((r) => ({
    id: r.id,
    ...(r.name ? { name: r.name } : {}),
    displayTitle: r.display_title,
    status: r.status,
    conclusion: r.conclusion,
    htmlUrl: r.html_url,
    headBranch: r.head_branch ?? '',
    event: r.event,
    createdAt: r.created_at,
  }));
}

/** Pull requests, every page. `head` is a branch of this repository (`owner:` is added) or `user:branch`. */
export async function listPulls(t: GitHubTransport, filter: { state?: 'open' | 'closed' | 'all'; head?: string; base?: string }): Promise<PullRequest[]> {
  const params: RouteParams = { state: filter.state ?? 'open' };
  if (filter.head) {
    params.head = filter.head.includes(':') ? filter.head : `${t.owner}:${filter.head}`;
  }
  if (filter.base) {
    params.base = filter.base;
  }
  const pulls = await t.readAll('GET /repos/{owner}/{repo}/pulls', params, pullListSchema, (p) => p);
  return pulls.map((p) => ({
    number: p.number,
    title: p.title,
    state: p.state,
    merged: p.merged_at !== null && p.merged_at !== undefined,
    headRef: p.head.ref,
    baseRef: p.base.ref,
    htmlUrl: p.html_url,
    headSha: p.head.sha,
    fromFork: p.head.repo?.full_name.toLowerCase() !== `${t.owner}/${t.repo}`.toLowerCase(),
  }));
}

/** The check runs of a commit, every page (a pull request's checks: its head commit's). */
export async function listCheckRuns(t: GitHubTransport, ref: string): Promise<CheckRun[]> {
  const runs = await t.readAll('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ref }, checkRunPageSchema, (p) => p.check_runs);
  return runs.map((r) => ({ name: r.name, status: r.status, conclusion: r.conclusion ?? null }));
}

export async function addAssignees(t: GitHubTransport, number: number, assignees: readonly string[]): Promise<void> {
  await t.write('POST /repos/{owner}/{repo}/issues/{issue_number}/assignees', { issue_number: number }, { assignees: [...assignees] });
}
