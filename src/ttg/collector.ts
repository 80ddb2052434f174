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
 *
 * Reads show the phases this rank has fenced: a value is tagged with the number of this world's
 * phases that had ended here when it arrived (`Runtime.phasesEnded`, raised by fence.ts where a
 * fence's phase ends), and stays aside until that number has grown. Values of the running phase
 * (this rank's own new work, or other ranks already past the fence) so never mix into what the
 * program reads, clears or iterates between two fences.
 */
import { describeKey, Errors } from '../base/errors.js';
import { release, retain } from './run/cow.js';
import { Edge } from './wiring/edge.js';
import { KeyMap } from './wiring/key-map.js';
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

/**
 * What a collector holds on this rank; read it after a fence. It shows the values of the phases
 * this rank has fenced (ended by `await fence()` or `finalize()`, also a fence that rejected);
 * values of the phase running now are kept aside until this rank's next fence of the world ends.
 */
export interface Collected<K, V> extends Iterable<[K, V]> {
  /** The value collected for `key` in the fenced phases: the last one when several came; undefined if none came. E_INVALID_ARGUMENT when `key` is collected on another rank. */
  get(key: K): V | undefined;
  /** Whether a value for `key` is held here (in the fenced phases). */
  has(key: K): boolean;
  /** How many keys are held here (in the fenced phases). */
  readonly size: number;
  /** The keys held here, in arrival order. */
  keys(): K[];
  /** The values held here, in arrival order of their keys. */
  values(): V[];
  /** `[key, value]` pairs held here, in arrival order of their keys. */
  entries(): Array<[K, V]>;
  /** Forgets what the fenced phases brought (values of the running phase stay aside for its fence). */
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
  /** Values of phases not fenced here yet, in arrival order, each with the phase it came in; from `asideFrom` on. */
  const aside: Array<[K, V, number] | undefined> = [];
  let asideFrom = 0;
  let warned = false;
  const keep = (k: K, v: V): void => {
    retain(v);
    aside.push([k, v, tt.rt.phasesEnded]);
  };
  /** `v` (retained) becomes what `k` shows. */
  const show = (k: K, v: V): void => {
    const had = held.get(k);
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
  /**
   * Shows the values of the phases that have ended here since; hints once when the read comes
   * while this world's phase is running here with values (or tasks) not shown yet.
   */
  const settle = (): void => {
    const rt = tt.rt;
    const ended = rt.phasesEnded;
    while (asideFrom < aside.length && aside[asideFrom]![2] < ended) {
      const [k, v] = aside[asideFrom]!;
      aside[asideFrom++] = undefined;
      show(k, v);
    }
    if (asideFrom === aside.length) {
      aside.length = 0;
      asideFrom = 0;
    } else if (asideFrom > 1024 && 2 * asideFrom > aside.length) {
      aside.splice(0, asideFrom);
      asideFrom = 0;
    }
    if (warned || (aside.length === 0 && rt.scheduler.pending === 0)) return;
    warned = true;
    const n = aside.length - asideFrom;
    const why = [n === 0 ? '' : `${n} value${n === 1 ? '' : 's'} of it kept aside`, rt.scheduler.pending === 0 ? '' : 'tasks queued or running here'];
    const fence = rt.id === 0 ? '`await ttg.fence()`' : '`await world.fence()` of its world';
    console.warn(`ttg: collector '${name}' read on rank ${rt.rank} while its world's phase is running (${why.filter((w) => w !== '').join('; ')}): ` +
      `a read shows the values of the phases this rank has fenced; those of the running phase appear after its next ${fence} ` +
      '(or ttg.finalize()). Printed once per collector.');
  };
  const here = (k: K, what: string): void => {
    const r = where(k);
    if (r !== tt.rt.rank) throw Errors.invalidArgument(`collector '${name}'.${what}`, `key ${describeKey(k)} is collected on rank ${r}, not here`, { tt: name, key: k, rank: tt.rt.rank });
  };
  const view: Collected<K, V> = {
    get(key) {
      here(key, 'get(key)');
      settle();
      return held.get(key)?.[1];
    },
    has(key) {
      settle();
      return held.get(key) !== undefined;
    },
    get size() {
      settle();
      return held.size;
    },
    keys: () => {
      settle();
      return order.map(([k]) => k);
    },
    values: () => {
      settle();
      return order.map(([, v]) => v);
    },
    entries: () => {
      settle();
      return order.map(([k, v]): [K, V] => [k, v]);
    },
    clear() {
      settle();
      for (const [, v] of order) release(v);
      held.clear();
      order.length = 0;
    },
    [Symbol.iterator]: () => {
      settle();
      return order.map(([k, v]): [K, V] => [k, v])[Symbol.iterator]();
    },
  };
  Object.defineProperties(tt, Object.getOwnPropertyDescriptors(view));
  return tt as Collector<K, V>;
}
