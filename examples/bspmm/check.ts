/**
 * `--check`: compares C with a dense reference product. Each rank rebuilds, for the C tiles it
 * owns, the dense block row of A and block column of B (zeros where no tile exists; every tile is
 * a function of the seed) and multiplies them with plain loops; the row sums of |C - C_ref| and
 * |C_ref| meet on rank 0, which forms the relative inf-norm error ||C - C_ref|| / ||C_ref||.
 * Tiles of C with no contributing k are exact zeros in both and are not stored; a missing or
 * unexpected tile fails the check.
 */
import { reduceToRoot } from './gather.js';
import type { Plan } from './plan.js';
import { fillTile, type Structure } from './sparse.js';
import type { Tile } from '../common/tile.js';

function denseRowOfA(s: Structure, i: number): Float64Array {
  const mi = s.rows.sizes[i]!;
  const a = new Float64Array(mi * s.k);
  for (let k = 0; k < s.inner.count; k++) {
    if (s.a[i * s.inner.count + k] !== 1) continue;
    fillTile(s, 0, i, k, a.subarray(s.inner.offsets[k]! * mi, s.inner.offsets[k + 1]! * mi));
  }
  return a;
}

function denseColOfB(s: Structure, j: number): Float64Array {
  const nj = s.cols.sizes[j]!;
  const b = new Float64Array(s.k * nj);
  for (let k = 0; k < s.inner.count; k++) {
    if (s.b[k * s.cols.count + j] !== 1) continue;
    const kk = s.inner.sizes[k]!;
    const t = new Float64Array(kk * nj);
    fillTile(s, 1, k, j, t);
    const r0 = s.inner.offsets[k]!;
    for (let c = 0; c < nj; c++) b.set(t.subarray(c * kk, (c + 1) * kk), c * s.k + r0);
  }
  return b;
}

/** Relative inf-norm error of this rank's C tiles against the dense product, combined on rank 0 (collective). */
export async function checkProduct(plan: Plan, results: Map<number, Tile>): Promise<number | undefined> {
  const { s } = plan;
  const K = s.k;
  const sums = new Float64Array(2 * s.m + 1); // |C - C_ref| row sums, |C_ref| row sums, missing tiles
  const rowsA = new Map<number, Float64Array>();
  const colsB = new Map<number, Float64Array>();
  for (let i = 0; i < plan.mt; i++) {
    for (let j = 0; j < plan.nt; j++) {
      if (plan.cOwner(i, j) !== plan.rank) continue;
      const c = results.get(i * plan.nt + j);
      if (c === undefined) {
        if (plan.chain(i, j).length > 0) sums[2 * s.m]!++;
        continue;
      }
      if (plan.chain(i, j).length === 0) sums[2 * s.m]!++;
      const mi = c.rows;
      const nj = c.cols;
      let a = rowsA.get(i);
      if (a === undefined) rowsA.set(i, a = denseRowOfA(s, i));
      let b = colsB.get(j);
      if (b === undefined) colsB.set(j, b = denseColOfB(s, j));
      const ref = new Float64Array(mi * nj);
      for (let col = 0; col < nj; col++) {
        for (let kk = 0; kk < K; kk++) {
          const x = b[col * K + kk]!;
          if (x === 0) continue;
          const ao = kk * mi;
          const co = col * mi;
          for (let r = 0; r < mi; r++) ref[co + r]! += a[ao + r]! * x;
        }
      }
      const got = c.buf.host;
      const r0 = s.rows.offsets[i]!;
      for (let col = 0; col < nj; col++) {
        for (let r = 0; r < mi; r++) {
          const e = col * mi + r;
          sums[r0 + r]! += Math.abs(got[e]! - ref[e]!);
          sums[s.m + r0 + r]! += Math.abs(ref[e]!);
        }
      }
    }
  }
  const all = await reduceToRoot(sums, 'sum');
  if (all === undefined) return undefined;
  if (all[2 * s.m]! > 0) return Infinity;
  let diff = 0;
  let norm = 0;
  for (let r = 0; r < s.m; r++) {
    diff = Math.max(diff, all[r]!);
    norm = Math.max(norm, all[s.m + r]!);
  }
  return norm === 0 ? diff : diff / norm;
}
