/**
 * What the issue and Actions modules (issuesApi.ts, actionsApi.ts) use of the one GitHubClient:
 * its conditional reads (ETag cache), reads of every page, and its paced writes. One client, one
 * Octokit, one cache: these modules never build their own.
 */
import type { z } from 'zod';
import type { GitHubError } from './errors';

export type RouteParams = Record<string, string | number>;

/** A write GitHub refused: its status, answer and message, for a method that treats some as fine. */
export interface WriteFailure {
  readonly status: number;
  readonly data: unknown;
  readonly error: GitHubError;
}

export interface WriteOptions {
  /**
   * Decides about a refused write: 'done' resolves it (e.g. a 422 "already exists"), a
   * GitHubError is thrown instead of the usual one, undefined throws the usual one.
   */
  readonly onFailure?: (failure: WriteFailure) => 'done' | GitHubError | undefined;
}

export interface GitHubTransport {
  readonly owner: string;
  readonly repo: string;
  /** `acme/taskflow issue #42`: how messages name what a request was about. */
  where(params: RouteParams): string;
  /** A conditional GET (a 304 answers from the cache); a 3xx is a GitHubError 'moved' (not followed). */
  read<T>(route: string, params: RouteParams, schema: z.ZodType<T>): Promise<T>;
  /** Every page at per_page=100, each conditionally; `items` picks the list out of a page's answer. */
  readAll<P, T>(route: string, params: RouteParams, pageSchema: z.ZodType<P>, items: (page: P) => readonly T[]): Promise<T[]>;
  /**
   * A write through the client's write queue (one at a time, `writeIntervalMs` apart). A POST is
   * never retried (it may have landed); a 3xx is a GitHubError 'moved'. With a schema, the
   * answer is checked and returned.
   */
  write<T = undefined>(route: string, params: RouteParams, body: Record<string, unknown>, schema?: z.ZodType<T>, options?: WriteOptions): Promise<T | undefined>;
}

/**
 * Writes to one GitHub host from this process: one at a time, each sent at least the interval
 * after the one before was answered (GitHub asks this of content-creating requests; counting
 * from the answer, the gap holds where GitHub receives them too). Shared by the clients of a
 * host, so two folders' clients do not write at once.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private lastEnd = 0;

  run<T>(intervalMs: number, write: () => Promise<T>): Promise<T> {
    const go = async (): Promise<T> => {
      const wait = this.lastEnd + intervalMs - Date.now();
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      try {
        return await write();
      } finally {
        this.lastEnd = Date.now();
      }
    };
    const result = this.tail.then(go, go);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

const queues = new Map<string, WriteQueue>();

/** The write queue of a host (the REST base URL). */
export function writeQueueFor(apiUrl: string): WriteQueue {
  let q = queues.get(apiUrl);
  if (!q) {
    q = new WriteQueue();
    queues.set(apiUrl, q);
  }
  return q;
}
