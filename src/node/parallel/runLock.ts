/**
 * One run per workspace at a time, across VS Code windows and the CLI: a lock under the folder's
 * `.ralph/` (proper-lockfile: an atomic mkdir, its mtime refreshed while held). A holder that
 * crashed stops refreshing it; past `RUN_LOCK_STALE_MS` the lock is stale and the next run takes
 * it over, so a crash never locks a workspace for ever. Who holds it is written inside the lock
 * folder (so a lock just made, its holder not yet written, is never read as an older holder's),
 * for the message of the run that is refused, and so that the lock of a holder that is gone is
 * taken over at once: one run at a time, under a second lock, reads the owner again and replaces it.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { writeFileAtomically } from '../atomicWrite';
import { check } from 'proper-lockfile';
import { ralphLockPath, takeLock } from '../ralphLock';
import { ParallelError, topOf } from './git';

export const RUN_LOCK = '.ralph/run.lock';
/** Who holds the lock, inside its folder. */
export const RUN_LOCK_OWNER = `${RUN_LOCK}/owner.json`;
/** A live holder writes its name milliseconds after making the lock: a nameless lock older than this was left by a holder killed in between. */
const OWNERLESS_GRACE_MS = 3_000;

/** How long ago the lock folder was made or last refreshed (0 when it cannot be read). */
async function ownerlessAge(lockPath: string): Promise<number> {
  return stat(lockPath).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  );
}

/** Held while a dead holder's lock is replaced. */
const TAKEOVER = 'run.lock.takeover';
/** A lock not refreshed for this long belongs to a holder that crashed. */
export const RUN_LOCK_STALE_MS = 10_000;

export interface RunLock {
  release(): Promise<void>;
}

const ownerOf = (lockPath: string): string => path.join(lockPath, path.basename(RUN_LOCK_OWNER));

/**
 * Takes the workspace's run lock for `holder` ("the CLI", "VS Code"), or refuses naming who has it.
 * In a git repository the lock is its top folder's (where the queue state is, and what a run's
 * branches and merges change), whichever of its folders the workspace is.
 */
export async function acquireRunLock(folder: string, holder: string): Promise<RunLock> {
  const root = (await topOf(folder)) ?? folder;
  const lockPath = await ralphLockPath(root, path.basename(RUN_LOCK));
  const busy = (owner?: { text: string }): ParallelError =>
    new ParallelError('locked', `Another run is using this workspace${owner ? ` (${owner.text})` : ''}: wait for it to end or stop it; one run per workspace at a time (lock ${RUN_LOCK}).`);
  const write = async (): Promise<void> => {
    const taken = await stat(lockPath).catch(() => undefined);
    await writeFileAtomically(ownerOf(lockPath), `${JSON.stringify({ holder, pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`).catch(() => undefined);
    // A file written in the folder changes its mtime, which proper-lockfile (comparing it with the
    // mtime it set) would take for a lock compromised and then never release: put it back.
    if (taken) {
      await utimes(lockPath, taken.atime, taken.mtime).catch(() => undefined);
    }
  };
  let release: () => Promise<void>;
  try {
    // Taken over while held (the machine slept past `stale`): the run goes on.
    release = await takeLock(lockPath, RUN_LOCK_STALE_MS, 0, true);
    await write();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') {
      throw new ParallelError('locked', `Cannot take the run lock ${RUN_LOCK} (${(e as NodeJS.ErrnoException).code ?? 'error'}): the run did not start.`);
    }
    const owner = await readOwner(lockPath);
    // A holder on this machine that is gone (killed, crashed) left its lock: take it at once
    // rather than make the user wait out the stale time. A lock whose holder never said who it is
    // (killed between making the lock and writing its name, milliseconds apart) is taken over once
    // it is older than that could take.
    if (!owner && (await ownerlessAge(lockPath)) > OWNERLESS_GRACE_MS) {
      release = await takeOver(lockPath, undefined, write);
    } else if (!owner?.gone) {
      throw busy(owner);
    } else {
      release = await takeOver(lockPath, owner.raw, write);
    }
  }
  return {
    release: async () => {
      await rm(ownerOf(lockPath), { force: true }).catch(() => undefined);
      await release().catch(() => undefined);
    },
  };
}

/**
 * Replaces the lock of a holder that is gone, one process at a time (under a second lock): the
 * owner is read again there and must still be the one found gone, else another run took the
 * workspace meanwhile and this one refuses. The new holder is written before the second lock goes.
 */
async function takeOver(lockPath: string, seen: string | undefined, write: () => Promise<void>): Promise<() => Promise<void>> {
  const justNow = (): ParallelError => new ParallelError('locked', `Another run took this workspace just now: one run per workspace at a time (lock ${RUN_LOCK}).`);
  let unlock: () => Promise<void>;
  try {
    unlock = await takeLock(path.join(path.dirname(lockPath), TAKEOVER), RUN_LOCK_STALE_MS, 0);
  } catch {
    throw justNow();
  }
  try {
    const again = await readOwner(lockPath);
    const still = seen === undefined ? again === undefined && (await ownerlessAge(lockPath)) > OWNERLESS_GRACE_MS : again?.gone === true && again.raw === seen;
    if (!still) {
      throw justNow();
    }
    await rm(lockPath, { recursive: true, force: true });
    const release = await takeLock(lockPath, RUN_LOCK_STALE_MS, 0, true).catch(() => {
      throw justNow();
    });
    await write();
    return release;
  } finally {
    await unlock().catch(() => undefined);
  }
}

/**
 * Whether a live process holds the workspace's run lock now (its text says who), without taking
 * it: a lock not refreshed for `RUN_LOCK_STALE_MS`, or whose holder on this machine is gone, is
 * not live (the next run takes it over). Never changes the lock.
 */
export async function liveRunHolder(root: string): Promise<string | undefined> {
  const lockPath = path.join(root, RUN_LOCK);
  if (!existsSync(lockPath)) {
    return undefined;
  }
  const held = await check(lockPath, { lockfilePath: lockPath, realpath: false, stale: RUN_LOCK_STALE_MS }).catch(() => false);
  const owner = held ? await readOwner(lockPath) : undefined;
  return held && !owner?.gone ? (owner?.text ?? 'a run') : undefined;
}

/** Who holds the lock (its text as written, too), and whether that process is gone (it ran on this machine and no longer exists). */
async function readOwner(lockPath: string): Promise<{ text: string; gone: boolean; raw: string } | undefined> {
  let o: { holder?: unknown; pid?: unknown; host?: unknown; since?: unknown };
  let raw: string;
  try {
    raw = await readFile(ownerOf(lockPath), 'utf8');
    o = JSON.parse(raw) as typeof o;
  } catch {
    return undefined;
  }
  const text = `${typeof o.holder === 'string' ? o.holder : 'a run'}, process ${String(o.pid)}, since ${String(o.since)}`;
  return { raw, text, gone: o.host === hostname() && typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0 && !alive(o.pid) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
