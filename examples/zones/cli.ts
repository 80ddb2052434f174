/**
 * Command-line options of the zones example: `--zones Z` (Z x Z zones), `--size S` (the smallest
 * zone S x S points), `--steps`, `--reps` (sweeps per step), `--schedule static|proportional|dynamic`,
 * `--devices D --host H --slowdown F1,F2,...` (the emulated devices, the host place's threads, the
 * devices' slowdowns), `--check`, `--json`, `--trace FILE`.
 */
import { parseFlags } from '../common/flags.js';
import type { CommonOptions } from '../common/setup.js';

/** How zones are given to places. */
export type Schedule = 'static' | 'proportional' | 'dynamic';

/** Parsed options. */
export interface Options extends CommonOptions {
  zones: number;
  size: number;
  steps: number;
  reps: number;
  schedule: Schedule;
  host: number;
  slowdown: string | undefined;
  check: boolean;
  json: boolean;
}

const USAGE = `usage: zones [--zones Z] [--size S] [--steps T] [--reps R] [--schedule static|proportional|dynamic]
             [--devices D] [--host H] [--slowdown F1,F2,...] [--check] [--json] [--trace FILE]
  Z x Z zones from S x S to ~20 times as many points; T steps of R sweeps each on D emulated devices
  (each Fi times slower than the host) and a host place of H threads`;

/** Parses `argv`; throws with the usage text on anything it does not understand. */
export function parseArgs(argv: readonly string[]): Options {
  const o = parseFlags<Options>(argv, {
    zones: 4, size: 32, steps: 20, reps: 10, schedule: 'dynamic', host: 1, slowdown: undefined, check: false, json: false,
    trace: undefined, backend: undefined, workers: undefined, devices: 2, memory: undefined,
  }, { bools: ['check', 'json'], ints: ['zones', 'size', 'steps', 'reps', 'devices', 'host'], strings: ['schedule', 'slowdown', 'trace'] }, USAGE);
  if (!['static', 'proportional', 'dynamic'].includes(o.schedule)) throw new Error(`--schedule must be static, proportional or dynamic, got '${o.schedule}'\n${USAGE}`);
  if (o.slowdown !== undefined) {
    const f = o.slowdown.split(',').map(Number);
    if (f.length !== o.devices || f.some((x) => !(x >= 1))) throw new Error(`--slowdown must give ${o.devices} factors >= 1, got '${o.slowdown}'\n${USAGE}`);
  }
  return o;
}
