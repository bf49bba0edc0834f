/**
 * `ralph-workbench graph [--prd FILE] [--format text|mermaid|json]`: the task graph of a PRD as
 * the layered wave list (text), a Mermaid flowchart, or JSON
 * `{"waves":[[ids]],"unschedulable":[ids],"criticalPath":[ids],"unblocks":{"<id>":{"direct":n,"total":n}}}`.
 * Exit 0 when the graph was printed (cycles and unknown ids make stories unschedulable, not the
 * file unreadable), 1 when prd.json cannot be read or an option is wrong.
 */
import { parseArgs } from 'node:util';
import { analyzePrd } from '../../core/prd/index';
import { graphJson, graphMermaid, graphText } from '../../core/taskGraph/format';
import { taskGraphOf } from '../../core/taskGraph/model';
import type { CliIo, StdoutKind } from '../io';
import { printProblems } from './prdArgs';

const FORMATS = ['text', 'mermaid', 'json'] as const;
type Format = (typeof FORMATS)[number];

export const name = 'graph';
export const summary = 'Print the story graph: parallel waves, unschedulable stories, the critical path, what each story unblocks.';
export const usage = `Usage: ralph-workbench graph [--prd FILE] [--format text|mermaid|json]

Print the dependency graph of prd.json (an edge goes from a blocker to the story it blocks):
  text     the waves to run, in order ("Wave 1: US-003, US-007"), the unschedulable stories and
           why, the critical path (the longest chain still to go), what unblocks the most
  mermaid  a Mermaid flowchart (paste into a Markdown file)
  json     {"waves":[[ids]],"unschedulable":[ids],"criticalPath":[ids],
            "unblocks":{"<id>":{"direct":n,"total":n}}}

Options:
  --prd FILE        The PRD (default ./prd.json)
  --format FORMAT   text (default), mermaid or json
  -h, --help        This help
`;

/** `--format json` is for programs: the ids as they are. */
export function stdoutKind(argv: readonly string[]): StdoutKind {
  const at = argv.indexOf('--format');
  const format = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--format='))?.slice('--format='.length);
  return format === 'json' ? 'json' : 'text';
}

export function run(argv: readonly string[], io: CliIo): number {
  let values: { prd?: string; format?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: { prd: { type: 'string' }, format: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    io.stderr(`ralph-workbench graph: ${(e as Error).message}\n\n${usage}`);
    return 1;
  }
  if (values.help) {
    io.stdout(usage);
    return 0;
  }
  const extra = positionals.filter((p, i) => !(i === 0 && p === name));
  if (extra.length > 0) {
    io.stderr(`ralph-workbench graph: unexpected argument ${extra[0]}\n\n${usage}`);
    return 1;
  }
  const format = (values.format ?? 'text') as Format;
  if (!FORMATS.includes(format)) {
    io.stderr(`ralph-workbench graph: --format must be text, mermaid or json, not "${values.format}"\n`);
    return 1;
  }
  const prd = values.prd ?? 'prd.json';
  let bytes: Uint8Array;
  try {
    bytes = io.readFile(prd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    io.stderr(`ralph-workbench: cannot read ${prd}: ${why}\n`);
    return 1;
  }
  const analysis = analyzePrd(bytes);
  if (!analysis.readable) {
    printProblems(analysis.problems, prd, io.stderr);
    io.stderr(`ralph-workbench: ${prd} cannot be read as a PRD; fix the problems above.\n`);
    return 1;
  }
  const graph = taskGraphOf(analysis);
  switch (format) {
    case 'json':
      io.stdout(`${JSON.stringify(graphJson(graph))}\n`);
      break;
    case 'mermaid':
      io.stdout(graphMermaid(graph));
      break;
    default:
      io.stdout(graphText(graph));
  }
  return 0;
}
