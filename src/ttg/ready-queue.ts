/**
 * The ready queue: highest priority first, first-in first-out among equal priorities. Tasks of
 * priority 0 (every task when no priomap is set) live in a ring buffer, so the common case costs
 * a push and a shift; other priorities go to a binary heap ordered by (priority, arrival).
 */

/** What the queue needs from a queued item. */
export interface Prioritized {
  prio: number;
  /** Arrival order, increasing, set by whoever pushes (the order may span several queues). */
  seq: number;
}

/** Priority queue with a FIFO fast path for priority 0. */
export class ReadyQueue<T extends Prioritized> {
  private ring: (T | undefined)[] = new Array<T | undefined>(1024);
  private head = 0;
  private tail = 0;
  private mask = 1023;
  private readonly heap: T[] = [];

  /** Number of queued items. */
  get size(): number {
    return ((this.tail - this.head) & this.mask) + this.heap.length;
  }

  push(item: T): void {
    if (item.prio === 0) {
      this.ring[this.tail] = item;
      this.tail = (this.tail + 1) & this.mask;
      if (this.tail === this.head) this.grow();
      return;
    }
    const h = this.heap;
    let i = h.length;
    h.push(item);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(item, h[p]!)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = item;
  }

  /** The next item, left in the queue, or undefined when empty. */
  peek(): T | undefined {
    const h = this.heap;
    if (h.length !== 0 && (h[0]!.prio > 0 || this.head === this.tail)) return h[0];
    return this.ring[this.head];
  }

  /** Removes and returns the next item, or undefined when empty. */
  shift(): T | undefined {
    const h = this.heap;
    if (h.length !== 0 && (h[0]!.prio > 0 || this.head === this.tail)) return this.popHeap();
    if (this.head === this.tail) return undefined;
    const item = this.ring[this.head];
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    return item;
  }

  /** The queued items in no particular order, at most `limit` of them (the live dashboard's counts). */
  *items(limit: number): IterableIterator<T> {
    for (let i = this.head; i !== this.tail && limit-- > 0; i = (i + 1) & this.mask) yield this.ring[i]!;
    for (const x of this.heap) if (limit-- > 0) yield x;
  }

  /** Removes everything and returns it (used when a failed run discards its queued tasks). */
  drain(): T[] {
    const out: T[] = [];
    for (let x = this.shift(); x !== undefined; x = this.shift()) out.push(x);
    return out;
  }

  private grow(): void {
    const old = this.ring;
    const n = old.length;
    const next = new Array<T | undefined>(n * 2);
    // ring is full: head === tail; unroll from head
    for (let i = 0; i < n; i++) next[i] = old[(this.head + i) & this.mask];
    this.ring = next;
    this.head = 0;
    this.tail = n;
    this.mask = n * 2 - 1;
  }

  private popHeap(): T {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length !== 0) {
      let i = 0;
      const n = h.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && before(h[r]!, h[l]!) ? r : l;
        if (!before(h[c]!, last)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

/** Whether `a` runs before `b`: higher priority, then earlier arrival. */
export function before(a: Prioritized, b: Prioritized): boolean {
  return a.prio > b.prio || (a.prio === b.prio && a.seq < b.seq);
}
