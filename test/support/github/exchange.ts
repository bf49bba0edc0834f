/**
 * One request to the GitHub emulator and its answer: recording (method, path, status, the body of
 * a write), ETags and 304s, and paging with Link headers as GitHub does them.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest } from './types';

/** The largest body a write may send (GitHub's own limit on an issue body is 65,536 characters). */
const MAX_WRITE_BYTES = 300_000;

export class Exchange {
  readonly method: string;
  readonly url: URL;
  readonly receivedAt = Date.now();
  /** The parsed JSON body of a write; undefined for a GET or an empty body. */
  body: unknown;
  /** Set by a `lands-then` fault: the work is done, then the answer is 502 or never comes. */
  landsThen?: 502 | 'stall';

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly requests: RecordedRequest[],
    /** The emulator's base URL, for Link and Location headers. */
    readonly apiUrl: string,
    private readonly paging: { endlessNext: boolean; ignorePage: boolean },
  ) {
    this.method = req.method ?? 'GET';
    this.url = new URL(req.url ?? '/', 'http://127.0.0.1');
  }

  get isWrite(): boolean {
    return this.method !== 'GET' && this.method !== 'HEAD';
  }

  /** Reads a write's JSON body. False (and answered 400/422) when it is too long or not JSON. */
  async readBody(): Promise<boolean> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of this.req) {
      size += (chunk as Buffer).length;
      if (size > MAX_WRITE_BYTES) {
        this.send(422, { message: 'Body is too long' });
        return false;
      }
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (text === '') {
      return true;
    }
    try {
      this.body = JSON.parse(text);
    } catch {
      this.send(400, { message: 'Problems parsing JSON' });
      return false;
    }
    return true;
  }

  record(status: number): void {
    this.requests.push({
      at: this.receivedAt,
      method: this.method,
      url: this.req.url ?? '',
      status,
      ifNoneMatch: this.req.headers['if-none-match'] as string | undefined,
      authorized: this.req.headers.authorization !== undefined,
      ...(this.isWrite && this.body !== undefined ? { body: this.body } : {}),
    });
  }

  /**
   * Answers (and records). A write armed with `lands-then` has done its work by now: its success
   * becomes a 502, or no answer at all (stop() closes the connection).
   */
  send(status: number, body?: unknown, headers: Record<string, string> = {}): void {
    if (this.landsThen !== undefined && status < 400) {
      if (this.landsThen === 'stall') {
        this.record(0);
        return;
      }
      status = 502;
      body = { message: 'Bad Gateway' };
    }
    this.record(status);
    const text = body === undefined ? '' : JSON.stringify(body);
    this.res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', ...headers });
    this.res.end(text);
  }

  notFound(): void {
    this.send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  }

  unprocessable(message: string, errors?: unknown[]): void {
    this.send(422, { message, ...(errors ? { errors } : {}), documentation_url: 'https://docs.github.com/rest' });
  }

  /**
   * A GET answered with an ETag; 304 when If-None-Match matches. As on GitHub, the ETag is of the
   * body only: a page that did not change is 304 even when a new page follows it.
   */
  conditional(body: unknown, headers: Record<string, string> = {}): void {
    const etag = `W/"${createHash('sha1').update(JSON.stringify(body)).digest('hex')}"`;
    if (this.req.headers['if-none-match'] === etag) {
      this.send(304, undefined, { etag, ...headers });
      return;
    }
    this.send(200, body, { etag, ...headers });
  }

  /** `per_page` (default 30, at most 100) and `page` of the query, as GitHub reads them. */
  pageOf(): { perPage: number; page: number } {
    const perPage = Math.min(100, Math.max(1, Number(this.url.searchParams.get('per_page') ?? 30) || 30));
    const page = this.paging.ignorePage ? 1 : Math.max(1, Number(this.url.searchParams.get('page') ?? 1) || 1);
    return { perPage, page };
  }

  /** One page of `items` with Link headers that keep the other query parameters; `wrap` shapes the body. */
  paged<T>(items: readonly T[], wrap: (slice: T[]) => unknown = (slice) => slice): void {
    const { perPage, page } = this.pageOf();
    const pages = Math.max(1, Math.ceil(items.length / perPage));
    const slice = items.slice((page - 1) * perPage, page * perPage);
    const at = (n: number): string => {
      const q = new URLSearchParams(this.url.searchParams);
      q.set('per_page', String(perPage));
      q.set('page', String(n));
      return `<${this.apiUrl}${this.url.pathname}?${q.toString()}>`;
    };
    const links: string[] = [];
    if (page < pages || this.paging.endlessNext) {
      links.push(`${at(page + 1)}; rel="next"`, `${at(pages)}; rel="last"`);
    }
    if (page > 1) {
      links.push(`${at(1)}; rel="first"`, `${at(page - 1)}; rel="prev"`);
    }
    this.conditional(wrap(slice), links.length ? { link: links.join(', ') } : {});
  }
}
