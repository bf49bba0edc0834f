/**
 * Where each published story stands on GitHub (issue 20, "Follow from VS Code"): its issue open or
 * closed, its latest workflow run (queued, in progress, failed — with the link to its logs), its
 * pull request (open, merged), and — after a Sync — whether the feature branch on GitHub says it
 * passes. Pure: the follower (src/services/githubFollow.ts) and `ralph-workbench github status`
 * read GitHub and draw this.
 *
 * Only runs whose title is `ralph: <id>` (the workflow's run-name) and pull requests from the
 * story's branch `<feature>-<id>` count; the text of a run or pull request never names a file or
 * a command here — it is shown, not followed.
 */
import { storyBranchName } from '../parallel/names';
import { isOwnPull, isStoryRun, publishedIssue, storyOfRunTitle } from './dispatchPlan';

export interface RunSeen {
  readonly id: number;
  readonly displayTitle: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly htmlUrl: string;
  readonly createdAt: string;
  /** What started it: only a dispatched run is a story's (isStoryRun). */
  readonly event?: string;
}

export interface PullSeen {
  readonly number: number;
  readonly state: 'open' | 'closed';
  readonly merged: boolean;
  readonly headRef: string;
  readonly htmlUrl: string;
  /** An open pull request's checks (its head commit's check runs), when read. */
  readonly checks?: ChecksState;
  /** Its head is in a fork: never a story's pull request (isOwnPull). */
  readonly fromFork?: boolean;
}

export type ChecksState = 'passing' | 'failing' | 'running' | 'none';

/** What a pull request's check runs say together: any failure fails, any unfinished one runs. */
export function checksState(runs: readonly { readonly status: string; readonly conclusion: string | null }[]): ChecksState {
  if (runs.length === 0) {
    return 'none';
  }
  if (runs.some((r) => r.status === 'completed' && r.conclusion !== null && !['success', 'neutral', 'skipped'].includes(r.conclusion))) {
    return 'failing';
  }
  return runs.some((r) => r.status !== 'completed') ? 'running' : 'passing';
}

export type RemoteKind = 'pull-merged' | 'pull-open' | 'running' | 'queued' | 'run-failed' | 'run-passed' | 'issue-closed' | 'issue-open';

export interface StoryRemote {
  readonly kind: RemoteKind;
  /** A few words for a row: "PR #12 open", "run in progress", "run failed". */
  readonly label: string;
  /** Where to look (the run's logs, the pull request, the issue). */
  readonly url?: string;
  readonly issue?: { readonly number: number; readonly state: 'open' | 'closed' };
  readonly run?: RunSeen;
  readonly pull?: PullSeen;
  /** Something on GitHub still moves (a run queued or in progress, a pull request open): keep polling. */
  readonly inFlight: boolean;
}

export interface RemoteInput {
  readonly feature: string;
  /** Each published story's issue number. */
  readonly issueOf: ReadonlyMap<string, number>;
  /** Issue states by number (issues not read are absent). */
  readonly issues: ReadonlyMap<number, { readonly state: 'open' | 'closed'; readonly htmlUrl?: string }>;
  readonly runs: readonly RunSeen[];
  readonly pulls: readonly PullSeen[];
}

const RUNNING = new Set(['in_progress']);
const WAITING = new Set(['queued', 'waiting', 'requested', 'pending']);

/** Each published story's issue number (its `issue` field), the first story of an id only. */
export function publishedIssues(stories: readonly { readonly id: string; readonly issue?: unknown }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of stories) {
    const n = publishedIssue(s);
    if (n !== undefined && !out.has(s.id)) {
      out.set(s.id, n);
    }
  }
  return out;
}

/** The remote state of every published story. */
export function remoteStates(input: RemoteInput): Map<string, StoryRemote> {
  // The newest run of each story (runs come newest first from GitHub; sort to be sure).
  const latestRun = new Map<string, RunSeen>();
  for (const r of [...input.runs].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)) {
    const id = isStoryRun(r) ? storyOfRunTitle(r.displayTitle) : undefined;
    if (id !== undefined && !latestRun.has(id)) {
      latestRun.set(id, r);
    }
  }
  // A story's pull request: the open one, else the merged one with the highest number.
  const pullOf = new Map<string, PullSeen>();
  const byHead = new Map<string, PullSeen[]>();
  for (const p of input.pulls.filter(isOwnPull)) {
    byHead.set(p.headRef, [...(byHead.get(p.headRef) ?? []), p]);
  }
  const out = new Map<string, StoryRemote>();
  for (const [storyId, number] of input.issueOf) {
    const candidates = byHead.get(storyBranchName(input.feature, storyId)) ?? [];
    const pull = candidates.find((p) => p.state === 'open') ?? candidates.filter((p) => p.merged).sort((a, b) => b.number - a.number)[0];
    if (pull) {
      pullOf.set(storyId, pull);
    }
    const issueState = input.issues.get(number);
    const issue = issueState ? { number, state: issueState.state } : undefined;
    const run = latestRun.get(storyId);
    out.set(storyId, describe(issue, issueState?.htmlUrl, run, pull));
  }
  return out;
}

function describe(issue: StoryRemote['issue'], issueUrl: string | undefined, run: RunSeen | undefined, pull: PullSeen | undefined): StoryRemote {
  const base = { issue, run, pull };
  if (pull?.merged) {
    return { ...base, kind: 'pull-merged', label: `PR #${pull.number} merged`, url: pull.htmlUrl, inFlight: false };
  }
  if (pull?.state === 'open') {
    const checks = pull.checks && pull.checks !== 'none' ? `, checks ${pull.checks}` : '';
    return { ...base, kind: 'pull-open', label: `PR #${pull.number} open${checks}`, url: pull.htmlUrl, inFlight: true };
  }
  if (run && RUNNING.has(run.status)) {
    return { ...base, kind: 'running', label: 'run in progress', url: run.htmlUrl, inFlight: true };
  }
  if (run && WAITING.has(run.status)) {
    return { ...base, kind: 'queued', label: 'run queued', url: run.htmlUrl, inFlight: true };
  }
  if (run && run.status === 'completed' && run.conclusion !== 'success') {
    return { ...base, kind: 'run-failed', label: `run ${run.conclusion ?? 'failed'}`, url: run.htmlUrl, inFlight: false };
  }
  if (run && run.status === 'completed') {
    return { ...base, kind: 'run-passed', label: 'run passed, no PR', url: run.htmlUrl, inFlight: false };
  }
  const state = issue?.state ?? 'open';
  return { ...base, kind: state === 'closed' ? 'issue-closed' : 'issue-open', label: issue ? `#${issue.number} ${state}` : 'published', url: issueUrl, inFlight: false };
}

/**
 * Sync: the feature branch on GitHub against the local prd.json. A story that passes there and
 * not here is "passed remotely" (offered to take); one that passes here and not there is a
 * conflict, shown, never resolved silently.
 */
export function comparePasses(local: ReadonlyMap<string, boolean>, remote: ReadonlyMap<string, boolean>): { readonly passedRemotely: string[]; readonly conflicts: string[] } {
  const passedRemotely: string[] = [];
  const conflicts: string[] = [];
  for (const [id, here] of local) {
    const there = remote.get(id);
    if (there === undefined || there === here) {
      continue;
    }
    (there ? passedRemotely : conflicts).push(id);
  }
  return { passedRemotely, conflicts };
}
