/**
 * The examples' command-line grammar: `--name value`, `--name=value` and bare boolean flags.
 * Each example lists its options; anything else fails with the usage text.
 */

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

/** Parses `argv` over `defaults`; throws with `usage` on anything `spec` does not name. */
export function parseFlags<O extends object>(argv: readonly string[], defaults: O, spec: FlagSpec, usage: string): O {
  const o = { ...defaults } as Record<string, unknown>;
  const numbers = spec.numbers ?? {};
  for (let a = 0; a < argv.length; a++) {
    const arg = argv[a]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument '${arg}'\n${usage}`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (name === 'help') throw new Error(usage);
    if (spec.bools.includes(name)) {
      o[name] = true;
      continue;
    }
    const isInt = spec.ints.includes(name);
    const check = numbers[name];
    if (!isInt && check === undefined && !spec.strings.includes(name)) throw new Error(`unknown option --${name}\n${usage}`);
    const value = inline ?? argv[++a];
    if (value === undefined) throw new Error(`--${name} needs a value\n${usage}`);
    if (isInt) {
      const v = Number(value);
      if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer, got '${value}'`);
      o[name] = v;
    } else if (check !== undefined) {
      const v = Number(value);
      const wrong = Number.isNaN(v) ? 'a number' : check(v);
      if (wrong !== undefined) throw new Error(`--${name} must be ${wrong}, got '${value}'`);
      o[name] = v;
    } else {
      o[name] = value;
    }
  }
  return o as O;
}
