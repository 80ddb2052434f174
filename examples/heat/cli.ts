/**
 * Command-line options of the heat example:
 * `--n --blocks --iters --alpha --check --json --trace FILE`.
 */
import { parseFlags } from '../common/flags.js';
import type { CommonOptions } from '../common/setup.js';

/** Parsed options. */
export interface Options extends CommonOptions {
  n: number;
  blocks: number;
  iters: number;
  alpha: number;
  check: boolean;
  json: boolean;
}

const USAGE = `usage: heat [--n N] [--blocks B] [--iters I] [--alpha A] [--check] [--json] [--trace FILE]
  an N x N grid in B x B blocks, I Jacobi sweeps of u += A (sum of the 4 neighbours - 4 u)`;

/** Parses `argv`; throws with the usage text on anything it does not understand. */
export function parseArgs(argv: readonly string[]): Options {
  const o = parseFlags<Options>(argv, {
    n: 1024, blocks: 8, iters: 100, alpha: 0.2, check: false, json: false, trace: undefined,
    backend: undefined, workers: undefined, devices: undefined, memory: undefined,
  }, {
    bools: ['check', 'json'],
    ints: ['n', 'blocks', 'iters'],
    strings: ['trace'],
    numbers: { alpha: (a) => (a > 0 && a <= 0.25 ? undefined : 'in (0, 0.25] (larger sweeps are unstable)') },
  }, USAGE);
  if (o.blocks > o.n) throw new Error(`--blocks must be at most --n (${o.n}), got ${o.blocks}\n${USAGE}`);
  return o;
}
