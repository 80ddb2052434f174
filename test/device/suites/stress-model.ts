/**
 * The model side of the randomized device suites (stress.ts, fault-stress.ts): host writes that
 * keep values small integers (exact in doubles, whatever order kernels add them in), and the
 * comparison of a buffer with the model.
 */

/** Host writes: a reset (independent of the old values) or a fold of the old values into small integers. */
export function applyWrite(a: Float64Array, lo: number, hi: number, salt: number, reset = false): void {
  for (let i = lo; i < hi; i++) a[i] = reset ? ((i * 7 + salt) % 23) - 11 : (a[i]! % 64) + ((i * 5 + salt) % 13) - 6;
}

/** The largest magnitude in `a`. */
export function maxAbs(a: Float64Array): number {
  let m = 0;
  for (const x of a) m = Math.max(m, Math.abs(x));
  return m;
}

/** The first element where `got` differs from `want`, or undefined. */
export function mismatch(got: ArrayLike<number>, want: Float64Array): string | undefined {
  if (got.length !== want.length) return `length ${got.length}, want ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i]) return `index ${i}: got ${got[i]}, want ${want[i]}`;
  }
  return undefined;
}
