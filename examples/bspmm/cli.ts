/**
 * Command-line options of the BSpMM example (SPEC §7): `--m --n --k --tmin --tmax --density
 * --seed --window --backend --check --json --trace FILE`, plus `--workers --devices --memory`
 * (as in POTRF), `--ksplit S` (spread each C(i,j)'s k range over S ranks) and `--iters I`.
 */

import { parseFlags } from '../common/flags.js';
import type { CommonOptions } from '../common/setup.js';
import type { StructureOptions } from './sparse.js';

/** Parsed options. */
export interface Options extends StructureOptions, CommonOptions {
  window: number | undefined;
  ksplit: number;
  iters: number;
  check: boolean;
  json: boolean;
}

const USAGE = `usage: bspmm [--m M] [--n N] [--k K] [--tmin T] [--tmax T] [--density D] [--seed S] [--window W]
             [--ksplit S] [--iters I] [--backend host|emulated|cuda] [--workers W] [--devices D]
             [--memory BYTES] [--check] [--json] [--trace FILE]`;

/** Parses `argv`; throws with the usage text on anything it does not understand. */
export function parseArgs(argv: readonly string[]): Options {
  const o = parseFlags<Options>(argv, {
    m: 2048, n: 2048, k: 2048, tmin: 128, tmax: 256, density: 0.3, seed: 11, window: undefined, ksplit: 1, iters: 1,
    backend: undefined, workers: undefined, devices: undefined, memory: undefined, check: false, json: false, trace: undefined,
  }, {
    bools: ['check', 'json'],
    ints: ['m', 'n', 'k', 'tmin', 'tmax', 'seed', 'window', 'ksplit', 'iters', 'workers', 'devices', 'memory'],
    strings: ['backend', 'trace'],
    numbers: { density: (v) => (v > 0 && v <= 1 ? undefined : 'in (0, 1]') },
  }, USAGE);
  if (o.tmin > o.tmax) throw new Error(`--tmin (${o.tmin}) must not exceed --tmax (${o.tmax})`);
  return o;
}
