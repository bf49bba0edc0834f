/** Argument reading shared by the `ralph-workbench github` subcommands: strict options, two command words, whole numbers. */
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorMessage } from '../../core/errorMessage';
import { oneLine } from '../../core/output';
import { analyzePrd, type PrdAnalysis } from '../../core/prd/index';
import type { SettingValues } from '../../core/settingKeys';
import { resolveInside } from '../../node/workspacePath';
import { readWorkspaceSettings } from '../../node/workspaceSettings';

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

/**
 * The workspace a `github` subcommand works on: its folder (`--root`, else the current one), its
 * ralph.* settings (their problems said on stderr) and its prd.json (the path rule applied), or
 * undefined after saying on stderr why prd.json could not be read.
 */
export async function readWorkspacePrd(
  rootArg: string | undefined,
  io: { readonly cwd?: string; readonly stderr: (s: string) => void; readonly readFile: (p: string) => Uint8Array },
  prefix: string,
): Promise<{ root: string; settings: SettingValues; prdFile: string; analysis: PrdAnalysis } | undefined> {
  const root = path.resolve(io.cwd ?? process.cwd(), rootArg ?? '.');
  const ws = readWorkspaceSettings(root);
  for (const p of ws.problems) {
    io.stderr(`${prefix}: ${p.message}\n`);
  }
  try {
    const prdFile = await resolveInside(root, ws.values.prdPath, { what: 'ralph.prdPath' });
    return { root, settings: ws.values, prdFile, analysis: analyzePrd(io.readFile(prdFile)) };
  } catch (e) {
    io.stderr(`${prefix}: ${ws.values.prdPath} could not be read: ${oneLine(errorMessage(e))}\n`);
    return undefined;
  }
}
