/**
 * What the memory commands `compact` and `pin` share: their usage (each prints only its own part
 * of memory.ts's usage for `--help`) and the command object around their work. Their work is in
 * commands/compact.ts and commands/pin.ts, bundles of their own, so that each loads only what it
 * uses (issue 17 §8).
 */
import { type MemoryArgs, type MemoryIo, memoryUsage, runMemory } from '../memory';
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

export function memoryCommand(name: string, summary: string, work: (args: MemoryArgs, io: MemoryIo) => Promise<number>, stdoutKind?: CliCommand['stdoutKind']): CliCommand {
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
      return runMemory(argv, io, work);
    },
  };
}
