/**
 * Time and sleeping as a port: the loops wait out an agent's rate limit (issue 21) through it, so
 * unit tests pass a clock that does not sleep, and every wait ends early when its signal aborts
 * (Resume Now, Stop).
 */
export interface Clock {
  /** ms since the epoch. */
  now(): number;
  /** Resolves after `ms`, or at once when the signal aborts (never rejects). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      // setTimeout takes at most 2^31-1 ms (24.8 days); a longer wait would fire at once
      const timer = setTimeout(done, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** Waits that can all be ended at once (Resume Now, Stop): a loop's waits for agents' limits. */
export class WaitSet {
  private readonly waits = new Set<AbortController>();

  constructor(private readonly clock: Clock = realClock) {}

  /** Sleeps until `until` (ms since the epoch) or until endAll(). */
  async sleepUntil(until: number): Promise<void> {
    const control = new AbortController();
    this.waits.add(control);
    try {
      await this.clock.sleep(Math.max(0, until - this.clock.now()), control.signal);
    } finally {
      this.waits.delete(control);
    }
  }

  /** Ends every wait now; false when none was waiting. */
  endAll(): boolean {
    const any = this.waits.size > 0;
    this.waits.forEach((w) => w.abort());
    return any;
  }
}
