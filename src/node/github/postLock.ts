/**
 * One poster at a time per issue, across every window and CLI on this machine: a lock under the
 * folder's `.ralph/` (proper-lockfile), held across re-read-then-post so two self-heals at the
 * same moment cannot both see "not linked" and both post. A holder that crashed stops updating
 * the lock, which is then stale and taken over: it never blocks for ever.
 */
import * as path from 'node:path';
import { ralphLockPath, takeLock } from '../ralphLock';
import { GitHubError } from './errors';

/** A lock not updated for this long belongs to a holder that crashed. */
export const POST_LOCK_STALE_MS = 10_000;

export interface PostLockOptions {
  /** Longest wait for another poster to finish. Default 60 s. */
  readonly waitMs?: number;
}

/** Runs `fn` holding the posting lock of `issue` under `<root>/.ralph/`. */
export async function withPostLock<T>(root: string, issue: number, fn: () => Promise<T>, options: PostLockOptions = {}): Promise<T> {
  const rel = `.ralph/github-post-${issue}.lock`;
  // The path rule first: a .ralph that is a symlink leading outside the folder is refused.
  const lockPath = await ralphLockPath(root, path.basename(rel), (e) => new GitHubError('lock', `Cannot create .ralph/ for the posting lock (${e.code ?? 'error'}): nothing was posted.`));
  const waitMs = options.waitMs ?? 60_000;
  let release: () => Promise<void>;
  try {
    // A lock taken over while held (the machine slept past `stale`): the post under way finishes;
    // the re-read of the next holder still sees it.
    release = await takeLock(lockPath, POST_LOCK_STALE_MS, { retries: Math.ceil(waitMs / 250), minTimeout: 25, maxTimeout: 250, factor: 1.5 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOCKED') {
      throw new GitHubError('lock', `Another Ralph Workbench window or CLI has been posting to issue #${issue} for over ${Math.round(waitMs / 1000)} s (lock ${rel}): nothing was posted; try again in a moment.`);
    }
    throw new GitHubError('lock', `Cannot take the posting lock ${rel} (${code ?? 'error'}): nothing was posted.`);
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
