/**
 * xorshift32: the seeded generator of the benchmarks and tests that spread keys over ranks. A
 * linear congruential generator computed in doubles loses its low bits once the product passes
 * 2^53, and `% size` then picks one rank; every bit of this one is random.
 */

/** A generator of uint32s from `seed` (0 is replaced: xorshift would stay at 0). */
export function xorshift32(seed: number): () => number {
  let s = seed | 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}
