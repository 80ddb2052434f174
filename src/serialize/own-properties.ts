/**
 * The own properties of an object beyond its contents: what a Map, Set, Date or typed array
 * carries besides its entries, time or elements (a tag, a unit), which msgpack and
 * `structuredClone` both drop. One definition for the value check (refuses them on the wire), the
 * comparison of "the same value" and copy-on-write (copies them).
 *
 * For a typed array, JavaScript lists every index among the own keys: 11 ms for a 1 MiB tile, on
 * every send, and ~22 ns per element for a small one (1.5 µs for 64 doubles). With the native
 * addon (`initialize()` hands over its count, {@link countNonIndexKeysWith}), V8 counts the own
 * keys without the indices in ~50 ns whatever the length: a typed array or an array with nothing
 * beyond its indices (and an array's `length`) is cleared at once, and only one with extra keys
 * is listed. Without it, Node's `util.inspect` asks V8 for the own keys without the indices; with no elements
 * printed its text for a typed array ends with the `[buffer]` entry exactly when nothing follows
 * it, so a large array is cleared in 1–3 µs, and only one that has extra keys is listed in full.
 */
import { inspect } from 'node:util';

/** Up to this many elements, listing the own keys is cheaper than asking `inspect`. */
const LIST_BELOW = 64;

// every option that shapes the text, so that a program's util.inspect.defaultOptions cannot change it
const INSPECT = { showHidden: true, maxArrayLength: 0, depth: 0, customInspect: false, breakLength: Infinity, compact: 3, getters: false, sorted: false, numericSeparator: false, colors: false, showProxy: false } as const;

type Indexed = ArrayBufferView & { length: number };

// the intrinsic getters: an own `length` or `buffer` property on the array must not stand in for them
const typedProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const lengthOf = Object.getOwnPropertyDescriptor(typedProto, 'length')!.get as (this: Indexed) => number;
const bufferOf = Object.getOwnPropertyDescriptor(typedProto, 'buffer')!.get as (this: Indexed) => ArrayBufferLike;

/** Whether `inspect` shows that `v` has no own property besides its elements (false: look closer). */
function clearByInspect(v: Indexed): boolean {
  const text = inspect(v, INSPECT);
  const buffer = bufferOf.call(v);
  const tail = `[buffer]: ${buffer instanceof ArrayBuffer ? 'ArrayBuffer' : 'SharedArrayBuffer'} { byteLength: ${buffer.byteLength} } ]`;
  // own properties are printed after the fixed entries, so the first [buffer] entry ends the text only when there are none
  return text.endsWith(tail) && text.indexOf('[buffer]: ') === text.length - tail.length;
}

/** Whether this Node prints typed arrays as {@link clearByInspect} expects: else every array is listed. */
const inspectReadable = ((): boolean => {
  try {
    const plain = new Float64Array(LIST_BELOW + 1);
    const tagged = Object.defineProperty(new Float64Array(LIST_BELOW + 1), 'tag', { value: 1 });
    return clearByInspect(plain) && !clearByInspect(tagged);
  } catch {
    return false;
  }
})();

/** The number of own keys of an object that are not array indices (-1: unknown), when the addon gives it. */
let nonIndexKeys: ((v: object) => number) | undefined;

/**
 * Lets {@link extraOwnKeys} ask `count` (the native addon's `ownNonIndexKeys`) how many own keys an
 * array or typed array has besides its indices; undefined: it lists them in JavaScript.
 */
export function countNonIndexKeysWith(count: ((v: object) => number) | undefined): void {
  nonIndexKeys = count;
}

/** Whether `k` names an index below `n`. */
function isIndexBelow(k: string | symbol, n: number): boolean {
  if (typeof k !== 'string') return false;
  const i = Number(k);
  return Number.isInteger(i) && i >= 0 && i < n && String(i) === k;
}

/**
 * The own keys (strings and symbols, enumerable or not) of `v` that are not its contents: an
 * array's indices and `length`, a typed array's indices, a String object's characters and
 * `length` are contents; every own key of any other object is listed.
 */
export function extraOwnKeys(v: object): (string | symbol)[] {
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    const counted = nonIndexKeys?.(v) ?? -1;
    if (counted === 0) return [];
    const n = lengthOf.call(v as Indexed);
    // a count above 0 says there are extra keys: list them
    if (counted < 0 && n > LIST_BELOW && inspectReadable && clearByInspect(v as Indexed)) return [];
    const keys = Reflect.ownKeys(v);
    // every index is an own key: as many keys as elements means none besides them
    return keys.length === n ? [] : keys.filter((k) => !isIndexBelow(k, n));
  }
  if (Array.isArray(v) || v instanceof String) {
    // an array's one own key besides its indices is its length
    if (Array.isArray(v) && nonIndexKeys?.(v) === 1) return [];
    const n = v.length;
    return Reflect.ownKeys(v).filter((k) => k !== 'length' && !isIndexBelow(k, n));
  }
  return Reflect.ownKeys(v);
}
