/**
 * One run per workspace at a time, across VS Code windows and the CLI: a lock under the folder's
 * `.ralph/` (proper-lockfile: an atomic mkdir, its mtime refreshed while held). A holder that
 * crashed stops refreshing it; past `RUN_LOCK_STALE_MS` the lock is stale and the next run takes
 * it over, so a crash never locks a workspace for ever. Who holds it is written beside it, for the
 * message of the run that is refused.
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { writeFileAtomically } from '../atomicWrite';
import { check } from 'proper-lockfile';
import { ralphLockPath, takeLock } from '../ralphLock';
import { ParallelError } from './git';

export const RUN_LOCK = '.ralph/run.lock';
const OWNER = '.ralph/run.lock.owner.json';
/** A lock not refreshed for this long belongs to a holder that crashed. */
export const RUN_LOCK_STALE_MS = 10_000;

export interface RunLock {
  release(): Promise<void>;
}

/** Takes the workspace's run lock for `holder` ("the CLI", "VS Code"), or refuses naming who has it. */
export async function acquireRunLock(root: string, holder: string): Promise<RunLock> {
  const lockPath = await ralphLockPath(root, path.basename(RUN_LOCK));
  let release: () => Promise<void>;
  try {
    // Taken over while held (the machine slept past `stale`): the run goes on.
    release = await takeLock(lockPath, RUN_LOCK_STALE_MS, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') {
      throw new ParallelError('locked', `Cannot take the run lock ${RUN_LOCK} (${(e as NodeJS.ErrnoException).code ?? 'error'}): the run did not start.`);
    }
    const owner = await readOwner(root);
    // A holder on this machine that is gone (killed, crashed) left its lock: take it at once
    // rather than make the user wait out the stale time.
    if (!owner?.gone) {
      throw new ParallelError('locked', `Another run is using this workspace${owner ? ` (${owner.text})` : ''}: wait for it to end or stop it; one run per workspace at a time (lock ${RUN_LOCK}).`);
    }
    await rm(lockPath, { recursive: true, force: true });
    try {
      release = await takeLock(lockPath, RUN_LOCK_STALE_MS, 0);
    } catch {
      throw new ParallelError('locked', `Another run took this workspace just now: one run per workspace at a time (lock ${RUN_LOCK}).`);
    }
  }
  await writeFileAtomically(path.join(root, OWNER), `${JSON.stringify({ holder, pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`).catch(() => undefined);
  return {
    release: async () => {
      await rm(path.join(root, OWNER), { force: true }).catch(() => undefined);
      await release().catch(() => undefined);
    },
  };
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
  const owner = held ? await readOwner(root) : undefined;
  return held && !owner?.gone ? (owner?.text ?? 'a run') : undefined;
}

/** Who holds the lock, and whether that process is gone (it ran on this machine and no longer exists). */
async function readOwner(root: string): Promise<{ text: string; gone: boolean } | undefined> {
  let o: { holder?: unknown; pid?: unknown; host?: unknown; since?: unknown };
  try {
    o = JSON.parse(await readFile(path.join(root, OWNER), 'utf8')) as typeof o;
  } catch {
    return undefined;
  }
  const text = `${typeof o.holder === 'string' ? o.holder : 'a run'}, process ${String(o.pid)}, since ${String(o.since)}`;
  return { text, gone: o.host === hostname() && typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0 && !alive(o.pid) };
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
