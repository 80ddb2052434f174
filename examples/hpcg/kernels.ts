/**
 * The kernels a rank's program runs (solver.ts `Kernels`): in JavaScript (vectors.ts), or native
 * (kernels.c, built on first use). A native kernel runs on the thread of the task that runs the
 * program (`.here`, on the vectors' own arrays): at HPCG's sizes a kernel takes tens to hundreds
 * of microseconds, and handing each to a stream's worker costs more than it gains, since a rank's
 * program is sequential (docs/design/hpcg.md).
 */
import * as ttg from 'ttg';

import { buildKernelLibrary } from '../common/native-kernels.js';
import type { Kernels } from './solver.js';
import { copy, dotPart, fill, prolong, restrict, spmv, symgs, type Vec, waxpby } from './vectors.js';

/** The JavaScript kernels of vectors.ts. */
export const jsKernels: Kernels = { spmv, symgs, waxpby, dot: dotPart, restrict, prolong, fill, copy };

const dims = (v: Vec): number[] => [v.g.nx, v.g.ny, v.g.nz];

/** The kernels of kernels.c; throws when they cannot be built (no C compiler). */
export function nativeKernels(): Kernels {
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
  const part = new Float64Array(1);
  return {
    spmv: (x, y) => k.hpcg_spmv.here({ buffers: [x.data, y.data], scalars: dims(x) }),
    symgs: (r, x) => k.hpcg_symgs.here({ buffers: [r.data, x.data], scalars: dims(x) }),
    waxpby: (alpha, x, beta, y, w) => k.hpcg_waxpby.here({ buffers: [x.data, y.data, w.data], scalars: [...dims(x), alpha, beta] }),
    dot(x, y) {
      k.hpcg_dot.here({ buffers: [x.data, y.data, part], scalars: dims(x) });
      return part[0]!;
    },
    restrict: (rf, axf, rc, f2c) => k.hpcg_restrict.here({ buffers: [rf.data, axf.data, rc.data, f2c], scalars: dims(rc) }),
    prolong: (xc, xf, f2c) => k.hpcg_prolong.here({ buffers: [xc.data, xf.data, f2c], scalars: dims(xc) }),
    fill: (v, value) => k.hpcg_fill.here({ buffers: [v.data], scalars: [...dims(v), value] }),
    copy: (from, to) => k.hpcg_copy.here({ buffers: [from.data, to.data], scalars: dims(from) }),
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
