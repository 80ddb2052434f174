/**
 * The kernels-only bound of a BSpMM product: every GEMM of the plan enqueued straight onto the
 * host backend's streams in the order the graph prefers (k ascending; each C(i,j) always on the
 * same stream, as the graph's stream affinity keeps it, the C tiles dealt out largest chain first
 * to the stream with the fewest flops so far), with no task graph, no messages and no JS between
 * kernels. It tells how much of the gap to the tile ceiling is the runtime's and how much
 * belongs to the tiles themselves (irregular sizes, operands cold from memory).
 */
import { deviceRuntime } from '../src/device/runtime.js';
import { OpKind, type OpOwner } from '../src/device/streams.js';
import { localOperands } from '../examples/bspmm/operands.js';
import type { Plan } from '../examples/bspmm/plan.js';
import { multiplyFlops } from '../examples/bspmm/sparse.js';
import type { Tile } from '../examples/common/tile.js';

/** GF/s of the plan's GEMMs replayed on the streams (operands made untimed, as in the example). */
export async function replayGemms(plan: Plan): Promise<number> {
  const streams = deviceRuntime()?.streams;
  if (streams === undefined) throw new Error('replayGemms needs a started device runtime');
  const { s, mt, kt, nt } = plan;
  const o = localOperands(plan);
  const A: Array<Tile | undefined> = [];
  const B: Array<Tile | undefined> = [];
  const C: Array<Tile | undefined> = [];
  for (let i = 0; i < mt; i++) for (let k = 0; k < kt; k++) if (s.a[i * kt + k] === 1) A[i * kt + k] = o.a(i, k);
  for (let k = 0; k < kt; k++) for (let j = 0; j < nt; j++) if (s.b[k * nt + j] === 1) B[k * nt + j] = o.b(k, j);
  for (let i = 0; i < mt; i++) for (let j = 0; j < nt; j++) if (plan.chain(i, j).length > 0) C[i * nt + j] = o.c(i, j);
  const all = streams.all;
  // each C(i,j) to a stream, its whole chain of GEMMs: largest first onto the least-loaded stream
  const streamOf = new Int32Array(mt * nt);
  const work = Array.from({ length: mt * nt }, (_, c) => {
    const t = C[c];
    let flops = 0;
    if (t !== undefined) for (const k of plan.chain(Math.floor(c / nt), c % nt)) flops += t.rows * t.cols * A[Math.floor(c / nt) * kt + k]!.cols;
    return { c, flops };
  }).filter((w) => w.flops > 0).sort((a, b) => b.flops - a.flops);
  const load = new Float64Array(all.length);
  for (const { c, flops } of work) {
    let best = 0;
    for (let i = 1; i < load.length; i++) if (load[i]! < load[best]!) best = i;
    streamOf[c] = best;
    load[best] += flops;
  }
  // owns the replayed ops: one the addon refuses fails the replay
  const owner: OpOwner = { failure: undefined, failureSeen: false };
  const t0 = performance.now();
  for (let k = 0; k < kt; k++) {
    for (let i = 0; i < mt; i++) {
      const a = A[i * kt + k];
      if (a === undefined) continue;
      for (let j = 0; j < nt; j++) {
        const b = B[k * nt + j];
        if (b === undefined) continue;
        const c = C[i * nt + j]!;
        // straight onto the stream: the public kernels take only the buffers of a running device task
        streams.op(all[streamOf[i * nt + j]!]!, OpKind.Dgemm, 'NN', c.rows, c.cols, a.cols, 1.0, 1.0,
          a.buf.host, a.rows, b.buf.host, b.rows, c.buf.host, c.rows, null, 0, owner);
      }
    }
  }
  await Promise.all(all.map((st) => new Promise<void>((done, fail) => streams.marker(st, (e) => (e === undefined ? done() : fail(e))))));
  if (owner.failure !== undefined) throw owner.failure;
  return multiplyFlops(s) / ((performance.now() - t0) / 1000) / 1e9;
}
