/**
 * Failure signatures (issue 21): a failed iteration's last error lines, normalised so that the
 * same failure reads the same however often it happens — numbers, paths, hashes, times and quoted
 * identifiers become placeholders — while different errors stay different (an error code such as
 * TS2322 is kept). The Runs view groups failures by it, and a signature seen twice in a row for one
 * story is offered as a learning. Pure; bounded: only the end of the output is read.
 */
import { stripAnsi } from '../output';
import { MAX_ERROR_LINE_CHARS, MAX_ERROR_LINES, type RunRecord } from '../runs/runs';

/** How much of the end of the output is read, how many error lines make a signature, how long it may be. */
export const SIGNATURE_TAIL_CHARS = 8 * 1024;
export const SIGNATURE_LINES = 2;
export const MAX_SIGNATURE_CHARS = 300;
const MAX_LINE = 160;

/** A line that reports an error, in the words compilers, test runners and agents use. */
const ERROR_LINE = /\b(?:error|errors|failed|failure|failing|exception|panic|fatal|traceback|cannot|could not|not found|undefined|assert\w*)\b|ERR!|✗|×|✖/i;

/** A failed run's signature and the last error lines it came from, as printed (a report quotes them: the signature issue). */
export interface FailureDetails {
  readonly signature: string;
  /** At most ERROR_LINES_KEPT lines, each at most MAX_ERROR_LINE_CHARS (runs.ts keeps the same bounds when reading back). */
  readonly errorLines: readonly string[];
}

/** The signature of a failed run's output; undefined when it printed nothing to go by. */
export function failureSignature(output: string): string | undefined {
  return failureDetails(output)?.signature;
}

/** The signature of a failed run's output and its last error lines (the last lines, when none reads as an error); undefined when it printed nothing to go by. */
export function failureDetails(output: string): FailureDetails | undefined {
  const lines = stripAnsi(output.slice(-SIGNATURE_TAIL_CHARS))
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) {
    return undefined;
  }
  const errors = lines.filter((l) => ERROR_LINE.test(l));
  const source = errors.length > 0 ? errors : lines;
  const picked = source.slice(-SIGNATURE_LINES).map(normaliseLine);
  // the same line twice (a summary repeating the error) says no more than once
  const unique = picked.filter((l, i) => picked.indexOf(l) === i && l !== '');
  const text = unique.join(' | ');
  if (text === '') {
    return undefined;
  }
  const signature = text.length > MAX_SIGNATURE_CHARS ? `${text.slice(0, MAX_SIGNATURE_CHARS - 1)}…` : text;
  return { signature, errorLines: source.slice(-MAX_ERROR_LINES).map((l) => (l.length > MAX_ERROR_LINE_CHARS ? `${l.slice(0, MAX_ERROR_LINE_CHARS - 1)}…` : l)) };
}

/** One error line with what changes from run to run replaced. The order matters: times before numbers, paths before numbers. */
export function normaliseLine(line: string): string {
  return line
    .replace(/(["'`‘’“”])(?:(?!\1).){1,200}?\1/g, (_m, q: string) => `${q}…${closing(q)}`)
    .replace(/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '<time>')
    // a clock time (h:mm:ss, or with am/pm); "12:5" alone may be a line and column, and becomes <n>:<n> below
    .replace(/\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?\s?(?:[ap]m)?|\s?[ap]m)\b/gi, '<time>')
    .replace(/(?:[A-Za-z]:)?(?:[\w.@~-]*[\\/])+[\w.@-]+/g, '<path>')
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b/gi, '<hash>')
    .replace(/\b0x[0-9a-f]+\b/gi, '<hash>')
    .replace(/(?<![A-Za-z0-9_.])\d+(?:\.\d+)*(?:ms|s|m|h|kb|mb|gb|b|%)?(?![A-Za-z_])/gi, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_LINE);
}

function closing(q: string): string {
  return q === '‘' ? '’' : q === '“' ? '”' : q;
}

export interface SignatureGroup {
  readonly signature: string;
  /** Indexes into the runs, newest first. */
  readonly runs: readonly number[];
  /** The stories that failed with it, in first-seen order. */
  readonly storyIds: readonly string[];
  /** "3 iterations failed with: error TS2322: Type '…' is not assignable to type '…'." */
  readonly label: string;
}

/** Failed runs grouped by signature, the most frequent first (ties: the most recent first); runs without one are not grouped. */
export function groupBySignature(runs: readonly RunRecord[]): SignatureGroup[] {
  const groups = new Map<string, number[]>();
  runs.forEach((r, i) => {
    if (r.outcome === 'failed' && r.signature) {
      groups.set(r.signature, [...(groups.get(r.signature) ?? []), i]);
    }
  });
  return [...groups]
    .map(([signature, indexes]) => {
      const newest = [...indexes].reverse();
      const storyIds = [...new Set(indexes.map((i) => runs[i].storyId))];
      const n = indexes.length;
      return { signature, runs: newest, storyIds, label: `${n} iteration${n === 1 ? '' : 's'} failed with: ${signature}` };
    })
    .sort((a, b) => b.runs.length - a.runs.length || b.runs[0] - a.runs[0]);
}

/** The signature a story's last two runs both failed with (a learning to offer); undefined otherwise. */
export function repeatedSignature(runs: readonly RunRecord[], storyId: string): string | undefined {
  return repeatedFailure(runs, storyId)?.signature;
}

/** A story's repeated failure as a report says it: the signature, how many of its last runs in a row failed with it (2 at least), and the last one's error lines. */
export function repeatedFailure(runs: readonly RunRecord[], storyId: string): { signature: string; count: number; errorLines: readonly string[] } | undefined {
  // A limit wait is the provider's, not the story's: it neither breaks nor extends the row.
  const own = runs.filter((r) => r.storyId === storyId && r.outcome !== 'rate-limited');
  const last = own.at(-1);
  const signature = last?.outcome === 'failed' ? last.signature : undefined;
  if (!last || !signature) {
    return undefined;
  }
  let count = 0;
  while (count < own.length && own[own.length - 1 - count].outcome === 'failed' && own[own.length - 1 - count].signature === signature) {
    count++;
  }
  return count >= 2 ? { signature, count, errorLines: last.errorLines ?? [] } : undefined;
}
