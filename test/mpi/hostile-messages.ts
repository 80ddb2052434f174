/**
 * Hostile message scenarios, run by test/mpi/hostile-messages.test.ts under `mpirun`. Each attacks
 * a promise of the README about values that travel between ranks:
 *
 * - a value handed to a send is not changed under that send by another task of the sender's rank
 *   (copy-on-write must count a remote send still in flight as a holder of the value), and
 * - one sender's messages are handled by a receiver in send order (a stream's end never overtakes
 *   its values; a key's next task never runs before the one that an earlier value started).
 *
 * Modes (argv[2], comma-separated, each in its own phase between fences; argv[3]: rounds R):
 *
 *   consume:  S(i) on rank 0 ──one Float64Array──▶ C([i, r]) on every rank r
 *             C on rank 0 consumes it and overwrites it at once; every other C checks each element
 *   reducer:  S(i) on rank 0 ──a──▶ C([i, r]) on every other rank r (checks each element)
 *                          └──a, then ones──▶ Rd(i) on rank 0 (reducer, count 2, folds into a in place)
 *   moved:    S(i) on rank 0 ──X──▶ P(i) on rank 1 (consumes X: a receive-pool buffer)
 *             P ──X in a split-metadata wrapper (not moved)──▶ V([i, 2]) on rank 2, whose JS is busy
 *             P ──X──▶ Q(i) on rank 1 (consumes) ──X, moved──▶ V([i, 0]) on rank 0 ──▶ S(i+1)
 *             (the moved send's pool buffer is recycled into the next X while the wrapped send reads it)
 *             The wrapper makes rank 2's JS post the receive, so that send stays in flight while
 *             rank 2 computes; a plain array would be received at once by its comm thread. The move
 *             needs the hop through Q: P's own second send would not move X, its broadcast already
 *             gave up P's hold.
 *   stream:   S([r, i]) on rank r ──4 x 2 MiB, then finalize_argstream──▶ R([r, i]) on rank r+1
 *   mixed:    the same with values of 8 B, 2 MiB, 8 B, 2 MiB
 *   reuse:    S([r, i]) on rank r ──A (2 MiB), B (8 B), A, B, A, B──▶ U([r, i]) on rank r+1 (one input)
 *
 * The copy-on-write lengths straddle the transport's limits: payloads up to 4 KiB are staged
 * (copied before the send returns), up to TTG_EAGER_BYTES (64 KiB) the comm thread copies them
 * later, and larger ones are sent and received straight from the arrays' memory.
 *
 * Every rank prints one line `RESULT <json>`: per mode, how many values (streams, keys) it checked
 * and how many were torn, short or out of order, with a few examples, and the mode's tasks that
 * its fence found still waiting for inputs.
 */
import * as ttg from 'ttg';

import { loadNative } from '../../src/native/addon.js';

type Pair = [number, number];

/** What one mode saw on this rank. */
export interface Seen {
  /** Values (streams, key sequences) this rank verified. */
  checked: number;
  /** Arrays with an element other than what the sender wrote (or a reduced sum that is off). */
  torn: number;
  /** Streams whose task ran before all their values were folded. */
  short: number;
  /** Keys whose tasks saw their values in another order than they were sent. */
  misordered: number;
  /** The mode's tasks that its fence found waiting for inputs (late values of a closed stream). */
  incomplete: number;
  /** Torn arrays by length in elements. */
  tornBy: Record<string, number>;
  /** Moved mode: sends that moved (detached) their array, and arrivals that landed in a recycled buffer. */
  moved?: number;
  recycled?: number;
  ms: number;
  examples: string[];
}

const modes = (process.argv[2] ?? 'consume').split(',');
const ROUNDS = Number(process.argv[3] ?? 10);
const world = await ttg.initialize();
const { rank, size } = world;
const last = size - 1;

const MiB = 1 << 20;
/** Copy-on-write lengths: staged (1 KiB), eager (16 and 64 KiB), above eager (128 KiB, 1 MiB, 8 MiB). */
const COW_LENGTHS = [128, 2048, 8192, 16384, 131072, 1048576];
/** A large value of the ordering modes: 2 MiB. */
const BIG = (2 * MiB) / 8;
/** Longest the last rank computes in the moved mode (ms). */
const BUSY_MS = 2000;

function newSeen(): Seen {
  return { checked: 0, torn: 0, short: 0, misordered: 0, incomplete: 0, tornBy: {}, ms: 0, examples: [] };
}

function note(seen: Seen, what: string): void {
  if (seen.examples.length < 4) seen.examples.push(what);
}

/** Keeps this rank's JS busy until `done()` or for `ms` at most. */
function busyUntil(done: () => boolean, ms: number): void {
  const end = performance.now() + ms;
  while (!done() && performance.now() < end);
}

/** Element j of the array tagged `tag`: every (mode, length, round) has numbers of its own. */
const pattern = (tag: number, j: number) => tag * 2 ** 21 + j;

function filled(n: number, tag: number): Float64Array {
  const a = new Float64Array(n);
  for (let j = 0; j < n; j++) a[j] = pattern(tag, j);
  return a;
}

/** Counts one checked array, and a torn one (any element off its pattern, or a wrong length). */
function check(seen: Seen, a: Float64Array, n: number, tag: number, what: string): void {
  seen.checked++;
  let bad = a.length === n ? 0 : 1;
  let first = -1;
  for (let j = 0; j < a.length; j++) {
    if (a[j] !== pattern(tag, j)) {
      bad++;
      if (first < 0) first = j;
    }
  }
  if (bad === 0) return;
  seen.torn++;
  seen.tornBy[n] = (seen.tornBy[n] ?? 0) + 1;
  note(seen, `${what}: length ${a.length}/${n}, ${bad} bad, first [${first}] = ${a[first]} (want ${pattern(tag, first)})`);
}

/** Ends a mode's phase: waits until all ranks are quiet and counts the mode's waiting tasks. */
async function endPhase(mode: string, seen: Seen): Promise<void> {
  const report = await ttg.fence({ quiet: true });
  const mine = report.incomplete.filter((t) => t.tt.startsWith(`${mode}.`));
  seen.incomplete += mine.length;
  for (const t of mine.slice(0, 2)) note(seen, `waiting: ${t.tt}[${JSON.stringify(t.key)}] missing input ${t.missing.join(',')}`);
}

// ---- copy-on-write: a value must not change while a send of it is in flight ----

/** Round key i of the copy-on-write modes: 1000 * (index of its length) + round. */
const cowLength = (i: number) => COW_LENGTHS[Math.floor(i / 1000)]!;
const cowTag = (mode: number, i: number) => mode * 100_000 + i;

/** Checkers for keys [i, r] on rank r; the one on rank 0 does `onRankZero` instead, if given. */
function makeChecker(mode: string, id: number, seen: Seen, input: ttg.Edge<Pair, Float64Array>, onRankZero?: (a: Float64Array) => void) {
  const c = ttg.make_tt(([i, r]: Pair, a: Float64Array) => {
    if (r === 0 && onRankZero !== undefined) onRankZero(a);
    else check(seen, a, cowLength(i), cowTag(id, i), `[${i},${r}]`);
  }, [input], [], { name: `${mode}.C`, consume: [0] });
  // higher priority: runs right after the task that sent it, while that send is in flight
  return c.set_procmap(([, r]) => r).set_priomap(() => 1);
}

/** R rounds of each length from rank 0, one phase per length (memory stays bounded). */
async function cowRounds(mode: string, seen: Seen, start: (i: number) => void): Promise<void> {
  for (let l = 0; l < COW_LENGTHS.length; l++) {
    if (rank === 0) for (let k = 0; k < ROUNDS; k++) start(l * 1000 + k);
    await endPhase(mode, seen);
  }
}

/** consume: the local consumer of a broadcast value overwrites it while it travels to the others. */
async function consumeMode(mode: string, seen: Seen): Promise<void> {
  const go = new ttg.Edge<number, void>(`${mode}-go`);
  const toC = new ttg.Edge<Pair, Float64Array>(`${mode}-c`);
  const s = ttg.make_tt((i: number, _v: void, out) => {
    const keys: Pair[] = [];
    for (let r = 0; r < size; r++) keys.push([i, r]);
    out.broadcast(0, keys, filled(cowLength(i), cowTag(1, i)));
  }, [go], [toC], { name: `${mode}.S` }).set_procmap(() => 0);
  const c = makeChecker(mode, 1, seen, toC, (a) => a.fill(-1));
  ttg.make_graph_executable(s, c);
  await cowRounds(mode, seen, (i) => s.invoke(i, undefined));
}

/** reducer: a local reducer folds into its first value, the array that is still being sent. */
async function reducerMode(mode: string, seen: Seen): Promise<void> {
  const go = new ttg.Edge<number, void>(`${mode}-go`);
  const toC = new ttg.Edge<Pair, Float64Array>(`${mode}-c`);
  const toRd = new ttg.Edge<number, Float64Array>(`${mode}-rd`);
  const s = ttg.make_tt((i: number, _v: void, out) => {
    const n = cowLength(i);
    const a = filled(n, cowTag(2, i));
    for (let r = 1; r < size; r++) out.send(0, [i, r], a);
    out.send(1, i, a);
    out.send(1, i, new Float64Array(n).fill(1));
  }, [go], [toC, toRd], { name: `${mode}.S` }).set_procmap(() => 0);
  const c = makeChecker(mode, 2, seen, toC);
  const rd = ttg.make_tt((i: number, sum: Float64Array) => {
    // the fold itself must be right too: pattern + 1 everywhere
    seen.checked++;
    const tag = cowTag(2, i);
    for (let j = 0; j < sum.length; j++) {
      if (sum[j] === pattern(tag, j) + 1) continue;
      seen.torn++;
      note(seen, `Rd(${i}) [${j}] = ${sum[j]} (want ${pattern(tag, j) + 1})`);
      break;
    }
  }, [toRd], [], { name: `${mode}.Rd` }).set_procmap(() => 0);
  rd.set_input_reducer(0, (acc, v) => {
    for (let j = 0; j < acc.length; j++) acc[j] += v[j]!;
    return acc;
  }, 2);
  ttg.make_graph_executable(s, c, rd);
  await cowRounds(mode, seen, (i) => s.invoke(i, undefined));
}

/** An array that travels as split metadata: the receiver's JS posts its receive once it saw the header. */
class Wrapped {
  constructor(readonly data: Float64Array) {}
}
ttg.register_split_metadata(Wrapped, {
  get_metadata: (w) => ({ n: w.data.length }),
  get_data: (w) => [w.data],
  create_from_metadata: (m: { n: number }) => new Wrapped(new Float64Array(m.n)),
});

/**
 * moved: a consumed arrival is sent on unmoved to a rank whose JS is busy (so that send stays in
 * flight), then moved by a local consumer, which hands its pool buffer back when the moved send is
 * done; the next arrival, started only then, lands in that buffer.
 */
async function movedMode(mode: string, seen: Seen): Promise<void> {
  if (size < 3) throw new Error('the moved mode needs 3 ranks');
  const n = MiB / 8;
  const tag = (i: number) => cowTag(3, i);
  const go = new ttg.Edge<number, void>(`${mode}-go`);
  const again = new ttg.Edge<number, void>(`${mode}-again`);
  const toP = new ttg.Edge<number, Float64Array>(`${mode}-p`);
  const toQ = new ttg.Edge<number, Float64Array>(`${mode}-q`);
  const toV = new ttg.Edge<Pair, Float64Array | Wrapped>(`${mode}-v`);
  let moved = 0;
  const s = ttg.make_tt((i: number, _v: void, out) => out.send(0, i, filled(n, tag(i))), [ttg.fuse(go, again)], [toP], { name: `${mode}.S` })
    .set_procmap(() => 0);
  const p = ttg.make_tt((i: number, x: Float64Array, out) => {
    check(seen, x, n, tag(i), `P(${i})`);
    out.broadcast(0, [[i, last]], new Wrapped(x));
    out.send(1, i, x);
  }, [toP], [toV, toQ], { name: `${mode}.P`, consume: [0] }).set_procmap(() => 1);
  const q = ttg.make_tt((i: number, x: Float64Array, out) => {
    out.send(0, [i, 0], x);
    if (x.length === 0) moved++; // transferred: the precondition of the recycling
  }, [toQ], [toV], { name: `${mode}.Q`, consume: [0] }).set_procmap(() => 1);
  const v = ttg.make_tt(([i, r]: Pair, x: Float64Array | Wrapped, out) => {
    check(seen, x instanceof Wrapped ? x.data : x, n, tag(i), `V([${i},${r}])`);
    if (r === 0 && i + 1 < ROUNDS) out.sendk(0, i + 1);
  }, [toV], [again], { name: `${mode}.V` }).set_procmap(([, r]) => r);
  ttg.make_graph_executable(s, p, q, v);
  const native = loadNative()!;
  const before = native.stats();
  // the chain starts as the last rank's computation does, not while that rank is still loading
  await world.barrier();
  if (rank === 0) s.invoke(0, undefined);
  // The last rank computes until the headers of all wrapped values are in (its comm thread counts
  // them; nothing else reaches it before the fence): their receives are posted only after that.
  if (rank === last) busyUntil(() => native.stats().recv_msgs >= before.recv_msgs + ROUNDS, BUSY_MS);
  await endPhase(mode, seen);
  seen.moved = moved;
  seen.recycled = native.stats().pool_prepared - before.pool_prepared;
}

// ---- order: one sender's messages are handled in send order ----

/** Weights of a stream's four values: a short sum says which ones were missing. */
const WEIGHTS = [1, 2, 4, 8];
const FULL = 15;

/** stream, mixed: four values, then the stream's end, from rank r to a reducing input on rank r+1. */
async function streamMode(mode: string, seen: Seen, lengths: readonly number[]): Promise<void> {
  const go = new ttg.Edge<Pair, void>(`${mode}-go`);
  const toR = new ttg.Edge<Pair, Float64Array>(`${mode}-r`);
  const s = ttg.make_tt((key: Pair, _v: void, out) => {
    for (let w = 0; w < WEIGHTS.length; w++) out.send(0, key, new Float64Array(lengths[w]!).fill(WEIGHTS[w]!));
    out.finalize_argstream(0, key);
  }, [go], [toR], { name: `${mode}.S` }).set_procmap(([r]) => r);
  // the task of a stream ended before any value arrived gets no value at all
  const r = ttg.make_tt((key: Pair, sum: Float64Array | undefined) => {
    seen.checked++;
    const got = sum === undefined ? 0 : sum[0]!;
    if (got === FULL) return;
    seen.short++;
    note(seen, `stream [${key.join(',')}] ended with sum ${got} (want ${FULL})`);
  }, [toR], [], { name: `${mode}.R` }).set_procmap(([from]) => (from + 1) % size);
  r.set_input_reducer(0, (acc, v) => {
    // a value's elements all equal its weight, or it was torn on the way
    for (let j = 1; j < v.length; j++) if (v[j] !== v[0]) { seen.torn++; break; }
    acc[0] += v[0]!;
    return acc;
  });
  ttg.make_graph_executable(s, r);
  for (let i = 0; i < ROUNDS; i++) s.invoke([rank, i], undefined);
  await endPhase(mode, seen);
}

/** reuse: each value for a key of a one-input TT starts a task, in send order, large or small. */
async function reuseMode(mode: string, seen: Seen): Promise<void> {
  const REPS = 3;
  const go = new ttg.Edge<Pair, void>(`${mode}-go`);
  const toU = new ttg.Edge<Pair, Float64Array>(`${mode}-u`);
  const s = ttg.make_tt((key: Pair, _v: void, out) => {
    for (let k = 0; k < REPS; k++) {
      out.send(0, key, new Float64Array(BIG).fill(1));
      out.send(0, key, Float64Array.of(2));
    }
  }, [go], [toU], { name: `${mode}.S` }).set_procmap(([r]) => r);
  const order = new Map<string, string>();
  const u = ttg.make_tt((key: Pair, v: Float64Array) => {
    const k = key.join(',');
    const what = v.length === BIG && v[0] === 1 && v[BIG - 1] === 1 ? 'A' : v.length === 1 && v[0] === 2 ? 'B' : '?';
    order.set(k, (order.get(k) ?? '') + what);
  }, [toU], [], { name: `${mode}.U` }).set_procmap(([from]) => (from + 1) % size);
  ttg.make_graph_executable(s, u);
  for (let i = 0; i < ROUNDS; i++) s.invoke([rank, i], undefined);
  await endPhase(mode, seen);
  const want = 'AB'.repeat(REPS);
  for (const [k, got] of order) {
    seen.checked++;
    if (got === want) continue;
    seen.misordered++;
    note(seen, `key [${k}] ran ${got} (want ${want})`);
  }
}

const MODES: Record<string, (mode: string, seen: Seen) => Promise<void>> = {
  consume: consumeMode,
  reducer: reducerMode,
  moved: movedMode,
  stream: (m, s) => streamMode(m, s, [BIG, BIG, BIG, BIG]),
  mixed: (m, s) => streamMode(m, s, [1, BIG, 1, BIG]),
  reuse: reuseMode,
};

const result: Record<string, unknown> = { rank, size };
ttg.execute();
for (const mode of modes) {
  const run = MODES[mode];
  if (run === undefined) throw new Error(`unknown mode ${mode} (known: ${Object.keys(MODES).join(', ')})`);
  const seen = newSeen();
  const t0 = performance.now();
  await run(mode, seen);
  seen.ms = Math.round(performance.now() - t0);
  result[mode] = seen;
}
console.log(`RESULT ${JSON.stringify(result)}`);
await ttg.finalize();
