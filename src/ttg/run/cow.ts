/**
 * Copy-on-write for consumable inputs (the const/move semantics of C++ TTG). The runtime counts how
 * many pending or running tasks hold each object value; a task that wants to mutate an input gets a
 * private copy only when someone else still holds the same object. Counting starts only once some
 * TT consumes inputs or reduces, so graphs without them pay nothing.
 */

import { Errors } from '../../base/errors.js';
import { extraOwnKeys } from '../../serialize/own-properties.js';

const holders = new WeakMap<object, number>();

type Copier = (value: never) => unknown;
const copiers = new Map<unknown, Copier>();

/** Records one more holder of `v` (no-op for primitives). */
export function retain(v: unknown): void {
  if (typeof v === 'object' && v !== null) holders.set(v, (holders.get(v) ?? 0) + 1);
}

/** Records one holder fewer of `v`. */
export function release(v: unknown): void {
  if (typeof v !== 'object' || v === null) return;
  const n = holders.get(v);
  if (n === undefined) return;
  if (n <= 1) holders.delete(v);
  else holders.set(v, n - 1);
}

/** How many tasks currently hold `v`. */
export function holderCount(v: unknown): number {
  return typeof v === 'object' && v !== null ? holders.get(v) ?? 0 : 0;
}

/**
 * Registers how to copy instances of `cls` when a consumer needs a private copy. Without one the
 * runtime uses `structuredClone` and restores the prototype (enough for classes whose state is in
 * ordinary own properties and typed arrays).
 */
export function register_copier<T extends object>(cls: abstract new (...args: never[]) => T, copy: (value: T) => T): void {
  copiers.set(cls.prototype, copy as Copier);
}

/**
 * A private copy of `v`: by its class's registered copier, else by `structuredClone`, after which
 * class instances at any depth get their prototype back and those whose class has a copier are
 * replaced by its copy (so a Buffer inside a plain object is copied as a Buffer, not as a plain
 * object sharing the original's device memory).
 */
export function copyValue<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  const copier = copiers.get(Object.getPrototypeOf(v));
  if (copier !== undefined) return copyWith(copier, v) as T;
  return restore(v, structuredClone(v), new Map()) as T;
}

/** `copier(v)`, which must be another object: the same one would let the consumer write what others hold. */
function copyWith(copier: Copier, v: object): unknown {
  const c = copier(v as never);
  if (c === v) {
    const name = (v.constructor as { name?: string } | undefined)?.name ?? 'its class';
    throw Errors.invalidArgument(`register_copier(${name}, copy)`, 'returned the object it was given; a copier must return a new object (the consumer would write what other tasks hold)');
  }
  return c;
}

/**
 * Gives `clone` (structuredClone of `orig`) the classes of `orig`, at every depth, Map keys and
 * subclasses of built-ins (typed arrays, Node Buffers, Dates, Maps, Sets, Arrays) included, null
 * prototypes and the own properties structuredClone drops too (see copyOwn); cycle-safe.
 */
function restore(orig: unknown, clone: unknown, done: Map<object, unknown>): unknown {
  if (typeof orig !== 'object' || orig === null || orig instanceof ArrayBuffer) return clone;
  const proto: unknown = Object.getPrototypeOf(orig);
  if (ArrayBuffer.isView(orig) || orig instanceof Date) {
    withProto(clone as object, proto);
    copyOwn(orig, clone as object, done);
    return clone;
  }
  const prior = done.get(orig);
  if (prior !== undefined) return prior;
  const copier = copiers.get(proto);
  if (copier !== undefined) {
    const c = copyWith(copier, orig);
    done.set(orig, c);
    return c;
  }
  done.set(orig, clone);
  withProto(clone as object, proto);
  // structuredClone keeps the order of Map entries and Set members: pair them up by position
  if (orig instanceof Map) {
    const m = clone as Map<unknown, unknown>;
    const entries = [...m];
    m.clear();
    let i = 0;
    for (const [k, x] of orig) {
      const [ck, cx] = entries[i++]!;
      Map.prototype.set.call(m, restore(k, ck, done), restore(x, cx, done));
    }
  } else if (orig instanceof Set) {
    const set = clone as Set<unknown>;
    const members = [...set];
    set.clear();
    let i = 0;
    for (const x of orig) Set.prototype.add.call(set, restore(x, members[i++], done));
  } else if (Array.isArray(orig)) {
    const a = clone as unknown[];
    for (let i = 0; i < orig.length; i++) if (i in orig) a[i] = restore(orig[i], a[i], done);
  }
  copyOwn(orig, clone as object, done);
  return clone;
}

/**
 * The own properties of `orig` besides its contents (own-properties.ts), symbols and
 * non-enumerable ones included, on `clone`, each with its enumerability: structuredClone keeps the
 * enumerable string-keyed ones of plain objects and arrays (copied here again only to restore
 * what they hold), and drops the rest, and every one of Maps, Sets, Dates, typed arrays, Errors
 * (beyond name, message, stack and cause) and RegExps. An accessor is copied as the value it reads.
 */
function copyOwn(orig: object, clone: object, done: Map<object, unknown>): void {
  const o = orig as Record<PropertyKey, unknown>;
  const c = clone as Record<PropertyKey, unknown>;
  for (const k of extraOwnKeys(orig)) {
    const d = Object.getOwnPropertyDescriptor(orig, k)!;
    const x = o[k];
    const had = Object.getOwnPropertyDescriptor(clone, k);
    // a primitive is itself (structuredClone refuses functions and symbols, as for the rest of the value)
    const value = typeof x === 'object' && x !== null ? restore(x, had !== undefined ? c[k] : structuredClone(x), done) : typeof x === 'function' || typeof x === 'symbol' ? structuredClone(x) : x;
    // a clone's own property that cannot be redefined (a RegExp's lastIndex) only takes the value
    if (had !== undefined && had.configurable !== true) {
      if (had.writable === true && !Object.is(c[k], value)) c[k] = value;
      continue;
    }
    Object.defineProperty(c, k, { value, writable: d.writable ?? true, enumerable: d.enumerable === true, configurable: d.configurable === true });
  }
}

/** `clone` with the prototype `proto` of the value it copies (structuredClone gives the base class, or Object for a null one). */
function withProto(clone: object, proto: unknown): object {
  if (Object.getPrototypeOf(clone) !== proto) Object.setPrototypeOf(clone, proto as object | null);
  return clone;
}
