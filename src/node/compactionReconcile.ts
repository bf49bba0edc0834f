/**
 * Carrying the lines a stalled writer appended to the replaced progress.txt after compaction
 * stopped following it (ARCHITECTURE.md, "Compaction and concurrent writers", step 5).
 *
 * Compaction keeps the replaced file itself as the saved original (a hard link in
 * `.ralph/archive/`), and logs how many of its bytes progress.txt holds. A writer that opened the
 * old file before the rename but was held inside open()/write() past the follow window (a loaded
 * machine) appends to that archive. Reconcile appends whatever the archive gained beyond the
 * carried offset to progress.txt in one O_APPEND write, then logs the new offset: running it again
 * carries nothing twice. The extension runs it before each iteration, the CLI's `compact` and every
 * compaction before planning, so no later compaction leaves late lines behind in an old archive.
 */
import { type FileHandle, appendFile, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { appendCompactionLog, archiveInLog, lastCompaction, linkedNote, ralphDir, resultNote, sha256 } from './compactionLog';

export interface Reconciled {
  /** Bytes appended to progress.txt now. */
  readonly carriedBytes: number;
  /** The saved original they came from. */
  readonly archive?: string;
  /** The line appended to the log, when something was carried. */
  readonly logLine?: string;
  /** Set when the saved original cannot be followed (it was rewritten, or progress.txt is gone). */
  readonly warning?: string;
}

/** Bytes of `handle` from `offset` to its current end. */
export async function readFrom(handle: FileHandle, offset: number): Promise<Buffer> {
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

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT';
}

export interface ReconcileOptions {
  /** The file's name in messages. Default: its base name. */
  readonly displayName?: string;
  /**
   * Where the late bytes go instead of `file`: the previous feature's archived progress.txt when a
   * new feature has just restarted `file` (the late lines belong to the feature they were written in).
   */
  readonly into?: string;
}

/** Appends to `file` what the last compaction's linked archive gained since it was last carried. */
export async function reconcileCompaction(file: string, now: Date, nameOrOptions: string | ReconcileOptions = {}): Promise<Reconciled> {
  const options: ReconcileOptions = typeof nameOrOptions === 'string' ? { displayName: nameOrOptions } : nameOrOptions;
  const displayName = options.displayName ?? path.basename(file);
  const into = options.into ?? file;
  const last = await lastCompaction(file);
  // Only a saved original of this file is followed, whatever else a hand-edited log may name.
  if (!last || last.carried === undefined || path.dirname(last.archive) !== path.join(ralphDir(file), 'archive')) {
    return { carriedBytes: 0 };
  }
  const rel = archiveInLog(file, last.archive);
  let handle: FileHandle;
  try {
    handle = await open(last.archive, 'r');
  } catch (e) {
    if (isMissing(e)) {
      return { carriedBytes: 0 }; // the user removed the saved original: nothing left to follow
    }
    throw e;
  }
  try {
    const size = (await handle.stat()).size;
    if (size < last.carried) {
      return {
        carriedBytes: 0,
        archive: last.archive,
        warning: `The saved original ${rel} is shorter than when ${displayName} was compacted (it was changed), so nothing was carried from it.`,
      };
    }
    if (size === last.carried) {
      return { carriedBytes: 0, archive: last.archive };
    }
    const late = await readFrom(handle, last.carried);
    const before = await readFile(into).catch((e: unknown) => {
      if (isMissing(e)) {
        return undefined;
      }
      throw e;
    });
    if (before === undefined) {
      return {
        carriedBytes: 0,
        archive: last.archive,
        warning: `${into === file ? displayName : path.relative(path.dirname(file), into)} is missing: the ${late.length} bytes written to ${displayName} after the last compaction stay in ${rel}.`,
      };
    }
    // One O_APPEND write: an agent appending at the same moment lands before or after, never inside.
    await appendFile(into, late);
    // Undo stays possible only when nothing but Ralph changed progress.txt since the compaction;
    // the hash is of what this append made, not a re-read that may hold another writer's line.
    const result = into === file && last.resultSha256 && sha256(before) === last.resultSha256 ? sha256(Buffer.concat([before, late])) : undefined;
    const logLine =
      `${now.toISOString()} ${displayName}: ${late.length} bytes written to the replaced file after compaction ` +
      (into === file ? '' : `(into ${path.relative(path.dirname(file), into)}, the previous feature's) `) +
      `carried over from ${rel}${linkedNote(last.carried + late.length)}${resultNote(result)}`;
    await appendCompactionLog(file, logLine);
    return { carriedBytes: late.length, archive: last.archive, logLine };
  } finally {
    await handle.close();
  }
}
