/**
 * Usage limits, rate limits and overloads (issue 21): from how an agent ended (its exit status)
 * and the last part of what it printed, whether the run was stopped by its provider rather than
 * by the work, and when it may go on. The messages are the agents' own, collected from public
 * issues (test/fixtures/agent-output/limits/SOURCES.md). Pure: the caller gives the run's end time
 * and the time zone a bare "resets 3pm" is read in.
 *
 * Exit status matters: an agent that printed a story's text about rate limits and exited 0 was
 * not limited. A reset time that cannot be read without guessing (no am/pm and no 24-hour clock,
 * an unknown time zone, a localised date) gives no `resetAt`: the loop then backs off instead.
 */
import { stripAnsi } from '../output';

export type LimitKind = 'usage-limit' | 'rate-limit' | 'overloaded';

export interface LimitVerdict {
  readonly limited: true;
  readonly kind: LimitKind;
  /** When the agent said the limit resets; absent when it did not say (or not readably). */
  readonly resetAt?: Date;
  /** The agent's words that matched, whitespace collapsed, at most MAX_MESSAGE characters. */
  readonly message: string;
}

/** How much of the end of an agent's output is kept and read (the limit message is the last thing it prints). */
export const LIMIT_TAIL_CHARS = 4 * 1024;
const MAX_MESSAGE = 200;
/** How far after the limit message its reset time may stand (Copilot's wraps over two lines). */
const RESET_WINDOW = 400;

type LimitPattern = { readonly kind: LimitKind; readonly re: RegExp };

/**
 * The agents' own limit messages, in the shapes only an agent prints: counted in the last
 * AGENT_LINES lines (an agent ends on its error; a story's test log that quotes one is followed by
 * the test runner's failure and summary). Matched on text with ANSI escapes removed and whitespace
 * collapsed.
 */
const AGENT_PATTERNS: readonly LimitPattern[] = [
  // Claude Code: "Claude AI usage limit reached|1755615600", "Claude usage limit reached. Your limit will reset at 5pm (Europe/Warsaw)."
  { kind: 'usage-limit', re: /\bClaude (?:AI )?usage limit reached/gi },
  // Claude Code 2.x: "You've hit your session limit · resets 5:20am (America/Denver)", "You’ve hit your limit for Claude messages."
  // Codex: "You've hit your usage limit. Upgrade to Pro (…) or try again in 4 days 6 hours 37 minutes."
  { kind: 'usage-limit', re: /\byou(?:'|’)ve hit your (?:session |weekly |usage )?limit\b/gi },
  { kind: 'usage-limit', re: /\b\d+-hour limit reached\b/gi },
  // Copilot CLI: "Sorry, you've hit a rate limit that restricts …", "Sorry, you have been rate-limited."
  { kind: 'rate-limit', re: /\byou(?:'|’)ve hit a rate limit\b|\byou have been rate-limited\b/gi },
  // Claude Code: "API Error: Rate limit reached", "API Error: 429 {…rate_limit_error…}"
  { kind: 'rate-limit', re: /\bAPI Error: Rate limit reached\b|\bAPI Error:? \(?429\b/gi },
  // Claude Code: "API Error: 529 Overloaded.", "API Error (529 {…overloaded_error…}) · Retrying in 4 seconds…"
  { kind: 'overloaded', re: /\bAPI Error:? \(?529\b/gi },
  // Copilot CLI: `Model call failed: {"message":"rate limit exceeded","code":"rate_limited"}`
  { kind: 'rate-limit', re: /\bModel call failed: \{[^}]{0,200}"code": ?"rate_limited"/gi },
  // Codex: "exceeded retry limit, last status: 429 Too Many Requests"
  { kind: 'rate-limit', re: /\bexceeded retry limit, last status: 429\b/gi },
];

/**
 * The generic forms (any HTTP 429 or 529, "rate limit exceeded"): Amp's errors have no known shape
 * of their own, so these stay, but a story's own tests print them too (an API client's test logs the
 * 429 it was given). They count only in the last GENERIC_LINES lines of output, where the agent's own
 * error stands: a test log is followed by the test runner's summary and npm's error.
 */
const GENERIC_PATTERNS: readonly LimitPattern[] = [
  { kind: 'rate-limit', re: /\brate limit (?:reached|exceeded)\b|"rate_limited"|\brate_limit_error\b/gi },
  { kind: 'rate-limit', re: /\b429\b[^\n]{0,40}Too Many Requests\b|\bError:? \(?429\b/gi },
  { kind: 'overloaded', re: /\b529\b[^\n]{0,60}\boverloaded|\boverloaded_error\b/gi },
];

/** How many of the last lines that are not blank the agents' own forms are looked for in (the real messages take up to 4). */
export const AGENT_LINES = 6;

/**
 * How many of the last lines that are not blank the generic forms are looked for in; and in all of
 * an error result render-stream shows (after its "■ ended with an error" line: the agent's own error).
 */
export const GENERIC_LINES = 3;

/**
 * What render-stream (streamRender.ts) adds after the agent's own words: its receipt line and its
 * closing marks. They are not the agent's, take none of the last lines, and stay out of the message.
 */
const RENDERER_LINE = /^\s*(?:ralph-receipt:|■ (?:done|turn done|ended with an error \(|the agent's stream ended without a result))/;
const RENDERER_ERROR = /^\s*■ ended with an error \(/;

export interface LimitInput {
  /** The agent's exit code (null: unknown). */
  readonly exitCode: number | null;
  /** The user ended the agent: never a limit. */
  readonly stopped?: boolean;
  /** The end of what the agent printed (only the last LIMIT_TAIL_CHARS are read). */
  readonly output: string;
  /** When the run ended: relative times ("try again in 2 hours") count from here. */
  readonly end: Date;
  /** The IANA time zone a reset time without one is read in (the machine's, where the agent ran); none: such a time is not read. */
  readonly timeZone?: string;
}

/** Whether the run hit a limit; undefined when it did not (or exited 0, or was stopped). */
export function detectLimit(input: LimitInput): LimitVerdict | undefined {
  if (input.stopped || input.exitCode === 0) {
    return undefined;
  }
  const { text, agentFrom, genericFrom } = limitText(input.output);
  let best: { kind: LimitKind; index: number; length: number } | undefined;
  const consider = (patterns: readonly LimitPattern[], from: number): void => {
    for (const p of patterns) {
      for (const m of text.matchAll(p.re)) {
        // the last message wins: an agent may retry through overloads and then hit the usage limit
        if (m.index >= from && (!best || m.index > best.index)) {
          best = { kind: p.kind, index: m.index, length: m[0].length };
        }
      }
    }
  };
  consider(AGENT_PATTERNS, agentFrom);
  consider(GENERIC_PATTERNS, genericFrom);
  if (!best) {
    return undefined;
  }
  const after = text.slice(best.index, best.index + RESET_WINDOW);
  const resetAt = parseResetTime(after, input.end, input.timeZone);
  const message = text.slice(best.index, best.index + MAX_MESSAGE).trim();
  return { limited: true, kind: best.kind, ...(resetAt ? { resetAt } : {}), message };
}

/**
 * The tail read for limit messages, ANSI escapes and render-stream's own lines removed, whitespace
 * collapsed, and where in it the agents' forms count (the last AGENT_LINES lines that are not blank)
 * and the generic ones (the last GENERIC_LINES, or the error result render-stream shows, if longer).
 */
function limitText(output: string): { text: string; agentFrom: number; genericFrom: number } {
  const lines: string[] = [];
  let errorResult: number | undefined;
  for (const line of stripAnsi(output.slice(-LIMIT_TAIL_CHARS)).split(/\r\n|\r|\n/)) {
    if (RENDERER_ERROR.test(line)) {
      errorResult = lines.length;
    }
    if (!RENDERER_LINE.test(line)) {
      lines.push(line);
    }
  }
  /** Where the last `n` lines that are not blank begin. */
  const startOfLast = (n: number): number => {
    let cut = lines.length;
    for (let seen = 0; cut > 0 && seen < n; cut--) {
      if (lines[cut - 1].trim() !== '') {
        seen++;
      }
    }
    return cut;
  };
  const collapse = (part: readonly string[]): string => part.join(' ').replace(/\s+/g, ' ').trim();
  const agentCut = startOfLast(AGENT_LINES);
  const genericCut = Math.max(agentCut, Math.min(startOfLast(GENERIC_LINES), errorResult ?? lines.length));
  const parts = [collapse(lines.slice(0, agentCut)), collapse(lines.slice(agentCut, genericCut)), collapse(lines.slice(genericCut))];
  let text = '';
  const starts: number[] = [];
  for (const part of parts) {
    if (part !== '' && text !== '') {
      text += ' ';
    }
    starts.push(text.length);
    text += part;
  }
  return { text, agentFrom: starts[1], genericFrom: starts[2] };
}

const UNIT_MS: Record<string, number> = { day: 86_400_000, hour: 3_600_000, minute: 60_000, min: 60_000, second: 1000, sec: 1000 };

/**
 * The reset time in a limit message, in the forms the agents print: epoch seconds after `|`;
 * "resets 5:20am (America/Denver)", "reset at 5pm (Europe/Warsaw)", "resets at 15:00"; "try again
 * in 4 days 6 hours 37 minutes", "wait 2 minutes". Undefined when there is none or it is ambiguous.
 */
export function parseResetTime(text: string, end: Date, timeZone?: string): Date | undefined {
  const at = printedResetTime(text, end, timeZone);
  // Believed only when it is a time at all and a sensible one: not before the run ended (a stale
  // message), not further than MAX_RESET_AHEAD_MS ahead ("try again in 99999999999999999999 days").
  // Else there is no reset time, and the loop backs off as when none was printed.
  if (at === undefined || !Number.isFinite(at.getTime())) {
    return undefined;
  }
  const ahead = at.getTime() - end.getTime();
  return ahead >= -5 * 60_000 && ahead <= MAX_RESET_AHEAD_MS ? at : undefined;
}

/** The longest wait a printed reset time may ask for: a weekly limit's, and a day more. */
export const MAX_RESET_AHEAD_MS = 8 * 86_400_000;

function printedResetTime(text: string, end: Date, timeZone?: string): Date | undefined {
  const epoch = /\|(\d{10})\b/.exec(text);
  if (epoch) {
    return new Date(Number(epoch[1]) * 1000);
  }
  const clock = /\breset(?:s)?(?: at)? (\d{1,2})(?::(\d{2}))? ?([ap]\.?m\.?)?(?=[\s.,)(]|$)(?: ?\(([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*)\))?/i.exec(text);
  if (clock) {
    return clockTime(clock, end, timeZone);
  }
  const wait = /\b(?:try again in|resets? in|wait) ((?:\d+ ?(?:days?|hours?|minutes?|mins?|seconds?|secs?)\b[ ,]*(?:and )?)+)/i.exec(text);
  if (wait) {
    let ms = 0;
    for (const [, n, unit] of wait[1].matchAll(/(\d+) ?(day|hour|minute|min|second|sec)/gi)) {
      ms += Number(n) * UNIT_MS[unit.toLowerCase()];
    }
    return new Date(end.getTime() + ms);
  }
  return undefined;
}

/** "5:20am (America/Denver)" → the next such wall-clock time at or after the end (a few minutes' slack: the message may print just after the minute it names). */
function clockTime(m: RegExpExecArray, end: Date, fallbackZone: string | undefined): Date | undefined {
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const meridiem = m[3]?.replace(/\./g, '').toLowerCase();
  if (minute > 59) {
    return undefined;
  }
  if (meridiem) {
    if (hour < 1 || hour > 12) {
      return undefined;
    }
    hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
  } else if (m[2] === undefined || hour > 23) {
    // "resets 3" with no am/pm and no minutes: 3 am or 3 pm? Not guessed.
    return undefined;
  }
  const zone = m[4] ?? fallbackZone;
  if (!zone) {
    return undefined;
  }
  try {
    const today = wallClock(end.getTime(), zone);
    let at = zonedToUtc(today.year, today.month, today.day, hour, minute, zone);
    if (at < end.getTime() - 5 * 60_000) {
      const tomorrow = new Date(Date.UTC(today.year, today.month - 1, today.day + 1));
      at = zonedToUtc(tomorrow.getUTCFullYear(), tomorrow.getUTCMonth() + 1, tomorrow.getUTCDate(), hour, minute, zone);
    }
    return new Date(at);
  } catch {
    // an unknown time zone name: Intl throws a RangeError
    return undefined;
  }
}

interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

function wallClock(ms: number, timeZone: string): WallClock {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(new Date(ms));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour') % 24, minute: get('minute'), second: get('second') };
}

/** The instant a wall-clock time in a zone names (twice corrected, for the hour a daylight-saving change moves). */
function zonedToUtc(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): number {
  const naive = Date.UTC(year, month - 1, day, hour, minute);
  const offsetAt = (ms: number): number => {
    const w = wallClock(ms, timeZone);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000;
  };
  const first = naive - offsetAt(naive);
  return naive - offsetAt(first);
}

/** The longest wait without a printed reset time, and the most added after a printed one. */
export const MAX_BACKOFF_MS = 30 * 60_000;
export const MAX_MARGIN_MS = 30_000;

export interface LimitWait {
  /** When the loop may run again (ms since the epoch). */
  readonly until: number;
  /** `reset`: the agent's reset time plus a margin; `backoff`: no time was printed. */
  readonly source: 'reset' | 'backoff';
}

/**
 * How long to wait after a limited run that ended at `end`: until the printed reset plus a margin
 * (a tenth of the wait, between 1 and 30 s: the reset is printed to the minute and clocks differ),
 * or, with no reset time, 1, 2, 4 … 30 minutes for the 1st, 2nd, 3rd … limited run in a row.
 */
export function limitWait(verdict: Pick<LimitVerdict, 'resetAt'>, end: number, inARow: number): LimitWait {
  if (verdict.resetAt) {
    const reset = verdict.resetAt.getTime();
    const margin = Math.min(MAX_MARGIN_MS, Math.max(1000, Math.round((reset - end) / 10)));
    return { until: Math.max(end, reset) + margin, source: 'reset' };
  }
  const step = Math.max(0, Math.min(30, Math.floor(inARow) - 1));
  return { until: end + Math.min(MAX_BACKOFF_MS, 60_000 * 2 ** step), source: 'backoff' };
}

/** This machine's IANA time zone: where the agent ran, so the zone a bare "resets 3pm" means. */
export function localTimeZone(): string | undefined {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
}

/** Keeps the last LIMIT_TAIL_CHARS of an agent's output as it arrives in chunks. */
export class OutputTail {
  private text = '';

  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-LIMIT_TAIL_CHARS);
  }

  get value(): string {
    return this.text;
  }
}
