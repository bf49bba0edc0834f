/**
 * What the GitHub emulator (test/support/githubEmulator.ts) holds and records: the shapes of its
 * repository's issues, pull requests, labels, workflows and runs, and the faults a test can arm.
 */

export type AuthorAssociation = 'OWNER' | 'MEMBER' | 'COLLABORATOR' | 'CONTRIBUTOR' | 'FIRST_TIME_CONTRIBUTOR' | 'FIRST_TIMER' | 'MANNEQUIN' | 'NONE';

/** Who writes a comment or an issue: by default the repository's owner (the bot the tests sign in as). */
export interface CommentAuthor {
  readonly login: string;
  readonly association: AuthorAssociation;
}

export const OWNER_BOT: CommentAuthor = { login: 'ralph-bot', association: 'OWNER' };

export interface EmulatedComment {
  id: number;
  body: string;
  created_at: string;
  html_url: string;
  user: { login: string };
  /** The REST field: the author's relation to the repository. */
  author_association: AuthorAssociation;
}

export interface EmulatedPull {
  head: string;
  /** The head's repository (`head.repo.full_name`) when it is a fork; absent: this repository. */
  headRepo?: string;
  base: string;
  mergedAt: string | null;
  /** The head commit (`head.sha`); its check runs are `checks`. */
  sha: string;
  checks: { name: string; status: 'queued' | 'in_progress' | 'completed'; conclusion: string | null }[];
}

export interface EmulatedIssue {
  number: number;
  /** The database id (`id`): distinct from the number, what sub-issue and dependency routes take. */
  id: number;
  title: string;
  /** null as GitHub answers an issue created without a body. */
  body: string | null;
  state: 'open' | 'closed';
  stateReason: 'completed' | 'not_planned' | 'reopened' | null;
  labels: string[];
  comments: EmulatedComment[];
  author: CommentAuthor;
  assignees: string[];
  /** `owner/repo` when the issue belongs to another repository (a cross-repository dependency). */
  repository?: string;
  /** Numbers of its sub-issues, in the order added. */
  subIssues: number[];
  /** Database ids of the issues that block it ("blocked by"). */
  blockedBy: number[];
  /** The milestone it is in (`GET /milestones` lists the ones issues are in). */
  milestone?: { number: number; title: string };
  /** Switch: the issue was deleted (every route of it answers 410 Gone). */
  deleted?: boolean;
  /** Switch: the issue was transferred (every route of it answers 301 with a Location to this one). */
  transferredTo?: { owner: string; repo: string; number: number };
  /** Set on a pull request (an issue with a `pull_request` key). */
  pull?: EmulatedPull;
}

export interface EmulatedLabel {
  id: number;
  name: string;
  color: string;
  description: string | null;
}

export interface EmulatedWorkflow {
  id: number;
  /** The file name under .github/workflows, e.g. `ralph.yml`. */
  file: string;
  name: string;
  state: 'active' | 'disabled_manually' | 'disabled_inactivity' | 'disabled_fork' | 'deleted';
}

export type RunStatus = 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';

export interface EmulatedRun {
  id: number;
  workflowFile: string;
  name: string;
  displayTitle: string;
  status: RunStatus;
  conclusion: string | null;
  headBranch: string;
  event: string;
  createdAt: string;
  inputs: Record<string, string>;
}

/** One workflow dispatch as received: what a test counts. */
export interface RecordedDispatch {
  readonly workflowFile: string;
  readonly ref: string;
  readonly inputs: Record<string, string>;
  readonly runId: number;
  /** Runs not completed right after this dispatch created its run (this one included). */
  readonly inFlight: number;
}

export type Fault =
  | { kind: 'status'; status: 401 | 404 | 500 | 502 }
  | { kind: 'rate-limit'; resetInSeconds: number }
  | { kind: 'secondary'; retryAfterSeconds: number }
  | { kind: 'slow'; delayMs: number }
  /** Answers with exactly this status, content type and body (an HTML error page, a non-JSON answer). */
  | { kind: 'raw'; status: number; contentType: string; body: string }
  /** Promises a JSON body, sends part of it, then closes the connection. */
  | { kind: 'truncated' }
  /** Resets the connection without an answer. */
  | { kind: 'reset' }
  /** Does the work (a write lands), then answers 502 or never answers. */
  | { kind: 'lands-then'; then: 502 | 'stall' }
  /**
   * A fine-grained token without the permission: 403 "Resource not accessible by personal access
   * token" with `x-accepted-github-permissions` (e.g. `issues=write`).
   */
  | { kind: 'permission'; accepted: string };

export interface FaultRule {
  /** Applies to requests whose path (without the query) matches. */
  readonly path: RegExp;
  readonly method?: string;
  readonly fault: Fault;
  /** How many requests it affects (default: all). */
  times?: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly ifNoneMatch?: string;
  /** True when an Authorization header was sent (its value is never recorded). */
  readonly authorized: boolean;
  /** When the request arrived (ms since epoch). */
  readonly at: number;
  /** The parsed JSON body of a write (POST, PATCH, PUT, DELETE), when it had one. */
  readonly body?: unknown;
}
