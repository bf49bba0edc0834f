/** The work of `ralph-workbench compact`: progress.txt compaction (arguments in memory.ts). */
import path from 'node:path';
import { DEFAULT_KEEP_RECENT_LINES, DEFAULT_THRESHOLD, planCompaction, stillOverAdvice, type CompactionPlan } from '../core/progress/compact';
import { decodeText, looksBinary, splitLines } from '../core/progress/parse';
import { applyCompaction } from '../node/compaction';
import { reconcileCompaction } from '../node/compactionReconcile';
import type { MemoryArgs, MemoryIo } from './memory';


function intOption(args: MemoryArgs, name: string, fallback: number): number | string {
  const v = args.options.get(name);
  if (v === undefined) {
    return fallback;
  }
  if (!/^\d+$/.test(v)) {
    return `${name} needs a whole number, not "${v}"`;
  }
  return Number(v);
}

export async function compact(args: MemoryArgs, io: MemoryIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const threshold = intOption(args, '--threshold', DEFAULT_THRESHOLD);
  const keep = intOption(args, '--keep', DEFAULT_KEEP_RECENT_LINES);
  for (const v of [threshold, keep]) {
    if (typeof v === 'string') {
      io.stderr(`ralph-workbench compact: ${v}\n`);
      return 1;
    }
  }
  let file = args.options.get('--file') ?? 'progress.txt';
  if (!args.options.has('--file') && !canRead(io, path.resolve(cwd, file)) && canRead(io, path.resolve(cwd, 'scripts/ralph/progress.txt'))) {
    file = 'scripts/ralph/progress.txt';
  }
  const abs = path.resolve(cwd, file);
  const json = args.flags.has('--json');
  const dry = args.flags.has('--dry-run');
  const now = io.now ? io.now() : new Date();
  let late = 0;
  if (!dry) {
    // Lines a stalled agent wrote to the file the last compaction replaced: carried first, so that
    // they are in the plan (and `compact` carries them even when there is nothing to compact).
    try {
      const r = await reconcileCompaction(abs, now, path.relative(cwd, abs) || file);
      late = r.carriedBytes;
      if (r.warning) {
        io.stderr(`ralph-workbench compact: ${r.warning}\n`);
      }
      if (late > 0 && r.archive && !json) {
        io.stdout(`Carried ${late} bytes written to the replaced ${file} after the last compaction (kept in ${path.relative(cwd, r.archive)}).\n`);
      }
    } catch (e) {
      io.stderr(`ralph-workbench compact: cannot carry the lines written after the last compaction: ${(e as Error).message}\n`);
      return 1;
    }
  }
  let bytes: Uint8Array;
  try {
    bytes = io.readFile(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.stderr(`ralph-workbench compact: cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message}\n`);
    return 1;
  }
  const text = decodeText(bytes);
  if (bytes.includes(0) || looksBinary(text)) {
    io.stderr(`ralph-workbench compact: ${file} does not look like a text file (NUL bytes or invalid UTF-8); nothing changed.\n`);
    return 1;
  }
  const plan = planCompaction(text, { threshold: threshold as number, keepRecentLines: keep as number, now });
  if (!plan.changed) {
    if (json) {
      io.stdout(`${JSON.stringify(planJson(plan, file, dry, null, late))}\n`);
    } else {
      io.stdout(`${file}: ${plan.reason}\n${adviceLine(plan)}`);
    }
    return 0;
  }
  if (dry) {
    if (json) {
      io.stdout(`${JSON.stringify(planJson(plan, file, true, null, late))}\n`);
    } else {
      io.stdout(`${file}: would compact (dry run, nothing written).\n${describe(plan)}\n${diffSummary(text, plan, file)}`);
    }
    return 0;
  }
  // Save the original, then replace the file atomically unless an agent appended meanwhile.
  let done;
  try {
    done = await applyCompaction(abs, bytes, plan, now, path.relative(cwd, abs) || file);
  } catch (e) {
    io.stderr(`ralph-workbench compact: ${(e as Error).message}\n`);
    return 1;
  }
  if (done.warning) {
    io.stderr(`ralph-workbench compact: ${done.warning}\n`);
  }
  const relArchive = path.relative(cwd, done.archive) || done.archive;
  const dir = path.dirname(abs);
  const ralph = path.join(dir, '.ralph');
  if (json) {
    io.stdout(`${JSON.stringify(planJson(plan, file, false, relArchive, late))}\n`);
  } else {
    io.stdout(`${file}: compacted.\n${describe(plan)}\nOriginal saved to ${relArchive}; logged to ${path.relative(cwd, path.join(ralph, 'compaction.log'))}.\n`);
  }
  return 0;
}

function canRead(io: MemoryIo, p: string): boolean {
  try {
    io.readFile(p);
    return true;
  } catch {
    return false;
  }
}

function planJson(plan: CompactionPlan, file: string, dryRun: boolean, archive: string | null, lateBytesCarried: number): object {
  return {
    file,
    changed: plan.changed,
    dryRun,
    reason: plan.reason,
    linesBefore: plan.linesBefore,
    linesAfter: plan.linesAfter,
    entriesSummarised: plan.entriesSummarised,
    entriesKept: plan.entriesKept,
    stories: plan.stories,
    stillOver: stillOverAdvice(plan, CLI_KNOBS) ?? null,
    archive,
    lateBytesCarried,
  };
}

const CLI_KNOBS = { keep: '--keep', threshold: '--threshold' };

/** The line saying why the file stays over the threshold and what to change, or nothing. */
function adviceLine(plan: CompactionPlan): string {
  const advice = stillOverAdvice(plan, CLI_KNOBS);
  return advice ? `  ${advice}\n` : '';
}

function describe(plan: CompactionPlan): string {
  return (
    `  lines: ${plan.linesBefore} → ${plan.linesAfter}\n` +
    `  entries summarised: ${plan.entriesSummarised} (stories ${plan.stories.join(', ')})\n` +
    `  entries kept verbatim: ${plan.entriesKept}` +
    (plan.stillOver ? `\n${adviceLine(plan).trimEnd()}` : '')
  );
}

/** A short unified-style diff: the replaced range, its first and last removed lines, and the added section. */
export function diffSummary(oldText: string, plan: CompactionPlan, file: string, context = 3, addedLines = 40): string {
  const r = plan.replaced;
  if (!r) {
    return '';
  }
  const oldLines = splitLines(oldText).lines;
  const newLines = splitLines(plan.text).lines;
  const removed = oldLines.slice(r.startLine, r.endLine);
  const added = newLines.slice(r.startLine, r.newEndLine);
  const out: string[] = [`--- ${file}`, `+++ ${file} (compacted)`];
  out.push(`@@ -${r.startLine + 1},${removed.length} +${r.startLine + 1},${added.length} @@`);
  for (const l of oldLines.slice(Math.max(0, r.startLine - context), r.startLine)) {
    out.push(` ${l}`);
  }
  if (removed.length <= 2 * context + 1) {
    out.push(...removed.map((l) => `-${l}`));
  } else {
    out.push(...removed.slice(0, context).map((l) => `-${l}`));
    out.push(`-… ${removed.length - 2 * context} more lines …`);
    out.push(...removed.slice(-context).map((l) => `-${l}`));
  }
  out.push(...added.slice(0, addedLines).map((l) => `+${l}`));
  if (added.length > addedLines) {
    out.push(`+… ${added.length - addedLines} more lines …`);
  }
  for (const l of oldLines.slice(r.endLine, r.endLine + context)) {
    out.push(` ${l}`);
  }
  return `${out.join('\n')}\n`;
}
