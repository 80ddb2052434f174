/**
 * Copy-on-write for consumable inputs (the const/move semantics of C++ TTG). The runtime counts how
 * many pending or running tasks hold each object value; a task that wants to mutate an input gets a
 * private copy only when someone else still holds the same object. Counting starts only once some
 * TT consumes inputs or reduces, so graphs without them pay nothing.
 */

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

/** A private copy of `v`, made by its registered copier or by `structuredClone`. */
export function copyValue<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  const proto: unknown = Object.getPrototypeOf(v);
  const copier = copiers.get(proto);
  if (copier !== undefined) return copier(v as never) as T;
  const c = structuredClone(v);
  if (proto !== null && Object.getPrototypeOf(c) !== proto) Object.setPrototypeOf(c, proto as object);
  return c;
}
