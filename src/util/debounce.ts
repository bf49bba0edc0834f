/**
 * Debounces calls per key; `idle()` resolves when nothing is pending or running.
 * A trigger with `leading: true` (a change on disk) runs after only `settleMs` when the key is quiet
 * (the events of one write, a truncation then the bytes, arrive within a few ms: the read waits that
 * long so it sees the bytes), then opens a quiet period of `delayMs`: triggers within it (of either kind)
 * extend it and run once at its end, so a burst of writes still ends with one read of the final state.
 */
export class KeyedDebouncer<K> {
  private readonly timers = new Map<K, ReturnType<typeof setTimeout>>();
  /** Keys triggered during their quiet period: they run when it ends. */
  private readonly pending = new Set<K>();
  private running = 0;
  private waiters: (() => void)[] = [];

  private readonly inflight = new Set<K>();
  /** Keys started while their run was in flight: they run again when it ends. */
  private readonly rerun = new Set<K>();
  /** Keys whose leading run waits for its settle time. */
  private readonly settling = new Map<K, ReturnType<typeof setTimeout>>();
  /** Callers of runNow waiting for the key's next run to start and end. */
  private readonly nextRunWaiters = new Map<K, (() => void)[]>();

  constructor(
    private readonly delayMs: number,
    private readonly run: (key: K) => Promise<void>,
    private readonly settleMs = 0,
  ) {}

  trigger(key: K, options: { leading?: boolean } = {}): void {
    const settling = this.settling.get(key);
    if (settling) {
      // The leading run is about to read; whatever this reports is read again after the quiet period.
      this.pending.add(key);
      return;
    }
    const t = this.timers.get(key);
    if (t) {
      clearTimeout(t);
    }
    if (options.leading && !t) {
      // Quiet key: run (almost) now; what follows runs at the end of the quiet period.
      if (this.settleMs > 0) {
        this.settling.set(key, setTimeout(() => this.lead(key), this.settleMs));
        return;
      }
      this.start(key);
    } else {
      this.pending.add(key);
    }
    this.quiet(key);
  }

  /** The settle time of a leading run is over: run, and open the quiet period. */
  private lead(key: K): void {
    this.settling.delete(key);
    this.start(key);
    this.quiet(key);
  }

  /** (Re)starts the key's quiet period; at its end, a pending trigger runs. */
  private quiet(key: K): void {
    const t = this.timers.get(key);
    if (t) {
      clearTimeout(t);
    }
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        if (this.pending.delete(key)) {
          this.start(key);
        }
        this.settle();
      }, this.delayMs),
    );
  }

  /** True when another run of the key is already due (after its settle time, its run in flight or its quiet period). */
  isPending(key: K): boolean {
    return this.pending.has(key) || this.rerun.has(key) || this.settling.has(key);
  }

  /**
   * Runs the key now (not waiting for a delay or a settle time), or right after its run in flight:
   * two runs of a key still never overlap. Resolves when a run that started after this call has
   * ended, so what it read is at least as new as the call. Triggers already waiting still run.
   */
  runNow(key: K): Promise<void> {
    return new Promise((resolve) => {
      this.nextRunWaiters.set(key, [...(this.nextRunWaiters.get(key) ?? []), resolve]);
      this.start(key);
    });
  }

  idle(): Promise<void> {
    if (this.timers.size === 0 && this.settling.size === 0 && this.running === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  dispose(): void {
    for (const t of [...this.timers.values(), ...this.settling.values()]) {
      clearTimeout(t);
    }
    this.timers.clear();
    this.settling.clear();
    this.rerun.clear();
    this.pending.clear();
    for (const w of [...this.nextRunWaiters.values()].flat()) {
      w();
    }
    this.nextRunWaiters.clear();
    this.settle();
  }

  /**
   * Runs the key now, or right after its run in flight: runs of one key never overlap, so a slow
   * read can never finish after a newer one and win.
   */
  private start(key: K): void {
    if (this.inflight.has(key)) {
      this.rerun.add(key);
      return;
    }
    this.inflight.add(key);
    this.running++;
    const waiters = this.nextRunWaiters.get(key) ?? [];
    this.nextRunWaiters.delete(key);
    void this.run(key).finally(() => {
      this.inflight.delete(key);
      this.running--;
      if (this.rerun.delete(key)) {
        this.start(key);
      }
      for (const w of waiters) {
        w();
      }
      this.settle();
    });
  }

  private settle(): void {
    if (this.timers.size === 0 && this.settling.size === 0 && this.running === 0) {
      for (const w of this.waiters.splice(0)) {
        w();
      }
    }
  }
}
