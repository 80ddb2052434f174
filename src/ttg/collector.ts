/**
 * Values out of a graph into the main program: a sink TT on an edge that keeps what arrives, for
 * the program to read after the fence, on the rank that owns each key, on every rank, or on one.
 *
 *   ... ──edge──▶ COLLECT [k] (on its owner)            on: 'owner' (default)
 *                      └── every rank ──▶ COLLECT.copy [k, r] (on r)   on: 'all'
 *   ... ──edge──▶ COLLECT [k] (on rank n)                on: n
 *
 * A collected value is held (copy-on-write) until `clear()`, so a task that consumes the same
 * object gets its own copy meanwhile.
 */
import { describeKey, Errors } from '../base/errors.js';
import { release, retain } from './cow.js';
import { Edge } from './edge.js';
import { KeyMap } from './key-map.js';
import { make_tt, type TT, type TTImpl } from './tt.js';
import type { World } from './world.js';

/** Where a collector keeps what arrives. */
export type CollectOn = 'owner' | 'all' | number;

/** Options of {@link make_collector}. */
export interface CollectorOptions<K> {
  /** `'owner'` (default): each value on the rank that owns its key; `'all'`: on every rank; a rank: all on that rank. */
  on?: CollectOn;
  /** Which rank owns a key in `'owner'` mode (default: the key's hash mod the world's size). */
  procmap?: (key: K) => number;
  /** Name of its TT (default `collect`). */
  name?: string;
  /** The world (default: the world of `ttg.initialize()`). */
  world?: World;
}

/** What a collector holds on this rank; read it after a fence. */
export interface Collected<K, V> extends Iterable<[K, V]> {
  /** The value collected for `key`: the last one when several came; undefined if none came yet. E_INVALID_ARGUMENT when `key` is collected on another rank. */
  get(key: K): V | undefined;
  /** Whether a value for `key` is held here. */
  has(key: K): boolean;
  /** How many keys are held here. */
  readonly size: number;
  /** The keys held here, in arrival order. */
  keys(): K[];
  /** The values held here, in arrival order of their keys. */
  values(): V[];
  /** `[key, value]` pairs held here, in arrival order of their keys. */
  entries(): Array<[K, V]>;
  /** Forgets what is held (for the next phase). */
  clear(): void;
}

/** A collector: the TT to make executable with the graph, and what it has collected. */
export type Collector<K, V> = TT<K, readonly [Edge<K, V>], readonly []> & Collected<K, V>;

/**
 * Collects the values sent on `edge` (the edge may feed other TTs too). After a fence, the main
 * program reads them with `get(key)`, `entries()`, or by iterating.
 */
export function make_collector<K, V>(edge: Edge<K, V>, options: CollectorOptions<K> = {}): Collector<K, V> {
  const name = options.name ?? 'collect';
  const on = options.on ?? 'owner';
  if (!(edge instanceof Edge)) throw Errors.invalidArgument('make_collector(edge)', 'needs a ttg.Edge', { tt: name });
  if (on !== 'owner' && on !== 'all' && !(Number.isInteger(on) && (on as number) >= 0)) {
    throw Errors.invalidArgument('make_collector options.on', `must be 'owner', 'all' or a rank, got ${String(on)}`, { tt: name });
  }
  if (options.procmap !== undefined && (on !== 'owner' || typeof options.procmap !== 'function')) {
    throw Errors.invalidArgument('make_collector options.procmap', "must be a function of the key, with on: 'owner'", { tt: name });
  }
  const held = new KeyMap<[K, V]>();
  const order: Array<[K, V]> = [];
  const keep = (k: K, v: V): void => {
    const had = held.get(k);
    retain(v);
    if (had !== undefined) {
      release(had[1]);
      had[1] = v;
      return;
    }
    const entry: [K, V] = [k, v];
    held.add(k, entry);
    order.push(entry);
  };
  let tt: TT<K, readonly [Edge<K, V>], readonly []>;
  let where: (key: K) => number;
  if (on === 'all') {
    const copies = new Edge<[K, number], V>(`${name}.copies`);
    const spread = make_tt((k: K, v: V, out) => {
      out.broadcast(0, Array.from({ length: spread.rt.size }, (_, r): [K, number] => [k, r]), v);
    }, [edge], [copies], { name, world: options.world });
    const copy = make_tt((key: [K, number], v: V) => keep(key[0], v), [copies], [], { name: `${name}.copy`, world: options.world });
    copy.set_procmap((key) => key[1]);  // made executable with the collector: reachable through its output
    tt = spread as unknown as TT<K, readonly [Edge<K, V>], readonly []>;
    where = () => tt.rt.rank;
  } else {
    tt = make_tt((k: K, v: V) => keep(k, v), [edge], [], { name, world: options.world });
    if (typeof on === 'number') {
      if (on >= tt.rt.size) throw Errors.invalidArgument('make_collector options.on', `must be a rank of the world in [0, ${tt.rt.size}), got ${on}`, { tt: name });
      tt.set_procmap(() => on);
      where = () => on;
    } else {
      if (options.procmap !== undefined) tt.set_procmap(options.procmap);
      where = (k) => (tt as TTImpl).ownerOf(k);
    }
  }
  const here = (k: K, what: string): void => {
    const r = where(k);
    if (r !== tt.rt.rank) throw Errors.invalidArgument(`collector '${name}'.${what}`, `key ${describeKey(k)} is collected on rank ${r}, not here`, { tt: name, key: k, rank: tt.rt.rank });
  };
  const view: Collected<K, V> = {
    get(key) {
      here(key, 'get(key)');
      return held.get(key)?.[1];
    },
    has(key) {
      return held.get(key) !== undefined;
    },
    get size() {
      return held.size;
    },
    keys: () => order.map(([k]) => k),
    values: () => order.map(([, v]) => v),
    entries: () => order.map(([k, v]): [K, V] => [k, v]),
    clear() {
      for (const [, v] of order) release(v);
      held.clear();
      order.length = 0;
    },
    [Symbol.iterator]: () => order.map(([k, v]): [K, V] => [k, v])[Symbol.iterator](),
  };
  Object.defineProperties(tt, Object.getOwnPropertyDescriptors(view));
  return tt as Collector<K, V>;
}
