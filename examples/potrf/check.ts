/**
 * The scaled residual ||A - L L^T||inf / (||A||inf * N * eps), computed by a task graph on the
 * ranks that own the tiles, so it works for any number of ranks (C++ TTG checks on one rank).
 * A is regenerated tile by tile (it is a function of (i, j)); the factor never moves to one place.
 *
 *   L(i,k) ─▶ RES(i,j,k) for j in k..i   (as the left factor)
 *          └▶ RES(p,i,k) for p in i..nt-1 (as the right factor)
 *   ASRC(i,j) ─▶ RES(i,j,0) ─▶ RES(i,j,1) … ─▶ RES(i,j,j) ─▶ NORM(i), NORM(j) ─▶ MAX
 *
 * Row b of the symmetric residual gathers the row sums of its tiles (b, j) and the column sums
 * of the tiles (p, b) below the diagonal; NORM(b) reduces both (and those of A), MAX takes the max.
 */
import * as ttg from 'ttg';
import { fillTile, owner, tileSize, type Layout } from './matrix.js';
import { Tile } from '../common/tile.js';

type K2 = [number, number];
type K3 = [number, number, number];

function absRowSums(t: Tile): Float64Array {
  const s = new Float64Array(t.rows);
  const a = t.buf.host;
  for (let c = 0; c < t.cols; c++) for (let r = 0; r < t.rows; r++) s[r]! += Math.abs(a[c * t.rows + r]!);
  return s;
}

function absColSums(t: Tile): Float64Array {
  const s = new Float64Array(t.cols);
  const a = t.buf.host;
  for (let c = 0; c < t.cols; c++) {
    let x = 0;
    for (let r = 0; r < t.rows; r++) x += Math.abs(a[c * t.rows + r]!);
    s[c] = x;
  }
  return s;
}

function add(acc: Float64Array, v: Float64Array): void {
  for (let i = 0; i < acc.length; i++) acc[i]! += v[i]!;
}

const maxOf = (v: Float64Array) => v.reduce((m, x) => (x > m ? x : m), 0);

/** The check graph; `sources(tiles)` starts it from this rank's final tiles of L. */
export function make_check(l: Layout, seed: number, done: (residual: number, anorm: number, rnorm: number) => void, world?: ttg.World) {
  const lsrcIn = new ttg.Edge<K2, Tile>('L tiles');
  const left = new ttg.Edge<K3, Tile>('L(i,k)');
  const right = new ttg.Edge<K3, Tile>('L(j,k)');
  const fromA = new ttg.Edge<K3, Tile>('A(i,j)');
  const chain = new ttg.Edge<K3, Tile>('R(i,j)');
  const rowsR = new ttg.Edge<number, Float64Array>('|R| sums');
  const rowsA = new ttg.Edge<number, Float64Array>('|A| sums');
  const toMax = new ttg.Edge<undefined, Float64Array>('max');

  const lsrc = ttg.make_tt((key: K2, L: Tile, out) => {
    const [i, k] = key;
    let t = L;
    if (i === k) { // the diagonal factor is lower triangular: drop what LAPACK left above it
      t = new Tile(L.rows, L.cols, L.buf.host.slice());
      for (let c = 1; c < t.cols; c++) t.buf.host.fill(0, c * t.rows, c * t.rows + Math.min(c, t.rows));
    }
    const rows: K3[] = [];
    const cols: K3[] = [];
    for (let j = k; j <= i; j++) rows.push([i, j, k]);
    for (let p = i; p < l.nt; p++) cols.push([p, i, k]);
    out.broadcast([0, 1], [rows, cols], t);
  }, [lsrcIn], [left, right], { world, name: 'CHECK_L' });

  const asrc = ttg.make_tt((key: K2, out) => {
    const [i, j] = key;
    const t = new Tile(tileSize(l, i), tileSize(l, j));
    fillTile(l, seed, i, j, t.buf.host);
    out.send(1, i, absRowSums(t));
    if (i !== j) out.send(1, j, absColSums(t));
    out.send(0, [i, j, 0], t);
  }, [], [fromA, rowsA], { world, name: 'CHECK_A' });

  const res = ttg.make_tt(function* (key: K3, Li: Tile, Lj: Tile, C: Tile, out) {
    const [i, j, k] = key;
    const { stream } = (yield ttg.device.input(Li.buf, Lj.buf, C.buf)) as ttg.device.InputResult;
    ttg.device.kernels.dgemm(stream, 'N', 'T', C.rows, C.cols, Li.cols, -1.0, Li.buf, Li.rows, Lj.buf, Lj.rows, 1.0, C.buf, C.rows);
    if (k < j) {
      yield ttg.device.kernel();
      out.send(0, [i, j, k + 1], C);
      return;
    }
    yield ttg.device.kernel(C.buf);
    out.send(1, i, absRowSums(C));
    if (i !== j) out.send(1, j, absColSums(C));
  }, [left, right, ttg.fuse(fromA, chain)], [chain, rowsR], { world, name: 'CHECK_RES', consume: [2] });

  const norm = ttg.make_tt((_b: number, r: Float64Array, a: Float64Array, out) => {
    out.sendv(0, Float64Array.of(maxOf(r), maxOf(a)));
  }, [rowsR, rowsA], [toMax], { world, name: 'CHECK_NORM' });
  norm.set_input_reducer(0, (acc, v) => add(acc, v), l.nt);
  norm.set_input_reducer(1, (acc, v) => add(acc, v), l.nt);

  const max = ttg.make_tt((_k: undefined, m: Float64Array) => {
    const eps = 2 ** -52;
    done(m[0]! / (m[1]! * l.n * eps), m[1]!, m[0]!);
  }, [toMax], [], { world, name: 'CHECK_MAX' });
  max.set_input_reducer(0, (acc, v) => { acc[0] = Math.max(acc[0]!, v[0]!); acc[1] = Math.max(acc[1]!, v[1]!); }, l.nt);

  lsrc.set_procmap(([i, k]) => owner(l, i, k));
  asrc.set_procmap(([i, j]) => owner(l, i, j));
  res.set_procmap(([i, j]) => owner(l, i, j));
  norm.set_procmap((b) => owner(l, b, b));
  max.set_procmap(() => 0);
  ttg.make_graph_executable(lsrc, asrc, res, norm, max);

  return {
    /** Starts the check from the final L tiles this rank owns. */
    start(tiles: Map<string, { i: number; j: number; tile: Tile }>, rank: number): void {
      for (const { i, j, tile } of tiles.values()) lsrc.invoke([i, j], tile);
      for (let i = 0; i < l.nt; i++) for (let j = 0; j <= i; j++) if (owner(l, i, j) === rank) asrc.invoke([i, j]);
    },
  };
}
