/**
 * A keyed all-reduce inside a graph. Partial values of key k, numbered 0..n-1 and produced by
 * tasks on any ranks, are combined and the result is delivered to given keys of a consumer TT on
 * the ranks that own them. It is made of three TTs of the runtime's own:
 *
 *   partial [k, i] ──> NAME [k, i] ──> NAME.local [k, r] ──(to every rank)──> NAME.exchange [k, s] ──> consumer keys owned by s
 *   (on contributor(k, i))   (folds rank r's partials        (folds the ranks' partials
 *          │                  in the order of i)              in rank order)
 *          └── the only partial of its rank: straight to every NAME.exchange [k, s] ──┘
 *
 * Deterministic: rank r folds its partials in the order of their numbers, every rank folds the
 * ranks' results in rank order, so at a fixed rank count every run gives the same bits. One hop
 * between ranks; a missing partial shows in the fence report as a task of NAME.local missing its
 * input, with the numbers of the partials that arrived and of those missing.
 */
import { Errors } from '../base/errors.js';
import { release, retain } from './run/cow.js';
import { Edge } from './wiring/edge.js';
import { KeyMap } from './wiring/key-map.js';
import type { ReduceOp } from './common/transport.js';
import { make_tt, type TT, type TTImpl } from './tt.js';
import type { World } from './world.js';

/** Options of {@link make_allreduce}. */
export interface AllreduceOptions<K, V, CK> {
  /**
   * How two values combine: `sum`, `min`, `max` or `prod` of numbers or typed arrays (element-wise,
   * into a new array), or a function `(a, b) => a op b` for any value (it may not modify its inputs).
   */
  op: ReduceOp | ((a: V, b: V) => V);
  /** Number of partial values of key `k`: they are numbered 0..n-1. The same on every rank; at least 1. */
  contributions: (key: K) => number;
  /** The rank that sends partial `i` of key `k` (it is folded there, with no hop); default `i mod size`. */
  contributor?: (key: K, i: number) => number;
  /** The keys of the consumer TT that receive the result of key `k`, each on the rank that owns it. */
  deliver: (key: K) => Iterable<unknown>;
  /** Name of the input TT (the others are NAME.local and NAME.exchange); default `allreduce`. */
  name?: string;
  /** The world (default: the world of `ttg.initialize()`). */
  world?: World;
}

/** Partials gathered by a reducing input, kept in arrival order until the body sorts them. */
class Gathered<V> {
  constructor(readonly items: Array<[number, V]>) {}
}

function gather<V>(acc: [number, V] | Gathered<V>, x: [number, V]): Gathered<V> | void {
  if (acc instanceof Gathered) {
    acc.items.push(x);
    return undefined;
  }
  return new Gathered([acc, x]);
}

/**
 * A rank's partial on its way to every rank's NAME.exchange: `[rank, value]`, or for a number the
 * two in a Float64Array, which travels in a fixed header (no msgpack, no value check). The
 * exchange tells the forms apart by their class: the general one is always an Array.
 */
type RankPartial<V> = [number, V] | Float64Array;
const rankPartial = <V>(r: number, v: V): RankPartial<V> => (typeof v === 'number' ? Float64Array.of(r, v) : [r, v]);
const pairOf = <V>(x: RankPartial<V>): [number, V] => (x instanceof Float64Array ? [x[0]!, x[1] as V] : x);

function gatherRanks<V>(acc: RankPartial<V> | Gathered<V>, x: RankPartial<V>): Gathered<V> | void {
  return gather(acc instanceof Gathered ? acc : pairOf(acc), pairOf(x));
}

/** The values of `g`, ordered by their numbers, folded left with `combine`; `twice(n)` for a number seen twice. */
function fold<V>(g: RankPartial<V> | Gathered<V>, combine: (a: V, b: V) => V, twice: (n: number) => Error): V {
  if (!(g instanceof Gathered)) return pairOf(g)[1];
  const items = g.items.sort((a, b) => a[0] - b[0]);
  let acc = items[0]![1];
  for (let i = 1; i < items.length; i++) {
    if (items[i]![0] === items[i - 1]![0]) throw twice(items[i]![0]);
    acc = combine(acc, items[i]![1]);
  }
  return acc;
}

/** The numbers of the partials gathered so far, ascending. */
function numbers<V>(g: RankPartial<V> | Gathered<V>): number[] {
  return (g instanceof Gathered ? g.items.map((x) => x[0]) : [pairOf(g)[0]]).sort((a, b) => a - b);
}

const list = (xs: readonly number[]): string => (xs.length === 0 ? 'none' : xs.join(', '));

type Num = number | ArrayLike<number>;
const SCALAR: Record<ReduceOp, (a: number, b: number) => number> = {
  sum: (a, b) => a + b, min: Math.min, max: Math.max, prod: (a, b) => a * b,
};

/** A built-in op on numbers, or element-wise on typed arrays (into a new array). */
function builtIn(op: ReduceOp, name: string): (a: Num, b: Num) => Num {
  const f = SCALAR[op];
  return (a, b) => {
    if (typeof a === 'number' && typeof b === 'number') return f(a, b);
    if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b) && (a as ArrayLike<number>).length === (b as ArrayLike<number>).length) {
      const r = (a as unknown as { slice(): number[] }).slice();
      for (let i = 0; i < r.length; i++) r[i] = f(r[i]!, (b as ArrayLike<number>)[i]!);
      return r;
    }
    throw Errors.invalidArgument(`all-reduce '${name}'`, `op '${op}' needs numbers or typed arrays of one length, got ${describe(a)} and ${describe(b)}`);
  };
}

function describe(v: unknown): string {
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${(v as unknown as ArrayLike<number>).length})`;
  return v === null ? 'null' : typeof v;
}

/**
 * Makes a keyed all-reduce: partial `i` of key `k` is sent on `input` with key `[k, i]`; the
 * result of `k` goes out on `output` to the keys `deliver(k)` of the consumer TT (one TT), each on
 * the rank that owns it. Returns the TT that receives the partials.
 */
export function make_allreduce<K, V, CK>(input: Edge<[K, number], V>, output: Edge<CK, V>, options: AllreduceOptions<K, V, CK>): TT<[K, number], readonly [Edge<[K, number], V>]> {
  const name = options.name ?? 'allreduce';
  const op = options.op;
  if (typeof op !== 'function' && !(typeof op === 'string' && op in SCALAR)) {
    throw Errors.invalidArgument('make_allreduce options.op', `must be 'sum', 'min', 'max', 'prod' or a function (a, b) => value, got ${String(op)}`, { tt: name });
  }
  for (const f of ['contributions', 'deliver'] as const) {
    if (typeof options[f] !== 'function') throw Errors.invalidArgument(`make_allreduce options.${f}`, 'must be a function of the key', { tt: name });
  }
  const combine = (typeof op === 'function' ? op : builtIn(op, name)) as (a: V, b: V) => V;
  const world = options.world;
  const toLocal = new Edge<[K, number], [number, V]>(`${name}.partial`);
  const toExchange = new Edge<[K, number], RankPartial<V>>(`${name}.rank-partial`);
  /** Every rank's NAME.exchange key of `k`. */
  const everyRank = (k: K): Array<[K, number]> => Array.from({ length: size() }, (_, s): [K, number] => [k, s]);
  const first = make_tt((key: [K, number], v: V, out) => {
    const k = key[0];
    const n = contributions(k);
    hold(k, v);
    if (!Number.isInteger(key[1]) || key[1] < 0 || key[1] >= n) {
      throw Errors.invalidArgument(`all-reduce '${name}'`, `got partial ${String(key[1])} of ${n} (numbered 0 to ${n - 1})`, { tt: name, key, rank: rank() });
    }
    // A rank's only partial needs no fold on its rank (a dot product of one block per rank): one task less.
    if (plan(k).get(rank()) === 1) out.broadcast(1, everyRank(k), rankPartial(rank(), v));
    else out.send(0, [k, rank()], [key[1], v]);
  }, [input], [toLocal, toExchange], { name, world });
  const rank = (): number => first.rt.rank;
  const size = (): number => first.rt.size;
  const contributor = options.contributor ?? ((_k: K, i: number) => i % size());

  const contributions = (k: K): number => {
    const n = options.contributions(k);
    if (!Number.isInteger(n) || n < 1) throw Errors.invalidArgument('make_allreduce options.contributions', `must give an integer >= 1, got ${String(n)}`, { tt: name, key: k, rank: rank() });
    return n;
  };
  /** Ranks that fold partials of `k`, each with how many. */
  const byRank = (k: K): Map<number, number> => {
    const m = new Map<number, number>();
    for (let i = 0, n = contributions(k); i < n; i++) {
      const r = contributor(k, i);
      m.set(r, (m.get(r) ?? 0) + 1);
    }
    return m;
  };
  /** byRank of the keys in progress on this rank, computed once per key (dropped by NAME.exchange). */
  const plans = new KeyMap<Map<number, number>>();
  /**
   * The partials of each key in progress here: held (copy-on-write) until this rank's
   * NAME.exchange has folded them, so a task that consumes a partial gets its own copy meanwhile.
   */
  const held = new KeyMap<unknown[]>();
  /** The failed runs seen: plans and holds of a failed run are dropped before the next one uses them. */
  let runs = 0;
  const fresh = (): void => {
    if (runs === first.rt.failedRuns) return;
    runs = first.rt.failedRuns;
    for (const vs of held.values()) for (const v of vs) release(v);
    held.clear();
    plans.clear();
  };
  const hold = (k: K, v: unknown): void => {
    fresh();
    retain(v);
    const vs = held.get(k);
    if (vs === undefined) held.add(k, [v]);
    else vs.push(v);
  };
  const plan = (k: K): Map<number, number> => {
    fresh();
    let p = plans.get(k);
    if (p === undefined) {
      p = byRank(k);
      plans.add(k, p);
    }
    return p;
  };
  first.set_procmap((key) => contributor(key[0], key[1]));

  const local = make_tt((key: [K, number], g: [number, V] | Gathered<V>, out) => {
    out.broadcast(0, everyRank(key[0]), rankPartial(key[1], fold(g, combine, (i) => Errors.invalidArgument(`all-reduce '${name}'`, `got partial ${i} twice`, { tt: `${name}.local`, key, rank: rank() }))));
  }, [toLocal], [toExchange], { name: `${name}.local`, world });
  local.set_procmap((key) => key[1]);
  local.set_input_reducer(0, gather as never, (key) => plan(key[0]).get(key[1]) ?? 0);
  (local as TTImpl).describeInput = (key: [K, number], _i, acc) => {
    const n = contributions(key[0]);
    const here = Array.from({ length: n }, (_, i) => i).filter((i) => contributor(key[0], i) === key[1]);
    const got = numbers(acc as [number, V] | Gathered<V>);
    return `partials ${list(got)} of ${n} arrived; missing ${list(here.filter((i) => !got.includes(i)))}`;
  };

  const exchange = make_tt((key: [K, number], g: RankPartial<V> | Gathered<V>, out) => {
    const result = fold(g, combine, (r) => Errors.invalidArgument(`all-reduce '${name}'`, `got rank ${r}'s partials twice (a partial sent twice)`, { tt: `${name}.exchange`, key, rank: rank() }));
    const sinks = output.sinks;
    if (sinks.length !== 1) {
      throw Errors.invalidArgument(`make_allreduce output edge '${output.name}'`, `must feed exactly one consumer TT, it feeds ${sinks.length}`, { tt: `${name}.exchange`, rank: rank() });
    }
    const consumer = sinks[0]!.tt;
    plans.delete(key[0]);
    for (const c of options.deliver(key[0])) if (consumer.ownerOf(c) === key[1]) out.send(0, c as CK, result);
    for (const v of held.get(key[0]) ?? []) release(v);
    held.delete(key[0]);
  }, [toExchange], [output], { name: `${name}.exchange`, world });
  exchange.set_procmap((key) => key[1]);
  exchange.set_input_reducer(0, gatherRanks as never, (key) => plan(key[0]).size);
  (exchange as TTImpl).describeInput = (key: [K, number], _i, acc) => {
    const got = numbers(acc as RankPartial<V> | Gathered<V>);
    return `the partials of ranks ${list(got)} arrived; missing ranks ${list([...plan(key[0]).keys()].filter((r) => !got.includes(r)).sort((a, b) => a - b))}`;
  };
  return first;
}
