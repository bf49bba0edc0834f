/**
 * A local GitHub REST emulator for tests, on 127.0.0.1 (never github.com): a repository, its
 * issues, comments paginated over several pages (Link headers), comment creation, ETag / 304,
 * a 403 primary rate limit with reset headers, a secondary limit with retry-after, 401, 404,
 * 500, a slow response, a raw (HTML, non-JSON) or truncated body, a reset connection, a POST that
 * lands and then answers 502 or never answers, and broken paging (`endlessNext`, `ignorePage`).
 * It counts requests. It is bounded (at most `maxRequests`) and stops by
 * itself after `lifetimeMs`; its timers never keep a process alive.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EmulatedComment {
  id: number;
  body: string;
  created_at: string;
  html_url: string;
  user: { login: string };
  /** The REST field: the author's relation to the repository. */
  author_association: AuthorAssociation;
}

export type AuthorAssociation = 'OWNER' | 'MEMBER' | 'COLLABORATOR' | 'CONTRIBUTOR' | 'FIRST_TIME_CONTRIBUTOR' | 'FIRST_TIMER' | 'MANNEQUIN' | 'NONE';

/** Who writes a comment: by default the repository's owner (the bot the tests sign in as). */
export interface CommentAuthor {
  readonly login: string;
  readonly association: AuthorAssociation;
}

export const OWNER_BOT: CommentAuthor = { login: 'ralph-bot', association: 'OWNER' };

export interface EmulatedIssue {
  number: number;
  title: string;
  state: 'open' | 'closed';
  labels: string[];
  comments: EmulatedComment[];
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
  /** Does the work (a POST creates the comment), then answers 502 or never answers. */
  | { kind: 'lands-then'; then: 502 | 'stall' };

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
}

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

export class GitHubEmulator {
  readonly owner: string;
  readonly repo: string;
  defaultBranch: string;
  readonly issues = new Map<number, EmulatedIssue>();
  readonly requests: RecordedRequest[] = [];
  readonly faults: FaultRule[] = [];
  /** A broken server: every comments page says there is a next page. */
  endlessNext = false;
  /** A broken server: every page number answers the first page. */
  ignorePage = false;
  private server?: Server;
  private nextCommentId = 1000;
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

  addIssue(number: number, title = `Issue ${number}`, labels: string[] = []): EmulatedIssue {
    const issue: EmulatedIssue = { number, title, state: 'open', labels, comments: [] };
    this.issues.set(number, issue);
    return issue;
  }

  /** Adds a comment (by the owner's bot unless `author` says otherwise); each gets a later creation time than the one before. */
  addComment(number: number, body: string, author: CommentAuthor = OWNER_BOT): EmulatedComment {
    const issue = this.issues.get(number) ?? this.addIssue(number);
    this.clock += 60_000;
    const id = this.nextCommentId++;
    const c: EmulatedComment = {
      id,
      body,
      created_at: new Date(this.clock).toISOString(),
      html_url: `https://github.com/${this.owner}/${this.repo}/issues/${number}#issuecomment-${id}`,
      user: { login: author.login },
      author_association: author.association,
    };
    issue.comments.push(c);
    return c;
  }

  /** Requests received since `from` (an index into `requests`). */
  since(from: number): RecordedRequest[] {
    return this.requests.slice(from);
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

  private send(req: IncomingMessage, res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
    const text = body === undefined ? '' : JSON.stringify(body);
    this.requests.push({
      at: (req as IncomingMessage & { receivedAt?: number }).receivedAt ?? Date.now(),
      method: req.method ?? 'GET',
      url: req.url ?? '',
      status,
      ifNoneMatch: req.headers['if-none-match'] as string | undefined,
      authorized: req.headers.authorization !== undefined,
    });
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', ...headers });
    res.end(text);
  }

  /**
   * A GET answered with an ETag; 304 when If-None-Match matches. As on GitHub, the ETag is of the
   * body only: a page whose comments did not change is 304 even when a new page follows it.
   */
  private sendConditional(req: IncomingMessage, res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
    const etag = `W/"${createHash('sha1').update(JSON.stringify(body)).digest('hex')}"`;
    if (req.headers['if-none-match'] === etag) {
      this.send(req, res, 304, undefined, { etag, ...headers });
      return;
    }
    this.send(req, res, 200, body, { etag, ...headers });
  }

  private record(req: IncomingMessage, status: number): void {
    this.requests.push({ at: Date.now(), method: req.method ?? 'GET', url: req.url ?? '', status, authorized: req.headers.authorization !== undefined });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    (req as IncomingMessage & { receivedAt?: number }).receivedAt = Date.now();
    if (this.requests.length >= this.maxRequests) {
      this.send(req, res, 503, { message: 'emulator request budget exhausted' });
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const rule = this.faults.find((f) => f.path.test(url.pathname) && (!f.method || f.method === method) && (f.times === undefined || f.times > 0));
    let landsThen: 502 | 'stall' | undefined;
    if (rule?.fault.kind === 'lands-then') {
      landsThen = rule.fault.then;
      if (rule.times !== undefined) {
        rule.times--;
      }
    } else if (rule) {
      if (rule.times !== undefined) {
        rule.times--;
      }
      const f = rule.fault;
      if (f.kind === 'slow') {
        await new Promise((r) => setTimeout(r, f.delayMs).unref());
        if (res.destroyed || req.destroyed) {
          this.record(req, 0);
          return;
        }
      } else if (f.kind === 'status') {
        this.send(req, res, f.status, { message: f.status === 401 ? 'Bad credentials' : f.status === 404 ? 'Not Found' : 'Server Error' });
        return;
      } else if (f.kind === 'raw') {
        this.record(req, f.status);
        res.writeHead(f.status, { 'content-type': f.contentType }).end(f.body.slice(0, MAX_RAW_BODY));
        return;
      } else if (f.kind === 'truncated') {
        this.record(req, 200);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': '4096' });
        res.write('[{"id": 1, "body": "## Research Doc');
        setTimeout(() => res.destroy(), 20).unref();
        return;
      } else if (f.kind === 'reset') {
        this.record(req, 0);
        req.socket.resetAndDestroy();
        return;
      } else if (f.kind === 'rate-limit') {
        const reset = Math.floor(Date.now() / 1000) + f.resetInSeconds;
        this.send(req, res, 403, { message: 'API rate limit exceeded for user.' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) });
        return;
      } else {
        this.send(req, res, 403, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }, { 'retry-after': String(f.retryAfterSeconds) });
        return;
      }
    }
    if (this.options.token !== undefined) {
      const auth = req.headers.authorization ?? '';
      if (auth !== `token ${this.options.token}` && auth !== `bearer ${this.options.token}` && auth !== `Bearer ${this.options.token}`) {
        this.send(req, res, 401, { message: 'Bad credentials' });
        return;
      }
    }
    const base = `/repos/${this.owner}/${this.repo}`;
    const p = url.pathname;
    if (method === 'GET' && p === base) {
      this.sendConditional(req, res, { full_name: `${this.owner}/${this.repo}`, default_branch: this.defaultBranch });
      return;
    }
    if (method === 'GET' && p === `${base}/issues`) {
      const labels = url.searchParams.get('labels')?.split(',').filter(Boolean) ?? [];
      const list = [...this.issues.values()].filter((i) => labels.every((l) => i.labels.includes(l))).map((i) => this.issueJson(i));
      this.sendConditional(req, res, list);
      return;
    }
    const m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)(\/comments)?$/.exec(p);
    if (!m || m[1] !== this.owner || m[2] !== this.repo) {
      this.send(req, res, 404, { message: 'Not Found' });
      return;
    }
    const issue = this.issues.get(Number(m[3]));
    if (!issue) {
      this.send(req, res, 404, { message: 'Not Found' });
      return;
    }
    if (!m[4] && method === 'GET') {
      this.sendConditional(req, res, this.issueJson(issue));
      return;
    }
    if (m[4] && method === 'GET') {
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30)));
      const page = this.ignorePage ? 1 : Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const pages = Math.max(1, Math.ceil(issue.comments.length / perPage));
      const slice = issue.comments.slice((page - 1) * perPage, page * perPage);
      const links: string[] = [];
      const at = (n: number): string => `<${this.apiUrl}${p}?per_page=${perPage}&page=${n}>`;
      if (page < pages || this.endlessNext) {
        links.push(`${at(page + 1)}; rel="next"`, `${at(pages)}; rel="last"`);
      }
      if (page > 1) {
        links.push(`${at(1)}; rel="first"`, `${at(page - 1)}; rel="prev"`);
      }
      this.sendConditional(req, res, slice, links.length ? { link: links.join(', ') } : {});
      return;
    }
    if (m[4] && method === 'POST') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += (chunk as Buffer).length;
        if (size > 70_000) {
          this.send(req, res, 422, { message: 'Body is too long' });
          return;
        }
        chunks.push(chunk as Buffer);
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        this.send(req, res, 400, { message: 'Problems parsing JSON' });
        return;
      }
      const text = (body as { body?: unknown }).body;
      if (typeof text !== 'string' || text === '') {
        this.send(req, res, 422, { message: 'Validation Failed' });
        return;
      }
      const created = this.addComment(issue.number, text);
      if (landsThen === 'stall') {
        // The comment exists; the answer never comes (stop() closes the connection).
        this.record(req, 0);
        return;
      }
      this.send(req, res, landsThen ?? 201, landsThen ? { message: 'Bad Gateway' } : created);
      return;
    }
    this.send(req, res, 404, { message: 'Not Found' });
  }

  private issueJson(i: EmulatedIssue): unknown {
    return {
      number: i.number,
      title: i.title,
      state: i.state,
      labels: i.labels.map((name) => ({ name })),
      comments: i.comments.length,
      html_url: `https://github.com/${this.owner}/${this.repo}/issues/${i.number}`,
    };
  }
}
