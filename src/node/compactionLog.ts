/**
 * `.ralph/compaction.log` beside progress.txt: one line per compaction, per undo and per carry of
 * late bytes (src/node/compactionReconcile.ts). It is the record undo and reconcile read, so the
 * parts they need have a fixed form:
 *
 *   `… original saved to <archive>[ (linked, <N> bytes carried)], result sha256 <hex>`  (a compaction)
 *   `… carried over from <archive> (linked, <N> bytes carried)[, result sha256 <hex>]`  (a reconcile)
 *   `… compaction undone, restored <archive>`                                           (an undo)
 *
 * "linked": the archive is the replaced file itself (a hard link), which a writer that opened it
 * before the replacement may still append to; its first N bytes are in progress.txt already.
 */
import { createHash } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The `.ralph/` folder beside `file`. */
export function ralphDir(file: string): string {
  return path.join(path.dirname(file), '.ralph');
}

export function compactionLogPath(file: string): string {
  return path.join(ralphDir(file), 'compaction.log');
}

/** Appends one line (given without its line end) to the log of `file`. */
export async function appendCompactionLog(file: string, line: string): Promise<void> {
  await appendFile(compactionLogPath(file), `${line}\n`);
}

/** An archive's path as the log writes it: relative to progress.txt's folder. */
export function archiveInLog(file: string, archive: string): string {
  return path.relative(path.dirname(file), archive);
}

/** The note after a linked archive's path: how much of it progress.txt holds. */
export function linkedNote(carried: number): string {
  return ` (linked, ${carried} bytes carried)`;
}

export function resultNote(resultSha256: string | undefined): string {
  return resultSha256 ? `, result sha256 ${resultSha256}` : '';
}

export interface LastCompaction {
  readonly archive: string;
  /** The hash progress.txt has when nothing but Ralph changed it since; absent: changed, or not known. */
  readonly resultSha256?: string;
  /** For a linked archive: how many of its bytes progress.txt holds. Absent for a copy. */
  readonly carried?: number;
  readonly line: string;
}

const COMPACTED = / original saved to (.+?)(?: \(linked, (\d+) bytes carried\))?(?:, result sha256 ([0-9a-f]{64}))?$/;
const RECONCILED = / carried over from (.+?) \(linked, (\d+) bytes carried\)(?:, result sha256 ([0-9a-f]{64}))?$/;

/**
 * The newest compaction of `file` in its log that was not undone, if any, with what later
 * reconciles carried of it: the newest of those lines gives the carried offset and the hash.
 */
export async function lastCompaction(file: string): Promise<LastCompaction | undefined> {
  let text: string;
  try {
    text = await readFile(compactionLogPath(file), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  let newer: { archive: string; carried: number; resultSha256?: string } | undefined;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (/ compaction undone, /.test(line)) {
      return undefined;
    }
    const carried = RECONCILED.exec(line);
    if (carried) {
      newer ??= { archive: carried[1], carried: Number(carried[2]), resultSha256: carried[3] };
      continue;
    }
    const saved = COMPACTED.exec(line);
    if (saved) {
      const archive = path.resolve(path.dirname(file), saved[1]);
      const later = newer && path.resolve(path.dirname(file), newer.archive) === archive ? newer : undefined;
      const linked = later?.carried ?? (saved[2] === undefined ? undefined : Number(saved[2]));
      return { archive, resultSha256: later ? later.resultSha256 : saved[3], carried: linked, line };
    }
  }
  return undefined;
}
