/**
 * Command-line options of the POTRF example (SPEC §7):
 * `--n --nb --P --Q --backend host|emulated|cuda --workers --iters --check --json --trace FILE`,
 * and `--body generator|async`: the form of the kernel tasks' bodies (generators are the faster).
 */

import type { BodyForm } from '../common/device-body.js';
import { parseFlags } from '../common/flags.js';
import type { CommonOptions } from '../common/setup.js';

/** Parsed options. */
export interface Options extends CommonOptions {
  n: number;
  nb: number;
  P: number | undefined;
  Q: number | undefined;
  iters: number;
  seed: number;
  check: boolean;
  json: boolean;
  body: BodyForm;
}

const USAGE = `usage: potrf [--n N] [--nb NB] [--P P] [--Q Q] [--backend host|emulated|cuda] [--workers W]
             [--devices D] [--memory BYTES] [--iters I] [--seed S] [--check] [--json] [--trace FILE]
             [--body generator|async]`;

/** Parses `argv`; throws with the usage text on anything it does not understand. */
export function parseArgs(argv: readonly string[]): Options {
  const o = parseFlags<Options>(argv, {
    n: 4096, nb: 256, P: undefined, Q: undefined, backend: undefined, workers: undefined, devices: undefined,
    memory: undefined, iters: 1, seed: 3872, check: false, json: false, trace: undefined, body: 'generator',
  }, {
    bools: ['check', 'json'],
    ints: ['n', 'nb', 'P', 'Q', 'workers', 'devices', 'memory', 'iters', 'seed'],
    strings: ['backend', 'trace', 'body'],
  }, USAGE);
  if (o.body !== 'generator' && o.body !== 'async') throw new Error(`--body must be generator or async, got '${String(o.body)}'\n${USAGE}`);
  return o;
}
