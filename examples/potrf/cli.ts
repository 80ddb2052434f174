/**
 * Command-line options of the POTRF example (SPEC §7):
 * `--n --nb --P --Q --backend host|emulated|cuda --workers --iters --check --json --trace FILE`.
 */

/** Parsed options. */
export interface Options {
  n: number;
  nb: number;
  P: number | undefined;
  Q: number | undefined;
  backend: string | undefined;
  workers: number | undefined;
  devices: number | undefined;
  memory: number | undefined;
  iters: number;
  seed: number;
  check: boolean;
  json: boolean;
  trace: string | undefined;
}

const USAGE = `usage: potrf [--n N] [--nb NB] [--P P] [--Q Q] [--backend host|emulated|cuda] [--workers W]
             [--devices D] [--memory BYTES] [--iters I] [--seed S] [--check] [--json] [--trace FILE]`;

/** Parses `argv`; throws with the usage text on anything it does not understand. */
export function parseArgs(argv: readonly string[]): Options {
  const o: Options = {
    n: 4096, nb: 256, P: undefined, Q: undefined, backend: undefined, workers: undefined, devices: undefined,
    memory: undefined, iters: 1, seed: 3872, check: false, json: false, trace: undefined,
  };
  const ints = new Set(['n', 'nb', 'P', 'Q', 'workers', 'devices', 'memory', 'iters', 'seed']);
  for (let a = 0; a < argv.length; a++) {
    const arg = argv[a]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument '${arg}'\n${USAGE}`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (name === 'check' || name === 'json') {
      o[name] = true;
      continue;
    }
    if (name === 'help') throw new Error(USAGE);
    if (!ints.has(name) && name !== 'backend' && name !== 'trace') throw new Error(`unknown option --${name}\n${USAGE}`);
    const value = inline ?? argv[++a];
    if (value === undefined) throw new Error(`--${name} needs a value\n${USAGE}`);
    if (ints.has(name)) {
      const v = Number(value);
      if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer, got '${value}'`);
      (o as unknown as Record<string, number>)[name] = v;
    } else if (name === 'backend' || name === 'trace') {
      o[name] = value;
    } else {
      throw new Error(`unknown option --${name}\n${USAGE}`);
    }
  }
  return o;
}
