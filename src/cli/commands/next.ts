/** `next`: the story a loop runs next. Exit 0 ready or complete, 2 blocked or empty, 1 unreadable. */
import { oneLine } from '../../core/output';
import { type NextAnswer, nextAnswerOf, quickNext } from '../../core/prd/quickNext';
import { STORY_STATES } from '../../core/vocabulary';
import type { CliCommand, CliIo } from '../io';
import { analyzePrdBytes, type PrdArgs, prdOptionsUsage, printProblems, problemJson, readPrdFile } from './prdArgs';

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
    const read = readPrdFile(argv, io, usage);
    if ('exit' in read) {
      return read.exit;
    }
    const { args, bytes } = read;
    // A loop asks before every iteration: a clean file is answered from JSON.parse alone
    // (quickNext); anything else gets the full analysis, which shows the problems where they are.
    const quick = quickNext(bytes);
    if (quick) {
      return answer(quick, [], args, io);
    }
    const a = analyzePrdBytes(args, bytes, true);
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
    return answer(nextAnswerOf(a.readiness), a.readiness.explanation, args, io);
  },
};

/** Prints the answer (explanation: why nothing can run, when that is so); returns the exit code. */
function answer(r: NextAnswer, explanation: readonly string[], args: PrdArgs, io: CliIo): number {
  const state = r.state;
  if (args.json) {
    io.stdout(`${JSON.stringify({ state, next: r.next, blocked: r.blocked })}\n`);
  } else if (r.next) {
    io.stdout(`${oneLine(r.next.id)} - ${oneLine(r.next.title)} (priority ${r.next.priority ?? 'none'})\n`);
  } else if (state === 'complete') {
    io.stdout(`All ${r.total} stories pass.\n`);
  } else if (state === 'empty') {
    io.stdout(`${args.prd} has no stories yet: add stories to its "userStories" list.\n`);
  } else {
    io.stdout(`Nothing is ready: ${r.total - r.done} stories remain, all ${STORY_STATES.blocked.word}.\n`);
    for (const line of explanation) {
      io.stdout(`  ${oneLine(line)}\n`);
    }
  }
  return state === 'blocked' || state === 'empty' ? 2 : 0;
}
