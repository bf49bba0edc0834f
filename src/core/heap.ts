/** A binary min-heap with a comparator. */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.compare(a[i], a[p]) >= 0) {
        break;
      }
      const t = a[i];
      a[i] = a[p];
      a[p] = t;
      i = p;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    if (a.length === 0) {
      return undefined;
    }
    const top = a[0];
    const last = a.pop() as T;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.compare(a[l], a[m]) < 0) {
          m = l;
        }
        if (r < a.length && this.compare(a[r], a[m]) < 0) {
          m = r;
        }
        if (m === i) {
          break;
        }
        const t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
      }
    }
    return top;
  }
}
