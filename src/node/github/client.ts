/**
 * THE GitHub REST client of Ralph Workbench, shared by the CLI and the extension host: one
 * Octokit factory with @octokit/plugin-throttling (writes one at a time, ≥ 1 s apart; primary
 * and secondary limits and `retry-after` honoured) and @octokit/plugin-retry (a GET that got a 5xx
 * or could not connect is retried; a POST never is: see artifacts.ts), conditional requests with an
 * ETag cache (a 304 costs no rate limit; Octokit throws on 304, we return the cached body), every
 * answer checked against what the endpoint documents (answers.ts), and every page of an issue's
 * comments at per_page=100. A request that gets no answer within the time limit is not sent
 * again, so the limit a message names is the time waited. The token is held in memory only and
 * never logged.
 */
import type { z } from 'zod';
import type { IssueComment } from '../../core/artifacts/protocol';
import { checkAnswer, commentPageSchema, commentSchema, issueListSchema, issueSchema, repositorySchema } from './answers';
import { connectFailure, describeFailure, RequestTimedOut } from './errors';

export { GitHubError, type GitHubErrorKind } from './errors';

export const DEFAULT_API_URL = 'https://api.github.com';
/** 100 pages of 100: an issue with more comments than this is read up to here and flagged. */
export const MAX_COMMENT_PAGES = 100;

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
}

interface CacheEntry {
  readonly etag: string;
  readonly data: unknown;
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

function nextPageUrl(link: string | undefined): boolean {
  return !!link && /<[^>]+>;\s*rel="next"/.test(link);
}

export class GitHubClient {
  readonly owner: string;
  readonly repo: string;
  readonly apiUrl: string;
  private octokitP?: Promise<RalphOctokit>;
  private readonly counted: typeof fetch;
  private readonly cache = new Map<string, CacheEntry>();
  private sent = 0;
  private notModified = 0;
  private readonly timeoutMs: number;
  private defaultBranch?: string;

  constructor(private readonly options: GitHubClientOptions) {
    this.owner = options.owner;
    this.repo = options.repo;
    this.apiUrl = (options.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
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

  private where(params: Record<string, string | number>): string {
    return `${this.owner}/${this.repo}${params.issue_number !== undefined ? ` issue #${params.issue_number}` : ''}`;
  }

  /**
   * A conditional GET: sends If-None-Match when the URL was read before (unless `fresh`); a 304
   * returns the cached body. The answer is checked against `schema` before it is cached or used.
   */
  private async conditionalGet<T>(route: string, params: Record<string, string | number>, schema: z.ZodType<T>, fresh = false): Promise<{ data: T; link?: string; cached: boolean }> {
    const key = `${route} ${JSON.stringify(params)}`;
    const cached = fresh ? undefined : this.cache.get(key);
    const headers: Record<string, string> = cached ? { 'if-none-match': cached.etag } : {};
    let res;
    try {
      res = await (await this.octokit()).request(route, { owner: this.owner, repo: this.repo, ...params, headers });
    } catch (e) {
      if ((e as { status?: number }).status === 304 && cached) {
        this.notModified++;
        return { data: cached.data as T, link: cached.link, cached: true };
      }
      throw describeFailure(e, { where: this.where(params), timeoutMs: this.timeoutMs });
    }
    const data = checkAnswer(schema, res, this.requestName(route, params));
    const etag = res.headers.etag;
    const link = res.headers.link;
    if (etag) {
      this.cache.set(key, { etag, data, link });
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
      .map((d) => ({ number: d.number, title: d.title, state: d.state, labels: (d.labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))), isPullRequest: false }));
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
   * landed; the caller re-reads the comments before posting again, see artifacts.ts). The
   * throttling plugin keeps writes one at a time, ≥ 1 s apart.
   */
  async createComment(issue: number, body: string): Promise<IssueComment> {
    const route = 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments';
    const params = { issue_number: issue };
    let res;
    try {
      res = await (await this.octokit()).request(route, { owner: this.owner, repo: this.repo, ...params, body, request: { retries: 0 } });
    } catch (e) {
      throw describeFailure(e, { where: this.where(params), timeoutMs: this.timeoutMs });
    }
    return checkAnswer(commentSchema, res, this.requestName(route, params));
  }
}
