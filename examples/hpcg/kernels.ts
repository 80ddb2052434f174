/**
 * The kernels a rank's program runs (solver.ts `Kernels`): in JavaScript (vectors.ts, computed at
 * once), or native (kernels.c, built on first use): a native kernel asks the task that runs the
 * program to enqueue it on its stream (`{ kernel }`, graph.ts), on the host backend, where the
 * vectors' arrays are the buffers' own memory. Kernels queue one behind the other; the task waits
 * for them only where JavaScript reads what they wrote: a dot product's part, a halo's pieces.
 */
import * as ttg from 'ttg';

import { buildKernelLibrary } from '../common/native-kernels.js';
import type { Kernels, KernelRequest } from './solver.js';
import { copy, dotPart, fill, prolong, restrict, spmv, symgs, type Vec, waxpby } from './vectors.js';

/** The JavaScript kernels of vectors.ts. */
export const jsKernels: Kernels = {
  *spmv(x, y) { spmv(x, y); },
  *symgs(r, x) { symgs(r, x); },
  *waxpby(alpha, x, beta, y, w) { waxpby(alpha, x, beta, y, w); },
  *dot(x, y) { return dotPart(x, y); },
  *restrict(rf, axf, rc, f2c) { restrict(rf, axf, rc, f2c); },
  *prolong(xc, xf, f2c) { prolong(xc, xf, f2c); },
  *fill(v, value) { fill(v, value); },
  *copy(from, to) { copy(from, to); },
};

/** One buffer per array, made on first use (wrapping the array: no copy). */
const buffers = new WeakMap<Float64Array | Int32Array, ttg.Buffer<ttg.BufferArray>>();
function bufferOf(a: Float64Array | Int32Array): ttg.Buffer<ttg.BufferArray> {
  let b = buffers.get(a);
  if (b === undefined) buffers.set(a, (b = new ttg.Buffer<ttg.BufferArray>(a)));
  return b;
}

const dims = (v: Vec): number[] => [v.g.nx, v.g.ny, v.g.nz];

/** The kernels of kernels.c; throws when they cannot be built (no C compiler) or the backend is not the host's. */
export function nativeKernels(): Kernels {
  const backend = ttg.device.stats().backend;
  if (backend !== 'host') throw new Error(`native kernels run on the host backend (this run's is ${backend})`);
  const lib = buildKernelLibrary('hpcg', 'kernels.c');
  const k = ttg.device.kernels.load(lib, {
    hpcg_spmv: { host: 'hpcg_spmv', buffers: ['in', 'out'], scalars: 3 },
    hpcg_symgs: { host: 'hpcg_symgs', buffers: ['in', 'inout'], scalars: 3 },
    hpcg_waxpby: { host: 'hpcg_waxpby', buffers: ['in', 'in', 'out'], scalars: 5 },
    hpcg_dot: { host: 'hpcg_dot', buffers: ['in', 'in', 'out'], scalars: 3 },
    hpcg_restrict: { host: 'hpcg_restrict', buffers: ['in', 'in', 'out', 'in'], scalars: 3 },
    hpcg_prolong: { host: 'hpcg_prolong', buffers: ['in', 'inout', 'in'], scalars: 3 },
    hpcg_fill: { host: 'hpcg_fill', buffers: ['inout'], scalars: 4 },
    hpcg_copy: { host: 'hpcg_copy', buffers: ['in', 'inout'], scalars: 3 },
  });
  const run = (fn: ttg.device.KernelFn, arrays: ReadonlyArray<Float64Array | Int32Array>, scalars: number[], wait = false): KernelRequest => {
    const bufs = arrays.map(bufferOf);
    return { buffers: bufs, kernel: (stream) => fn(stream as ttg.device.Stream, { buffers: bufs, scalars }), wait };
  };
  const part = new Float64Array(1);
  return {
    *spmv(x, y) { yield run(k.hpcg_spmv, [x.data, y.data], dims(x)); },
    *symgs(r, x) { yield run(k.hpcg_symgs, [r.data, x.data], dims(x)); },
    *waxpby(alpha, x, beta, y, w) { yield run(k.hpcg_waxpby, [x.data, y.data, w.data], [...dims(x), alpha, beta]); },
    *dot(x, y) {
      yield run(k.hpcg_dot, [x.data, y.data, part], dims(x), true);
      return part[0]!;
    },
    *restrict(rf, axf, rc, f2c) { yield run(k.hpcg_restrict, [rf.data, axf.data, rc.data, f2c], dims(rc)); },
    *prolong(xc, xf, f2c) { yield run(k.hpcg_prolong, [xc.data, xf.data, f2c], dims(xc)); },
    *fill(v, value) { yield run(k.hpcg_fill, [v.data], [...dims(v), value]); },
    *copy(from, to) { yield run(k.hpcg_copy, [from.data, to.data], dims(from)); },
  };
}

/**
 * The kernels `choice` names; without one, the native kernels when they can be built here, else
 * the JavaScript ones with a line on stderr saying why.
 */
export function chooseKernels(choice: 'js' | 'native' | undefined): { kernels: Kernels; name: 'js' | 'native' } {
  if (choice === 'js') return { kernels: jsKernels, name: 'js' };
  if (choice === 'native') return { kernels: nativeKernels(), name: 'native' };
  try {
    return { kernels: nativeKernels(), name: 'native' };
  } catch (e) {
    console.error(`hpcg: JavaScript kernels (the native ones are unavailable: ${(e as Error).message.split('\n')[0]})`);
    return { kernels: jsKernels, name: 'js' };
  }
}
