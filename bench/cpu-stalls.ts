/**
 * How much of a busy thread's time this machine takes away. A thread spins on the clock; every
 * gap between two consecutive readings longer than `minGapUs` is time it did not run. On the
 * 2-vCPU VM of our benchmarks the guest kernel counts no interrupt for most of these gaps (its
 * timer interrupts are ~250 a second; the gaps are ~13 a millisecond, 4-8 us each), so they are the
 * host's: whatever runs on the core then, a short message hop that it hits takes several
 * microseconds longer and restarts with cold caches. Reported beside latency figures so that runs
 * of different days can be compared.
 */

/** What a spinning thread lost: share of time, gaps per millisecond, median gap length. */
export interface CpuStalls {
  pct: number;
  perMs: number;
  medianUs: number;
}

const MAX_GAPS = 1 << 16;

/** Spins for `ms` milliseconds on this thread and measures its gaps (nothing is allocated inside). */
export function measureCpuStalls(ms: number, minGapUs = 1): CpuStalls {
  const gaps = new Float64Array(MAX_GAPS);
  const minGap = minGapUs / 1000;
  let n = 0;
  let lost = 0;
  const start = performance.now();
  const end = start + ms;
  let prev = start;
  for (;;) {
    const t = performance.now();
    const d = t - prev;
    prev = t;
    if (d > minGap) {
      lost += d;
      if (n < MAX_GAPS) gaps[n] = d;
      n++;
    }
    if (t >= end) break;
  }
  const elapsed = prev - start;
  const kept = gaps.subarray(0, Math.min(n, MAX_GAPS)).sort();
  return {
    pct: (100 * lost) / elapsed,
    perMs: n / elapsed,
    medianUs: kept.length === 0 ? 0 : kept[kept.length >> 1]! * 1000,
  };
}
