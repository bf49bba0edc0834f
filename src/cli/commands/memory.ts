/**
 * `compact` and `pin`: progress.txt compaction and the Pin (src/cli/memory.ts does the work). Each
 * prints only its own part of memory.ts's usage for `--help`.
 */
import { memoryUsage, runMemory } from '../memory';
import type { CliCommand, CliIo } from '../io';

/** The part of memoryUsage about one command: from its "ralph-workbench <name>" line to the next command's. */
export function usageOf(name: string): string {
  const lines = memoryUsage.split('\n');
  const start = lines.findIndex((l) => l.trimStart().startsWith(`ralph-workbench ${name}`));
  if (start < 0) {
    return memoryUsage;
  }
  let end = start + 1;
  while (end < lines.length && !/^\s*ralph-workbench /.test(lines[end])) {
    end++;
  }
  return `Usage:\n${lines.slice(start, end).join('\n').replace(/\n*$/, '\n')}`;
}

function memoryCommand(name: string, summary: string, stdoutKind?: CliCommand['stdoutKind']): CliCommand {
  const usage = usageOf(name);
  return {
    name,
    summary,
    usage,
    stdoutKind,
    run(argv: readonly string[], io: CliIo): number | Promise<number> {
      if (argv.includes('--help') || argv.includes('-h')) {
        io.stdout(usage);
        return 0;
      }
      return runMemory(argv, io);
    },
  };
}

export const compactCommand = memoryCommand('compact', 'Compact progress.txt: keep header, Codebase Patterns and recent entries, summarise\nthe rest per story (compact --help).');
export const pinCommand = memoryCommand(
  'pin',
  'Generate the Pin (specs/INDEX.md) for the repository, merged with the existing one\n(pin --help).',
  // Without --write it prints the Pin itself: a document (redirected into specs/INDEX.md as it is).
  (argv) => (argv.includes('--json') ? 'json' : argv.includes('--write') ? 'text' : 'document'),
);
