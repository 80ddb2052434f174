/**
 * The heat example's native interior kernel (stencil.c), built on first use with the C compiler
 * the addon was built with, the way a program builds its own kernels:
 *
 *   cc -shared -fPIC -O2 -ffp-contract=off -I <ttg>/native/include stencil.c -o libheat.so
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as ttg from 'ttg';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Builds the library (once per version of the source) and loads its kernel. */
export function loadInteriorKernel(): ttg.device.KernelFn {
  const source = join(root, 'examples', 'heat', 'stencil.c');
  const version = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 12);
  const dir = join(tmpdir(), `ttg-heat-${version}`);
  const lib = join(dir, 'libheat.so');
  if (!existsSync(lib)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${lib}.${process.pid}`; // ranks may build at once: each renames its own
    execFileSync('cc', ['-shared', '-fPIC', '-O2', '-ffp-contract=off', `-I${join(root, 'native', 'include')}`, source, '-o', tmp]);
    renameSync(tmp, lib);
  }
  return ttg.device.kernels.load(lib, { heat_interior: { host: 'heat_interior', buffers: ['in', 'out'], scalars: 3 } }).heat_interior;
}
