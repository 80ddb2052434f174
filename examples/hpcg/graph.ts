/**
 * Runs one program per rank (solver.ts) as a task graph: each step of a rank is a task, resumed
 * when what it waits for has arrived; the kernels the program calls in between run in that task.
 *
 *   START [r] ──┬─ halo pieces ──▶ HALO [s, neighbour] ─┐
 *   HALO [s, r] ├─ go ───────────▶ HALO [s, r] ─────────┤  resume rank r's program,
 *   DOT [s, r]  └─ part ──▶ SUM (make_allreduce) ──▶ DOT [s, r] (every r) ─┘  up to its next request s+1
 *
 * HALO's pieces arrive on a reducing input that expects one piece per neighbouring rank (a count
 * that depends on the key), so a rank on the edge of the process grid waits for no more.
 */
import * as ttg from 'ttg';

import { neighbours, pack, unpack } from './halo.js';
import type { Geometry } from './geometry.js';
import type { Program, Request } from './solver.js';
import type { Vec } from './vectors.js';

type StepKey = [step: number, rank: number];
type Pieces = Array<[number, Float64Array]>;

/** What {@link make_solver} returns: runs a program on every rank (collective). */
export interface Solver {
  run<T>(program: () => Program<T>): Promise<T>;
}

/** Builds the graph for this rank, whose block is `g`, in `world`. */
export function make_solver(g: Geometry, world: ttg.World): Solver {
  const go = new ttg.Edge<StepKey, void>('go');
  const pieces = new ttg.Edge<StepKey, Pieces>('halo');
  const parts = new ttg.Edge<[number, number], number>('dot-part');
  const sums = new ttg.Edge<StepKey, number>('dot-sum');
  const startEdge = new ttg.Edge<number, void>('start');
  const around = neighbours(g);
  let program: (() => Program<unknown>) | undefined;
  let gen: Program<unknown> | undefined;
  let pending: Request | undefined;
  let result: unknown;

  type Out = ttg.Out<readonly [typeof go, typeof pieces, typeof parts]>;
  /** Resumes this rank's program after step `s` with `input` and sends what its next request needs. */
  const advance = (s: number, input: number | undefined, out: Out): void => {
    const next = gen!.next(input);
    if (next.done === true) {
      result = next.value;
      return;
    }
    pending = next.value;
    const key: StepKey = [s + 1, g.rank];
    if ('halo' in pending) {
      const v = pending.halo;
      for (const [code, to] of around) out.send(1, [s + 1, to], [[26 - code, pack(v, code)]]);
      out.sendk(0, key);
    } else {
      out.send(2, [s + 1, g.rank], pending.dot);
    }
  };

  const start = ttg.make_tt((_r: number, _go: void, out) => {
    gen = program!();
    advance(0, undefined, out);
  }, [startEdge], [go, pieces, parts], { name: 'START', world });
  const halo = ttg.make_tt((key: StepKey, _go: void, got: Pieces | undefined, out) => {
    const v = (pending as { halo: Vec }).halo;
    for (const [code, piece] of got ?? []) unpack(v, code, piece);
    advance(key[0], undefined, out);
  }, [go, pieces], [go, pieces, parts], { name: 'HALO', world });
  halo.set_input_reducer(1, (acc, more) => { acc.push(...more); }, () => around.length);
  const sum = ttg.make_allreduce(parts, sums, {
    op: 'sum', contributions: () => g.size, contributor: (_s, i) => i,
    deliver: (s: number) => Array.from({ length: g.size }, (_, r): StepKey => [s, r]), name: 'SUM', world,
  });
  const dot = ttg.make_tt((key: StepKey, total: number, out) => {
    advance(key[0], total, out);
  }, [sums], [go, pieces, parts], { name: 'DOT', world });
  for (const tt of [start, halo, dot]) (tt as ttg.TT<unknown>).set_procmap((key) => (typeof key === 'number' ? key : (key as StepKey)[1]));
  ttg.make_graph_executable(start, halo, sum, dot);
  return {
    async run<T>(p: () => Program<T>): Promise<T> {
      program = p;
      result = undefined;
      start.in(0).sendk(g.rank);
      world.execute();
      await world.fence();
      return result as T;
    },
  };
}
