/**
 * The memory commands of the CLI:
 *   compact [--file progress.txt] [--dry-run] [--threshold N] [--keep N] [--json]
 *   pin     [--root DIR] [--pin FILE] [--write] [--json]
 * Reads go through CliIo.readFile where they can (so tests can run them in memory); writes use
 * node:fs directly and are atomic (temp file in the same folder, then rename).
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parsePin, pinFormatNote, type PinModule } from '../core/pin/format';
import { DEFAULT_KEEP_RECENT_LINES, DEFAULT_THRESHOLD, planCompaction, stillOverAdvice, type CompactionPlan } from '../core/progress/compact';
import { writeFileAtomicallySync } from '../node/atomicWrite';
import { applyCompaction } from '../node/compaction';
import { generateRepoPin } from '../node/pinRepo';
import { decodeText, looksBinary, splitLines } from '../core/progress/parse';

export interface MemoryIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly readFile: (path: string) => Uint8Array;
  /** Current time (tests pin it). */
  readonly now?: () => Date;
  /** Working directory for relative paths (default process.cwd()). */
  readonly cwd?: string;
}

const COMMANDS = ['compact', 'pin'] as const;
const VALUE_OPTIONS = ['--file', '--threshold', '--keep', '--root', '--pin', '--prd'];

export const memoryUsage = `Usage:
  ralph-workbench compact [--file progress.txt] [--dry-run] [--threshold N] [--keep N] [--json]
      Over N lines (default ${DEFAULT_THRESHOLD}), keep the header and the Codebase Patterns section,
      keep the newest entries (about --keep lines, default ${DEFAULT_KEEP_RECENT_LINES}) and summarise the
      older ones per story (id, files changed, learnings) in a "Compacted history" section.
      The original is saved to .ralph/archive/progress-<time>.txt first and the action is logged
      to .ralph/compaction.log (both beside the file). --dry-run shows what would change.
  ralph-workbench pin [--root DIR] [--pin FILE] [--write] [--json]
      Generate the Pin (specs/INDEX.md) for the repository in DIR (default .): modules from the
      files of \`git ls-files\` (or a folder walk that honours .gitignore), keywords from names,
      exports and imports, merged with the existing specs/INDEX.md (what a person wrote is kept).
      Prints it, or writes it with --write.
`;

/** Whether argv's command (its first non-option word) is one of the memory commands. */
export function isMemoryCommand(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (VALUE_OPTIONS.includes(a)) {
      i++;
    } else if (!a.startsWith('-')) {
      return (COMMANDS as readonly string[]).includes(a);
    }
  }
  return false;
}

interface MemoryArgs {
  command: string;
  options: Map<string, string>;
  flags: Set<string>;
  error?: string;
}

function parseMemoryArgs(argv: readonly string[]): MemoryArgs {
  const args: MemoryArgs = { command: '', options: new Map(), flags: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    if (VALUE_OPTIONS.includes(name)) {
      const v = eq > 0 && a.startsWith('--') ? a.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '') {
        args.error = `${name} needs a value`;
      } else {
        args.options.set(name, v);
      }
    } else if (['--dry-run', '--write', '--json', '-h', '--help'].includes(a)) {
      args.flags.add(a === '-h' ? '--help' : a);
    } else if (a.startsWith('-')) {
      args.error = `unknown option ${a}`;
    } else if (args.command === '') {
      args.command = a;
    } else {
      args.error = `unexpected argument ${a}`;
    }
  }
  return args;
}

export async function runMemory(argv: readonly string[], io: MemoryIo): Promise<number> {
  const args = parseMemoryArgs(argv);
  if (args.flags.has('--help')) {
    io.stdout(memoryUsage);
    return 0;
  }
  if (args.error) {
    io.stderr(`ralph-workbench: ${args.error}\n\n${memoryUsage}`);
    return 1;
  }
  try {
    return await (args.command === 'compact' ? compact(args, io) : pin(args, io));
  } catch (e) {
    io.stderr(`ralph-workbench ${args.command}: ${(e as Error).message}\n`);
    return 1;
  }
}

// ---------------------------------------------------------------------------------------------
// compact

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

async function compact(args: MemoryArgs, io: MemoryIo): Promise<number> {
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
  let bytes: Uint8Array;
  try {
    bytes = io.readFile(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.stderr(`ralph-workbench compact: cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message}\n`);
    return 1;
  }
  const json = args.flags.has('--json');
  const dry = args.flags.has('--dry-run');
  const text = decodeText(bytes);
  if (bytes.includes(0) || looksBinary(text)) {
    io.stderr(`ralph-workbench compact: ${file} does not look like a text file (NUL bytes or invalid UTF-8); nothing changed.\n`);
    return 1;
  }
  const now = io.now ? io.now() : new Date();
  const plan = planCompaction(text, { threshold: threshold as number, keepRecentLines: keep as number, now });
  if (!plan.changed) {
    if (json) {
      io.stdout(`${JSON.stringify(planJson(plan, file, dry, null))}\n`);
    } else {
      io.stdout(`${file}: ${plan.reason}\n${adviceLine(plan)}`);
    }
    return 0;
  }
  if (dry) {
    if (json) {
      io.stdout(`${JSON.stringify(planJson(plan, file, true, null))}\n`);
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
  const relArchive = path.relative(cwd, done.archive) || done.archive;
  const dir = path.dirname(abs);
  const ralph = path.join(dir, '.ralph');
  if (json) {
    io.stdout(`${JSON.stringify(planJson(plan, file, false, relArchive))}\n`);
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

function planJson(plan: CompactionPlan, file: string, dryRun: boolean, archive: string | null): object {
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

// ---------------------------------------------------------------------------------------------
// pin

function moduleJson(m: PinModule): object {
  return { name: m.name, description: m.description.join('\n'), keywords: m.keywords, files: m.files, spec: m.spec ?? null, line: m.line ?? null };
}

async function pin(args: MemoryArgs, io: MemoryIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const root = path.resolve(cwd, args.options.get('--root') ?? '.');
  try {
    if (!statSync(root).isDirectory()) {
      io.stderr(`ralph-workbench pin: ${root} is not a folder.\n`);
      return 1;
    }
  } catch {
    io.stderr(`ralph-workbench pin: no such folder ${root}.\n`);
    return 1;
  }
  const pinRel = args.options.get('--pin') ?? 'specs/INDEX.md';
  const pinAbs = path.resolve(root, pinRel);
  const { doc, text, existingText, source, files, added, updated, stale } = await generateRepoPin(root, pinAbs);
  const shown = path.relative(cwd, pinAbs) || pinRel;
  const formatNote = existingText !== undefined ? pinFormatNote(parsePin(existingText), shown) : undefined;
  if (formatNote) {
    io.stderr(`ralph-workbench pin: ${formatNote}\n`);
  }
  if (source === 'walk') {
    io.stderr(`ralph-workbench pin: ${root} is not a git repository (or git is not installed); listing files with a folder walk that honours .gitignore.\n`);
  }
  const shownPin = path.relative(cwd, pinAbs) || pinRel;
  if (args.flags.has('--json')) {
    io.stdout(
      `${JSON.stringify({ pin: shownPin, source, files: files.length, modules: doc.modules.map(moduleJson), added, updated, changed: text !== existingText, stale })}\n`,
    );
  } else if (!args.flags.has('--write')) {
    io.stdout(text);
  }
  for (const s of stale) {
    io.stderr(`ralph-workbench pin: ${shownPin}: module "${s.module}" lists ${s.file}, which is not among the repository's files.\n`);
  }
  if (args.flags.has('--write')) {
    if (text === existingText) {
      io.stdout(`${shownPin} is up to date (${doc.modules.length} modules, ${files.length} files from ${source === 'git' ? 'git ls-files' : 'a folder walk'}).\n`);
      return 0;
    }
    mkdirSync(path.dirname(pinAbs), { recursive: true });
    writeFileAtomicallySync(pinAbs, text);
    io.stdout(`Wrote ${shownPin}: ${doc.modules.length} modules (${added} added, ${updated} updated), ${files.length} files from ${source === 'git' ? 'git ls-files' : 'a folder walk'}.\n`);
  } else if (!args.flags.has('--json')) {
    io.stderr(`ralph-workbench pin: ${doc.modules.length} modules (${added} new, ${updated} updated) from ${files.length} files; --write saves it to ${shownPin}.\n`);
  }
  return 0;
}
