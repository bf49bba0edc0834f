/**
 * Applying and undoing a progress.txt compaction on disk, shared by the CLI and the extension.
 *
 * Applying first carries what a stalled writer appended to the previous compaction's saved original
 * (src/node/compactionReconcile.ts), saves the original to `.ralph/archive/progress-<time>.txt`
 * (beside the file), then replaces the file so that no line an agent appends meanwhile is lost
 * (ARCHITECTURE.md, "Compaction and concurrent writers"):
 *
 * 1. If another process holds progress.txt open (an agent's `tee -a`, `exec 3>>`), it would keep
 *    writing to the file it opened: compaction refuses with a message and changes nothing.
 * 2. The file is opened and read; it must still start with the bytes the plan was made from
 *    (anything after them was appended meanwhile: the tail).
 * 3. The compacted text plus the tail goes to a temporary file beside it, which is renamed over
 *    progress.txt (atomic: readers see the old or the new file). The old file stays open here.
 * 4. Writers that opened the old file before the rename (open-append-close: `echo >>`) may still
 *    write to it: after a short grace period, until no other process holds the old file, every
 *    byte appended to it beyond what was carried is appended to the new file.
 * 5. The saved original is the old file itself, a hard link made before the rename: a writer
 *    stalled past step 4 appends to a file that still exists, and reconcile carries its bytes
 *    later (the log records how many were carried). Where no hard link can be made (EPERM, another
 *    file system), the original is copied as before and the result's warning says so.
 *
 * Undo restores the saved original (with any late lines in it) when progress.txt still holds
 * exactly what the compaction and the reconciles after it wrote (checked by its SHA-256).
 */
import { randomBytes } from 'node:crypto';
import { appendFile, link as hardLink, mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CompactionPlan } from '../core/progress/compact';
import { writeFileAtomically } from './atomicWrite';
import { appendCompactionLog, archiveInLog, compactionLogPath, lastCompaction, linkedNote, ralphDir, sha256 } from './compactionLog';
import { readFrom, reconcileCompaction } from './compactionReconcile';
import { type FileIdentity, describeHolders, fileHolders } from './fileHolders';

export interface AppliedCompaction {
  /** Absolute path of the saved original. */
  readonly archive: string;
  /** Absolute path of the log. */
  readonly log: string;
  /** The line appended to the log (without its line end). */
  readonly logLine: string;
  /** Bytes appended by other writers while the compaction ran, carried into the new file. */
  readonly carriedBytes: number;
  /**
   * Whether the saved original is the replaced file itself (a hard link), so that what a stalled
   * writer appends to it later is carried by reconcile; false where it had to be copied.
   */
  readonly linked: boolean;
  /** Set when a process still held the replaced file at the end, or the original had to be copied. */
  readonly warning?: string;
}

export class CompactionError extends Error {}

export interface ApplyOptions {
  /** The file's name in messages. Default: its base name. */
  readonly displayName?: string;
  /**
   * After the rename, the replaced file is followed until it has been quiet (no holder, nothing
   * appended) this long (ms): a writer that opened it just before the rename, even one held inside
   * open() where no scan can see it, has this long to append. Default 300.
   */
  readonly graceMs?: number;
  /** How long to wait for writers still holding the replaced file (ms). Default 5000. */
  readonly settleMs?: number;
  /** Makes the hard link that keeps the replaced file as the saved original. Default: fs.link. */
  readonly link?: (existing: string, newPath: string) => Promise<void>;
}

function fileStamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, '-');
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** How often the replaced file is looked at while it is followed. */
const STEP_MS = 25;
/** A look that came this much later than asked means this process was starved (a busy machine). */
const STARVED_MS = 100;

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  return data.length >= prefix.length && Buffer.from(data.buffer, data.byteOffset, prefix.length).equals(Buffer.from(prefix));
}

/** Writes a planned compaction of `file`, whose content was `original` when the plan was made. */
export async function applyCompaction(
  file: string,
  original: Uint8Array,
  plan: CompactionPlan,
  now: Date,
  nameOrOptions: string | ApplyOptions = {},
): Promise<AppliedCompaction> {
  const options: ApplyOptions = typeof nameOrOptions === 'string' ? { displayName: nameOrOptions } : nameOrOptions;
  const displayName = options.displayName ?? path.basename(file);
  const graceMs = options.graceMs ?? 300;
  const settleMs = options.settleMs ?? 5000;
  if (!plan.changed) {
    throw new CompactionError(`${displayName}: nothing to compact (${plan.reason}).`);
  }
  // Late lines kept in the previous compaction's saved original are carried first: once this
  // compaction is logged, nothing looks at that archive again. They arrive as appended bytes.
  const earlier = await reconcileCompaction(file, now, displayName);
  const holders = await lastingHolders(file);
  if (holders.length > 0) {
    throw new CompactionError(
      `${displayName} is held open by ${describeHolders(holders)}, which would keep writing to the replaced file. ` +
        'Nothing changed; compact when that process has finished.',
    );
  }
  const old = await open(file, 'r');
  let temp: string | undefined;
  /** The saved original while the file is not replaced yet: removed if anything fails before. */
  let unneeded: string | undefined;
  try {
    const st = await old.stat();
    const identity: FileIdentity = { dev: st.dev, ino: st.ino };
    const current = await readFrom(old, 0);
    if (!startsWith(current, original)) {
      throw new CompactionError(`${displayName} changed while it was being compacted (not only appended to); nothing changed. Run it again.`);
    }
    const archiveDir = path.join(ralphDir(file), 'archive');
    await mkdir(archiveDir, { recursive: true });
    const kept = await keepOriginal(file, identity, current, path.join(archiveDir, `progress-${fileStamp(now)}`), options.link ?? hardLink, displayName);
    const archive = kept.archive;
    unneeded = archive;
    const rel = archiveInLog(file, archive);
    // The new content: the compacted text, then whatever was appended since the plan was made.
    const parts: Buffer[] = [Buffer.from(plan.text, 'utf8'), current.subarray(original.length)];
    let carried = current.length;
    temp = path.join(path.dirname(file), `.${path.basename(file)}.compact-${process.pid}-${randomBytes(4).toString('hex')}`);
    const out = await open(temp, 'wx', st.mode & 0o7777);
    try {
      await out.writeFile(Buffer.concat(parts));
      for (;;) {
        const more = await readFrom(old, carried);
        if (more.length === 0) {
          break;
        }
        await out.writeFile(more);
        if (kept.linkRefused) {
          await appendFile(archive, more); // the copy keeps all the old file had, for undo
        }
        parts.push(more);
        carried += more.length;
      }
      await out.sync();
    } finally {
      await out.close();
    }
    const written = Buffer.concat(parts);
    try {
      await rename(temp, file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPERM' || code === 'EBUSY' || code === 'EACCES') {
        throw new CompactionError(`${displayName} is held open by another process (${code}); nothing changed. Compact when it has finished.`);
      }
      throw e;
    }
    temp = undefined;
    unneeded = undefined;
    // Writers that opened the old file before the rename: carry what they append to it, until the
    // old file has been quiet (no holder, nothing new) for graceMs. A writer held inside open() on
    // a busy machine has the old file but no descriptor yet, so no scan can see it: only time does.
    let carriedAfter = 0;
    const warnings: string[] = [earlier.warning ?? ''];
    if (kept.linkRefused) {
      warnings.push(
        `The original of ${displayName} was copied to ${rel} (a hard link was refused: ${kept.linkRefused}), so a line an agent ` +
          `appends to the replaced file after compaction stopped following it (${graceMs} ms without a write) cannot be carried over.`,
      );
    }
    const deadline = Date.now() + settleMs;
    let quietSince = Date.now();
    for (;;) {
      const asked = Date.now();
      await sleep(Math.min(STEP_MS, graceMs));
      if (Date.now() - asked > STARVED_MS) {
        // This process waited far longer than it asked: a writer may have been starved as well.
        quietSince = Date.now();
      }
      const still = await fileHolders(identity, file);
      const more = await readFrom(old, carried);
      if (more.length > 0) {
        await appendFile(file, more);
        if (kept.linkRefused) {
          await appendFile(archive, more); // the copy keeps all the old file had, for undo
        }
        carried += more.length;
        carriedAfter += more.length;
        quietSince = Date.now();
      }
      const held = still !== undefined && still.length > 0;
      if (held) {
        quietSince = Date.now();
      }
      if (!held && Date.now() - quietSince >= graceMs) {
        break;
      }
      if (Date.now() > deadline) {
        if (held) {
          warnings.push(
            `${describeHolders(still)} still holds the replaced ${displayName} open; ` +
              (kept.linkRefused
                ? `what it writes from now on does not reach ${displayName} (the original is saved at ${rel}).`
                : `what it writes from now on goes to the saved original ${rel} and is carried into ${displayName} before the next iteration or compaction.`),
          );
        }
        break;
      }
    }
    const stories = plan.stories.length > 0 ? ` (${plan.stories.join(', ')})` : '';
    const carriedNote = written.length > plan.text.length || carriedAfter > 0 ? `, ${written.length - Buffer.byteLength(plan.text) + carriedAfter} appended bytes carried over` : '';
    const logLine =
      `${now.toISOString()} ${displayName}: ${plan.linesBefore} → ${plan.linesAfter} lines, ` +
      `${plan.entriesSummarised} entries summarised${stories}${carriedNote}, original saved to ${rel}${kept.linkRefused ? '' : linkedNote(carried)}, ` +
      `result sha256 ${sha256(carriedAfter > 0 ? await readFile(file) : written)}`;
    await appendCompactionLog(file, logLine);
    const warning = warnings.filter(Boolean).join(' ') || undefined;
    const done: AppliedCompaction = {
      archive,
      log: compactionLogPath(file),
      logLine,
      carriedBytes: written.length - Buffer.byteLength(plan.text) + carriedAfter,
      linked: !kept.linkRefused,
      warning,
    };
    return done;
  } finally {
    await old.close();
    if (temp) {
      await unlink(temp).catch(() => undefined);
    }
    if (unneeded) {
      // Failed before the file was replaced: the saved original is not needed.
      await unlink(unneeded).catch(() => undefined);
    }
  }
}

/**
 * Saves the original at `<base>.txt` (or `<base>-<k>.txt` when taken): a hard link to the opened
 * file, checked to be that file (the path may have been replaced since it was opened), else, where
 * the link is refused, a copy of `current`, checked byte for byte.
 */
async function keepOriginal(
  file: string,
  identity: FileIdentity,
  current: Buffer,
  base: string,
  link: (existing: string, newPath: string) => Promise<void>,
  displayName: string,
): Promise<{ archive: string; linkRefused?: string }> {
  for (let k = 0; ; k++) {
    const archive = k === 0 ? `${base}.txt` : `${base}-${k}.txt`;
    let refused: string | undefined;
    try {
      await link(file, archive);
    } catch (e) {
      refused = (e as NodeJS.ErrnoException).code ?? 'error';
      if (refused === 'EEXIST') {
        continue;
      }
    }
    if (refused === undefined) {
      const st = await stat(archive);
      if (st.dev !== identity.dev || st.ino !== identity.ino) {
        await unlink(archive);
        throw new CompactionError(`${displayName} was replaced while it was being compacted; nothing changed. Run it again.`);
      }
      return { archive };
    }
    try {
      await writeFile(archive, current, { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        continue;
      }
      throw e;
    }
    if (sha256(await readFile(archive)) !== sha256(current)) {
      await unlink(archive);
      throw new CompactionError(`the saved copy ${archive} does not match ${displayName}; nothing changed.`);
    }
    return { archive, linkRefused: refused };
  }
}

/**
 * Processes holding `file` open and still holding it over ~150 ms of samples: a writer that opens,
 * appends and closes (`echo >>`) shows up in a sample now and then, one that keeps the file open
 * (`exec 3>>`, `tee -a`) in every one.
 */
async function lastingHolders(file: string): Promise<{ pid: number; command?: string }[]> {
  let lasting = await fileHolders(file);
  for (let k = 0; k < 6 && lasting && lasting.length > 0; k++) {
    await sleep(25);
    const now = await fileHolders(file);
    lasting = lasting.filter((h) => now?.some((n) => n.pid === h.pid));
  }
  return lasting ?? [];
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Restores the original saved by the last compaction, when progress.txt has not changed since
 * (the file's hash is the one the compaction wrote). Returns the restored archive's path.
 */
export async function undoLastCompaction(file: string, now: Date, displayName = path.basename(file)): Promise<string> {
  const last = await lastCompaction(file);
  if (!last) {
    throw new CompactionError(`there is no compaction of ${displayName} to undo.`);
  }
  if (!(await exists(last.archive))) {
    throw new CompactionError(`the saved original ${last.archive} is gone; nothing changed.`);
  }
  const current = await readFile(file).catch(() => undefined);
  if (!last.resultSha256 || !current || sha256(current) !== last.resultSha256) {
    throw new CompactionError(
      `${displayName} has changed since it was compacted, so undoing would lose those changes. The original is still saved at ${last.archive}.`,
    );
  }
  // A linked archive holds the late lines too: they come back with the original.
  await writeFileAtomically(file, await readFile(last.archive));
  await appendCompactionLog(file, `${now.toISOString()} ${displayName}: compaction undone, restored ${archiveInLog(file, last.archive)}`);
  return last.archive;
}
