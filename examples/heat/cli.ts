/**
 * Command-line options of the heat example:
 * `--n --blocks --iters --alpha --kernel js|native --backend --workers --devices --memory --check --json --trace FILE`.
 */
import { parseFlags } from '../common/flags.js';
import type { CommonOptions } from '../common/setup.js';

/** Parsed options. */
export interface Options extends CommonOptions {
  n: number;
  blocks: number;
  iters: number;
  alpha: number;
  /** Where the interior update runs: a JavaScript body, or the native kernel of stencil.c. */
  kernel: 'js' | 'native';
  check: boolean;
  json: boolean;
}

const USAGE = `usage: heat [--n N] [--blocks B] [--iters I] [--alpha A] [--kernel js|native] [--backend host|emulated|cuda]
            [--workers W] [--devices D] [--memory BYTES] [--check] [--json] [--trace FILE]
  an N x N grid in B x B blocks, I Jacobi sweeps of u += A (sum of the 4 neighbours - 4 u);
  --kernel native updates block interiors with the C kernel of stencil.c on the device backend`;

/** Parses `argv`; throws with the usage text on anything it does not understand. */
export function parseArgs(argv: readonly string[]): Options {
  const o = parseFlags<Options>(argv, {
    n: 1024, blocks: 8, iters: 100, alpha: 0.2, kernel: 'js', check: false, json: false, trace: undefined,
    backend: undefined, workers: undefined, devices: undefined, memory: undefined,
  }, {
    bools: ['check', 'json'],
    ints: ['n', 'blocks', 'iters', 'workers', 'devices', 'memory'],
    strings: ['trace', 'kernel', 'backend'],
    numbers: { alpha: (a) => (a > 0 && a <= 0.25 ? undefined : 'in (0, 0.25] (larger sweeps are unstable)') },
  }, USAGE);
  if (o.blocks > o.n) throw new Error(`--blocks must be at most --n (${o.n}), got ${o.blocks}\n${USAGE}`);
  if (o.kernel !== 'js' && o.kernel !== 'native') throw new Error(`--kernel must be js or native, got '${String(o.kernel)}'\n${USAGE}`);
  return o;
}
