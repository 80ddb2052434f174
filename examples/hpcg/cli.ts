/**
 * Command-line options of the HPCG example: `--nx --ny --nz` (the local grid of each rank, multiples
 * of 8 for four multigrid levels), `--iters` (CG iterations per run, 50 as HPCG), `--kernel js|native`
 * (default: native when a C compiler builds kernels.c), `--check`, `--json`, `--trace FILE`.
 */
import { parseFlags } from '../common/flags.js';
import type { CommonOptions } from '../common/setup.js';

/** Parsed options. */
export interface Options extends CommonOptions {
  nx: number;
  ny: number;
  nz: number;
  iters: number;
  /** Where the kernels run: JavaScript (vectors.ts) or the native kernels of kernels.c; undefined: native when possible. */
  kernel: 'js' | 'native' | undefined;
  check: boolean;
  json: boolean;
}

const USAGE = `usage: hpcg [--nx NX] [--ny NY] [--nz NZ] [--iters I] [--kernel js|native] [--check] [--json] [--trace FILE]
  each rank owns an NX x NY x NZ block (multiples of 8); I CG iterations with and without the preconditioner;
  --kernel native runs the kernels of kernels.c (the default when a C compiler builds them), js those of vectors.ts`;

/** Parses `argv`; throws with the usage text on anything it does not understand. */
export function parseArgs(argv: readonly string[]): Options {
  const o = parseFlags<Options>(argv, {
    nx: 16, ny: 16, nz: 16, iters: 50, kernel: undefined, check: false, json: false, trace: undefined,
    backend: undefined, workers: undefined, devices: undefined, memory: undefined,
  }, { bools: ['check', 'json'], ints: ['nx', 'ny', 'nz', 'iters'], strings: ['trace', 'kernel'] }, USAGE);
  if (o.kernel !== undefined && o.kernel !== 'js' && o.kernel !== 'native') throw new Error(`--kernel must be js or native, got '${String(o.kernel)}'\n${USAGE}`);
  for (const d of ['nx', 'ny', 'nz'] as const) {
    if (o[d] % 8 !== 0) throw new Error(`--${d} must be a multiple of 8 (four multigrid levels), got ${o[d]}\n${USAGE}`);
  }
  return o;
}
