/**
 * The heat example's grid: an n x n field in B x B blocks, its initial values, and the one Jacobi
 * update of a cell, which the blocked graph and the sequential check share, so that both compute
 * every cell with the same operations in the same order (bitwise-equal results).
 */

/** How the field is cut into blocks. */
export interface Grid {
  n: number;
  /** Blocks per side. */
  B: number;
  alpha: number;
}

/** First row (or column) of block `b`, and the one after its last. */
export function span(g: Grid, b: number): [number, number] {
  return [Math.floor((b * g.n) / g.B), Math.floor(((b + 1) * g.n) / g.B)];
}

/** The initial value of cell (r, c): a hot square off centre on a cool ramp. */
export function initial(g: Grid, r: number, c: number): number {
  const hot = r > g.n / 4 && r < g.n / 2 && c > g.n / 3 && c < (2 * g.n) / 3;
  return hot ? 100 : (r + 2 * c) / g.n;
}

/** One Jacobi update of a cell of value `u` from its four neighbours (0 outside the field). */
export function cell(u: number, north: number, south: number, west: number, east: number, alpha: number): number {
  return u + alpha * (north + south + west + east - 4 * u);
}

/** The field after `iters` sweeps, computed cell by cell on one rank (the check's reference). */
export function sequential(g: Grid, iters: number): Float64Array {
  const n = g.n;
  let u = new Float64Array(n * n);
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) u[r * n + c] = initial(g, r, c);
  let v = new Float64Array(n * n);
  for (let t = 0; t < iters; t++) {
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const i = r * n + c;
        v[i] = cell(u[i]!, r > 0 ? u[i - n]! : 0, r < n - 1 ? u[i + n]! : 0, c > 0 ? u[i - 1]! : 0, c < n - 1 ? u[i + 1]! : 0, g.alpha);
      }
    }
    [u, v] = [v, u];
  }
  return u;
}
