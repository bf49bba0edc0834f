/** Debounces calls per key; `idle()` resolves when nothing is pending or running. */
export class KeyedDebouncer<K> {
  private readonly timers = new Map<K, ReturnType<typeof setTimeout>>();
  private running = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly delayMs: number,
    private readonly run: (key: K) => Promise<void>,
  ) {}

  trigger(key: K): void {
    const t = this.timers.get(key);
    if (t) {
      clearTimeout(t);
    }
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.running++;
        this.run(key).finally(() => {
          this.running--;
          this.settle();
        });
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
    this.settle();
  }

  private settle(): void {
    if (this.timers.size === 0 && this.running === 0) {
      for (const w of this.waiters.splice(0)) {
        w();
      }
    }
  }
}
