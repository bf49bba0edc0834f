/** The arguments and output helpers the prd.json commands (validate, next, ready) share. */
import path from 'node:path';
import { parseArgs as nodeParseArgs } from 'node:util';
import { analyzePrd, analyzePrdForReadiness, type PrdAnalysis } from '../../core/prd/index';
import type { Problem } from '../../core/prd/problems';
import { oneLine } from '../../core/output';
import type { CliIo } from '../io';

export interface PrdArgs {
  command?: string;
  prd: string;
  json: boolean;
  help: boolean;
  error?: string;
}

export const PRD_OPTIONS = {
  prd: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const prdOptionsUsage = `Options:
  --prd FILE   The PRD to read (default ./prd.json)
  --json       Machine-readable output
  -h, --help   This help
`;

/** validate / next / ready arguments, parsed with node's util.parseArgs. */
export function parsePrdArgs(argv: readonly string[]): PrdArgs {
  const args: PrdArgs = { prd: 'prd.json', json: false, help: false };
  let parsed;
  try {
    parsed = nodeParseArgs({ args: [...argv], options: PRD_OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    const code = (e as { code?: string }).code;
    const m = /'(--?[^' ]+)/.exec((e as Error).message);
    args.error = code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ? `${m?.[1] ?? 'option'} needs a file name` : code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? `unknown option ${m?.[1] ?? ''}` : (e as Error).message;
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && m?.[1].startsWith('--prd')) {
      args.error = '--prd needs a file name';
    }
    const help = argv.includes('--help') || argv.includes('-h');
    args.help = help;
    args.command = argv.find((a) => !a.startsWith('-'));
    return args;
  }
  const { values, positionals } = parsed;
  args.prd = values.prd ?? 'prd.json';
  args.json = values.json ?? false;
  args.help = values.help ?? false;
  args.command = positionals[0];
  if (positionals.length > 1) {
    args.error = `unexpected argument ${positionals[1]}`;
  }
  return args;
}

export function problemJson(p: Problem): { code: string; severity: string; message: string; storyId: string | null; line: number; column: number } {
  return { code: p.code, severity: p.severity, message: p.message, storyId: p.storyId ?? null, line: p.range.start.line + 1, column: p.range.start.character + 1 };
}

export function printProblems(problems: readonly Problem[], file: string, write: (s: string) => void): void {
  for (const p of problems) {
    write(`${file}:${p.range.start.line + 1}:${p.range.start.character + 1}: ${p.severity}: ${oneLine(p.message)} [${p.code}]\n`);
  }
}

export function finite(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}

/**
 * The shared start of validate / next / ready: parse the arguments, print help or an argument
 * error (with the command's usage), read and analyse the file. Undefined result: `exit` is the code.
 */
export function loadPrd(argv: readonly string[], io: CliIo, usage: string, forReadiness = false): { args: PrdArgs; analysis: PrdAnalysis } | { exit: number } {
  const args = parsePrdArgs(argv);
  if (args.help) {
    io.stdout(usage);
    return { exit: 0 };
  }
  if (args.error) {
    io.stderr(`ralph-workbench: ${args.error}\n\n${usage}`);
    return { exit: 1 };
  }
  let bytes: Uint8Array;
  try {
    bytes = io.readFile(args.prd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    const message = `cannot read ${args.prd}: ${why}`;
    if (args.json) {
      io.stdout(`${JSON.stringify({ problems: [{ code: 'unreadable', severity: 'error', message, storyId: null, line: 1, column: 1 }] })}\n`);
    }
    io.stderr(`ralph-workbench: ${message}\n`);
    return { exit: 1 };
  }
  // next and ready need positions only for problems: analyzePrdForReadiness skips them on a clean file.
  const options = { fileName: path.basename(args.prd) };
  return { args, analysis: forReadiness ? analyzePrdForReadiness(bytes, options) : analyzePrd(bytes, options) };
}
