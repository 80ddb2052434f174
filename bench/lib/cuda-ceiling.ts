/**
 * The cuda backend's DGEMM ceilings, measured on the runtime's own CUDA streams with the same
 * kernel its tasks call (cuBLAS when loaded: `ttg.device.info().cuda_kernels` says), straight
 * through the addon, with no task, no JS between kernels and no data movement:
 *
 *   tiles: every stream runs its share of `total` back-to-back n x n dgemm calls (as bench:device's
 *          tasks do), between a start and an end stamp on each stream;
 *   big:   one m x m dgemm on one stream, the device's DGEMM rate for a large problem (what a
 *          factorization of a large matrix is compared with);
 *   potrf: one dpotrf of an n x n matrix on one stream (cuSOLVER's cusolverDnDpotrf when loaded):
 *          the vendor's own Cholesky, the anchor of a tiled one of the same order.
 *
 * Call with no device task running: the runtime does not know of these ops.
 */
import * as ttg from 'ttg';

import { requireNative } from '../../src/native/addon.js';

/** Op kinds of native/src/device_op.h. */
const COPY = 1, DGEMM = 2, DPOTRF = 5, STAMP = 8;

type Native = ReturnType<typeof requireNative>;

/** An n x n matrix on device 0 with `fill` everywhere (and `diagonal` on its diagonal), copied in on `stream`. */
function alloc(native: Native, stream: number, n: number, fill: number, diagonal = fill): number {
  const h = native.devAlloc(0, n * n * 8);
  if (h === null) throw new Error(`cuda ceiling: no device memory for a ${n}x${n} matrix`);
  const host = new Float64Array(n * n).fill(fill);
  if (diagonal !== fill) for (let i = 0; i < n; i++) host[i * n + i] = diagonal;
  native.devOp(stream, COPY, 'H', 0, 0, 0, 0, 0, h, 0, host, 0, null, 0, null, host.byteLength, 0);
  return h;
}

/** Resolves once every stamp in `ends` was written by its stream (polled: the runtime does not report these ops). */
async function reached(ends: Float64Array): Promise<void> {
  while (ends.some((t) => t === 0)) await new Promise((r) => setTimeout(r, 1));
}

/** GFLOP/s of `total` n x n dgemm calls shared by the first `streams` streams of device 0. */
export async function tileCeiling(n: number, total: number, streams: number): Promise<number> {
  const native = requireNative();
  const mats = Array.from({ length: streams }, (_, s) => [alloc(native, s, n, 0.5), alloc(native, s, n, 0.25), alloc(native, s, n, 1)] as const);
  const starts = new Float64Array(streams), ends = new Float64Array(streams);
  for (let s = 0; s < streams; s++) {
    const [a, b, c] = mats[s]!;
    native.devOp(s, STAMP, '', 0, 0, 0, 0, 0, starts.subarray(s, s + 1), 0, null, 0, null, 0, null, 0, 0);
    const calls = Math.floor(total / streams) + (s < total % streams ? 1 : 0);
    for (let i = 0; i < calls; i++) native.devOp(s, DGEMM, 'NN', n, n, n, 1 / n, 0.5, a, n, b, n, c, n, null, 0, 0);
    native.devOp(s, STAMP, '', 0, 0, 0, 0, 0, ends.subarray(s, s + 1), 0, null, 0, null, 0, null, 0, 0);
  }
  await reached(ends);
  for (const m of mats) for (const h of m) native.devFree(h);
  const ms = Math.max(...ends) - Math.min(...starts);
  return (2 * n ** 3 * total) / (ms / 1000) / 1e9;
}

/** GFLOP/s of the best of `reps` m x m dgemm calls on stream 0 of device 0. */
export async function bigCeiling(m: number, reps: number): Promise<number> {
  const native = requireNative();
  const [a, b, c] = [alloc(native, 0, m, 0.5), alloc(native, 0, m, 0.25), alloc(native, 0, m, 1)];
  const stamps = new Float64Array(reps + 1);
  native.devOp(0, DGEMM, 'NN', m, m, m, 1 / m, 0.5, a, m, b, m, c, m, null, 0, 0);  // warm-up (cuBLAS picks its kernel)
  for (let i = 0; i <= reps; i++) {
    native.devOp(0, STAMP, '', 0, 0, 0, 0, 0, stamps.subarray(i, i + 1), 0, null, 0, null, 0, null, 0, 0);
    if (i < reps) native.devOp(0, DGEMM, 'NN', m, m, m, 1 / m, 0.5, a, m, b, m, c, m, null, 0, 0);
  }
  await reached(stamps);
  for (const h of [a, b, c]) native.devFree(h);
  let best = Infinity;
  for (let i = 0; i < reps; i++) best = Math.min(best, stamps[i + 1]! - stamps[i]!);
  return (2 * m ** 3) / (best / 1000) / 1e9;
}

/**
 * GFLOP/s (n^3 / 3 flops) of one dpotrf of an n x n symmetric positive definite matrix (0.5 off
 * the diagonal, n on it; the time of a Cholesky does not depend on the values) on stream 0 of
 * device 0, after one of order 2048 (cuSOLVER sizes its workspace and loads its kernels). The host
 * holds the matrix once (8n^2 bytes, and as much pinned staging for the copy in).
 */
export async function potrfCeiling(n: number): Promise<number> {
  const native = requireNative();
  // 0.5 off the diagonal, m on it: symmetric positive definite
  const spd = (m: number): number => alloc(native, 0, m, 0.5, m);
  const warm = spd(2048);
  native.devOp(0, DPOTRF, 'L', 0, 2048, 0, 0, 0, warm, 2048, null, 0, null, 0, null, 0, 0);
  const a = spd(n);
  const stamps = new Float64Array(2);
  native.devOp(0, STAMP, '', 0, 0, 0, 0, 0, stamps.subarray(0, 1), 0, null, 0, null, 0, null, 0, 0);
  native.devOp(0, DPOTRF, 'L', 0, n, 0, 0, 0, a, n, null, 0, null, 0, null, 0, 0);
  native.devOp(0, STAMP, '', 0, 0, 0, 0, 0, stamps.subarray(1, 2), 0, null, 0, null, 0, null, 0, 0);
  await reached(stamps);
  native.devFree(warm);
  native.devFree(a);
  return n ** 3 / 3 / ((stamps[1]! - stamps[0]!) / 1000) / 1e9;
}

/** Which kernels the cuda backend runs (cuBLAS or ours), for the bench's output. */
export function cudaKernels(): string {
  return ttg.device.info()?.cuda_kernels ?? '';
}
