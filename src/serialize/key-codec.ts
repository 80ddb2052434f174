/**
 * Canonical text form of task keys. Two keys are the same task exactly when their canonical forms
 * are equal, so the form is type-tagged (the number 1 and the string "1" differ) and objects are
 * written with sorted property names (`{i:1,j:2}` equals `{j:2,i:1}`).
 */

/** Thrown (and turned into `E_BAD_KEY` by the caller, who knows the TT) for unusable keys. */
export class KeyShapeError extends Error {}

/** Objects that define their own identity, like C++ keys with `hash` and `operator==`. */
export interface HashableKey {
  hash(): number;
  equals(other: unknown): boolean;
}

/** True when `key` brings its own `hash()`/`equals()`. */
export function isHashableKey(key: unknown): key is HashableKey {
  return typeof key === 'object' && key !== null
    && typeof (key as HashableKey).hash === 'function' && typeof (key as HashableKey).equals === 'function';
}

const MAX_DEPTH = 32;

/** Canonical string of a key; throws {@link KeyShapeError} naming what is wrong with it. */
export function canonicalKey(key: unknown): string {
  return encode(key, 0);
}

function encode(v: unknown, depth: number): string {
  switch (typeof v) {
    case 'number':
      if (v !== v) throw new KeyShapeError('NaN is not a valid key (it is not equal to itself)');
      return v === 0 ? '0' : String(v); // folds -0 into 0, as Map does
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return `${v}n`;
    case 'object': {
      if (v === null) return 'null';
      if (depth >= MAX_DEPTH) throw new KeyShapeError(`nested deeper than ${MAX_DEPTH} levels (is it cyclic?)`);
      if (Array.isArray(v)) {
        let s = '[';
        for (let i = 0; i < v.length; i++) s += (i === 0 ? '' : ',') + encode(v[i], depth + 1);
        return `${s}]`;
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        const name = (v as object).constructor?.name ?? 'object';
        throw new KeyShapeError(`a ${name} instance is not a key: use numbers, strings, arrays, plain objects, or give it hash() and equals()`);
      }
      const names = Object.keys(v).sort();
      let s = '{';
      for (let i = 0; i < names.length; i++) {
        const n = names[i]!;
        s += `${i === 0 ? '' : ','}${JSON.stringify(n)}:${encode((v as Record<string, unknown>)[n], depth + 1)}`;
      }
      return `${s}}`;
    }
    case 'undefined':
      throw new KeyShapeError('undefined inside a key');
    default:
      throw new KeyShapeError(`a ${typeof v} is not a key`);
  }
}

/**
 * Packs a tuple of two or three small non-negative integers into one exact double, the fast path
 * for the `[i, j]` and `[i, j, k]` keys of tiled algorithms. Returns -1 when the tuple does not fit.
 */
export function packSmallTuple(a: readonly unknown[]): number {
  const n = a.length;
  if (n === 2) {
    const x = a[0], y = a[1];
    if (typeof x === 'number' && typeof y === 'number' && (x >>> 0) === x && (y >>> 0) === y && x < 0x4000000 && y < 0x4000000) {
      return x * 0x4000000 + y;
    }
  } else if (n === 3) {
    const x = a[0], y = a[1], z = a[2];
    if (typeof x === 'number' && typeof y === 'number' && typeof z === 'number'
      && (x >>> 0) === x && (y >>> 0) === y && (z >>> 0) === z && x < 0x20000 && y < 0x20000 && z < 0x20000) {
      return (x * 0x20000 + y) * 0x20000 + z;
    }
  }
  return -1;
}

/** Throws {@link KeyShapeError} unless `key` is usable as a task key; cheap for common keys. */
export function checkKey(key: unknown): void {
  switch (typeof key) {
    case 'number':
      if (key !== key) throw new KeyShapeError('NaN is not a valid key (it is not equal to itself)');
      return;
    case 'string':
    case 'undefined':
      return;
    default:
      if (Array.isArray(key) && packSmallTuple(key) >= 0) return;
      if (isHashableKey(key)) {
        const h = key.hash();
        if (typeof h !== 'number' || !Number.isFinite(h)) throw new KeyShapeError('hash() must return a finite number');
        return;
      }
      canonicalKey(key);
  }
}
