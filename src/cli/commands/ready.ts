/** `ready`: the ready stories in run order. */
import { oneLine } from '../../core/output';
import type { CliCommand } from '../io';
import { finite, loadPrd, prdOptionsUsage, printProblems, problemJson } from './prdArgs';

const usage = `Usage: ralph-workbench ready [--prd FILE] [--json]

Print the ready stories (not passing, every dependency passing) in run order: priority, then
file order. Exit 0, or 1 when prd.json cannot be read. --json prints {"ready": [{id, title, priority}]}.

${prdOptionsUsage}`;

export const readyCommand: CliCommand = {
  name: 'ready',
  summary: 'Print the ready stories in run order.',
  usage,
  run(argv, io) {
    const loaded = loadPrd(argv, io, usage, true);
    if ('exit' in loaded) {
      return loaded.exit;
    }
    const { args, analysis: a } = loaded;
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
        io.stdout(`${oneLine(s.id)} - ${oneLine(s.title)} (priority ${s.priority ?? 'none'})\n`);
      }
      if (list.length === 0) {
        io.stdout('No story is ready.\n');
      }
    }
    return 0;
  },
};
