/** `next`: the story a loop runs next. Exit 0 ready or complete, 2 blocked or empty, 1 unreadable. */
import { oneLine } from '../../core/output';
import { STORY_STATES } from '../../core/vocabulary';
import type { CliCommand } from '../io';
import { finite, loadPrd, prdOptionsUsage, printProblems, problemJson } from './prdArgs';

const usage = `Usage: ralph-workbench next [--prd FILE] [--json]

Print the story to run next: the ready story (not passing, every dependency passing) with the
lowest priority, ties in file order. Exit 0 when one is ready or every story passes, 2 when
stories remain but none is ready or the story list is empty, 1 when prd.json cannot be read.
--json prints {"state": "ready"|"complete"|"blocked"|"empty"|"invalid", "next": {id, title,
priority} | null, "blocked": [{id, waitingOn}]}.

${prdOptionsUsage}`;

export const nextCommand: CliCommand = {
  name: 'next',
  summary: 'Print the story to run next. Exit 0 when one is ready or all pass, 2 when stories\nremain but none is ready (or there are none), 1 when prd.json cannot be read.',
  usage,
  run(argv, io) {
    const loaded = loadPrd(argv, io, usage, true);
    if ('exit' in loaded) {
      return loaded.exit;
    }
    const { args, analysis: a } = loaded;
    const r = a.readiness;
    if (!a.readable) {
      if (args.json) {
        io.stdout(`${JSON.stringify({ state: 'invalid', next: null, blocked: [], problems: a.problems.map(problemJson) })}\n`);
      }
      printProblems(a.problems, args.prd, io.stderr);
      io.stderr(`ralph-workbench: ${args.prd} cannot be read as a PRD; fix the problems above.\n`);
      return 1;
    }
    // Graph problems (cycles, unknown ids) and warnings leave the file readable.
    printProblems(a.problems, args.prd, io.stderr);
    const state = r.state;
    if (args.json) {
      const nextStory = r.next ? { id: r.next.story.id, title: r.next.story.title, priority: finite(r.next.story.priority) } : null;
      io.stdout(`${JSON.stringify({ state, next: nextStory, blocked: r.blocked })}\n`);
    } else if (r.next) {
      io.stdout(`${oneLine(r.next.story.id)} - ${oneLine(r.next.story.title)} (priority ${finite(r.next.story.priority) ?? 'none'})\n`);
    } else if (state === 'complete') {
      io.stdout(`All ${r.counts.total} stories pass.\n`);
    } else if (state === 'empty') {
      io.stdout(`${args.prd} has no stories yet: add stories to its "userStories" list.\n`);
    } else {
      io.stdout(`Nothing is ready: ${r.counts.total - r.counts.done} stories remain, all ${STORY_STATES.blocked.word}.\n`);
      for (const line of r.explanation) {
        io.stdout(`  ${oneLine(line)}\n`);
      }
    }
    return state === 'blocked' || state === 'empty' ? 2 : 0;
  },
};
