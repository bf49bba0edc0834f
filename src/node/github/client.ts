/**
 * THE GitHub REST client of Ralph Workbench, shared by the CLI and the extension host: one
 * Octokit factory with @octokit/plugin-throttling (writes one at a time, ≥ 1 s apart; primary
 * and secondary limits and `retry-after` honoured) and @octokit/plugin-retry (5xx retried),
 * conditional requests with an ETag cache (a 304 costs no rate limit; Octokit throws on 304, we
 * return the cached body), and every page of an issue's comments at per_page=100.
 * The token is held in memory only and never logged.
 */
import type { IssueComment } from '../../core/artifacts/protocol';

export const DEFAULT_API_URL = 'https://api.github.com';
/** 100 pages of 100: an issue with more comments than this is read up to here and flagged. */
export const MAX_COMMENT_PAGES = 100;

export type GitHubErrorKind = 'auth' | 'rate-limit' | 'forbidden' | 'not-found' | 'server' | 'timeout' | 'network' | 'other';

/** A failure said so a person knows what to do. */
export class GitHubError extends Error {
  constructor(
    readonly kind: GitHubErrorKind,
    message: string,
    readonly status?: number,
    /** For 'rate-limit': when the limit resets (ms since epoch). */
    readonly resetAt?: number,
  ) {
    super(message);
    this.name = 'GitHubError';
  }
}

export interface GitHubIssue {
  readonly number: number;
  readonly title: string;
  readonly state: string;
  readonly labels: readonly string[];
  readonly htmlUrl?: string;
  readonly isPullRequest: boolean;
}

export interface GitHubClientOptions {
  /** Undefined: unauthenticated (public data, 60 requests/h). */
  readonly token?: string;
  /** REST base, e.g. https://api.github.com or https://HOST/api/v3. */
  readonly apiUrl?: string;
  readonly owner: string;
  readonly repo: string;
  /** Injected fetch (tests); defaults to the global one. */
  readonly fetch?: typeof fetch;
  /** Per HTTP request. Default 30 s. */
  readonly timeoutMs?: number;
  /** Retries of a 5xx or network failure. Default 2. */
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
    const counted: typeof fetch = (input, init) => {
      this.sent++;
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
      return baseFetch(input, { ...init, signal });
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

  /** A conditional GET: sends If-None-Match when the URL was read before; a 304 returns the cached body. */
  private async conditionalGet(route: string, params: Record<string, string | number>): Promise<{ data: unknown; link?: string }> {
    const key = `${route} ${JSON.stringify(params)}`;
    const cached = this.cache.get(key);
    const headers: Record<string, string> = cached ? { 'if-none-match': cached.etag } : {};
    try {
      const res = await (await this.octokit()).request(route, { owner: this.owner, repo: this.repo, ...params, headers });
      const etag = res.headers.etag;
      const link = res.headers.link;
      if (etag) {
        this.cache.set(key, { etag, data: res.data, link });
      }
      return { data: res.data, link };
    } catch (e) {
      if ((e as { status?: number }).status === 304 && cached) {
        this.notModified++;
        return { data: cached.data, link: cached.link };
      }
      throw this.describe(e, params);
    }
  }

  async getIssue(issue: number): Promise<GitHubIssue> {
    const { data } = await this.conditionalGet('GET /repos/{owner}/{repo}/issues/{issue_number}', { issue_number: issue });
    const d = data as { number: number; title: string; state: string; labels?: (string | { name?: string })[]; html_url?: string; pull_request?: unknown };
    return {
      number: d.number,
      title: d.title,
      state: d.state,
      labels: (d.labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== ''),
      htmlUrl: d.html_url,
      isPullRequest: d.pull_request !== undefined,
    };
  }

  /** Every comment of an issue, oldest first: each page of 100, conditionally. */
  async listComments(issue: number): Promise<{ comments: IssueComment[]; truncated: boolean }> {
    const comments: IssueComment[] = [];
    for (let page = 1; page <= MAX_COMMENT_PAGES; page++) {
      const { data, link } = await this.conditionalGet('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        issue_number: issue,
        per_page: 100,
        page,
      });
      comments.push(...(data as IssueComment[]));
      if (!nextPageUrl(link)) {
        return { comments, truncated: false };
      }
    }
    return { comments, truncated: true };
  }

  /** Open issues matching a filter (labels, assignee, milestone), pull requests left out. */
  async listIssues(filter: { labels?: string; assignee?: string; milestone?: string; state?: string }, limit = 100): Promise<GitHubIssue[]> {
    const params: Record<string, string | number> = { per_page: Math.min(100, limit), page: 1, state: filter.state ?? 'open' };
    for (const k of ['labels', 'assignee', 'milestone'] as const) {
      if (filter[k]) {
        params[k] = filter[k];
      }
    }
    const { data } = await this.conditionalGet('GET /repos/{owner}/{repo}/issues', params);
    return (data as { number: number; title: string; state: string; labels?: { name?: string }[]; pull_request?: unknown }[])
      .filter((d) => d.pull_request === undefined)
      .slice(0, limit)
      .map((d) => ({ number: d.number, title: d.title, state: d.state, labels: (d.labels ?? []).map((l) => l.name ?? ''), isPullRequest: false }));
  }

  async getDefaultBranch(): Promise<string> {
    if (!this.defaultBranch) {
      const { data } = await this.conditionalGet('GET /repos/{owner}/{repo}', {});
      this.defaultBranch = (data as { default_branch?: string }).default_branch || 'main';
    }
    return this.defaultBranch;
  }

  /** Posts a comment (the throttling plugin keeps writes one at a time, ≥ 1 s apart). */
  async createComment(issue: number, body: string): Promise<IssueComment> {
    try {
      const res = await (await this.octokit()).request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        owner: this.owner,
        repo: this.repo,
        issue_number: issue,
        body,
      });
      return res.data as IssueComment;
    } catch (e) {
      throw this.describe(e, { issue_number: issue });
    }
  }

  private describe(e: unknown, params: Record<string, string | number>): GitHubError {
    if (e instanceof GitHubError) {
      return e;
    }
    const err = e as { status?: number; message?: string; name?: string; response?: { headers?: Record<string, string | undefined> } };
    const status = err.status;
    const headers = err.response?.headers ?? {};
    const where = `${this.owner}/${this.repo}${params.issue_number !== undefined ? ` issue #${params.issue_number}` : ''}`;
    const message = String(err.message ?? e);
    if (/timeout|aborted/i.test(message) || err.name === 'TimeoutError') {
      return new GitHubError('timeout', `GitHub did not answer within ${Math.round(this.timeoutMs / 100) / 10} s (${where}): check your network, then Refresh.`, status);
    }
    if (status === 401) {
      return new GitHubError('auth', `GitHub refused the credentials (401) for ${where}: sign in to GitHub again (CLI: set GH_TOKEN or GITHUB_TOKEN to a valid token).`, 401);
    }
    if ((status === 403 || status === 429) && (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message))) {
      const reset = Number(headers['x-ratelimit-reset']);
      const resetAt = Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined;
      const when = resetAt ? ` It resets at ${new Date(resetAt).toISOString().slice(11, 19)} UTC (in ${Math.max(1, Math.ceil((resetAt - Date.now()) / 60_000))} min).` : '';
      return new GitHubError('rate-limit', `GitHub rate limit reached while reading ${where}.${when} Showing what is on disk until then.`, status, resetAt);
    }
    if (status === 403) {
      return new GitHubError('forbidden', `GitHub denied access to ${where} (403): the account may not see this repository, or the token lacks the "repo" scope.`, 403);
    }
    if (status === 404) {
      return new GitHubError('not-found', `Not found on GitHub (404): ${where}. Check the repository (setting ralph.github.repository or --repo) and that your account can see it.`, 404);
    }
    if (status !== undefined && status >= 500 && !/fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|socket/i.test(message)) {
      return new GitHubError('server', `GitHub answered ${status} (server error) for ${where}, also after retrying: try Refresh later.`, status);
    }
    if (/fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|socket|network/i.test(message)) {
      return new GitHubError('network', `Cannot reach GitHub at ${this.apiUrl} (${message}): are you offline? Showing what is on disk.`, status);
    }
    return new GitHubError('other', `GitHub request for ${where} failed${status ? ` (${status})` : ''}: ${message}`, status);
  }
}
