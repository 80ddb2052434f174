/**
 * The benchmarks' baselines (`build/Release/ttg_bench.node`, built from native/bench by
 * `npm run build:native`): what ttg is compared with, kept out of the library's addon. It reaches
 * ttg_native only through the C seams of native/include/ttg_seams.h.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

import { builtAddonPath, requireNative } from '../../src/native/addon.js';
import { held } from './held.js';

/** bench:irregular's patterns that have a plain-MPI form: a histogram of counters, an index-gather from a table. */
export type IrregularKind = 'histogram' | 'gather';
/** A message per record (`naive`) or per destination buffer of records (`buffered`, exstack-style). */
export type IrregularVariant = 'naive' | 'buffered';

/** The functions of ttg_bench.node. */
export interface Baselines {
  /** Spins the calling thread for `ns` nanoseconds, announced to ttg_native as computation (Task Bench's kernel). */
  busy(ns: number): void;
  /** Fletcher-style sums (mod 2^32) over the 32-bit words of `view`, as `s2 * 2^32 + s1`: bench:pingpong's payload check. */
  checksum(view: ArrayBufferView): number;
  /** GFLOP/s of `threads` native threads each running `iters` single-threaded n x n dgemm calls of the pool's tile kernel. */
  devPeak(n: number, iters: number, threads: number): number;
  /** Seconds of LAPACKE_dpotrf('L') of the n x n column-major `a`, in place, on `threads` OpenBLAS threads. */
  lapackDpotrf(a: Float64Array, n: number, threads: number): number;
  /**
   * Raw MPI ping-pong of `iters` blocking round trips of `bytes` with `peer`, to run on ttg's comm
   * thread with {@link rawPingpong}. With `verify`, every payload received is checked (element 0
   * = round, the rest by {@link Baselines.checksum}) and the checks' time is left out.
   */
  pingpongJob(peer: number, bytes: number, iters: number, verify: boolean): unknown;
  /** `iters` timed MPI_Allreduce (sum) calls on `count` doubles, to run with {@link rawAllreduce}. */
  allreduceJob(count: number, iters: number): unknown;
  /** Task Bench's stencil_1d in plain MPI, one column per rank, to run with {@link rawStencil}. */
  stencilJob(kernelNs: number, steps: number): unknown;
  /**
   * bench:irregular's histogram or index-gather in plain MPI, to run with {@link rawIrregular}.
   * Throws a RangeError when a number is not a 32-bit integer, a TypeError for an unknown kind or variant.
   */
  irregularJob(kind: IrregularKind, variant: IrregularVariant, n: number, perRank: number, buffer: number): unknown;
}

interface BaselinesAddon extends Baselines {
  attach(seams: unknown): void;
}

let loaded: Baselines | undefined;

/** Loads ttg_bench.node once and hands it ttg_native's seams. */
export function baselines(): Baselines {
  if (loaded !== undefined) return loaded;
  const path = builtAddonPath('ttg_bench');
  if (!existsSync(path)) throw new Error(`${path} does not exist: build it with \`npm run build:native\``);
  const addon = createRequire(import.meta.url)(path) as BaselinesAddon;
  addon.attach(requireNative().seams());
  loaded = addon;
  return addon;
}

/** Seconds per MPI_Allreduce of `count` doubles on ttg's comm thread (every rank calls it). */
export async function rawAllreduce(count: number, iters: number): Promise<number> {
  const [seconds] = await onCommThread(baselines().allreduceJob(count, iters));
  return seconds!;
}

/**
 * Seconds of `steps` steps of Task Bench's stencil_1d in plain MPI (Isend/Irecv/Waitall, one column
 * per rank, a `kernelNs` spin per task) on ttg's comm thread, barrier to barrier (every rank calls it).
 */
export async function rawStencil(kernelNs: number, steps: number): Promise<number> {
  const [seconds] = await onCommThread(baselines().stencilJob(kernelNs, steps));
  return seconds!;
}

/**
 * bench:irregular's histogram or index-gather in plain MPI on ttg's comm thread; every rank calls it
 * with the same arguments. Each rank makes `n` random picks among `perRank * size` entries (entry c
 * on rank c % size) and sends the remote ones to their owners, a message each (`naive`) or in
 * per-destination buffers of `buffer` records (`buffered`; replies too). `seconds` runs barrier to
 * barrier; `check` is the rank's sum of its counters (histogram: the ranks' sums add up to
 * n * size when right) or its requests answered wrongly or not at all (gather: 0 when right).
 * Rejects (on every rank alike) unless 0 <= n <= 2^31 - 129, 1 <= perRank <= (2^31 - 1) / size
 * and, when buffered, 1 <= buffer <= 2^20; a kind, variant or number of another type throws.
 */
export async function rawIrregular(kind: IrregularKind, variant: IrregularVariant, n: number, perRank: number, buffer: number): Promise<{ seconds: number; check: number }> {
  const [seconds, check] = await onCommThread(baselines().irregularJob(kind, variant, n, perRank, buffer));
  return { seconds: seconds!, check: check! };
}

/** Runs `job` on ttg's comm thread. */
function onCommThread(job: unknown): Promise<Float64Array> {
  return held(requireNative().commJob(job));
}

/**
 * Raw MPI ping-pong on ttg's comm thread (both ranks call it): [seconds per round trip, payloads
 * that failed the check].
 */
export async function rawPingpong(peer: number, bytes: number, iters: number, verify: boolean): Promise<[number, number]> {
  const [seconds, failed] = await onCommThread(baselines().pingpongJob(peer, bytes, iters, verify));
  return [seconds!, failed!];
}
