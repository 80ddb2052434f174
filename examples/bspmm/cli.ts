/**
 * Command-line options of the BSpMM example (SPEC §7): `--m --n --k --tmin --tmax --density
 * --seed --window --backend --check --json --trace FILE`, plus `--workers --devices --memory`
 * (as in POTRF), `--ksplit S` (spread each C(i,j)'s k range over S ranks) and `--iters I`.
 */

/** Parsed options. */
export interface Options {
  m: number;
  n: number;
  k: number;
  tmin: number;
  tmax: number;
  density: number;
  seed: number;
  window: number | undefined;
  ksplit: number;
  iters: number;
  backend: string | undefined;
  workers: number | undefined;
  devices: number | undefined;
  memory: number | undefined;
  check: boolean;
  json: boolean;
  trace: string | undefined;
}

const USAGE = `usage: bspmm [--m M] [--n N] [--k K] [--tmin T] [--tmax T] [--density D] [--seed S] [--window W]
             [--ksplit S] [--iters I] [--backend host|emulated|cuda] [--workers W] [--devices D]
             [--memory BYTES] [--check] [--json] [--trace FILE]`;

const INTS = new Set(['m', 'n', 'k', 'tmin', 'tmax', 'seed', 'window', 'ksplit', 'iters', 'workers', 'devices', 'memory']);

/** Parses `argv`; throws with the usage text on anything it does not understand. */
export function parseArgs(argv: readonly string[]): Options {
  const o: Options = {
    m: 2048, n: 2048, k: 2048, tmin: 128, tmax: 256, density: 0.3, seed: 11, window: undefined, ksplit: 1, iters: 1,
    backend: undefined, workers: undefined, devices: undefined, memory: undefined, check: false, json: false, trace: undefined,
  };
  for (let a = 0; a < argv.length; a++) {
    const arg = argv[a]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument '${arg}'\n${USAGE}`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (name === 'check' || name === 'json') {
      o[name] = true;
      continue;
    }
    if (name === 'help') throw new Error(USAGE);
    const value = inline ?? argv[++a];
    if (value === undefined) throw new Error(`--${name} needs a value\n${USAGE}`);
    if (INTS.has(name)) {
      const v = Number(value);
      if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer, got '${value}'`);
      (o as unknown as Record<string, number>)[name] = v;
    } else if (name === 'density') {
      const v = Number(value);
      if (!(v > 0 && v <= 1)) throw new Error(`--density must be in (0, 1], got '${value}'`);
      o.density = v;
    } else if (name === 'backend' || name === 'trace') {
      o[name] = value;
    } else {
      throw new Error(`unknown option --${name}\n${USAGE}`);
    }
  }
  if (o.tmin > o.tmax) throw new Error(`--tmin (${o.tmin}) must not exceed --tmax (${o.tmax})`);
  return o;
}
