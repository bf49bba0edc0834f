/**
 * Applying and undoing a progress.txt compaction on disk, shared by the CLI and the extension.
 *
 * Applying saves the original to `.ralph/archive/progress-<time>.txt` first (beside the file),
 * then replaces the file so that no line an agent appends meanwhile is lost (ARCHITECTURE.md,
 * "Compaction and concurrent writers"):
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
 *
 * Undo restores the saved original when progress.txt still holds exactly what the compaction
 * wrote (checked by its SHA-256).
 */
import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, appendFile, mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CompactionPlan } from '../core/progress/compact';
import { writeFileAtomically } from './atomicWrite';
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
  /** Set when a process still held the replaced file at the end (its later lines cannot be carried). */
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
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function fileStamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, '-');
}

function ralphDir(file: string): string {
  return path.join(path.dirname(file), '.ralph');
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** How often the replaced file is looked at while it is followed. */
const STEP_MS = 25;
/** A look that came this much later than asked means this process was starved (a busy machine). */
const STARVED_MS = 100;

/** Bytes of `handle` from `offset` to its current end. */
async function readFrom(handle: FileHandle, offset: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let pos = offset;
  for (;;) {
    const buf = Buffer.allocUnsafe(65536);
    const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) {
      break;
    }
    chunks.push(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return Buffer.concat(chunks);
}

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
  const holders = await lastingHolders(file);
  if (holders.length > 0) {
    throw new CompactionError(
      `${displayName} is held open by ${describeHolders(holders)}, which would keep writing to the replaced file. ` +
        'Nothing changed; compact when that process has finished.',
    );
  }
  const old = await open(file, 'r');
  let temp: string | undefined;
  let archive: string | undefined;
  try {
    const st = await old.stat();
    const identity: FileIdentity = { dev: st.dev, ino: st.ino };
    const current = await readFrom(old, 0);
    if (!startsWith(current, original)) {
      throw new CompactionError(`${displayName} changed while it was being compacted (not only appended to); nothing changed. Run it again.`);
    }
    const ralph = ralphDir(file);
    const archiveDir = path.join(ralph, 'archive');
    await mkdir(archiveDir, { recursive: true });
    archive = path.join(archiveDir, `progress-${fileStamp(now)}.txt`);
    for (let k = 1; await exists(archive); k++) {
      archive = path.join(archiveDir, `progress-${fileStamp(now)}-${k}.txt`);
    }
    await writeFile(archive, original, { flag: 'wx' });
    if (sha256(await readFile(archive)) !== sha256(original)) {
      throw new CompactionError(`the saved copy ${archive} does not match ${displayName}; nothing changed.`);
    }
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
    // Writers that opened the old file before the rename: carry what they append to it, until the
    // old file has been quiet (no holder, nothing new) for graceMs. A writer held inside open() on
    // a busy machine has the old file but no descriptor yet, so no scan can see it: only time does.
    let carriedAfter = 0;
    let warning: string | undefined;
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
          warning =
            `${describeHolders(still)} still holds the replaced ${displayName} open; ` +
            `what it writes from now on does not reach ${displayName} (the original is saved at ${path.relative(path.dirname(file), archive)}).`;
        }
        break;
      }
    }
    const stories = plan.stories.length > 0 ? ` (${plan.stories.join(', ')})` : '';
    const carriedNote = written.length > plan.text.length || carriedAfter > 0 ? `, ${written.length - Buffer.byteLength(plan.text) + carriedAfter} appended bytes carried over` : '';
    const logLine =
      `${now.toISOString()} ${displayName}: ${plan.linesBefore} → ${plan.linesAfter} lines, ` +
      `${plan.entriesSummarised} entries summarised${stories}${carriedNote}, original saved to ${path.relative(path.dirname(file), archive)}, ` +
      `result sha256 ${sha256(carriedAfter > 0 ? await readFile(file) : written)}`;
    const log = path.join(ralph, 'compaction.log');
    await appendFile(log, `${logLine}\n`);
    const done: AppliedCompaction = { archive, log, logLine, carriedBytes: written.length - Buffer.byteLength(plan.text) + carriedAfter, warning };
    archive = undefined;
    return done;
  } finally {
    await old.close();
    if (temp) {
      await unlink(temp).catch(() => undefined);
    }
    if (archive) {
      // Failed before the file was replaced: the saved copy is not needed.
      await unlink(archive).catch(() => undefined);
    }
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

export interface LastCompaction {
  readonly archive: string;
  readonly resultSha256?: string;
  readonly line: string;
}

/** The newest compaction of `file` in its log that was not undone, if any. */
export async function lastCompaction(file: string): Promise<LastCompaction | undefined> {
  const log = path.join(ralphDir(file), 'compaction.log');
  let text: string;
  try {
    text = await readFile(log, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (/ compaction undone, /.test(line)) {
      return undefined;
    }
    const saved = / original saved to (.+?)(?:, result sha256 ([0-9a-f]{64}))?$/.exec(line);
    if (saved) {
      return { archive: path.resolve(path.dirname(file), saved[1]), resultSha256: saved[2], line };
    }
  }
  return undefined;
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
  await writeFileAtomically(file, await readFile(last.archive));
  await appendFile(path.join(ralphDir(file), 'compaction.log'), `${now.toISOString()} ${displayName}: compaction undone, restored ${path.relative(path.dirname(file), last.archive)}\n`);
  return last.archive;
}
