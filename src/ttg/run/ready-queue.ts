/**
 * The ready queue: highest priority first, first-in first-out among equal priorities. Tasks of
 * priority 0 (every task when no priomap is set) live in a ring buffer, so the common case costs
 * a push and a shift. Other priorities live in one FIFO list per priority value, the lists in a
 * binary heap by priority: programs give many tasks the same priority (a delta-stepping bucket, a
 * panel of a factorization), and a heap of the tasks themselves paid a sift through hundreds of
 * thousands of them per task where a list pays an append.
 */

/** What the queue needs from a queued item. */
export interface Prioritized {
  prio: number;
  /** Arrival order, increasing, set by whoever pushes (the order may span several queues). */
  seq: number;
}

/** The items of one priority, in arrival order from `head`. */
interface Bucket<T> {
  prio: number;
  items: (T | undefined)[];
  head: number;
}

/** Emptied buckets kept for reuse, at most. */
const SPARE_BUCKETS = 64;

/** Priority queue with a FIFO fast path for priority 0. */
export class ReadyQueue<T extends Prioritized> {
  private ring: (T | undefined)[] = new Array<T | undefined>(1024);
  private head = 0;
  private tail = 0;
  private mask = 1023;
  /** The non-empty buckets, highest priority at the root. */
  private readonly heap: Bucket<T>[] = [];
  private readonly byPrio = new Map<number, Bucket<T>>();
  private readonly spare: Bucket<T>[] = [];
  /** Items in the buckets. */
  private inBuckets = 0;

  /** Number of queued items. */
  get size(): number {
    return ((this.tail - this.head) & this.mask) + this.inBuckets;
  }

  push(item: T): void {
    if (item.prio === 0) {
      this.ring[this.tail] = item;
      this.tail = (this.tail + 1) & this.mask;
      if (this.tail === this.head) this.grow();
      return;
    }
    let b = this.byPrio.get(item.prio);
    if (b === undefined) {
      b = this.spare.pop() ?? { prio: 0, items: [], head: 0 };
      b.prio = item.prio;
      this.byPrio.set(item.prio, b);
      this.pushBucket(b);
    }
    b.items.push(item);
    this.inBuckets++;
  }

  /** The next item, left in the queue, or undefined when empty. */
  peek(): T | undefined {
    const h = this.heap;
    if (h.length !== 0 && (h[0]!.prio > 0 || this.head === this.tail)) return h[0]!.items[h[0]!.head];
    return this.ring[this.head];
  }

  /** Removes and returns the next item, or undefined when empty. */
  shift(): T | undefined {
    const h = this.heap;
    if (h.length !== 0 && (h[0]!.prio > 0 || this.head === this.tail)) return this.shiftBucket(h[0]!);
    if (this.head === this.tail) return undefined;
    const item = this.ring[this.head];
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    return item;
  }

  /** The queued items in no particular order, at most `limit` of them (the live dashboard's counts). */
  *items(limit: number): IterableIterator<T> {
    for (let i = this.head; i !== this.tail && limit-- > 0; i = (i + 1) & this.mask) yield this.ring[i]!;
    for (const b of this.heap) for (let i = b.head; i < b.items.length; i++) if (limit-- > 0) yield b.items[i]!;
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

  /** The oldest item of `b`, the top bucket; an emptied bucket leaves the heap. */
  private shiftBucket(b: Bucket<T>): T {
    const item = b.items[b.head]!;
    b.items[b.head++] = undefined;
    this.inBuckets--;
    if (b.head === b.items.length) {
      this.byPrio.delete(b.prio);
      this.popBucket();
      b.items.length = 0;
      b.head = 0;
      if (this.spare.length < SPARE_BUCKETS) this.spare.push(b);
    } else if (b.head >= 1024 && b.head * 2 >= b.items.length) {
      // a bucket that never empties must not keep every item it ever held
      b.items.splice(0, b.head);
      b.head = 0;
    }
    return item;
  }

  private pushBucket(b: Bucket<T>): void {
    const h = this.heap;
    let i = h.length;
    h.push(b);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!(b.prio > h[p]!.prio)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = b;
  }

  private popBucket(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    let i = 0;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && h[r]!.prio > h[l]!.prio ? r : l;
      if (!(h[c]!.prio > last.prio)) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
  }
}

/** Whether `a` runs before `b`: higher priority, then earlier arrival. */
export function before(a: Prioritized, b: Prioritized): boolean {
  return a.prio > b.prio || (a.prio === b.prio && a.seq < b.seq);
}
