/**
 * An even sample of a stream of unknown length in bounded memory: every item while there are few,
 * then one in 2, 4, 8... Each time the sample fills up, every other kept item goes and the stride
 * doubles, so what is kept is always one in `every` items, spread over the whole stream. The HTML
 * report draws a run's task stream from such a sample (report-digest.ts).
 */
export class StrideSample<T> {
  /** Items offered so far. */
  seen = 0;
  /** One item in this many is kept. */
  every = 1;
  /** The kept items, in the order offered. */
  items: T[] = [];
  private until = 1;

  /** `cap`: the most items kept (even; after a halving, `cap / 2` are left). */
  constructor(private readonly cap: number) {}

  /** Counts an item: true when it is to be kept (then pass it to {@link keep}). */
  take(): boolean {
    this.seen++;
    if (--this.until !== 0) return false;
    this.until = this.every;
    return true;
  }

  /** Keeps the item that {@link take} chose. */
  keep(item: T): void {
    this.items.push(item);
    if (this.items.length < this.cap) return;
    // kept: items number every, 2 every, 3 every...; the odd positions are the multiples of 2 every
    this.items = this.items.filter((_, i) => i % 2 === 1);
    this.every *= 2;
    this.until = this.every;
  }
}
