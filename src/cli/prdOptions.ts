/**
 * The options of the prd.json commands (validate, next, ready) and their parser. Apart from
 * commands/prdArgs.ts so that main.ts can read them for the overall usage and its errors without
 * loading the prd.json model.
 */
import { parseArgs as nodeParseArgs } from 'node:util';

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
