/**
 * The streaming reader of `.ralph/runs.jsonl` for the run insights: line by line (never the whole
 * file in memory), the same per-line rule as parseRuns (`parseRunLine`), a torn or hand-edited line
 * skipped and reported with its 1-based line number.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseRunLine, type RunRecord, type RunsParseError } from '../../core/runs/runs';

export interface StreamedRuns {
  /** Records handed to `onRun`. */
  readonly runs: number;
  readonly errors: readonly RunsParseError[];
}

/** At most this many skipped lines are listed (a binary file would otherwise list every line). */
export const MAX_LISTED_ERRORS = 100;

/**
 * Reads the file at `file`, calling `onRun` for each record in file order. Rejects when the file
 * cannot be opened (ENOENT and the like: the caller says what to do).
 */
export async function streamRuns(file: string, onRun: (run: RunRecord) => void): Promise<StreamedRuns & { readonly moreErrors: number }> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  await opened;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const errors: RunsParseError[] = [];
  let moreErrors = 0;
  let runs = 0;
  let n = 0;
  for await (const line of lines) {
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
  }
  return { runs, errors, moreErrors };
}
