import type { LimitKind } from './limits';

/**
 * How a wait for an agent's limit reads (issue 21): the CLI's line, and the notification the
 * extension shows once per wait, of a serial or a parallel run alike. (The countdown of the status bar and
 * the Task Graph mark is `countdown` in core/webview/graphProtocol.ts, which the page may import.)
 */

/** A wait in words: "in 5 s", "in 12 min", "in 2 h 05 min". */
export function inWords(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) {
    return `in ${s} s`;
  }
  const min = Math.ceil(s / 60);
  return min < 60 ? `in ${min} min` : `in ${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

/** "rate-limited by claude: waiting until 15:00:30 (in 12 min)" (with "; no reset time printed, backing off" when it guessed). */
export function waitSentence(agent: string, until: number, now: number, clockText: string, source: 'reset' | 'backoff'): string {
  return `rate-limited by ${agent}: waiting until ${clockText} (${inWords(until - now)})${source === 'backoff' ? '; no reset time was printed, so backing off' : ''}`;
}

/** A wait for an agent's limit as the user is told of it; `kind` is absent when the run did not say (a parallel run). */
export interface LimitWaitShown {
  readonly agent: string;
  readonly storyId?: string;
  readonly until: number;
  readonly source: 'reset' | 'backoff';
  readonly kind?: LimitKind;
}

/** "claude hit its usage limit; US-006 runs again at 15:00:30, after its reset time." */
export function limitNotice(w: LimitWaitShown, clockText: string): string {
  const what = w.kind === 'overloaded' ? 'found its provider overloaded' : w.kind === undefined ? 'hit its limit' : `hit its ${w.kind === 'usage-limit' ? 'usage' : 'rate'} limit`;
  const when = w.source === 'reset' ? `at ${clockText}, after its reset time` : `at ${clockText} (no reset time was printed, so backing off)`;
  return `${w.agent} ${what}; ${w.storyId ?? 'the story'} runs again ${when}.`;
}
