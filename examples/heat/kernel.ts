/** The heat example's native interior kernel (stencil.c), built on first use (../common/native-kernels.ts). */
import * as ttg from 'ttg';

import { buildKernelLibrary } from '../common/native-kernels.js';

/** Loads the interior update of stencil.c. */
export function loadInteriorKernel(): ttg.device.KernelFn {
  const lib = buildKernelLibrary('heat', 'stencil.c');
  return ttg.device.kernels.load(lib, { heat_interior: { host: 'heat_interior', buffers: ['in', 'out'], scalars: 3 } }).heat_interior;
}
