/**
 * How a wait for an agent's limit reads (issue 21): the CLI's line, the status bar's countdown and
 * the Task Graph mark's. Pure: the caller gives the clock time as its locale shows it.
 */

/** A countdown as a clock shows it: "12:34", "1:02:03" (0 once passed). */
export function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = (n: number): string => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

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
