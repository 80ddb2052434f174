/**
 * The block-sparse product C = A B as a template task graph (see main.ts for the picture).
 *
 * - BCAST_A(i,k) / BCAST_B(k,j) run where the tile starts, take it from the caller's source and
 *   ship it once to every rank that multiplies with it (LOCAL_*(.,.,rank) keys). Both hold on a
 *   `SequencedKeysConstraint` over k: with a window W, k may start only once every multiply of
 *   k - W on this rank has finished (released by hand from GEMM).
 * - LOCAL_A(i,k,r) / LOCAL_B(k,j,r) hand the tile to this rank's GEMM(i,j,k) tasks.
 * - CINIT(i,j,s) starts the running C(i,j) of k segment s with zeros; GEMM(i,j,k) multiplies
 *   (device-task generator: one body for every backend) and passes C to the next k of the chain,
 *   the last one to RESULT(i,j), whose reducing input sums the segments computed on other ranks.
 * - The bytes of A and B tiles held on this rank are counted from a tile's arrival (or its
 *   broadcast, on the rank it starts on) until the last local multiply using it finishes.
 * - One graph computes any number of products in turn (`start` after the previous one's fence),
 *   so V8 compiles its task bodies once: bodies of a graph built per product were recompiled for
 *   every product, ~60 ms of compiler-thread CPU per 4096³ product at density 0.3 on the cores
 *   the kernels use. The window's ordinals go on rising from one product to the next.
 */
import * as ttg from 'ttg';
import type { Plan } from './plan.js';
import { Tile } from '../common/tile.js';

type K2 = [number, number];
type K3 = [number, number, number];

/** What the graph needs from its caller. */
export interface SpmmOptions {
  /** Number of k's in flight per rank (undefined: unbounded). */
  window?: number | undefined;
  /** Receives each finished C(i,j) on its owner. */
  onResult(i: number, j: number, c: Tile): void;
}

/** Where one product's tiles come from (see `localOperands`). */
export interface TileSources {
  /** Tile A(i,k) / B(k,j), called once on the rank the tile starts on. */
  a(i: number, k: number): Tile;
  b(k: number, j: number): Tile;
  /** A zero tile to accumulate C(i,j) in (default: a new one; pass pre-touched tiles to keep page faults out of the kernels). */
  c?: ((i: number, j: number) => Tile) | undefined;
}

/** Bytes of A/B tiles held on this rank, and the peak. */
export class Inflight {
  bytes = 0;
  peak = 0;

  add(n: number): void {
    this.bytes += n;
    if (this.bytes > this.peak) this.peak = this.bytes;
  }

  sub(n: number): void {
    this.bytes -= n;
  }
}

/** Builds the product graph on this rank; `start(tiles)` feeds one product (call on every rank, then execute). */
export function make_spmm(plan: Plan, o: SpmmOptions) {
  const { s, kt, nt, rank } = plan;
  // per product, set by start(tiles)
  let src: TileSources | undefined;
  let usesA = plan.usesA.slice();
  let usesB = plan.usesB.slice();
  let left = plan.perK.slice();
  let mem = new Inflight();
  let base = -kt; // window ordinal of k = 0 in this product
  let doneUpTo = 0; // every local multiply of a k below this has finished
  const window = o.window === undefined ? undefined : new ttg.SequencedKeysConstraint<K2>(undefined, { auto: false, start: -Infinity }); // ordinals may be negative
  const advance = () => {
    while (doneUpTo < kt && left[doneUpTo] === 0) doneUpTo++;
    window?.release(base + doneUpTo - 1 + o.window!);
  };

  const aLocal = new ttg.Edge<K3, Tile>('A→LOCAL_A');
  const bLocal = new ttg.Edge<K3, Tile>('B→LOCAL_B');
  const aGemm = new ttg.Edge<K3, Tile>('A(i,k)');
  const bGemm = new ttg.Edge<K3, Tile>('B(k,j)');
  const cInit = new ttg.Edge<K3, Tile>('C init');
  const cChain = new ttg.Edge<K3, Tile>('C(i,j) chain');
  const cResult = new ttg.Edge<K2, Tile>('C(i,j)');

  const bcastA = ttg.make_tt((key: K2, out) => {
    const [i, k] = key;
    const tile = src!.a(i, k);
    const ranks = new Set<number>();
    for (let j = 0; j < nt; j++) if (s.b[k * nt + j] === 1) ranks.add(plan.gemmRank(i, j, k));
    mem.add(tile.bytes);
    if (!ranks.has(rank)) mem.sub(tile.bytes);
    out.broadcast(0, [...ranks].map((r): K3 => [i, k, r]), tile);
  }, [], [aLocal], { name: 'BCAST_A' });
  const bcastB = ttg.make_tt((key: K2, out) => {
    const [k, j] = key;
    const tile = src!.b(k, j);
    const ranks = new Set<number>();
    for (let i = 0; i < plan.mt; i++) if (s.a[i * kt + k] === 1) ranks.add(plan.gemmRank(i, j, k));
    mem.add(tile.bytes);
    if (!ranks.has(rank)) mem.sub(tile.bytes);
    out.broadcast(0, [...ranks].map((r): K3 => [k, j, r]), tile);
  }, [], [bLocal], { name: 'BCAST_B' });

  const localA = ttg.make_tt((key: K3, tile: Tile, out) => {
    const [i, k] = key;
    if (plan.aOwner(i, k) !== rank) mem.add(tile.bytes);
    const keys: K3[] = [];
    for (let j = 0; j < nt; j++) if (s.b[k * nt + j] === 1 && plan.gemmRank(i, j, k) === rank) keys.push([i, j, k]);
    out.broadcast(0, keys, tile);
  }, [aLocal], [aGemm], { name: 'LOCAL_A' });
  const localB = ttg.make_tt((key: K3, tile: Tile, out) => {
    const [k, j] = key;
    if (plan.bOwner(k, j) !== rank) mem.add(tile.bytes);
    const keys: K3[] = [];
    for (let i = 0; i < plan.mt; i++) if (s.a[i * kt + k] === 1 && plan.gemmRank(i, j, k) === rank) keys.push([i, j, k]);
    out.broadcast(0, keys, tile);
  }, [bLocal], [bGemm], { name: 'LOCAL_B' });

  const cinit = ttg.make_tt((key: K3, out) => {
    const [i, j, seg] = key;
    const first = plan.segments(i, j).find((x) => x.seg === seg)!.first;
    out.send(0, [i, j, first], src!.c?.(i, j) ?? new Tile(s.rows.sizes[i]!, s.cols.sizes[j]!));
  }, [], [cInit], { name: 'CINIT' });

  const gemm = ttg.make_tt(function* (key: K3, A: Tile, B: Tile, C: Tile, out) {
    const [i, j, k] = key;
    const { stream } = (yield ttg.device.input(A.buf, B.buf, C.buf)) as ttg.device.InputResult;
    ttg.device.kernels.dgemm(stream, 'N', 'N', C.rows, C.cols, A.cols, 1.0, A.buf, A.rows, B.buf, B.rows, 1.0, C.buf, C.rows);
    const nk = plan.next(i, j, k);
    if (nk >= 0) yield ttg.device.kernel();
    else yield ttg.device.kernel(C.buf); // RESULT (and its reducer) reads C on the host
    if (--usesA[i * kt + k] === 0) mem.sub(A.bytes);
    if (--usesB[k * nt + j] === 0) mem.sub(B.bytes);
    if (--left[k] === 0 && k === doneUpTo) advance();
    if (nk >= 0) out.send(0, [i, j, nk], C);
    else out.send(1, [i, j], C);
  }, [aGemm, bGemm, ttg.fuse(cInit, cChain)], [cChain, cResult], { name: 'GEMM', consume: [2] });

  const result = ttg.make_tt((key: K2, c: Tile) => o.onResult(key[0], key[1], c), [cResult], [], { name: 'RESULT' });
  result.set_input_reducer(0, (acc, v) => {
    const x = acc.buf.host;
    const y = v.buf.host;
    for (let e = 0; e < x.length; e++) x[e]! += y[e]!;
  });

  bcastA.set_procmap(([i, k]) => plan.aOwner(i, k)).set_priomap(([, k]) => 2 * kt - k);
  bcastB.set_procmap(([k, j]) => plan.bOwner(k, j)).set_priomap(([k]) => 2 * kt - k);
  localA.set_procmap(([, , r]) => r).set_priomap(([, k]) => 2 * kt - k);
  localB.set_procmap(([, , r]) => r).set_priomap(([k]) => 2 * kt - k);
  cinit.set_procmap(([i, j, seg]) => plan.segmentRank(i, j, seg)).set_priomap(() => 2 * kt);
  gemm.set_procmap(([i, j, k]) => plan.gemmRank(i, j, k)).set_priomap(([, , k]) => kt - k);
  result.set_procmap(([i, j]) => plan.cOwner(i, j));
  if (window !== undefined) {
    bcastA.add_constraint(window, ([, k]) => base + k);
    bcastB.add_constraint(window, ([k]) => base + k);
  }
  const devices = ttg.device.num_devices();
  if (devices > 1) gemm.set_devicehint(([i, j]) => (i * nt + j) % devices);
  const tts = [bcastA, bcastB, localA, localB, cinit, gemm, result] as const;
  ttg.make_graph_executable(...tts);

  return {
    tts,
    /** Peak and current bytes of A/B tiles on this rank, in the current (or last) product. */
    get memory(): Inflight {
      return mem;
    },
    /**
     * Starts a product: feeds this rank's part (its tiles of A and B from `tiles`, its C
     * segments, the reducer counts). Call on every rank, then `ttg.execute()`; call again for
     * another product once `ttg.fence()` has returned.
     */
    start(tiles: TileSources): void {
      src = tiles;
      usesA = plan.usesA.slice();
      usesB = plan.usesB.slice();
      left = plan.perK.slice();
      mem = new Inflight();
      base += kt;
      doneUpTo = 0;
      for (let i = 0; i < plan.mt; i++) {
        for (let j = 0; j < nt; j++) {
          const segs = plan.segments(i, j);
          if (segs.length === 0) continue;
          if (plan.cOwner(i, j) === rank) result.set_argstream_size(0, [i, j], segs.length);
          for (const { seg } of segs) if (plan.segmentRank(i, j, seg) === rank) cinit.invoke([i, j, seg]);
        }
      }
      for (let i = 0; i < plan.mt; i++) for (let k = 0; k < kt; k++) if (s.a[i * kt + k] === 1 && plan.aOwner(i, k) === rank) bcastA.invoke([i, k]);
      for (let k = 0; k < kt; k++) for (let j = 0; j < nt; j++) if (s.b[k * nt + j] === 1 && plan.bOwner(k, j) === rank) bcastB.invoke([k, j]);
      advance();
    },
  };
}
