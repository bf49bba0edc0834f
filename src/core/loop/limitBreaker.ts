/**
 * The breaker for repeated limits (issue 21): a loop that keeps hitting the agent's usage or rate
 * limit stops after `ralph.agent.maxLimitedInARow` limited runs in a row (0: never), since every
 * retry is a paid run. The same rule and words for the serial loop (loop.ts, per loop) and the
 * parallel loop (parallelLoop.ts, across its slots: the limit is the account's, so limited runs of
 * any story count, and a run of any story that was not limited starts the count again).
 * Also the words for a stop that came while the loop waited for a limit (no agent was ended).
 */

/** The default of ralph.agent.maxLimitedInARow. */
export const DEFAULT_MAX_LIMITED_IN_A_ROW = 5;

/** The setting's value as the loops use it: a whole number, 0 (never) or more; anything else is the default. */
export function maxLimitedOf(v: number | undefined): number {
  return v !== undefined && Number.isFinite(v) && v >= 0 ? Math.floor(v) : DEFAULT_MAX_LIMITED_IN_A_ROW;
}

/** Whether `inARow` limited runs in a row trip the breaker. */
export function limitBreakerTripped(inARow: number, max: number): boolean {
  return max > 0 && inARow >= max;
}

/** The last limited run: its story and the reset time its agent printed, if it did. */
export interface LastLimit {
  readonly storyId: string;
  readonly resetAt?: Date;
}

/**
 * "Stopped: the agent hit its usage or rate limit in 5 runs in a row (last: US-003; it said the
 * limit resets at 2026-11-26 15:00 UTC) (2/7 stories pass). Each retry is a paid run, …".
 * `counts`: "(2/7 stories pass)", when known.
 */
export function limitBreakerMessage(inARow: number, last: LastLimit | undefined, max: number, counts?: string): string {
  const reset = last?.resetAt && Number.isFinite(last.resetAt.getTime()) ? `it said the limit resets at ${utcMinute(last.resetAt)}` : 'it printed no reset time';
  const which = last ? ` (last: ${last.storyId}; ${reset})` : '';
  return (
    `Stopped: the agent hit its usage or rate limit in ${inARow} run${inARow === 1 ? '' : 's'} in a row${which}${counts ? ` ${counts}` : ''}. ` +
    `Each retry is a paid run, so the loop waits no longer: run it again after the reset, or raise ralph.agent.maxLimitedInARow (${max}; 0: never stop).`
  );
}

/** "you stopped the loop while it waited for claude's limit to reset" (the agent's name when known). */
export function stoppedInWaitText(agent: string | undefined): string {
  return `you stopped the loop while it waited for ${agent ? `${agent}'s` : "the agent's"} limit to reset`;
}

/** "2026-11-26 15:00 UTC": a reset time to the minute, in one zone whatever the machine's. */
function utcMinute(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
