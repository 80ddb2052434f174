/**
 * The heat example's task graph: B x B blocks, `iters` Jacobi sweeps, halos exchanged through edges.
 *
 *   STEP [i, j, t] ──edge strips──▶ BORDER [each neighbour, t]      (a hop when the neighbour is elsewhere)
 *        │ sends its strips first, then updates its interior while they travel (in JavaScript,
 *        │ or with the native kernel of stencil.c: --kernel native)
 *        └──[block, new interior]──▶ BORDER [i, j, t] ──block t+1──▶ STEP [i, j, t+1]
 *                                                     └─(after the last sweep)──final──▶ FINAL [i, j] (a collector)
 *
 * BORDER's halo input is a stream with one value per neighbour (`set_input_reducer` with a count
 * that depends on the key): a block on the edge of the field has fewer neighbours and waits for
 * no halo it will never get; its missing sides are 0 (the field's fixed boundary).
 */
import * as ttg from 'ttg';

import { cell, span, type Grid } from './grid.js';

/** A block key: [block row, block column, sweep]. */
export type BlockKey = [number, number, number];
/** The side of the receiving block that a strip borders. */
const enum Side { North = 0, South = 1, West = 2, East = 3 }
type Strips = Array<[Side, Float64Array]>;

/** Number of neighbours of block (i, j). */
function neighbours(g: Grid, i: number, j: number): number {
  return (i > 0 ? 1 : 0) + (i < g.B - 1 ? 1 : 0) + (j > 0 ? 1 : 0) + (j < g.B - 1 ? 1 : 0);
}

function column(u: Float64Array, w: number, h: number, c: number): Float64Array {
  const s = new Float64Array(h);
  for (let r = 0; r < h; r++) s[r] = u[r * w + c]!;
  return s;
}

/**
 * Builds the graph; `owner(i, j)` places blocks on ranks; `final` collects each block after the
 * last sweep on its owner (`final.get([i, j])` there, after the fence). With `interior` (a native kernel, kernel.ts) STEP is a device task that
 * updates the interior with it; otherwise a plain body in JavaScript. Start it with
 * `step.in(0).send([i, j, 0], block)` for each local block.
 */
export function make_heat(g: Grid, iters: number, owner: (i: number, j: number) => number, world?: ttg.World, interior?: ttg.device.KernelFn) {
  const blocks = new ttg.Edge<BlockKey, Float64Array>('block');
  const finished = new ttg.Edge<[number, number], Float64Array>('final');
  const halos = new ttg.Edge<BlockKey, Strips>('halo');
  const updated = new ttg.Edge<BlockKey, [Float64Array, Float64Array]>('interior');
  type Out = ttg.Out<readonly [typeof updated, typeof halos]>;

  /** Sends the block's edge strips to its neighbours; returns its height and width. */
  const sendStrips = (key: BlockKey, u: Float64Array, out: Out): [number, number] => {
    const [i, j, t] = key;
    const [r0, r1] = span(g, i);
    const [c0, c1] = span(g, j);
    const h = r1 - r0, w = c1 - c0;
    if (i > 0) out.send(1, [i - 1, j, t], [[Side.South, u.slice(0, w)]]);
    if (i < g.B - 1) out.send(1, [i + 1, j, t], [[Side.North, u.slice((h - 1) * w, h * w)]]);
    if (j > 0) out.send(1, [i, j - 1, t], [[Side.East, column(u, w, h, 0)]]);
    if (j < g.B - 1) out.send(1, [i, j + 1, t], [[Side.West, column(u, w, h, w - 1)]]);
    return [h, w];
  };

  const inJs = (key: BlockKey, u: Float64Array, out: Out): void => {
    const [h, w] = sendStrips(key, u, out);
    const v = new Float64Array(h * w);
    for (let r = 1; r < h - 1; r++) {
      for (let c = 1; c < w - 1; c++) {
        const x = r * w + c;
        v[x] = cell(u[x]!, u[x - w]!, u[x + w]!, u[x - 1]!, u[x + 1]!, g.alpha);
      }
    }
    out.send(0, key, [u, v]);
  };
  const withKernel = function* (key: BlockKey, u: Float64Array, out: Out) {
    const [h, w] = sendStrips(key, u, out);
    const v = new Float64Array(h * w);
    const U = new ttg.Buffer(u), V = new ttg.Buffer(v);
    const { stream } = (yield ttg.device.input(U, V)) as ttg.device.InputResult;
    interior!(stream, { buffers: [U, V], scalars: [h, w, g.alpha] });
    yield ttg.device.kernel(V);
    out.send(0, key, [u, v]);
  };
  const step = ttg.make_tt(interior === undefined ? inJs : withKernel, [blocks], [updated, halos], { name: 'STEP', world });

  const border = ttg.make_tt((key: BlockKey, uv: [Float64Array, Float64Array], strips: Strips | undefined, out) => {
    const [i, j, t] = key;
    const [u, v] = uv;
    const [r0, r1] = span(g, i);
    const [c0, c1] = span(g, j);
    const h = r1 - r0, w = c1 - c0;
    const side: Array<Float64Array | undefined> = [undefined, undefined, undefined, undefined];
    for (const [s, strip] of strips ?? []) side[s] = strip;
    const at = (r: number, c: number): number => {
      if (r < 0) return side[Side.North]?.[c] ?? 0;
      if (r >= h) return side[Side.South]?.[c] ?? 0;
      if (c < 0) return side[Side.West]?.[r] ?? 0;
      if (c >= w) return side[Side.East]?.[r] ?? 0;
      return u[r * w + c]!;
    };
    const update = (r: number, c: number): void => {
      v[r * w + c] = cell(u[r * w + c]!, at(r - 1, c), at(r + 1, c), at(r, c - 1), at(r, c + 1), g.alpha);
    };
    for (let c = 0; c < w; c++) {
      update(0, c);
      if (h > 1) update(h - 1, c);
    }
    for (let r = 1; r < h - 1; r++) {
      update(r, 0);
      if (w > 1) update(r, w - 1);
    }
    if (t + 1 < iters) out.send(0, [i, j, t + 1], v);
    else out.send(1, [i, j], v);
  }, [updated, halos], [blocks, finished], { name: 'BORDER', world });
  border.set_input_reducer(1, (acc, more) => { acc.push(...more); }, (key) => neighbours(g, key[0], key[1]));

  step.set_procmap((key) => owner(key[0], key[1]));
  border.set_procmap((key) => owner(key[0], key[1]));
  const final = ttg.make_collector(finished, { procmap: ([i, j]) => owner(i, j), name: 'FINAL', world });
  ttg.make_graph_executable(step, border, final);
  return { step, final };
}
