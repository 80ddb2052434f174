/**
 * Seeded random pairs of task keys (issue 55), for test/mpi/key-pairs.ts: two keys that name the
 * same task, built apart (fields in another order, -0 for 0, a null prototype, an own `__proto__`
 * field defined anew), or two that differ in one place. Not a test file: importing it registers
 * nothing. {@link keyText} is this file's own notion of "the same task", written apart from the
 * runtime's key codec so that the test does not grade the runtime by itself.
 */
import { rng } from '../helpers.js';

/** Two keys and whether they name the same task. */
export interface KeyPair {
  a: unknown;
  b: unknown;
  same: boolean;
  /** How `b` was made from `a`. */
  how: string;
}

const NAMES = ['i', 'j', 'k', 'tile', 'constructor', 'toJSON', '__proto__', 'hasOwnProperty', '0', '', 'é', '😀', 'a b'];
const STRINGS = ['', 'a', '1', '0', 'é', '中', '😀', 'k\u0000', '"', '__proto__', 'true', 'null'];

/** The task a key names, as text: type-tagged, object fields sorted, -0 folded into 0. */
export function keyText(k: unknown): string {
  if (typeof k === 'number') return `n:${Object.is(k, -0) ? 0 : k}`;
  if (typeof k === 'string') return `s:${JSON.stringify(k)}`;
  if (typeof k === 'bigint') return `b:${k}`;
  if (typeof k === 'boolean' || k === null) return `l:${String(k)}`;
  if (Array.isArray(k)) return `[${k.map(keyText).join(',')}]`;
  const o = k as Record<string, unknown>;
  return `{${Object.keys(o).sort().map((f) => `${JSON.stringify(f)}=${keyText(o[f])}`).join(',')}}`;
}

/** `o` with field `f` defined as an own data property (an own `__proto__` too). */
function define(o: object, f: string, v: unknown): void {
  Object.defineProperty(o, f, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Pair number `seed`: the same task with probability one half. */
export function keyPair(seed: number): KeyPair {
  const r = rng(seed * 7919 + 1);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;

  const leaf = (): unknown => {
    switch (int(7)) {
      case 0: return int(2000) - 1000;
      case 1: return pick([0, 2 ** 53 - 1, -(2 ** 53), 0.5, 1e21, 2 ** 40, -1.25]);
      case 2: return pick(STRINGS);
      case 3: return r() < 0.5;
      case 4: return BigInt(int(1000)) * (r() < 0.5 ? -1n : 1n);
      case 5: return null;
      default: return int(50);
    }
  };
  const key = (depth: number): unknown => {
    if (depth >= 3 || r() < (depth === 0 ? 0.2 : 0.4)) return leaf();
    if (r() < 0.5) return Array.from({ length: int(4) }, () => key(depth + 1));
    const o: object = r() < 0.15 ? Object.create(null) : {};
    for (let n = int(4); n > 0; n--) {
      const f = pick(NAMES);
      if (!Object.prototype.hasOwnProperty.call(o, f)) define(o, f, key(depth + 1));
    }
    return o;
  };

  /** `k` built anew: fields in reverse order, -0 for 0, plain and null prototypes swapped. */
  const twin = (k: unknown): unknown => {
    if (k === 0) return r() < 0.5 ? -0 : 0;
    if (Array.isArray(k)) return k.map(twin);
    if (typeof k !== 'object' || k === null) return k;
    const o: object = r() < 0.3 ? (Object.getPrototypeOf(k) === null ? {} : Object.create(null)) : Object.getPrototypeOf(k) === null ? Object.create(null) : {};
    for (const f of Object.keys(k).reverse()) define(o, f, twin((k as Record<string, unknown>)[f]));
    return o;
  };

  /** `k` changed in one place (a twin elsewhere), and how. */
  const mutate = (k: unknown): [unknown, string] => {
    if (Array.isArray(k) && k.length > 0 && r() < 0.7) {
      const i = int(k.length);
      const [x, how] = mutate(k[i]);
      return [k.map((e, j) => (j === i ? x : twin(e))), `[${i}] ${how}`];
    }
    if (Array.isArray(k)) return [[...k.map(twin), leaf()], 'one more element'];
    if (typeof k === 'object' && k !== null) {
      const fields = Object.keys(k);
      const o: Record<string, unknown> = {};
      if (fields.length > 0 && r() < 0.7) {
        const f = pick(fields);
        const [x, how] = mutate((k as Record<string, unknown>)[f]);
        for (const g of fields) define(o, g, g === f ? x : twin((k as Record<string, unknown>)[g]));
        return [o, `.${f} ${how}`];
      }
      for (const g of fields) define(o, g, twin((k as Record<string, unknown>)[g]));
      define(o, fields.includes('zz') ? 'zz2' : 'zz', 0);
      return [o, 'one more field'];
    }
    switch (typeof k) {
      case 'number': return r() < 0.5 ? [k + 1 !== k ? k + 1 : k * 2, 'another number'] : [String(k), 'the number as a string'];
      case 'string': return r() < 0.5 ? [`${k}x`, 'string + x'] : [k === '' ? 0 : k.length, 'a number instead'];
      case 'boolean': return r() < 0.5 ? [!k, 'the other boolean'] : [k ? 1 : 0, 'a number instead'];
      case 'bigint': return r() < 0.5 ? [k + 1n, 'bigint + 1'] : [Number(k), 'the number instead'];
      default: return [0, 'null to 0'];
    }
  };

  const a = key(0);
  if (r() < 0.5) return { a, b: twin(a), same: true, how: 'built anew' };
  const [b, how] = mutate(a);
  return { a, b, same: keyText(a) === keyText(b), how };
}

/**
 * `count` pairs from number `first` on, with their numbers, leaving out a pair that draws a key
 * an earlier one has (small keys repeat): each task then gets its inputs from one pair only.
 */
export function keyPairs(first: number, count: number): Array<KeyPair & { p: number }> {
  const taken = new Set<string>();
  const out: Array<KeyPair & { p: number }> = [];
  for (let p = first; out.length < count; p++) {
    const pair = keyPair(p);
    const texts = [keyText(pair.a), keyText(pair.b)];
    if (texts.some((t) => taken.has(t))) continue;
    for (const t of texts) taken.add(t);
    out.push({ ...pair, p });
  }
  return out;
}
