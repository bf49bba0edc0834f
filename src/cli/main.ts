/**
 * ralph-workbench: the command-line face of src/core, for ralph.sh loops and git hooks.
 *   validate [--prd FILE] [--json]   exit 0 valid, 1 problems
 *   next     [--prd FILE] [--json]   exit 0 ready or complete, 2 blocked, 1 unreadable file
 *   ready    [--prd FILE] [--json]   the ready stories in run order
 *   context  <storyId> [--prd FILE] [--progress FILE] [--pin FILE] [--template FILE]   the agent's prompt (context.ts)
 *   compact  [--file progress.txt] [--dry-run] [--threshold N] [--keep N]   progress.txt compaction (memory.ts)
 *   pin      [--root DIR] [--write] [--json]   generate / merge specs/INDEX.md (memory.ts)
 *   artifacts <issue>... [--repo O/R] [--api-url URL] [--offline] [--self-heal] [--json]   GitHub issue artifacts (commands/artifacts.ts)
 */
import { readFileSync } from 'node:fs';
import { analyzePrd, analyzePrdQuick, type PrdAnalysis } from '../core/prd/index';
import { artifactsCommand } from './commands/artifacts';
import { isContextCommand, runContext } from './context';
import { isMemoryCommand, runMemory } from './memory';
import type { Problem } from '../core/prd/problems';

export interface CliIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly readFile: (path: string) => Uint8Array;
}

const usage = `Usage: ralph-workbench <command> [options]

Commands:
  validate   Check prd.json: JSON syntax, schema, duplicate ids, unknown or self blockedBy, cycles.
             Exit 0 when valid, 1 when there are problems.
  next       Print the story to run next. Exit 0 when one is ready or all pass,
             2 when stories remain but none is ready, 1 when prd.json cannot be read.
  ready      Print the ready stories in run order.
  context    Print the prompt the agent would get for a story (context <storyId> --help).
  compact    Compact progress.txt: keep header, Codebase Patterns and recent entries, summarise
             the rest per story (compact --help).
  pin        Generate the Pin (specs/INDEX.md) for the repository, merged with the existing one
             (pin --help).
  artifacts  An issue's research / plan / review documents from its GitHub comments and
             thoughts/shared; --self-heal posts missing links (artifacts --help).

Options:
  --prd FILE   The PRD to read (default ./prd.json)
  --json       Machine-readable output
  -h, --help   This help
`;

interface Args {
  command?: string;
  prd: string;
  json: boolean;
  help: boolean;
  error?: string;
}

export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { prd: 'prd.json', json: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') {
      args.json = true;
    } else if (a === '-h' || a === '--help') {
      args.help = true;
    } else if (a === '--prd') {
      const v = argv[++i];
      if (v === undefined) {
        args.error = '--prd needs a file name';
      } else {
        args.prd = v;
      }
    } else if (a.startsWith('--prd=')) {
      args.prd = a.slice('--prd='.length);
    } else if (a.startsWith('-')) {
      args.error = `unknown option ${a}`;
    } else if (args.command === undefined) {
      args.command = a;
    } else {
      args.error = `unexpected argument ${a}`;
    }
  }
  return args;
}

export function runCli(argv: readonly string[], io: CliIo): number {
  if (isContextCommand(argv)) {
    return runContext(argv, io);
  }
  if (isMemoryCommand(argv)) {
    return runMemory(argv, io);
  }
  const args = parseArgs(argv);
  if (args.help || args.command === undefined) {
    (args.help ? io.stdout : io.stderr)(usage);
    return args.help ? 0 : 1;
  }
  if (args.error) {
    io.stderr(`ralph-workbench: ${args.error}\n\n${usage}`);
    return 1;
  }
  if (!['validate', 'next', 'ready'].includes(args.command)) {
    io.stderr(`ralph-workbench: unknown command "${args.command}"\n\n${usage}`);
    return 1;
  }
  let bytes: Uint8Array;
  try {
    bytes = io.readFile(args.prd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    const message = `cannot read ${args.prd}: ${why}`;
    if (args.json) {
      io.stdout(`${JSON.stringify({ problems: [{ code: 'unreadable', message, storyId: null, line: 1, column: 1 }] })}\n`);
    }
    io.stderr(`ralph-workbench: ${message}\n`);
    return 1;
  }
  // validate needs positions for its report; next and ready only when something is wrong.
  const analysis = args.command === 'validate' ? analyzePrd(bytes) : analyzePrdQuick(bytes);
  switch (args.command) {
    case 'validate':
      return validate(analysis, args, io);
    case 'next':
      return next(analysis, args, io);
    default:
      return ready(analysis, args, io);
  }
}

function problemJson(p: Problem): { code: string; message: string; storyId: string | null; line: number; column: number } {
  return { code: p.code, message: p.message, storyId: p.storyId ?? null, line: p.range.start.line + 1, column: p.range.start.character + 1 };
}

function printProblems(problems: readonly Problem[], file: string, write: (s: string) => void): void {
  for (const p of problems) {
    write(`${file}:${p.range.start.line + 1}:${p.range.start.character + 1}: ${p.severity}: ${p.message} [${p.code}]\n`);
  }
}

function validate(a: PrdAnalysis, args: Args, io: CliIo): number {
  if (args.json) {
    io.stdout(`${JSON.stringify({ problems: a.problems.map(problemJson) })}\n`);
  } else if (a.problems.length === 0) {
    io.stdout(`${args.prd}: valid (${a.doc.stories.length} stories, ${a.readiness.counts.done} passing)\n`);
  } else {
    printProblems(a.problems, args.prd, io.stdout);
    io.stdout(`${a.problems.length} problem${a.problems.length === 1 ? '' : 's'} in ${args.prd}\n`);
  }
  return a.problems.length === 0 ? 0 : 1;
}

function next(a: PrdAnalysis, args: Args, io: CliIo): number {
  const r = a.readiness;
  if (!a.readable) {
    if (args.json) {
      io.stdout(`${JSON.stringify({ state: 'invalid', next: null, blocked: [], problems: a.problems.map(problemJson) })}\n`);
    }
    printProblems(a.problems, args.prd, io.stderr);
    io.stderr(`ralph-workbench: ${args.prd} cannot be read as a PRD; fix the problems above.\n`);
    return 1;
  }
  // Graph problems (cycles, unknown ids) leave the file readable: they only block stories.
  printProblems(a.problems, args.prd, io.stderr);
  const state = r.state === 'empty' ? 'complete' : r.state;
  if (args.json) {
    const nextStory = r.next ? { id: r.next.story.id, title: r.next.story.title, priority: finite(r.next.story.priority) } : null;
    io.stdout(`${JSON.stringify({ state, next: nextStory, blocked: r.blocked })}\n`);
  } else if (r.next) {
    io.stdout(`${r.next.story.id} - ${r.next.story.title} (priority ${finite(r.next.story.priority) ?? 'none'})\n`);
  } else if (state === 'complete') {
    io.stdout(`All ${r.counts.total} stories pass.\n`);
  } else {
    io.stdout(`Nothing is ready: ${r.counts.total - r.counts.done} stories remain, all blocked.\n`);
    for (const line of r.explanation) {
      io.stdout(`  ${line}\n`);
    }
  }
  return state === 'blocked' ? 2 : 0;
}

function ready(a: PrdAnalysis, args: Args, io: CliIo): number {
  if (!a.readable) {
    if (args.json) {
      io.stdout(`${JSON.stringify({ ready: [], problems: a.problems.map(problemJson) })}\n`);
    }
    printProblems(a.problems, args.prd, io.stderr);
    return 1;
  }
  const list = a.readiness.ready.map((s) => ({ id: s.story.id, title: s.story.title, priority: finite(s.story.priority) }));
  if (args.json) {
    io.stdout(`${JSON.stringify({ ready: list })}\n`);
  } else {
    for (const s of list) {
      io.stdout(`${s.id} - ${s.title} (priority ${s.priority ?? 'none'})\n`);
    }
    if (list.length === 0) {
      io.stdout('No story is ready.\n');
    }
  }
  return 0;
}

function finite(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}

if (require.main === module) {
  // `ralph-workbench validate | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') {
      process.exit(process.exitCode ?? 0);
    }
    throw e;
  });
  const argv = process.argv.slice(2);
  const io = { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) };
  if (argv[0] === artifactsCommand.name) {
    // Asynchronous commands (network) run here; runCli stays synchronous.
    artifactsCommand.run(argv.slice(1), io).then(
      (code) => {
        process.exitCode = code;
      },
      (e: unknown) => {
        process.stderr.write(`ralph-workbench: ${(e as Error).message ?? String(e)}\n`);
        process.exitCode = 1;
      },
    );
  } else {
    process.exitCode = runCli(argv, { ...io, readFile: (p) => readFileSync(p) });
  }
}
