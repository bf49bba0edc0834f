/** The arguments and output helpers the prd.json commands (validate, next, ready) share. */
import path from 'node:path';
import { analyzePrd, analyzePrdForReadiness, type PrdAnalysis } from '../../core/prd/index';
import type { Problem } from '../../core/prd/problems';
import { oneLine } from '../../core/output';
import type { CliIo } from '../io';
import { type PrdArgs, parsePrdArgs } from '../prdOptions';

export { type PrdArgs, PRD_OPTIONS, parsePrdArgs, prdOptionsUsage } from '../prdOptions';

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
 * error (with the command's usage), read the file. Undefined result: `exit` is the code.
 */
export function readPrdFile(argv: readonly string[], io: CliIo, usage: string): { args: PrdArgs; bytes: Uint8Array } | { exit: number } {
  const args = parsePrdArgs(argv);
  if (args.help) {
    io.stdout(usage);
    return { exit: 0 };
  }
  if (args.error) {
    io.stderr(`ralph-workbench: ${args.error}\n\n${usage}`);
    return { exit: 1 };
  }
  try {
    return { args, bytes: io.readFile(args.prd) };
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
}

/** The file analysed (readPrdFile, then the analysis); `exit` when there is nothing to analyse. */
export function loadPrd(argv: readonly string[], io: CliIo, usage: string, forReadiness = false): { args: PrdArgs; analysis: PrdAnalysis } | { exit: number } {
  const read = readPrdFile(argv, io, usage);
  return 'exit' in read ? read : { args: read.args, analysis: analyzePrdBytes(read.args, read.bytes, forReadiness) };
}

/** The analysis of the bytes of args.prd. next and ready need positions only for problems: analyzePrdForReadiness skips them on a clean file. */
export function analyzePrdBytes(args: PrdArgs, bytes: Uint8Array, forReadiness: boolean): PrdAnalysis {
  const options = { fileName: path.basename(args.prd) };
  return forReadiness ? analyzePrdForReadiness(bytes, options) : analyzePrd(bytes, options);
}
