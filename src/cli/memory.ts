/**
 * The memory commands of the CLI, their usage and their arguments:
 *   compact [--file progress.txt] [--dry-run] [--threshold N] [--keep N] [--json]  (compact.ts)
 *   pin     [--root DIR] [--pin FILE] [--write] [--json]                          (pin.ts)
 * Each command's work is in a module of its own, so that `compact` never loads the Pin scanner
 * and `pin` never loads the compaction (issue 17 §8).
 * Reads go through CliIo.readFile where they can (so tests can run them in memory); writes use
 * node:fs directly and are atomic (temp file in the same folder, then rename).
 */
import { DEFAULT_KEEP_RECENT_LINES, DEFAULT_THRESHOLD } from '../core/progress/compact';

export interface MemoryIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly readFile: (path: string) => Uint8Array;
  /** Current time (tests pin it). */
  readonly now?: () => Date;
  /** Working directory for relative paths (default process.cwd()). */
  readonly cwd?: string;
}

const VALUE_OPTIONS = ['--file', '--threshold', '--keep', '--root', '--pin', '--prd'];

export const memoryUsage = `Usage:
  ralph-workbench compact [--file progress.txt] [--dry-run] [--threshold N] [--keep N] [--json]
      Over N lines (default ${DEFAULT_THRESHOLD}), keep the header and the Codebase Patterns section,
      keep the newest entries (about --keep lines, default ${DEFAULT_KEEP_RECENT_LINES}) and summarise the
      older ones per story (id, files changed, learnings) in a "Compacted history" section.
      The original is saved to .ralph/archive/progress-<time>.txt first and the action is logged
      to .ralph/compaction.log (both beside the file). --dry-run shows what would change.
      Lines an agent wrote to the replaced file after the last compaction are carried first.
  ralph-workbench pin [--root DIR] [--pin FILE] [--write] [--json]
      Generate the Pin (specs/INDEX.md) for the repository in DIR (default .): modules from the
      files of \`git ls-files\` (or a folder walk that honours .gitignore), keywords from names,
      exports and imports, merged with the existing specs/INDEX.md (what a person wrote is kept).
      Prints it, or writes it with --write.
`;

export interface MemoryArgs {
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

/** Parses the arguments, prints help or an argument error, and runs the command's work (its errors become messages). */
export async function runMemory(argv: readonly string[], io: MemoryIo, work: (args: MemoryArgs, io: MemoryIo) => Promise<number>): Promise<number> {
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
    return await work(args, io);
  } catch (e) {
    io.stderr(`ralph-workbench ${args.command}: ${(e as Error).message}\n`);
    return 1;
  }
}
