/** `validate`: every problem of prd.json, located; exit 1 when there is an error (warnings alone: 0). */
import type { CliCommand } from '../io';
import { loadPrd, prdOptionsUsage, printProblems, problemJson } from './prdArgs';

const usage = `Usage: ralph-workbench validate [--prd FILE] [--json]

Check prd.json: JSON syntax, the shape and fields of every story, duplicate ids, unknown or self
dependencies (blockedBy, dependsOn, dependencies, depends_on), cycles. Prints each problem as
FILE:LINE:COLUMN: error|warning: message [code]. Exit 0 when there is no error (warnings only
are fine), 1 otherwise. --json prints {"problems": [{code, severity, message, storyId, line, column}]}.

${prdOptionsUsage}`;

export const validateCommand: CliCommand = {
  name: 'validate',
  summary: 'Check prd.json: syntax, shape, fields, ids, dependencies, cycles. Exit 0 when\nthere is no error (warnings alone are fine), 1 otherwise.',
  usage,
  run(argv, io) {
    const loaded = loadPrd(argv, io, usage);
    if ('exit' in loaded) {
      return loaded.exit;
    }
    const { args, analysis: a } = loaded;
    if (args.json) {
      io.stdout(`${JSON.stringify({ problems: a.problems.map(problemJson) })}\n`);
    } else if (a.problems.length === 0) {
      io.stdout(`${args.prd}: valid (${a.doc.stories.length} stories, ${a.readiness.counts.done} passing)\n`);
    } else {
      printProblems(a.problems, args.prd, io.stdout);
      const e = `${a.errors} error${a.errors === 1 ? '' : 's'}`;
      const w = `${a.warnings} warning${a.warnings === 1 ? '' : 's'}`;
      io.stdout(a.errors === 0 ? `${args.prd}: valid with ${w} (${a.doc.stories.length} stories, ${a.readiness.counts.done} passing)\n` : `${a.warnings > 0 ? `${e} and ${w}` : e} in ${args.prd}\n`);
    }
    return a.errors === 0 ? 0 : 1;
  },
};
