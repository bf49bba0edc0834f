/**
 * A local GitHub REST emulator for tests, on 127.0.0.1 (never github.com), speaking the documented
 * shapes of api version 2022-11-28: a repository; its issues (github/issues.ts: list with labels,
 * state and pages, read, create, update; comments; labels; sub-issues; dependencies; assignees; a
 * deleted issue 410, a transferred one 301) and its Actions and pull requests (github/actions.ts:
 * workflow dispatches and runs, pulls). Every answer of a GET has an ETag (304 on If-None-Match)
 * and lists page with Link headers. Faults: a 403 primary rate limit with reset headers, a
 * secondary limit with retry-after (on any method), a 403 for a token without a permission
 * (`x-accepted-github-permissions`), 401, 404, 500, a slow response, a raw (HTML, non-JSON) or
 * truncated body, a reset connection, a write that lands and then answers 502 or never answers,
 * and broken paging (`endlessNext`, `ignorePage`). It records every request (with the body of a
 * write) and every dispatch. It is bounded (at most `maxRequests`) and stops by itself after
 * `lifetimeMs`; its timers never keep a process alive.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { actionRoutes } from './github/actions';
import { Exchange } from './github/exchange';
import { issueRoutes } from './github/issues';
import {
  OWNER_BOT,
  type CommentAuthor,
  type EmulatedComment,
  type EmulatedIssue,
  type EmulatedLabel,
  type EmulatedRun,
  type EmulatedWorkflow,
  type FaultRule,
  type RecordedDispatch,
  type RecordedRequest,
  type RunStatus,
} from './github/types';

// Named, not `export *`: tsx's tsImport (scripts/demo-github.mjs, benchmarks) cannot load a star re-export.
export { OWNER_BOT };
export type {
  AuthorAssociation,
  CommentAuthor,
  EmulatedComment,
  EmulatedIssue,
  EmulatedLabel,
  EmulatedPull,
  EmulatedRun,
  EmulatedWorkflow,
  Fault,
  FaultRule,
  RecordedDispatch,
  RecordedRequest,
  RunStatus,
} from './github/types';

export interface EmulatorOptions {
  readonly owner?: string;
  readonly repo?: string;
  readonly defaultBranch?: string;
  /** When set, any other Authorization token gets 401. */
  readonly token?: string;
  readonly maxRequests?: number;
  readonly lifetimeMs?: number;
}

/** The largest raw body `raw` faults send (bounded). */
const MAX_RAW_BODY = 1_000_000;

/** A database id that is never the issue's number (GitHub's ids are far larger than numbers). */
const idOf = (number: number, salt = 0): number => 3_000_000_000 + number * 7 + salt;

function newIssue(number: number, id: number, title: string, labels: string[], more: Partial<EmulatedIssue>): EmulatedIssue {
  return { number, id, title, body: null, state: 'open', stateReason: null, labels, comments: [], author: OWNER_BOT, assignees: [], subIssues: [], blockedBy: [], ...more };
}

export class GitHubEmulator {
  readonly owner: string;
  readonly repo: string;
  defaultBranch: string;
  /** This repository's issues and pull requests by number (and foreign issues by their own key: see addForeignIssue). */
  readonly issues = new Map<number, EmulatedIssue>();
  /** Labels by lower-case name. */
  readonly labels = new Map<string, EmulatedLabel>();
  readonly workflows = new Map<string, EmulatedWorkflow>();
  readonly runs = new Map<number, EmulatedRun>();
  readonly requests: RecordedRequest[] = [];
  readonly dispatches: RecordedDispatch[] = [];
  readonly faults: FaultRule[] = [];
  /** A broken server: every page says there is a next page. */
  endlessNext = false;
  /** A broken server: every page number answers the first page. */
  ignorePage = false;
  /** False: every dependencies route answers 404 (an older GitHub Enterprise Server). */
  dependenciesApi = true;
  /** When set, a dispatch to any other ref is refused (422 "No ref found"). */
  knownRefs?: Set<string>;
  /** The most runs that were queued or in progress at one moment. */
  maxRunsInFlight = 0;
  private readonly foreign = new Map<number, EmulatedIssue>();
  private server?: Server;
  private nextCommentId = 1000;
  private nextRunId = 5000;
  private clock = Date.parse('2026-11-01T00:00:00Z');
  private readonly maxRequests: number;
  private readonly lifetimeMs: number;
  private stopTimer?: NodeJS.Timeout;

  constructor(private readonly options: EmulatorOptions = {}) {
    this.owner = options.owner ?? 'acme';
    this.repo = options.repo ?? 'taskflow';
    this.defaultBranch = options.defaultBranch ?? 'main';
    this.maxRequests = options.maxRequests ?? 20_000;
    this.lifetimeMs = options.lifetimeMs ?? 120_000;
  }

  /** The REST base URL to give the client (`--api-url`). */
  get apiUrl(): string {
    const a = this.server?.address() as AddressInfo | undefined;
    if (!a) {
      throw new Error('emulator not started');
    }
    return `http://127.0.0.1:${a.port}`;
  }

  private tick(): string {
    this.clock += 60_000;
    return new Date(this.clock).toISOString();
  }

  /** The number the next created issue or pull request gets. */
  nextNumber(): number {
    return Math.max(0, ...this.issues.keys()) + 1;
  }

  addIssue(number: number, title = `Issue ${number}`, labels: string[] = [], more: Partial<EmulatedIssue> = {}): EmulatedIssue {
    for (const l of labels) {
      this.ensureLabel(l);
    }
    const issue = newIssue(number, idOf(number), title, labels, more);
    this.issues.set(number, issue);
    return issue;
  }

  /** An issue of another repository (`owner/repo`), for a cross-repository dependency: found by its id only. */
  addForeignIssue(repository: string, number: number, title = `Issue ${number} of ${repository}`): EmulatedIssue {
    const issue = newIssue(number, idOf(number, 1 + this.foreign.size) + 1_000_000, title, [], { repository });
    this.foreign.set(issue.id, issue);
    return issue;
  }

  issueById(id: number): EmulatedIssue | undefined {
    return this.foreign.get(id) ?? [...this.issues.values()].find((i) => i.id === id);
  }

  /** The issue whose sub-issue `number` is. */
  parentOf(number: number): EmulatedIssue | undefined {
    return [...this.issues.values()].find((i) => i.subIssues.includes(number));
  }

  ensureLabel(name: string, color = 'ededed', description: string | null = null): EmulatedLabel {
    const key = name.toLowerCase();
    let l = this.labels.get(key);
    if (!l) {
      l = { id: 7000 + this.labels.size, name, color, description };
      this.labels.set(key, l);
    }
    return l;
  }

  /** Adds a comment (by the owner's bot unless `author` says otherwise); each gets a later creation time than the one before. */
  addComment(number: number, body: string, author: CommentAuthor = OWNER_BOT): EmulatedComment {
    const issue = this.issues.get(number) ?? this.addIssue(number);
    const id = this.nextCommentId++;
    const c: EmulatedComment = {
      id,
      body,
      created_at: this.tick(),
      html_url: `https://github.com/${this.owner}/${this.repo}/issues/${number}#issuecomment-${id}`,
      user: { login: author.login },
      author_association: author.association,
    };
    issue.comments.push(c);
    return c;
  }

  /** A workflow file under .github/workflows on the default branch. */
  addWorkflow(file = 'ralph.yml', state: EmulatedWorkflow['state'] = 'active', name = 'Ralph'): EmulatedWorkflow {
    const wf: EmulatedWorkflow = { id: 9000 + this.workflows.size, file, name, state };
    this.workflows.set(file, wf);
    return wf;
  }

  /** A run of `file` as a dispatch creates it: queued, titled by its `story` input as ralph.yml's run-name does. */
  addRun(file: string, ref: string, inputs: Record<string, string> = {}, event = 'workflow_dispatch'): EmulatedRun {
    const name = this.workflows.get(file)?.name ?? file;
    const run: EmulatedRun = {
      id: this.nextRunId++,
      workflowFile: file,
      name,
      displayTitle: inputs.story !== undefined ? `ralph: ${inputs.story}` : name,
      status: 'queued',
      conclusion: null,
      headBranch: ref,
      event,
      createdAt: this.tick(),
      inputs,
    };
    this.runs.set(run.id, run);
    this.noteRunsInFlight();
    return run;
  }

  /** Moves a run on (in_progress, or completed with a conclusion such as success or failure). */
  setRunStatus(runId: number, status: RunStatus, conclusion: string | null = null): EmulatedRun {
    const run = this.runs.get(runId);
    if (!run) {
      throw new Error(`no run ${runId}`);
    }
    run.status = status;
    run.conclusion = status === 'completed' ? (conclusion ?? 'success') : null;
    this.noteRunsInFlight();
    return run;
  }

  runsInFlight(): number {
    return [...this.runs.values()].filter((r) => r.status !== 'completed').length;
  }

  private noteRunsInFlight(): void {
    this.maxRunsInFlight = Math.max(this.maxRunsInFlight, this.runsInFlight());
  }

  /** Opens a pull request from `head` into `base` (an issue with a `pull_request` key, numbered with the issues). */
  openPullRequest(o: { head: string; base?: string; title?: string; body?: string; headRepo?: string }): EmulatedIssue {
    const number = this.nextNumber();
    const sha = createHash('sha1').update(`pull ${number} ${o.head}`).digest('hex');
    return this.addIssue(number, o.title ?? `Pull request ${number}`, [], { body: o.body ?? null, pull: { head: o.head, ...(o.headRepo ? { headRepo: o.headRepo } : {}), base: o.base ?? this.defaultBranch, mergedAt: null, sha, checks: [] } });
  }

  /** Merges (and so closes) a pull request. */
  mergePullRequest(number: number): EmulatedIssue {
    const pr = this.issues.get(number);
    if (!pr?.pull) {
      throw new Error(`no pull request #${number}`);
    }
    pr.pull.mergedAt = this.tick();
    pr.state = 'closed';
    return pr;
  }

  /** Requests received since `from` (an index into `requests`). */
  since(from: number): RecordedRequest[] {
    return this.requests.slice(from);
  }

  /** The writes received (POST, PATCH, PUT, DELETE), optionally only since `from`. */
  writes(from = 0): RecordedRequest[] {
    return this.since(from).filter((q) => q.method !== 'GET' && q.method !== 'HEAD');
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch(() => {
        if (!res.headersSent) {
          res.writeHead(500).end();
        }
      });
    });
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.server.unref();
    this.stopTimer = setTimeout(() => void this.stop(), this.lifetimeMs);
    this.stopTimer.unref();
    return this;
  }

  async stop(): Promise<void> {
    clearTimeout(this.stopTimer);
    const s = this.server;
    this.server = undefined;
    if (s) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  }

  /** Applies the first armed fault rule; true when it answered the request. */
  private async fault(x: Exchange): Promise<boolean> {
    const rule = this.faults.find((f) => f.path.test(x.url.pathname) && (!f.method || f.method === x.method) && (f.times === undefined || f.times > 0));
    if (!rule) {
      return false;
    }
    if (rule.times !== undefined) {
      rule.times--;
    }
    const f = rule.fault;
    const { req, res } = x;
    switch (f.kind) {
      case 'lands-then':
        x.landsThen = f.then;
        return false;
      case 'slow':
        await new Promise((r) => setTimeout(r, f.delayMs).unref());
        // (A write's request stream has ended by now, its body read: the socket says whether the client left.)
        if (res.destroyed || req.socket.destroyed) {
          x.record(0);
          return true;
        }
        return false;
      case 'status':
        x.send(f.status, { message: f.status === 401 ? 'Bad credentials' : f.status === 404 ? 'Not Found' : 'Server Error' });
        return true;
      case 'raw':
        x.record(f.status);
        res.writeHead(f.status, { 'content-type': f.contentType }).end(f.body.slice(0, MAX_RAW_BODY));
        return true;
      case 'truncated':
        x.record(200);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': '4096' });
        res.write('[{"id": 1, "body": "## Research Doc');
        setTimeout(() => res.destroy(), 20).unref();
        return true;
      case 'reset':
        x.record(0);
        req.socket.resetAndDestroy();
        return true;
      case 'rate-limit':
        x.send(403, { message: 'API rate limit exceeded for user.' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + f.resetInSeconds) });
        return true;
      case 'secondary':
        x.send(403, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }, { 'retry-after': String(f.retryAfterSeconds) });
        return true;
      case 'permission':
        x.send(403, { message: 'Resource not accessible by personal access token', documentation_url: 'https://docs.github.com/rest', status: '403' }, { 'x-accepted-github-permissions': f.accepted });
        return true;
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const x = new Exchange(req, res, this.requests, this.server ? this.apiUrl : 'http://127.0.0.1', this);
    if (this.requests.length >= this.maxRequests) {
      x.send(503, { message: 'emulator request budget exhausted' });
      return;
    }
    // A write's body is read first, so that what is recorded says what was asked.
    if (x.isWrite && !(await x.readBody())) {
      return;
    }
    if (await this.fault(x)) {
      return;
    }
    if (this.options.token !== undefined) {
      const auth = req.headers.authorization ?? '';
      if (auth !== `token ${this.options.token}` && auth !== `bearer ${this.options.token}` && auth !== `Bearer ${this.options.token}`) {
        x.send(401, { message: 'Bad credentials' });
        return;
      }
    }
    const base = `/repos/${this.owner}/${this.repo}`;
    const p = x.url.pathname;
    if (p === base && x.method === 'GET') {
      x.conditional({ full_name: `${this.owner}/${this.repo}`, default_branch: this.defaultBranch });
      return;
    }
    const rest = p.startsWith(`${base}/`) ? p.slice(base.length) : undefined;
    if (rest === undefined || !(issueRoutes(this, x, rest) || actionRoutes(this, x, rest))) {
      x.notFound();
    }
  }
}
