/** Argument reading shared by the `ralph-workbench github` subcommands: strict options, two command words, whole numbers. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorMessage } from '../../core/errorMessage';
import { oneLine } from '../../core/output';

export type ArgValues = Record<string, string | boolean | undefined>;

/**
 * The options of `ralph-workbench github <subcommand> …` (unknown options refused), or the error to
 * print: anything after the two command words is refused too.
 */
export function subcommandArgs(argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>): { values: ArgValues } | { error: string } {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    // No option of these commands is `multiple`: a value is a string or a flag.
    return positionals.length > 2 ? { error: `unexpected argument "${oneLine(positionals[2])}"` } : { values: values as ArgValues };
  } catch (e) {
    return { error: oneLine(errorMessage(e)) };
  }
}

/** `--max-parallel`: a whole number of at least 1, undefined when absent, or the message that says what is wrong. */
export function maxParallelValue(raw: string | undefined): number | undefined | { error: string } {
  if (raw === undefined) {
    return undefined;
  }
  return /^\d+$/.test(raw.trim()) && Number(raw) >= 1 ? Number(raw) : { error: `--max-parallel needs a whole number of at least 1 (got "${oneLine(raw)}")` };
}
