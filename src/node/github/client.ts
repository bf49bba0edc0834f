/**
 * THE GitHub REST client of Ralph Workbench, shared by the CLI and the extension host: one
 * Octokit factory with @octokit/plugin-throttling (primary and secondary limits and `retry-after`
 * honoured by waiting) and @octokit/plugin-retry (a GET, PATCH or DELETE that got a 5xx or could
 * not connect is retried; a POST never is: see artifacts.ts), writes one at a time through a
 * write queue per host, `writeIntervalMs` apart (transport.ts), conditional requests with an
 * ETag cache (a 304 costs no rate limit; Octokit throws on 304, we return the cached body), every
 * answer checked against what the endpoint documents (answers.ts), and every page of a list at
 * per_page=100. The issue-writing and Actions methods live in issuesApi.ts and actionsApi.ts and
 * use this client's Octokit, cache and write queue (GitHubTransport). A request that gets no
 * answer within the time limit is not sent again, so the limit a message names is the time
 * waited. The token is held in memory only and never logged.
 */
import type { z } from 'zod';
import type { IssueComment } from '../../core/artifacts/protocol';
import * as actionsApi from './actionsApi';
import type { PullRequest, WorkflowRun } from './actionsApi';
import { checkAnswer, commentPageSchema, commentSchema, issueListSchema, issueSchema, repositorySchema } from './answers';
import { connectFailure, describeFailure, GitHubError, movedError, RequestTimedOut } from './errors';
import * as issuesApi from './issuesApi';
import type { IssuePatch, RemoteIssue } from './issuesApi';
import { writeQueueFor, type GitHubTransport, type RouteParams, type WriteOptions } from './transport';

export { GitHubError, type GitHubErrorKind } from './errors';
export type { IssuePatch, RemoteIssue } from './issuesApi';
export type { PullRequest, WorkflowRun } from './actionsApi';

export const DEFAULT_API_URL = 'https://api.github.com';
/** 100 pages of 100: an issue with more comments than this is read up to here and flagged. */
export const MAX_COMMENT_PAGES = 100;
/** 100 pages of 100: a longer list (issues, runs, …) is refused with a message, never cut short silently. */
export const MAX_LIST_PAGES = 100;

export interface GitHubIssue {
  readonly number: number;
  readonly title: string;
  readonly state: string;
  readonly labels: readonly string[];
  readonly htmlUrl?: string;
  readonly isPullRequest: boolean;
  /** How many comments GitHub counts on the issue (undefined when the answer did not say). */
  readonly comments?: number;
}

/** An issue's comments as read: oldest first. */
export interface CommentListing {
  readonly comments: IssueComment[];
  /** More than MAX_COMMENT_PAGES full pages: the newest were not read. */
  readonly truncated: boolean;
  /** Why paging stopped early although GitHub said more follow (a broken server or proxy). */
  readonly pagingNote?: string;
  /** Some page was a 304 answered from the cache. */
  readonly fromCache: boolean;
}

/** Comments per page: the most GitHub gives. A page with fewer is the last. */
const PER_PAGE = 100;

export interface GitHubClientOptions {
  /** Undefined: unauthenticated (public data, 60 requests/h). */
  readonly token?: string;
  /** REST base, e.g. https://api.github.com or https://HOST/api/v3. */
  readonly apiUrl?: string;
  readonly owner: string;
  readonly repo: string;
  /** Injected fetch (tests); defaults to the global one. */
  readonly fetch?: typeof fetch;
  /** Per HTTP request; a request that timed out is not retried. Default 30 s. */
  readonly timeoutMs?: number;
  /** Retries of a GET that got a 5xx or could not connect. Default 2. */
  readonly retries?: number;
  /** Longest wait for a rate limit to reset before giving up with a message. Default 60 s. */
  readonly maxRateLimitWaitSeconds?: number;
  /** Multiplies every back-off and retry-after (tests use a small value). Default 1000 ms per second. */
  readonly retryAfterBaseMs?: number;
  /** Told about waits and retries (never about tokens). */
  readonly log?: (message: string) => void;
  /**
   * Least time between a write's answer and the next write to the host (GitHub asks ≥ 1 s for
   * content-creating requests). Default 1000 ms.
   */
  readonly writeIntervalMs?: number;
}

interface CacheEntry {
  readonly etag: string;
  /**
   * The answer as it came, checked again by the schema of each read: two methods read the same
   * URL with different schemas (getIssue, getIssueFull), and a schema drops what it does not name.
   */
  readonly raw: unknown;
  readonly link?: string;
}

function urlOf(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

// The Octokit packages are ESM-only: loaded with import() (esbuild bundles them into the CJS
// extension and CLI), composed once per process.
async function composeOctokit() {
  const [{ Octokit }, { throttling }, { retry }] = await Promise.all([
    import('@octokit/rest'),
    import('@octokit/plugin-throttling'),
    import('@octokit/plugin-retry'),
  ]);
  return Octokit.plugin(throttling, retry);
}
type RalphOctokitClass = Awaited<ReturnType<typeof composeOctokit>>;
type RalphOctokit = InstanceType<RalphOctokitClass>;
let composed: Promise<RalphOctokitClass> | undefined;

/** THE Octokit factory: throttling + retry, counted and time-limited fetch, no logging of secrets. */
export async function createOctokit(o: {
  token?: string;
  baseUrl: string;
  fetch: typeof fetch;
  retries: number;
  retryAfterBaseMs: number;
  maxRateLimitWaitSeconds: number;
  log: (message: string) => void;
}): Promise<RalphOctokit> {
  const Klass = await (composed ??= composeOctokit());
  const log = o.log;
  return new Klass({
    auth: o.token,
    baseUrl: o.baseUrl,
    userAgent: 'ralph-workbench',
    request: { fetch: o.fetch },
    // Failed requests are reported by GitHubError messages; Octokit's own request log stays quiet.
    log: { debug: () => undefined, info: () => undefined, warn: (m: string) => log(m), error: () => undefined },
    retry: { retries: o.retries, retryAfterBaseValue: o.retryAfterBaseMs },
    throttle: {
      // Writes are paced by our own write queue (transport.ts: the interval is an option, and a
      // write holds the queue until it is answered); the plugin's process-wide 1 s (3 s for a
      // write that notifies, such as a new issue) is left out.
      write: UNPACED as never,
      notifications: UNPACED as never,
      retryAfterBaseValue: o.retryAfterBaseMs,
      onRateLimit: (retryAfter: number, r: { method: string; url: string }, _k: unknown, retryCount: number) => {
        const wait = retryCount === 0 && retryAfter <= o.maxRateLimitWaitSeconds;
        log(`GitHub rate limit on ${r.method} ${r.url}: ${wait ? `retrying in ${retryAfter} s` : `resets in ${retryAfter} s; not waiting`}`);
        return wait;
      },
      onSecondaryRateLimit: (retryAfter: number, r: { method: string; url: string }, _k: unknown, retryCount: number) => {
        const wait = retryCount < 2 && retryAfter <= o.maxRateLimitWaitSeconds;
        log(`GitHub secondary rate limit on ${r.method} ${r.url}: ${wait ? `retrying after ${retryAfter} s (retry-after)` : 'giving up'}`);
        return wait;
      },
    },
  });
}

/** Stands in for the throttling plugin's write limiter (Bottleneck.Group): lets every write through. */
const UNPACED = { key: () => ({ schedule: <T>(_options: unknown, job: () => Promise<T>): Promise<T> => job() }) };

function nextPageUrl(link: string | undefined): boolean {
  return !!link && /<[^>]+>;\s*rel="next"/.test(link);
}

export class GitHubClient implements GitHubTransport {
  readonly owner: string;
  readonly repo: string;
  readonly apiUrl: string;
  private octokitP?: Promise<RalphOctokit>;
  private readonly counted: typeof fetch;
  private readonly cache = new Map<string, CacheEntry>();
  private sent = 0;
  private notModified = 0;
  private readonly timeoutMs: number;
  /** Milliseconds between two writes (the publish says how long it will take). */
  readonly writeIntervalMs: number;
  private defaultBranch?: string;

  constructor(private readonly options: GitHubClientOptions) {
    this.owner = options.owner;
    this.repo = options.repo;
    this.apiUrl = (options.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.writeIntervalMs = options.writeIntervalMs ?? 1000;
    const baseFetch = options.fetch ?? fetch;
    // Counts every request, limits its time, and says why a connection failed (undici's own
    // error is "fetch failed", which Octokit would report as a 500).
    const counted: typeof fetch = async (input, init) => {
      this.sent++;
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
      try {
        return await baseFetch(input, { ...init, signal });
      } catch (e) {
        if (timeout.aborted) {
          throw new RequestTimedOut(this.timeoutMs);
        }
        if (init?.signal?.aborted) {
          throw e;
        }
        throw connectFailure(urlOf(input), e);
      }
    };
    this.counted = counted;
  }

  private octokit(): Promise<RalphOctokit> {
    const o = this.options;
    return (this.octokitP ??= createOctokit({
      token: o.token,
      baseUrl: this.apiUrl,
      fetch: this.counted,
      retries: o.retries ?? 2,
      retryAfterBaseMs: o.retryAfterBaseMs ?? 1000,
      maxRateLimitWaitSeconds: o.maxRateLimitWaitSeconds ?? 60,
      log: o.log ?? ((): void => undefined),
    }));
  }

  /** HTTP requests sent so far (each page, each retry and each 304 included). */
  get requestCount(): number {
    return this.sent;
  }

  /** How many of them were answered 304 Not Modified. */
  get notModifiedCount(): number {
    return this.notModified;
  }

  /** `GET /repos/acme/taskflow/issues/42/comments?page=2`: how messages name a request. */
  private requestName(route: string, params: Record<string, string | number>): string {
    const [method, template] = route.split(' ');
    const path = template.replace(/\{(\w+)\}/g, (_, k: string) => String(k === 'owner' ? this.owner : k === 'repo' ? this.repo : params[k]));
    return `${method} ${path}${typeof params.page === 'number' && params.page > 1 ? `?page=${params.page}` : ''}`;
  }

  where(params: RouteParams): string {
    const what = params.issue_number !== undefined ? ` issue #${params.issue_number}` : params.workflow_id !== undefined ? ` workflow ${params.workflow_id}` : '';
    return `${this.owner}/${this.repo}${what}`;
  }

  /**
   * A conditional GET: sends If-None-Match when the URL was read before (unless `fresh`); a 304
   * returns the cached body. The answer is checked against `schema` before it is cached or used.
   */
  private async conditionalGet<T>(route: string, params: RouteParams, schema: z.ZodType<T>, fresh = false, notFollowed = false): Promise<{ data: T; link?: string; cached: boolean }> {
    const key = `${route} ${JSON.stringify(params)}`;
    const cached = fresh ? undefined : this.cache.get(key);
    const headers: Record<string, string> = cached ? { 'if-none-match': cached.etag } : {};
    let res;
    try {
      res = await (await this.octokit()).request(route, { owner: this.owner, repo: this.repo, ...params, headers, ...(notFollowed ? { request: { redirect: 'manual' } } : {}) });
      if (notFollowed && res.status >= 300 && res.status < 400) {
        throw movedError(this.where(params), res.headers.location);
      }
    } catch (e) {
      if ((e as { status?: number }).status === 304 && cached) {
        this.notModified++;
        return { data: checkAnswer(schema, { data: cached.raw, headers: {} }, this.requestName(route, params)), link: cached.link, cached: true };
      }
      throw describeFailure(e, { where: this.where(params), timeoutMs: this.timeoutMs });
    }
    const data = checkAnswer(schema, res, this.requestName(route, params));
    const etag = res.headers.etag;
    const link = res.headers.link;
    if (etag) {
      this.cache.set(key, { etag, raw: res.data, link });
    }
    return { data, link, cached: false };
  }

  async getIssue(issue: number): Promise<GitHubIssue> {
    const { data: d } = await this.conditionalGet('GET /repos/{owner}/{repo}/issues/{issue_number}', { issue_number: issue }, issueSchema);
    return {
      number: d.number,
      title: d.title,
      state: d.state,
      labels: (d.labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== ''),
      htmlUrl: d.html_url,
      isPullRequest: d.pull_request !== undefined,
      comments: d.comments,
    };
  }

  /**
   * Every comment of an issue, oldest first: each page of 100, conditionally (or not, `fresh`).
   * `next` is followed only while pages are full and new: a server that always says there is a
   * next page, or answers the same page again, stops with a `pagingNote` rather than 100 pages.
   */
  async listComments(issue: number, fresh = false): Promise<CommentListing> {
    const comments: IssueComment[] = [];
    const seen = new Set<number>();
    let fromCache = false;
    for (let page = 1; page <= MAX_COMMENT_PAGES; page++) {
      const { data, link, cached } = await this.conditionalGet(
        'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
        { issue_number: issue, per_page: PER_PAGE, page },
        commentPageSchema,
        fresh,
      );
      fromCache ||= cached;
      if (data.some((c) => seen.has(c.id))) {
        return { comments, truncated: false, fromCache, pagingNote: `GitHub's comment page ${page} repeats comments of earlier pages: read the first ${comments.length} comments and stopped there.` };
      }
      for (const c of data) {
        seen.add(c.id);
        comments.push(c);
      }
      if (!nextPageUrl(link)) {
        return { comments, truncated: false, fromCache };
      }
      if (data.length < PER_PAGE) {
        return { comments, truncated: false, fromCache, pagingNote: `GitHub said more comments follow page ${page}, but page ${page} was not full (${data.length} of ${PER_PAGE}): read ${comments.length} comments and stopped there.` };
      }
    }
    return { comments, truncated: true, fromCache };
  }

  /**
   * The issue and all its comments. A cached page may never hide a comment: when a page came from
   * the cache and the count does not match the issue's `comments`, the pages are read again
   * without If-None-Match (on an issue with exactly 100 comments, page 1 stays 304 when a 101st
   * arrives, and its cached answer says there is no next page).
   */
  async issueWithComments(issue: number): Promise<{ issue: GitHubIssue } & CommentListing> {
    const [info, listing] = await Promise.all([this.getIssue(issue), this.listComments(issue)]);
    if (listing.fromCache && info.comments !== undefined && info.comments !== listing.comments.length && !listing.truncated && !listing.pagingNote) {
      return { issue: info, ...(await this.listComments(issue, true)) };
    }
    return { issue: info, ...listing };
  }

  // GitHubTransport: what issuesApi.ts and actionsApi.ts use.

  /** A conditional GET whose redirect (a transferred issue's 301) is a GitHubError 'moved'. */
  async read<T>(route: string, params: RouteParams, schema: z.ZodType<T>): Promise<T> {
    return (await this.conditionalGet(route, params, schema, false, true)).data;
  }

  /**
   * Every page at per_page=100, each conditionally. `next` is followed as the Link header says;
   * a full page that came from the cache is followed by a read of the next page whatever its
   * cached Link said, because the ETag covers the body only: a 304 page keeps the Link it had
   * when the list was shorter. Stops with an error past MAX_LIST_PAGES, never with a short list.
   */
  async readAll<P, T>(route: string, params: RouteParams, pageSchema: z.ZodType<P>, items: (page: P) => readonly T[]): Promise<T[]> {
    const all: T[] = [];
    for (let page = 1; page <= MAX_LIST_PAGES; page++) {
      const { data, link, cached } = await this.conditionalGet(route, { ...params, per_page: PER_PAGE, page }, pageSchema, false, true);
      const got = items(data);
      all.push(...got);
      if (got.length < PER_PAGE || (!cached && !nextPageUrl(link))) {
        return all;
      }
    }
    throw new GitHubError('other', `${this.requestName(route, params)}: more than ${MAX_LIST_PAGES * PER_PAGE} items; stopped reading rather than go on without end.`);
  }

  /**
   * A write, through the host's write queue: one at a time, `writeIntervalMs` apart; a secondary
   * limit is waited out inside its turn. A POST is never retried (it may have landed: the caller
   * re-reads before writing again); a redirect is not followed (a transferred issue: 'moved').
   */
  write<T = undefined>(route: string, params: RouteParams, body: Record<string, unknown>, schema?: z.ZodType<T>, options: WriteOptions = {}): Promise<T | undefined> {
    const post = route.startsWith('POST ');
    return writeQueueFor(this.apiUrl).run(this.writeIntervalMs, async () => {
      let res;
      try {
        res = await (await this.octokit()).request(route, { owner: this.owner, repo: this.repo, ...params, ...body, request: { redirect: 'manual', ...(post ? { retries: 0 } : {}) } });
      } catch (e) {
        const error = describeFailure(e, { where: this.where(params), timeoutMs: this.timeoutMs });
        const verdict = error.status === undefined ? undefined : options.onFailure?.({ status: error.status, data: (e as { response?: { data?: unknown } }).response?.data, error });
        if (verdict === 'done') {
          return undefined;
        }
        throw verdict ?? error;
      }
      if (res.status >= 300 && res.status < 400) {
        throw movedError(this.where(params), res.headers.location);
      }
      return schema ? checkAnswer(schema, res, this.requestName(route, params)) : undefined;
    });
  }

  // Issue 20: issues, labels, sub-issues, dependencies (issuesApi.ts).

  /** Every issue with the label, open and closed (pull requests dropped). */
  listIssuesWithLabel(label: string): Promise<RemoteIssue[]> {
    return issuesApi.listIssuesWithLabel(this, label);
  }

  /** 301 (transferred): 'moved' with `location`; 410: 'gone'; 404: 'not-found'. */
  getIssueFull(number: number): Promise<RemoteIssue> {
    return issuesApi.getIssueFull(this, number);
  }

  createIssue(input: { title: string; body: string; labels?: readonly string[] }): Promise<RemoteIssue> {
    return issuesApi.createIssue(this, input);
  }

  updateIssue(number: number, patch: IssuePatch): Promise<RemoteIssue> {
    return issuesApi.updateIssue(this, number, patch);
  }

  listLabels(): Promise<{ name: string; color: string; description: string }[]> {
    return issuesApi.listLabels(this);
  }

  /** A label that exists already (422 already_exists) resolves. */
  createLabel(label: { name: string; color: string; description?: string }): Promise<void> {
    return issuesApi.createLabel(this, label);
  }

  listSubIssues(parent: number): Promise<RemoteIssue[]> {
    return issuesApi.listSubIssues(this, parent);
  }

  /** A child that has another parent: 'conflict'. */
  addSubIssue(parent: number, childId: number): Promise<void> {
    return issuesApi.addSubIssue(this, parent, childId);
  }

  removeSubIssue(parent: number, childId: number): Promise<void> {
    return issuesApi.removeSubIssue(this, parent, childId);
  }

  /** 404 (no dependencies API: older GitHub Enterprise Server): 'not-found'. */
  listBlockedBy(number: number): Promise<RemoteIssue[]> {
    return issuesApi.listBlockedBy(this, number);
  }

  /** Already there (422): resolves. */
  addBlockedBy(number: number, blockerId: number): Promise<void> {
    return issuesApi.addBlockedBy(this, number, blockerId);
  }

  /** Already gone (404): resolves. */
  removeBlockedBy(number: number, blockerId: number): Promise<void> {
    return issuesApi.removeBlockedBy(this, number, blockerId);
  }

  // Issue 20: Actions and pull requests (actionsApi.ts).

  dispatchWorkflow(workflowFile: string, ref: string, inputs: Record<string, string>): Promise<void> {
    return actionsApi.dispatchWorkflow(this, workflowFile, ref, inputs);
  }

  /** 404 (the workflow file is not on the default branch): 'not-found'. */
  listWorkflowRuns(workflowFile: string, filter?: { event?: string; status?: string; branch?: string }): Promise<WorkflowRun[]> {
    return actionsApi.listWorkflowRuns(this, workflowFile, filter);
  }

  getWorkflow(workflowFile: string): Promise<{ id: number; state: string; path: string }> {
    return actionsApi.getWorkflow(this, workflowFile);
  }

  listPulls(filter: { state?: 'open' | 'closed' | 'all'; head?: string; base?: string }): Promise<PullRequest[]> {
    return actionsApi.listPulls(this, filter);
  }

  /** The check runs of a commit (a pull request's head): issue 20's "pull request open, with its checks". */
  listCheckRuns(ref: string): Promise<actionsApi.CheckRun[]> {
    return actionsApi.listCheckRuns(this, ref);
  }

  addAssignees(number: number, assignees: readonly string[]): Promise<void> {
    return actionsApi.addAssignees(this, number, assignees);
  }

  /** Open issues matching a filter (labels, assignee, milestone), pull requests left out. */
  async listIssues(filter: { labels?: string; assignee?: string; milestone?: string; state?: string }, limit = 100): Promise<GitHubIssue[]> {
    const params: Record<string, string | number> = { per_page: Math.min(100, limit), page: 1, state: filter.state ?? 'open' };
    for (const k of ['labels', 'assignee', 'milestone'] as const) {
      if (filter[k]) {
        params[k] = filter[k];
      }
    }
    const { data } = await this.conditionalGet('GET /repos/{owner}/{repo}/issues', params, issueListSchema);
    return data
      .filter((d) => d.pull_request === undefined)
      .slice(0, limit)
      .map((d) => ({ number: d.number, title: d.title, state: d.state, labels: (d.labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))), htmlUrl: d.html_url, isPullRequest: false }));
  }

  async getDefaultBranch(): Promise<string> {
    if (!this.defaultBranch) {
      const { data } = await this.conditionalGet('GET /repos/{owner}/{repo}', {}, repositorySchema);
      this.defaultBranch = data.default_branch || 'main';
    }
    return this.defaultBranch;
  }

  /**
   * Posts a comment, once: never retried here (a POST that timed out or got a 5xx may have
   * landed; the caller re-reads the comments before posting again, see artifacts.ts). Paced
   * with the other writes (`writeIntervalMs`).
   */
  async createComment(issue: number, body: string): Promise<IssueComment> {
    // With a schema, write() returns the checked answer (never undefined).
    return (await this.write('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { issue_number: issue }, { body }, commentSchema))!;
  }
}
