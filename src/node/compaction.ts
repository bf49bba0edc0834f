/**
 * Applying and undoing a progress.txt compaction on disk, shared by the CLI and the extension.
 * Applying saves the original to `.ralph/archive/progress-<time>.txt` first (beside the file),
 * replaces the file atomically only if it did not change since it was read (an agent may be
 * appending), and appends a line to `.ralph/compaction.log`. Undo restores the saved original when
 * progress.txt still holds exactly what the compaction wrote (checked by its SHA-256).
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CompactionPlan } from '../core/progress/compact';
import { writeFileAtomicallySync } from './atomicWrite';

export interface AppliedCompaction {
  /** Absolute path of the saved original. */
  readonly archive: string;
  /** Absolute path of the log. */
  readonly log: string;
  /** The line appended to the log (without its line end). */
  readonly logLine: string;
}

export class CompactionError extends Error {}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function fileStamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, '-');
}

function ralphDir(file: string): string {
  return path.join(path.dirname(file), '.ralph');
}

/** Writes a planned compaction of `file`, whose content was `original` when the plan was made. */
export function applyCompaction(file: string, original: Uint8Array, plan: CompactionPlan, now: Date, displayName = path.basename(file)): AppliedCompaction {
  if (!plan.changed) {
    throw new CompactionError(`${displayName}: nothing to compact (${plan.reason}).`);
  }
  const ralph = ralphDir(file);
  const archiveDir = path.join(ralph, 'archive');
  mkdirSync(archiveDir, { recursive: true });
  let archive = path.join(archiveDir, `progress-${fileStamp(now)}.txt`);
  for (let k = 1; existsSync(archive); k++) {
    archive = path.join(archiveDir, `progress-${fileStamp(now)}-${k}.txt`);
  }
  writeFileSync(archive, original, { flag: 'wx' });
  if (sha256(readFileSync(archive)) !== sha256(original)) {
    unlinkSync(archive);
    throw new CompactionError(`the saved copy ${archive} does not match ${displayName}; nothing changed.`);
  }
  if (sha256(readFileSync(file)) !== sha256(original)) {
    unlinkSync(archive);
    throw new CompactionError(`${displayName} changed while it was being compacted (an agent writing?); nothing changed. Run it again.`);
  }
  writeFileAtomicallySync(file, plan.text);
  const stories = plan.stories.length > 0 ? ` (${plan.stories.join(', ')})` : '';
  const logLine =
    `${now.toISOString()} ${displayName}: ${plan.linesBefore} → ${plan.linesAfter} lines, ` +
    `${plan.entriesSummarised} entries summarised${stories}, original saved to ${path.relative(path.dirname(file), archive)}, ` +
    `result sha256 ${sha256(plan.text)}`;
  const log = path.join(ralph, 'compaction.log');
  appendFileSync(log, `${logLine}\n`);
  return { archive, log, logLine };
}

export interface LastCompaction {
  readonly archive: string;
  readonly resultSha256?: string;
  readonly line: string;
}

/** The newest compaction of `file` in its log that was not undone, if any. */
export function lastCompaction(file: string): LastCompaction | undefined {
  const log = path.join(ralphDir(file), 'compaction.log');
  if (!existsSync(log)) {
    return undefined;
  }
  const lines = readFileSync(log, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
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
export function undoLastCompaction(file: string, now: Date, displayName = path.basename(file)): string {
  const last = lastCompaction(file);
  if (!last) {
    throw new CompactionError(`there is no compaction of ${displayName} to undo.`);
  }
  if (!existsSync(last.archive)) {
    throw new CompactionError(`the saved original ${last.archive} is gone; nothing changed.`);
  }
  const current = existsSync(file) ? readFileSync(file) : undefined;
  if (!last.resultSha256 || !current || sha256(current) !== last.resultSha256) {
    throw new CompactionError(
      `${displayName} has changed since it was compacted, so undoing would lose those changes. The original is still saved at ${last.archive}.`,
    );
  }
  writeFileAtomicallySync(file, readFileSync(last.archive));
  appendFileSync(path.join(ralphDir(file), 'compaction.log'), `${now.toISOString()} ${displayName}: compaction undone, restored ${path.relative(path.dirname(file), last.archive)}\n`);
  return last.archive;
}
