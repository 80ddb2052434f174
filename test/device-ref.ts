/**
 * Plain-JS reference BLAS for the device tests (not a test file): column-major, obviously correct
 * loops, so kernel results on every backend can be compared against them.
 */
const T = (c: string) => c === 'T' || c === 'C';
const at = (x: Float64Array, ld: number, t: boolean, i: number, j: number) => (t ? x[j + i * ld]! : x[i + j * ld]!);

/** C = alpha op(A) op(B) + beta C. */
export function refGemm(ta: string, tb: string, m: number, n: number, k: number, alpha: number, A: Float64Array, lda: number,
  B: Float64Array, ldb: number, beta: number, C: Float64Array, ldc: number): void {
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
    let s = 0;
    for (let l = 0; l < k; l++) s += at(A, lda, T(ta), i, l) * at(B, ldb, T(tb), l, j);
    C[i + j * ldc] = alpha * s + beta * C[i + j * ldc]!;
  }
}

/** C = alpha op(A) op(A)^T + beta C on the uplo triangle. */
export function refSyrk(uplo: string, t: string, n: number, k: number, alpha: number, A: Float64Array, lda: number,
  beta: number, C: Float64Array, ldc: number): void {
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    if (uplo === 'L' ? i < j : i > j) continue;
    let s = 0;
    for (let l = 0; l < k; l++) s += at(A, lda, T(t), i, l) * at(A, lda, T(t), j, l);
    C[i + j * ldc] = alpha * s + beta * C[i + j * ldc]!;
  }
}

/** B = alpha op(A)^-1 B or alpha B op(A)^-1, by forming op(A) densely and solving column/row-wise. */
export function refTrsm(side: string, uplo: string, ta: string, diag: string, m: number, n: number, alpha: number,
  A: Float64Array, lda: number, B: Float64Array, ldb: number): void {
  const na = side === 'L' ? m : n;
  // Element (i, j) of op(A), reading only the uplo triangle of A.
  const op = (i: number, j: number) => {
    const [r, c] = T(ta) ? [j, i] : [i, j];
    if (r === c) return diag === 'U' ? 1 : A[r + c * lda]!;
    return (uplo === 'L' ? r > c : r < c) ? A[r + c * lda]! : 0;
  };
  const solve = (get: (q: number) => number, set: (q: number, v: number) => void, Mt: (i: number, j: number) => number) => {
    const x = Array.from({ length: na }, (_, q) => alpha * get(q));
    // Gaussian elimination on the dense triangular system (no pivoting needed: triangular).
    const M = Array.from({ length: na }, (_, i) => Array.from({ length: na }, (_, j) => Mt(i, j)));
    const lower = M.every((row, i) => row.every((v, j) => j <= i || v === 0));
    const order = lower ? [...Array(na).keys()] : [...Array(na).keys()].reverse();
    for (const i of order) {
      let s = x[i]!;
      for (let l = 0; l < na; l++) if (l !== i) s -= M[i]![l]! * x[l]!;
      x[i] = s / M[i]![i]!;  // unsolved x[l] are multiplied by zeros of the triangle
    }
    x.forEach((v, q) => set(q, v));
  };
  if (side === 'L') {
    for (let j = 0; j < n; j++) solve((q) => B[q + j * ldb]!, (q, v) => { B[q + j * ldb] = v; }, op);
  } else {
    for (let i = 0; i < m; i++) solve((q) => B[i + q * ldb]!, (q, v) => { B[i + q * ldb] = v; }, (r, c) => op(c, r));
  }
}

/** Cholesky of the uplo triangle in place; returns LAPACK's info. */
export function refPotrf(uplo: string, n: number, A: Float64Array, lda: number): number {
  const g = (i: number, j: number) => (uplo === 'L' ? i + j * lda : j + i * lda);
  for (let j = 0; j < n; j++) {
    let d = A[g(j, j)]!;
    for (let l = 0; l < j; l++) d -= A[g(j, l)]! ** 2;
    if (!(d > 0)) return j + 1;
    d = Math.sqrt(d);
    A[g(j, j)] = d;
    for (let i = j + 1; i < n; i++) {
      let s = A[g(i, j)]!;
      for (let l = 0; l < j; l++) s -= A[g(i, l)]! * A[g(j, l)]!;
      A[g(i, j)] = s / d;
    }
  }
  return 0;
}

/** Deterministic pseudo-random matrix entries in [-1, 1). */
export function rand(n: number, seed: number): Float64Array {
  const a = new Float64Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = s / 2 ** 31 - 1;
  }
  return a;
}

/** A symmetric positive definite n x n matrix (random + n on the diagonal). */
export function spd(n: number, seed: number): Float64Array {
  const r = rand(n * n, seed);
  const a = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) a[i + j * n] = (r[i + j * n]! + r[j + i * n]!) / 2 + (i === j ? n : 0);
  return a;
}

/** Largest absolute difference. */
export function maxDiff(a: Float64Array, b: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}
