/**
 * This rank's operands, made before the timed product (as C++ TTG's SpMM builds its matrices
 * first): the tiles of A and B that start here, generated from the seed once, and for each
 * product zeroed, already touched tiles for the C segments computed here (so page faults stay
 * out of the kernels). Each C tile is handed to the graph once and forgotten here.
 */
import type { Plan } from './plan.js';
import { fillTile } from './sparse.js';
import { Tile } from '../common/tile.js';

/** Sources of tiles for `make_spmm` (each called once per tile, on the rank it is made on). */
export interface Operands {
  a(i: number, k: number): Tile;
  b(k: number, j: number): Tile;
  c(i: number, j: number): Tile;
}

function take<T>(m: Map<number, T[]>, key: number, what: string): T {
  const t = m.get(key)?.pop();
  if (t === undefined) throw new Error(`no local tile ${what} ${key}`);
  return t;
}

function put<T>(m: Map<number, T[]>, key: number, t: T): void {
  const list = m.get(key);
  if (list === undefined) m.set(key, [t]);
  else list.push(t);
}

/** This rank's tiles of A and B, by `i * kt + k` and `k * nt + j`: made once, read by every product. */
export interface InputTiles {
  a: Map<number, Tile>;
  b: Map<number, Tile>;
}

/** Generates this rank's tiles of A and B. */
export function inputTiles(plan: Plan): InputTiles {
  const { s, kt, nt, rank } = plan;
  const a = new Map<number, Tile>();
  const b = new Map<number, Tile>();
  for (let i = 0; i < plan.mt; i++) {
    for (let k = 0; k < kt; k++) {
      if (s.a[i * kt + k] !== 1 || plan.aOwner(i, k) !== rank) continue;
      const t = new Tile(s.rows.sizes[i]!, s.inner.sizes[k]!);
      fillTile(s, 0, i, k, t.buf.host);
      a.set(i * kt + k, t);
    }
  }
  for (let k = 0; k < kt; k++) {
    for (let j = 0; j < nt; j++) {
      if (s.b[k * nt + j] !== 1 || plan.bOwner(k, j) !== rank) continue;
      const t = new Tile(s.inner.sizes[k]!, s.cols.sizes[j]!);
      fillTile(s, 1, k, j, t.buf.host);
      b.set(k * nt + j, t);
    }
  }
  return { a, b };
}

/**
 * One product's operands: the tiles of `inputs` (A and B are only read, so every product of a
 * run can share them, as C++ TTG's SpMM shares its matrices) and freshly allocated C tiles.
 */
export function localOperands(plan: Plan, inputs: InputTiles = inputTiles(plan)): Operands {
  const { s, nt, rank } = plan;
  const c = new Map<number, Tile[]>();
  for (let i = 0; i < plan.mt; i++) {
    for (let j = 0; j < nt; j++) {
      for (const { seg } of plan.segments(i, j)) {
        if (plan.segmentRank(i, j, seg) !== rank) continue;
        const t = new Tile(s.rows.sizes[i]!, s.cols.sizes[j]!);
        t.buf.host.fill(0); // touch the pages now
        put(c, i * nt + j, t);
      }
    }
  }
  const one = (m: Map<number, Tile>, key: number, what: string): Tile => {
    const t = m.get(key);
    if (t === undefined) throw new Error(`no local tile ${what} ${key}`);
    return t;
  };
  return {
    a: (i, k) => one(inputs.a, i * plan.kt + k, 'A'),
    b: (k, j) => one(inputs.b, k * nt + j, 'B'),
    c: (i, j) => take(c, i * nt + j, 'C'),
  };
}
