/**
 * ralph-workbench: the command-line face of src/core, for ralph.sh loops and git hooks. A table of
 * commands, one module each in src/cli/commands/ ({name, summary, usage, run}); `<command> --help`
 * prints that command's usage, `--help` alone the table.
 *
 * A command's module is loaded only when that command runs: `ralph-workbench next` in a loop
 * script must not pay for the GitHub client, git, the Pin scanner or the compaction. The table
 * below `require`s each module where it is needed; scripts/build.mjs bundles every module of
 * src/cli/commands/ the table names as a file of its own (dist/cli/<module>.js) and points these
 * calls at it, so dist/cli.js itself holds only this table and the argument parser. The overall
 * usage loads every module (it lists their summaries).
 */
import { readFileSync } from 'node:fs';
import { parseArgs as nodeParseArgs } from 'node:util';
import { oneLine, visibleControls } from '../core/output';
import type * as ArtifactsModule from './commands/artifacts';
import type * as CompactModule from './commands/compact';
import type * as ContextModule from './commands/context';
import type * as GithubModule from './commands/github';
import type * as GraphModule from './commands/graph';
import type * as ImportModule from './commands/import';
import type * as NextModule from './commands/next';
import type * as PinModule from './commands/pin';
import type * as RenderStreamModule from './commands/renderStream';
import type * as RunModule from './commands/run';
import type * as ReadyModule from './commands/ready';
import type * as StatsModule from './commands/stats';
import type * as ValidateModule from './commands/validate';
import type { CliCommand, CliIo, StdoutKind } from './io';
import { parsePrdArgs, prdOptionsUsage } from './prdOptions';

export type { CliIo } from './io';
/** validate / next / ready arguments (kept under this name for callers and tests). */
export { parsePrdArgs as parseArgs } from './prdOptions';

interface CommandEntry {
  readonly name: string;
  readonly load: () => CliCommand;
}

/* eslint-disable @typescript-eslint/no-require-imports -- a synchronous load on demand, which `import()` is not: validate, next and ready stay synchronous for in-process callers */
/** The commands in the order the usage lists them; `load` requires the command's module. */
export const COMMAND_TABLE: readonly CommandEntry[] = [
  { name: 'validate', load: () => (require('./commands/validate') as typeof ValidateModule).validateCommand },
  { name: 'next', load: () => (require('./commands/next') as typeof NextModule).nextCommand },
  { name: 'ready', load: () => (require('./commands/ready') as typeof ReadyModule).readyCommand },
  { name: 'context', load: () => (require('./commands/context') as typeof ContextModule).contextCommand },
  { name: 'compact', load: () => (require('./commands/compact') as typeof CompactModule).compactCommand },
  { name: 'pin', load: () => (require('./commands/pin') as typeof PinModule).pinCommand },
  { name: 'graph', load: () => require('./commands/graph') as typeof GraphModule },
  { name: 'artifacts', load: () => (require('./commands/artifacts') as typeof ArtifactsModule).artifactsCommand },
  { name: 'run', load: () => (require('./commands/run') as typeof RunModule).runCommand },
  { name: 'render-stream', load: () => (require('./commands/renderStream') as typeof RenderStreamModule).renderStreamCommand },
  { name: 'github', load: () => (require('./commands/github') as typeof GithubModule).githubCommand },
  { name: 'stats', load: () => (require('./commands/stats') as typeof StatsModule).statsCommand },
  { name: 'import', load: () => (require('./commands/import') as typeof ImportModule).importCommand },
];
/* eslint-enable @typescript-eslint/no-require-imports */

function indent(text: string, by: number): string {
  return text.replace(/\n/g, `\n${' '.repeat(by)}`);
}

/** The overall usage: every command with its summary (loads every command's module). */
export function usage(): string {
  const commands = COMMAND_TABLE.map((entry) => entry.load());
  return `Usage: ralph-workbench <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(10)} ${indent(c.summary, 13)}`).join('\n')}

${prdOptionsUsage}`;
}

/** Options any command takes a value for: their values are never the command word. */
const VALUE_OPTIONS = ['prd', 'progress', 'pin', 'template', 'root', 'recent', 'file', 'threshold', 'keep', 'story', 'repo', 'api-url', 'loop', 'parallel', 'agent', 'agent-command', 'check', 'merge', 'failure-limit', 'no-progress-limit', 'timeout-minutes', 'worktree-root', 'max-cost', 'max-tokens', 'branch', 'runs', 'pulls', 'max-parallel', 'out', 'assignee', 'ref', 'write-interval', 'feature', 'since', 'until', 'format', 'tag', 'label', 'milestone'] as const;

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
  const command = COMMAND_TABLE.find((c) => c.name === word)?.load();
  const io = guardedIo(rawIo, command?.stdoutKind?.(argv) ?? (argv.includes('--json') ? 'json' : 'text'));
  if (command) {
    return command.run(argv, io);
  }
  const args = parsePrdArgs(argv);
  if (word === undefined) {
    if (args.error && !args.help) {
      io.stderr(`ralph-workbench: ${args.error}\n\n${usage()}`);
      return 1;
    }
    (args.help ? io.stdout : io.stderr)(usage());
    return args.help ? 0 : 1;
  }
  io.stderr(`ralph-workbench: unknown command "${oneLine(word)}"

${usage()}`);
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
