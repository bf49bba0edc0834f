/**
 * How a wait for an agent's limit reads (issue 21) in the CLI's line. (The countdown of the status bar and
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
