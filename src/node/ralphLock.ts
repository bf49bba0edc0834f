/**
 * A lock file under a folder's `.ralph/` (proper-lockfile: an atomic mkdir, its mtime refreshed
 * while held), shared by the posting lock and the run lock. The path rule is applied before and
 * again after creating `.ralph/` (a `.ralph` that is a symlink leading outside is refused), and a
 * lock taken over while held (the machine slept past `staleMs`) never throws from a timer.
 */
import * as fs from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { lock, type LockOptions } from 'proper-lockfile';
import { resolveInside } from './workspacePath';

/**
 * The path of the lock file `<root>/.ralph/<name>`, creating `.ralph/`. Throws the path rule's
 * refusal as it is, and `folderError(e)` (default: `e`) when `.ralph/` cannot be created.
 */
export async function ralphLockPath(root: string, name: string, folderError: (e: NodeJS.ErrnoException) => Error = (e) => e): Promise<string> {
  const ralph = await resolveInside(root, '.ralph', { what: 'folder' });
  try {
    await mkdir(ralph, { recursive: true });
  } catch (e) {
    throw folderError(e as NodeJS.ErrnoException);
  }
  // Again after creating it: the folder must still be the one inside the workspace.
  return path.join(await resolveInside(root, '.ralph', { what: 'folder' }), name);
}

/** proper-lockfile's file system, with a lock folder removed whole (a lock that keeps its holder's name inside it). */
const withContents = { ...fs, rmdir: (p: string, done: (e: NodeJS.ErrnoException | null) => void) => fs.rm(p, { recursive: true, force: true }, done) };

/**
 * Takes the lock at `lockPath`; resolves to its release. The lock's errors (ELOCKED, …) propagate.
 * `holdsFiles`: files are kept inside the lock folder, removed with it (released or taken over as stale).
 */
export function takeLock(lockPath: string, staleMs: number, retries: LockOptions['retries'], holdsFiles = false): Promise<() => Promise<void>> {
  return lock(lockPath, { lockfilePath: lockPath, realpath: false, stale: staleMs, update: staleMs / 5, retries, onCompromised: () => undefined, ...(holdsFiles ? { fs: withContents } : {}) });
}
