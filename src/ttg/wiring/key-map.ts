/**
 * A map from task keys to pending tasks with structural key identity. Numbers and strings use a
 * native Map directly; small integer tuples are packed into one number; objects with
 * `hash()`/`equals()` go into hash buckets; everything else is keyed by its canonical string.
 */
import { canonicalKey, isHashableKey, packSmallTuple } from '../../serialize/key-codec.js';

interface Bucket<T> { key: { equals(o: unknown): boolean }; value: T }

/** Structural key -> value map. Throws `KeyShapeError` on keys that are not valid. */
export class KeyMap<T> {
  private readonly nums = new Map<number, T>();
  private readonly strs = new Map<string, T>();
  private readonly tup2 = new Map<number, T>();
  private readonly tup3 = new Map<number, T>();
  private readonly canon = new Map<string, T>();
  private readonly hashed = new Map<number, Bucket<T>[]>();
  private hasUndef = false;
  private undef: T | undefined;
  private count = 0;

  /** Number of entries. */
  get size(): number {
    return this.count;
  }

  get(key: unknown): T | undefined {
    if (typeof key === 'number') return this.nums.get(key);
    if (typeof key === 'string') return this.strs.get(key);
    return this.getSlow(key);
  }

  /** Sets `key` to `value`; the key must not be present (callers always `get` first). */
  add(key: unknown, value: T): void {
    this.count++;
    if (typeof key === 'number') this.nums.set(key, value);
    else if (typeof key === 'string') this.strs.set(key, value);
    else this.addSlow(key, value);
  }

  delete(key: unknown): void {
    let found: boolean;
    if (typeof key === 'number') found = this.nums.delete(key);
    else if (typeof key === 'string') found = this.strs.delete(key);
    else found = this.deleteSlow(key);
    if (found) this.count--;
  }

  /** All values, in no particular order. */
  *values(): IterableIterator<T> {
    if (this.hasUndef) yield this.undef as T;
    for (const m of [this.nums, this.strs, this.tup2, this.tup3, this.canon]) yield* m.values();
    for (const b of this.hashed.values()) for (const e of b) yield e.value;
  }

  clear(): void {
    this.nums.clear(); this.strs.clear(); this.tup2.clear(); this.tup3.clear(); this.canon.clear(); this.hashed.clear();
    this.hasUndef = false;
    this.undef = undefined;
    this.count = 0;
  }

  private getSlow(key: unknown): T | undefined {
    if (key === undefined) return this.undef;
    if (Array.isArray(key)) {
      const p = packSmallTuple(key);
      if (p >= 0) return (key.length === 2 ? this.tup2 : this.tup3).get(p);
    } else if (isHashableKey(key)) {
      const b = this.hashed.get(key.hash());
      if (b !== undefined) for (const e of b) if (e.key.equals(key)) return e.value;
      return undefined;
    }
    return this.canon.get(canonicalKey(key));
  }

  private addSlow(key: unknown, value: T): void {
    if (key === undefined) {
      this.hasUndef = true;
      this.undef = value;
      return;
    }
    if (Array.isArray(key)) {
      const p = packSmallTuple(key);
      if (p >= 0) {
        (key.length === 2 ? this.tup2 : this.tup3).set(p, value);
        return;
      }
    } else if (isHashableKey(key)) {
      const h = key.hash();
      const b = this.hashed.get(h);
      if (b === undefined) this.hashed.set(h, [{ key, value }]);
      else b.push({ key, value });
      return;
    }
    this.canon.set(canonicalKey(key), value);
  }

  private deleteSlow(key: unknown): boolean {
    if (key === undefined) {
      const had = this.hasUndef;
      this.hasUndef = false;
      this.undef = undefined;
      return had;
    }
    if (Array.isArray(key)) {
      const p = packSmallTuple(key);
      if (p >= 0) return (key.length === 2 ? this.tup2 : this.tup3).delete(p);
    } else if (isHashableKey(key)) {
      const h = key.hash();
      const b = this.hashed.get(h);
      if (b === undefined) return false;
      const i = b.findIndex((e) => e.key.equals(key));
      if (i < 0) return false;
      b.splice(i, 1);
      if (b.length === 0) this.hashed.delete(h);
      return true;
    }
    return this.canon.delete(canonicalKey(key));
  }
}
