/**
 * Counts of events over time in bounded memory, for the HTML report's rates (tasks finished and
 * messages sent per second): a fixed number of buckets whose width doubles (neighbours merged)
 * whenever an event falls past the last, so a run of any length keeps exact counts at a resolution
 * of a few hundredths of its length.
 */

/** Buckets of a histogram. */
const BUCKETS = 512;

/** A histogram as it travels to rank 0 (times in trace microseconds). */
export interface HistogramData {
  origin: number;
  width: number;
  counts: number[];
}

/** Events counted per bucket of time from `origin`. */
export class TimeHistogram {
  private width: number;
  private readonly counts = new Float64Array(BUCKETS);

  /** `origin`: the start of the first bucket; `width`: the first buckets' width (µs). */
  constructor(private readonly origin: number, width = 10) {
    this.width = width;
  }

  /** `n` events at time `t` (earlier than the origin: counted in the first bucket). */
  add(t: number, n = 1): void {
    let i = Math.floor((t - this.origin) / this.width);
    while (i >= BUCKETS) {
      this.coarsen();
      i = Math.floor((t - this.origin) / this.width);
    }
    this.counts[i < 0 ? 0 : i]! += n;
  }

  private coarsen(): void {
    const c = this.counts;
    for (let j = 0; j < BUCKETS / 2; j++) c[j] = c[2 * j]! + c[2 * j + 1]!;
    c.fill(0, BUCKETS / 2);
    this.width *= 2;
  }

  /** The counts, for JSON. */
  data(): HistogramData {
    let last = BUCKETS;
    while (last > 0 && this.counts[last - 1] === 0) last--;
    return { origin: this.origin, width: this.width, counts: Array.from(this.counts.subarray(0, last)) };
  }
}

/**
 * The counts of `h` in `n` equal buckets from `t0` to `t1`: each of its buckets goes whole into the
 * one holding its middle (its buckets are narrower than these by far), so totals stay exact.
 */
export function rebin(h: HistogramData, t0: number, t1: number, n: number): number[] {
  const out = new Array<number>(n).fill(0);
  const w = (t1 - t0) / n;
  for (let i = 0; i < h.counts.length; i++) {
    const c = h.counts[i]!;
    if (c === 0) continue;
    const mid = h.origin + (i + 0.5) * h.width;
    out[Math.min(n - 1, Math.max(0, Math.floor((mid - t0) / w)))]! += c;
  }
  return out;
}
