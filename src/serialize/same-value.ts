/**
 * "The same value" (docs/design/values.md), one definition for every place that needs it: the
 * comparison behind `TTG_CHECK_SERIALIZE=1` and `world.broadcast`'s rehearsal, the tests of the
 * wire and of copy-on-write. Two values are the same when they have the same prototype at every
 * depth; numbers are equal by `Object.is` (so -0 and NaN count); typed arrays (and DataViews)
 * have the same bytes, Dates the same time, boxed primitives the same primitive; Maps and Sets
 * the same entries in the same order; arrays the same elements and the same holes; and every
 * object the same own properties besides those contents (own-properties.ts), strings and
 * symbols, each as enumerable and with the same value. A shared or cyclic object is compared once.
 */
import { extraOwnKeys } from './own-properties.js';

/**
 * A comparison of its own for some objects (say, a class whose other fields are runtime state):
 * the difference, undefined when equal, or null to compare `sent` and `got` by the rule.
 */
export type CompareOwn = (sent: object, got: object, at: string) => string | undefined | null;

/** Where `got` first differs from `sent` (a path like `value.tiles[3]` and what differs), or undefined. */
export function firstDifference(sent: unknown, got: unknown, at = 'value', own?: CompareOwn): string | undefined {
  return diff(sent, got, at, new Set(), own);
}

function diff(a: unknown, b: unknown, at: string, seen: Set<object>, own: CompareOwn | undefined): string | undefined {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return Object.is(a, b) ? undefined : `${at}: sent ${describe(a)}, received ${describe(b)}`;
  }
  if (seen.has(a)) return undefined;
  seen.add(a);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${at}: sent a ${nameOf(a)}, received a ${nameOf(b)}`;
  if (own !== undefined) {
    const mine = own(a, b, at);
    if (mine !== null) return mine;
  }
  return contents(a, b, at, seen, own) ?? properties(a, b, at, seen, own);
}

/** The contents of `a` and `b` of one prototype: elements, bytes, time, entries. */
function contents(a: object, b: object, at: string, seen: Set<object>, own: CompareOwn | undefined): string | undefined {
  if (ArrayBuffer.isView(a)) {
    const x = bytes(a), y = bytes(b as ArrayBufferView);
    if (x.length !== y.length) return `${at}: sent ${x.length} bytes, received ${y.length}`;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return `${at}: byte ${i} sent ${x[i]}, received ${y[i]}`;
    return undefined;
  }
  if (a instanceof Date || a instanceof Number || a instanceof Boolean || a instanceof String) {
    const x: unknown = a.valueOf(), y: unknown = (b as Date).valueOf();
    return Object.is(x, y) ? undefined : `${at}: sent a ${nameOf(a)} of ${describe(x)}, received one of ${describe(y)}`;
  }
  if (a instanceof RegExp) {
    return a.source === (b as RegExp).source && a.flags === (b as RegExp).flags ? undefined : `${at}: sent ${String(a)}, received ${String(b)}`;
  }
  if (a instanceof Map || a instanceof Set) {
    const ea = entries(a), eb = entries(b as Map<unknown, unknown> | Set<unknown>);
    if (ea.length !== eb.length) return `${at}: sent ${ea.length} entries, received ${eb.length}`;
    for (let i = 0; i < ea.length; i++) {
      const d = diff(ea[i]![0], eb[i]![0], `${at}<key #${i}>`, seen, own) ?? diff(ea[i]![1], eb[i]![1], `${at}<value #${i}>`, seen, own);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return `${at}: sent length ${a.length}, received ${bb.length}`;
    for (let i = 0; i < a.length; i++) {
      if ((i in a) !== (i in bb)) return `${at}[${i}]: sent ${i in a ? 'an element' : 'a hole'}, received ${i in bb ? 'an element' : 'a hole'}`;
      const d = diff(a[i], bb[i], `${at}[${i}]`, seen, own);
      if (d !== undefined) return d;
    }
  }
  return undefined;
}

/** The own properties of `a` and `b` besides their contents, in any order. */
function properties(a: object, b: object, at: string, seen: Set<object>, own: CompareOwn | undefined): string | undefined {
  const ka = extraOwnKeys(a), kb = extraOwnKeys(b);
  const inB = new Set(kb);
  for (const k of ka) if (!inB.has(k)) return `${step(at, k)}: sent, not received`;
  if (ka.length !== kb.length) {
    const inA = new Set(ka);
    return `${step(at, kb.find((k) => !inA.has(k))!)}: not sent, received`;
  }
  for (const k of ka) {
    const ea = Object.prototype.propertyIsEnumerable.call(a, k);
    if (ea !== Object.prototype.propertyIsEnumerable.call(b, k)) return `${step(at, k)}: sent ${ea ? '' : 'not '}enumerable, received ${ea ? 'not ' : ''}enumerable`;
    const d = diff((a as Record<PropertyKey, unknown>)[k], (b as Record<PropertyKey, unknown>)[k], step(at, k), seen, own);
    if (d !== undefined) return d;
  }
  return undefined;
}

function entries(m: Map<unknown, unknown> | Set<unknown>): [unknown, unknown][] {
  return m instanceof Map ? [...m] : [...m].map((x) => [x, true]);
}

const IDENT = /^[A-Za-z_$][\w$]*$/;

/** `at` followed by property `k`: `.name`, `[3]`, `["a b"]`, `[Symbol(s)]`. */
function step(at: string, k: string | symbol): string {
  if (typeof k === 'symbol') return `${at}[${String(k)}]`;
  if (/^(0|[1-9]\d*)$/.test(k)) return `${at}[${k}]`;
  return IDENT.test(k) ? `${at}.${k}` : `${at}[${JSON.stringify(k)}]`;
}

function bytes(v: ArrayBufferView): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function nameOf(v: object): string {
  const p: unknown = Object.getPrototypeOf(v);
  return p === null ? 'null-prototype object' : ((p as { constructor?: { name?: string } }).constructor?.name ?? 'object');
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...(${v.length})` : v);
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'bigint') return `${v}n`;
  return typeof v === 'object' ? (v === null ? 'null' : `a ${nameOf(v)}`) : `${typeof v} ${String(v)}`;
}
