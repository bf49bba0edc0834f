/**
 * `import github` (issue 22): the repository's issues (all, or those with a label, or those of a
 * milestone), each with its native "blocked by" dependencies and its sub-issues, read through
 * THE client (throttled, retried, cached), for core/import/github.ts to map. Pull requests are
 * left out. An issue of another repository is named OWNER/REPO#N (not a story of this import).
 */
import type { GitHubIssueInput } from '../../core/import/index';
import { milestoneListSchema, remoteIssueListSchema } from './answers';
import { GitHubError } from './errors';
import { listBlockedBy, listSubIssues, type RemoteIssue, toRemoteIssue } from './issuesApi';
import type { GitHubTransport } from './transport';

export interface IssueFilter {
  readonly label?: string;
  /** A milestone's title or number. */
  readonly milestone?: string;
}

/** How many issues' dependencies are read at once (the client throttles underneath). */
const AT_ONCE = 4;

async function milestoneNumber(t: GitHubTransport, milestone: string): Promise<number> {
  const all = await t.readAll('GET /repos/{owner}/{repo}/milestones', { state: 'all' }, milestoneListSchema, (p) => p);
  const wanted = milestone.trim();
  const found = all.find((m) => m.title === wanted) ?? all.find((m) => String(m.number) === wanted) ?? all.find((m) => m.title.toLowerCase() === wanted.toLowerCase());
  if (!found) {
    throw new GitHubError('not-found', `${t.where({})} has no milestone "${wanted}"${all.length > 0 ? `; its milestones: ${all.map((m) => m.title).join(', ')}` : ''}.`, 404);
  }
  return found.number;
}

/** "N" for an issue of this repository, "OWNER/REPO#N" for another's. */
function refOf(issue: RemoteIssue, own: string): number | string {
  const m = /\/repos\/([^/]+\/[^/]+)$/.exec(issue.repositoryUrl ?? '');
  return !m || m[1].toLowerCase() === own.toLowerCase() ? issue.number : `${m[1]}#${issue.number}`;
}

export async function readIssuesForImport(t: GitHubTransport, repo: string, filter: IssueFilter): Promise<{ issues: GitHubIssueInput[]; warnings: string[] }> {
  const params: Record<string, string | number> = { state: 'all' };
  if (filter.label !== undefined) {
    params.labels = filter.label;
  }
  if (filter.milestone !== undefined) {
    params.milestone = await milestoneNumber(t, filter.milestone);
  }
  const issues = (await t.readAll('GET /repos/{owner}/{repo}/issues', params, remoteIssueListSchema, (p) => p)).map(toRemoteIssue).filter((i) => !i.isPullRequest);
  const out: GitHubIssueInput[] = new Array<GitHubIssueInput>(issues.length);
  const warnings = new Set<string>();
  /** A GitHub without the dependencies or sub-issues API (404): the issues still import, without those links, and it is said. */
  const without = (what: string) => (e: unknown): RemoteIssue[] => {
    if (e instanceof GitHubError && e.kind === 'not-found') {
      warnings.add(`GitHub answered 404 for the ${what} of an issue (no such API on this GitHub?): imported without them`);
      return [];
    }
    throw e;
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let k = next++; k < issues.length; k = next++) {
      const i = issues[k];
      const [blockers, subs] = await Promise.all([listBlockedBy(t, i.number).catch(without('"blocked by" dependencies')), listSubIssues(t, i.number).catch(without('sub-issues'))]);
      out[k] = { number: i.number, title: i.title, body: i.body, state: i.state, labels: i.labels, blockedBy: blockers.map((b) => refOf(b, repo)), subIssues: subs.map((s) => refOf(s, repo)) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, issues.length) }, worker));
  return { issues: out, warnings: [...warnings] };
}
