/**
 * The tiled symmetric positive-definite test matrix and its distribution. Every entry depends
 * only on its global (i, j) and the seed (like DPLASMA's plgsy), so the matrix is the same for any
 * tile size, process grid or rank count; the diagonal is bumped by N to make it well conditioned.
 */

/** Shape of the tiled problem and the 2D block-cyclic process grid. */
export interface Layout {
  /** Matrix order. */
  n: number;
  /** Tile size (the last tile row/column may be smaller). */
  nb: number;
  /** Number of tile rows (= tile columns). */
  nt: number;
  /** Process grid rows and columns (P * Q = ranks). */
  P: number;
  Q: number;
}

/** Makes a layout; `nt = ceil(n / nb)`. */
export function layout(n: number, nb: number, P: number, Q: number): Layout {
  return { n, nb, nt: Math.ceil(n / nb), P, Q };
}

/** Rows (or columns) of tile row `i`: `nb`, or the remainder for the last one. */
export function tileSize(l: Layout, i: number): number {
  return i === l.nt - 1 ? l.n - i * l.nb : l.nb;
}

/** The rank owning tile (i, j) in the 2D block-cyclic distribution. */
export function owner(l: Layout, i: number, j: number): number {
  return (i % l.P) * l.Q + (j % l.Q);
}

/** Entry (i, j) of the symmetric matrix, in [-0.5, 0.5) off the diagonal, plus n on it. */
export function entry(n: number, seed: number, i: number, j: number): number {
  const r = i > j ? i : j;
  const c = i > j ? j : i;
  // a 32-bit integer hash of (seed, r, c): independent of everything but those three
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ r;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ c;
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  h ^= h >>> 15;
  const v = (h >>> 0) / 4294967296 - 0.5;
  return i === j ? v + n : v;
}

/** Fills `out` (column-major, `rows` x `cols`) with tile (ti, tj) of the matrix. */
export function fillTile(l: Layout, seed: number, ti: number, tj: number, out: Float64Array): void {
  const rows = tileSize(l, ti);
  const cols = tileSize(l, tj);
  const i0 = ti * l.nb;
  const j0 = tj * l.nb;
  for (let c = 0; c < cols; c++) {
    const base = c * rows;
    for (let r = 0; r < rows; r++) out[base + r] = entry(l.n, seed, i0 + r, j0 + c);
  }
}

/** Flops of a Cholesky factorization of order n (DPLASMA's count). */
export function potrfFlops(n: number): number {
  const fmuls = n * (((1 / 6) * n + 0.5) * n + 1 / 3);
  const fadds = n * (((1 / 6) * n) * n - 1 / 6);
  return fmuls + fadds;
}
