/**
 * The streaming reader of `.ralph/runs.jsonl` for the run insights: chunk by chunk (never the whole
 * file in memory), the same per-line rule as parseRuns (`parseRunLine`), a torn or hand-edited line
 * skipped and reported with its 1-based line number. Lines are cut at "\n" in the bytes by hand
 * rather than through node:readline or a string decoder, which cost about a third more time on
 * 100,000 lines (scripts/bench-insights.mjs).
 */
import { createReadStream } from 'node:fs';
import { parseRunLine, type RunRecord, type RunsParseError } from '../../core/runs/runs';

export interface StreamedRuns {
  /** Records handed to `onRun`. */
  readonly runs: number;
  /** The first MAX_LISTED_ERRORS skipped lines. */
  readonly errors: readonly RunsParseError[];
  /** Skipped lines beyond those listed. */
  readonly moreErrors: number;
}

/** At most this many skipped lines are listed (a binary file would otherwise list every line). */
export const MAX_LISTED_ERRORS = 100;

/**
 * Reads the file at `file`, calling `onRun` for each record in file order. Rejects when the file
 * cannot be read (ENOENT and the like: the caller says what to do).
 */
export async function streamRuns(file: string, onRun: (run: RunRecord) => void): Promise<StreamedRuns> {
  const errors: RunsParseError[] = [];
  let moreErrors = 0;
  let runs = 0;
  let n = 0;
  const take = (line: string): void => {
    n++;
    const r = parseRunLine(line);
    if (typeof r === 'string') {
      if (errors.length < MAX_LISTED_ERRORS) {
        errors.push({ line: n, message: r });
      } else {
        moreErrors++;
      }
    } else if (r) {
      runs++;
      onRun(r);
    }
  };
  // Lines are cut in the bytes: no byte of a multi-byte UTF-8 character is 0x0A, so each line
  // decodes whole; only a line that spans two chunks is copied.
  let rest: Buffer | undefined;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const bytes = chunk as Buffer;
    let from = 0;
    let nl = bytes.indexOf(0x0a);
    if (nl >= 0 && rest) {
      take(Buffer.concat([rest, bytes.subarray(0, nl)]).toString('utf8'));
      rest = undefined;
      from = nl + 1;
      nl = bytes.indexOf(0x0a, from);
    }
    for (; nl >= 0; nl = bytes.indexOf(0x0a, from)) {
      take(bytes.toString('utf8', from, nl));
      from = nl + 1;
    }
    if (from < bytes.length) {
      rest = rest ? Buffer.concat([rest, bytes.subarray(from)]) : Buffer.from(bytes.subarray(from));
    }
  }
  if (rest) {
    take(rest.toString('utf8'));
  }
  return { runs, errors, moreErrors };
}
