/**
 * Durations in logarithmic buckets, 16 to a doubling, so a TT's median time over any number of
 * tasks and ranks is within 2.2% without keeping each time: the HTML report's per-TT median.
 */

/** Buckets per doubling. */
const STEPS = 16;
/** Shorter times count as this (µs): a bucket number needs a positive time. */
const FLOOR_US = 1e-3;

/** The bucket of a duration (µs). */
export function durationBucket(us: number): number {
  return Math.round(Math.log2(us > FLOOR_US ? us : FLOOR_US) * STEPS);
}

/** The median (µs) of the durations counted in `buckets` (bucket, count); 0 when empty. */
export function medianDuration(buckets: Iterable<readonly [number, number]>): number {
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  let total = 0;
  for (const [, n] of sorted) total += n;
  let below = 0;
  for (const [b, n] of sorted) {
    below += n;
    if (below * 2 >= total) return 2 ** (b / STEPS);
  }
  return 0;
}
