/**
 * Debounces calls per key; `idle()` resolves when nothing is pending or running.
 * A trigger with `leading: true` (a change on disk) runs at once when the key is quiet, then opens
 * a quiet period of `delayMs`: triggers within it (of either kind) extend it and run once at its end,
 * so a burst of writes still ends with one read of the final state.
 */
export class KeyedDebouncer<K> {
  private readonly timers = new Map<K, ReturnType<typeof setTimeout>>();
  /** Keys triggered during their quiet period: they run when it ends. */
  private readonly pending = new Set<K>();
  private running = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly delayMs: number,
    private readonly run: (key: K) => Promise<void>,
  ) {}

  trigger(key: K, options: { leading?: boolean } = {}): void {
    const t = this.timers.get(key);
    if (t) {
      clearTimeout(t);
    }
    if (options.leading && !t) {
      // Quiet key: run now, and ignore nothing that follows (it runs at the end of the quiet period).
      this.start(key);
    } else {
      this.pending.add(key);
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

  idle(): Promise<void> {
    if (this.timers.size === 0 && this.running === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  dispose(): void {
    for (const t of this.timers.values()) {
      clearTimeout(t);
    }
    this.timers.clear();
    this.pending.clear();
    this.settle();
  }

  private start(key: K): void {
    this.running++;
    void this.run(key).finally(() => {
      this.running--;
      this.settle();
    });
  }

  private settle(): void {
    if (this.timers.size === 0 && this.running === 0) {
      for (const w of this.waiters.splice(0)) {
        w();
      }
    }
  }
}
