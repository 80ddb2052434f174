/**
 * The examples' command lines, read with `node:util`'s `parseArgs` (strict: an unknown option or
 * a missing value fails with the usage text). Each example lists its options by kind; `--help`
 * asks for the usage ({@link HelpRequested}).
 */
import { parseArgs } from 'node:util';

/** Which options an example takes, by kind. */
export interface FlagSpec {
  /** Flags without a value (set to true). */
  bools: readonly string[];
  /** Options taking a positive integer. */
  ints: readonly string[];
  /** Options taking any text. */
  strings: readonly string[];
  /** Options taking a number, each with a check returning what is wrong with it (or undefined). */
  numbers?: Readonly<Record<string, (v: number) => string | undefined>>;
}

/** Thrown for `--help`: the caller prints `usage` and exits 0. */
export class HelpRequested extends Error {
  constructor(readonly usage: string) {
    super(usage);
  }
}

/** Parses `argv` over `defaults`; throws with `usage` on anything `spec` does not name. */
export function parseFlags<O extends object>(argv: readonly string[], defaults: O, spec: FlagSpec, usage: string): O {
  const numbers = spec.numbers ?? {};
  const options: Record<string, { type: 'boolean' | 'string' }> = { help: { type: 'boolean' } };
  for (const name of spec.bools) options[name] = { type: 'boolean' };
  for (const name of [...spec.ints, ...spec.strings, ...Object.keys(numbers)]) options[name] = { type: 'string' };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${usage}`);
  }
  if (values['help'] === true) throw new HelpRequested(usage);
  const o = { ...defaults } as Record<string, unknown>;
  for (const [name, value] of Object.entries(values)) {
    if (name === 'help' || value === undefined) continue;
    if (typeof value === 'boolean') o[name] = value;
    else if (spec.ints.includes(name)) {
      const v = Number(value);
      if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer, got '${value}'`);
      o[name] = v;
    } else if (numbers[name] !== undefined) {
      const v = Number(value);
      const wrong = Number.isNaN(v) ? 'a number' : numbers[name](v);
      if (wrong !== undefined) throw new Error(`--${name} must be ${wrong}, got '${value}'`);
      o[name] = v;
    } else {
      o[name] = value;
    }
  }
  return o as O;
}
