/**
 * The random block-sparse operands. Every choice is a function of the seed alone (tile sizes,
 * which tiles exist, their values), so every rank computes the same structure without talking,
 * for any rank count, and any tile can be regenerated where it is needed.
 *
 * - Each dimension (M, K, N) is cut into tiles of sizes uniform in [tmin, tmax] (only an extent
 *   below tmin gives a smaller tile).
 * - A (M x K) and B (K x N) get tiles in a seeded random order until their stored fraction of
 *   the matrix reaches the density (1.0: all tiles).
 * - Tile values are uniform in [-0.5, 0.5), from a generator seeded by (seed, matrix, row, col).
 */

/** One dimension cut into tiles. */
export interface Tiling {
  /** Number of tiles. */
  count: number;
  /** Size of each tile. */
  sizes: Int32Array;
  /** First index of each tile (`offsets[count]` = extent). */
  offsets: Int32Array;
}

/** The shape and sparsity of C = A B. */
export interface Structure {
  m: number;
  n: number;
  k: number;
  seed: number;
  /** Tiles of M (rows of A and C), K (columns of A, rows of B) and N (columns of B and C). */
  rows: Tiling;
  inner: Tiling;
  cols: Tiling;
  /** A(i,k) exists: `a[i * inner.count + k]`. */
  a: Uint8Array;
  /** B(k,j) exists: `b[k * cols.count + j]`. */
  b: Uint8Array;
}

/** Options that define the operands. */
export interface StructureOptions {
  m: number;
  n: number;
  k: number;
  tmin: number;
  tmax: number;
  density: number;
  seed: number;
}

/** A 32-bit hash of a few integers (independent streams for independent purposes). */
export function hash32(...xs: number[]): number {
  let h = 0x811c9dc5;
  for (const x of xs) {
    h = Math.imul(h ^ (x | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** mulberry32: a small, fast generator of uniform numbers in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function tiling(extent: number, tmin: number, tmax: number, next: () => number): Tiling {
  const sizes: number[] = [];
  let left = extent;
  while (left > 0) {
    if (left <= tmax) {
      sizes.push(left);
      break;
    }
    const hi = Math.min(tmax, left - tmin); // leave at least tmin for the rest
    const lo = Math.min(tmin, hi);
    const s = lo + Math.floor(next() * (hi - lo + 1));
    sizes.push(s);
    left -= s;
  }
  const offsets = new Int32Array(sizes.length + 1);
  for (let t = 0; t < sizes.length; t++) offsets[t + 1] = offsets[t]! + sizes[t]!;
  return { count: sizes.length, sizes: Int32Array.from(sizes), offsets };
}

/** Places tiles of an `r x c`-tiled matrix in seeded random order until `density` is reached. */
function place(rows: Tiling, cols: Tiling, density: number, next: () => number): Uint8Array {
  const n = rows.count * cols.count;
  const present = new Uint8Array(n);
  const order = Array.from({ length: n }, (_, t) => t);
  for (let t = n - 1; t > 0; t--) { // Fisher-Yates
    const u = Math.floor(next() * (t + 1));
    [order[t], order[u]] = [order[u]!, order[t]!];
  }
  const target = density * rows.offsets[rows.count]! * cols.offsets[cols.count]!;
  let area = 0;
  for (const t of order) {
    if (area >= target) break;
    present[t] = 1;
    area += rows.sizes[Math.floor(t / cols.count)]! * cols.sizes[t % cols.count]!;
  }
  return present;
}

/** Builds the structure of A and B from the options (the same on every rank). */
export function makeStructure(o: StructureOptions): Structure {
  const dim = (d: number, extent: number) => tiling(extent, o.tmin, o.tmax, rng(hash32(o.seed, 1, d)));
  const rows = dim(0, o.m);
  const inner = dim(1, o.k);
  const cols = dim(2, o.n);
  const a = place(rows, inner, o.density, rng(hash32(o.seed, 2, 0)));
  const b = place(inner, cols, o.density, rng(hash32(o.seed, 2, 1)));
  return { m: o.m, n: o.n, k: o.k, seed: o.seed, rows, inner, cols, a, b };
}

/** Fills `out` (column-major) with tile (r, c) of A (`which` 0) or B (1). */
export function fillTile(s: Structure, which: 0 | 1, r: number, c: number, out: Float64Array): void {
  const next = rng(hash32(s.seed, 3, which, r, c));
  for (let x = 0; x < out.length; x++) out[x] = next() - 0.5;
}

/** The k's for which A(i,k) and B(k,j) both exist, ascending: the chain that builds C(i,j). */
export function chainOf(s: Structure, i: number, j: number): number[] {
  const ks: number[] = [];
  const kt = s.inner.count;
  for (let k = 0; k < kt; k++) if (s.a[i * kt + k] === 1 && s.b[k * s.cols.count + j] === 1) ks.push(k);
  return ks;
}

/** Flops of the product: 2 mi nj kk per multiply actually performed. */
export function multiplyFlops(s: Structure): number {
  let f = 0;
  for (let i = 0; i < s.rows.count; i++) {
    for (let j = 0; j < s.cols.count; j++) {
      for (const k of chainOf(s, i, j)) f += 2 * s.rows.sizes[i]! * s.cols.sizes[j]! * s.inner.sizes[k]!;
    }
  }
  return f;
}

/** Fraction of the matrix that A's (`which` 0) or B's tiles cover. */
export function actualDensity(s: Structure, which: 0 | 1): number {
  const [r, c, p] = which === 0 ? [s.rows, s.inner, s.a] : [s.inner, s.cols, s.b];
  let area = 0;
  for (let t = 0; t < p.length; t++) if (p[t] === 1) area += r.sizes[Math.floor(t / c.count)]! * c.sizes[t % c.count]!;
  return area / (r.offsets[r.count]! * c.offsets[c.count]!);
}
