/**
 * ralph-workbench: the command-line face of src/core, for ralph.sh loops and git hooks. A table of
 * commands, one module each in src/cli/commands/ ({name, summary, usage, run}); `<command> --help`
 * prints that command's usage, `--help` alone the table.
 */
import { readFileSync } from 'node:fs';
import { parseArgs as nodeParseArgs } from 'node:util';
import { artifactsCommand } from './commands/artifacts';
import { contextCommand } from './commands/context';
import * as graphCommand from './commands/graph';
import { compactCommand, pinCommand } from './commands/memory';
import { nextCommand } from './commands/next';
import { parsePrdArgs, prdOptionsUsage } from './commands/prdArgs';
import { readyCommand } from './commands/ready';
import { validateCommand } from './commands/validate';
import { oneLine, visibleControls } from '../core/output';
import type { CliCommand, CliIo, StdoutKind } from './io';

export type { CliIo } from './io';
/** validate / next / ready arguments (kept under this name for callers and tests). */
export { parsePrdArgs as parseArgs } from './commands/prdArgs';

export const COMMANDS: readonly CliCommand[] = [validateCommand, nextCommand, readyCommand, contextCommand, compactCommand, pinCommand, graphCommand, artifactsCommand];

function indent(text: string, by: number): string {
  return text.replace(/\n/g, `\n${' '.repeat(by)}`);
}

export const usage = `Usage: ralph-workbench <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${indent(c.summary, 13)}`).join('\n')}

${prdOptionsUsage}`;

/** Options any command takes a value for: their values are never the command word. */
const VALUE_OPTIONS = ['prd', 'progress', 'pin', 'template', 'root', 'recent', 'file', 'threshold', 'keep'] as const;

/** The command word: the first positional argument, wherever it is among the options. */
export function commandWord(argv: readonly string[]): string | undefined {
  const options = Object.fromEntries(VALUE_OPTIONS.map((o) => [o, { type: 'string' as const }]));
  try {
    const { positionals } = nodeParseArgs({ args: [...argv], options, allowPositionals: true, strict: false });
    return positionals[0];
  } catch {
    return argv.find((a) => !a.startsWith('-'));
  }
}

/**
 * The streams a command writes to: whatever a prd.json, progress.txt or GitHub put in its text, a
 * terminal shows control and bidi characters as escapes (`\u001b`, `\u202e`) rather than obeying
 * them. Only machine-readable stdout (and a document piped on) passes as it is.
 */
function guardedIo<T extends CliIo>(io: T, kind: StdoutKind): T {
  const raw = kind === 'json' || (kind === 'document' && io.terminal !== true);
  return { ...io, stdout: raw ? io.stdout : (s: string) => io.stdout(visibleControls(s)), stderr: (s: string) => io.stderr(visibleControls(s)) };
}

/** Runs one command; the memory commands (which write with concurrent writers in mind) are asynchronous. */
export function runCli(argv: readonly string[], rawIo: CliIo): number | Promise<number> {
  const word = commandWord(argv);
  const command = COMMANDS.find((c) => c.name === word);
  const io = guardedIo(rawIo, command?.stdoutKind?.(argv) ?? (argv.includes('--json') ? 'json' : 'text'));
  if (command) {
    return command.run(argv, io);
  }
  const args = parsePrdArgs(argv);
  if (word === undefined) {
    if (args.error && !args.help) {
      io.stderr(`ralph-workbench: ${args.error}\n\n${usage}`);
      return 1;
    }
    (args.help ? io.stdout : io.stderr)(usage);
    return args.help ? 0 : 1;
  }
  io.stderr(`ralph-workbench: unknown command "${oneLine(word)}"\n\n${usage}`);
  return 1;
}

if (require.main === module) {
  // `ralph-workbench validate | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') {
      process.exit(process.exitCode ?? 0);
    }
    throw e;
  });
  void Promise.resolve(
    runCli(process.argv.slice(2), {
      stdout: (s) => process.stdout.write(s),
      stderr: (s) => process.stderr.write(s),
      readFile: (p) => readFileSync(p),
      terminal: process.stdout.isTTY === true,
    }),
  ).then((code) => {
    process.exitCode = code;
  });
}
