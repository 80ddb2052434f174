/**
 * Small messages that travel together (transport/batches.ts), run by aggregation.test.ts under
 * mpirun with TTG_AGGREGATE_BYTES set by the test. Prints `RESULT <json>` per rank.
 *
 *   GEN [r] ──seq──▶ ORDER [src, dst]   (a reducing input that lists what arrives, ending at the fence)
 *           ──upd──▶ COUNT [k]           (a reducing input that sums, ending at the fence)
 *           ──ask──▶ REQ [owner, src, i, ...] ──reply──▶ GOT [src, i]   (a key-only request, answered)
 *
 * GEN on each rank sends, in one task, to every rank: numbers, short strings, small objects,
 * objects whose header is larger than a batch's small messages, small typed arrays of several
 * classes (inside their headers, in batches), typed arrays above that size (payload parts,
 * alone) and a stream's end, interleaved, each carrying its sequence number and checked element
 * by element; ORDER must list them in send order. It also sends a histogram's updates to random counters on every rank; COUNT's totals
 * must be exact. And it asks REQ tasks on random ranks, with keys of every shape a small header
 * carries (integers, tuples of three and four integers, negative and beyond 2^32) and of shapes it
 * does not (five elements, a fraction), for an answer (-0, NaN, large numbers) that GOT checks
 * exactly. Three phases, the last started by `invoke` from the main program.
 */
import * as ttg from 'ttg';

import { xorshift32 } from '../../bench/lib/xorshift.js';
import { requireNative } from '../../src/native/addon.js';

const MODE = process.argv[4] ?? 'order';
const N = Number(process.argv[2] ?? 400);
const UPDATES = Number(process.argv[3] ?? 20_000);
const COUNTERS = 97;
const world = await ttg.initialize();
const { rank, size } = world;

/** The i-th value of the sequence, of one of several shapes, carrying i. */
function valueOf(i: number): unknown {
  switch (i % 9) {
    case 0: return i;
    case 1: return `s${i}`;
    case 2: return { i, tag: [i, 'x'] };
    case 3: return { i, pad: 'p'.repeat(1500 + (i % 7)) };  // a header too large to wait in a batch
    case 4: return Float64Array.of(i, -i);                 // inside its header, in a batch
    case 5: return Int16Array.of(i, -3, 5);                // 6 bytes: the header pads them
    case 6: return BigInt64Array.of(BigInt(i), -(2n ** 63n));
    case 7: return new Float64Array(130).fill(-i).fill(i, 0, 1);  // above the inline limit: a payload part, alone
    default: return [i, null, true];
  }
}

/** The sequence number a value carries, or NaN when the rest of a typed array is not what was sent. */
function seqOf(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number(v.slice(1));
  if (v instanceof Float64Array) return (v.length === 2 || v.length === 130) && v.every((x, j) => x === (j === 0 ? v[0] : -v[0]!)) ? v[0]! : NaN;
  if (v instanceof Int16Array) return v.length === 3 && v[1] === -3 && v[2] === 5 ? v[0]! : NaN;
  if (v instanceof BigInt64Array) return v.length === 2 && v[1] === -(2n ** 63n) ? Number(v[0]) : NaN;
  if (Array.isArray(v)) return v[0] as number;
  return (v as { i: number }).i;
}

const go = new ttg.Edge<number, number>('go');
const seq = new ttg.Edge<[number, number], unknown>('seq');
const upd = new ttg.Edge<number, number>('upd');
const ask = new ttg.Edge<unknown, void>('ask');
const reply = new ttg.Edge<[number, number], number>('reply');
/** Every bit random, so owners `% size` spread over every rank. */
const next = xorshift32(7 + rank);

/** The key of request `i` of rank `asker` (default: this rank), to rank `owner`, in one of several shapes. */
function requestKey(i: number, owner: number, asker = rank): unknown {
  return keyOfShape(i, owner, asker);
}
function keyOfShape(i: number, owner: number, rank: number): unknown {
  switch (i % 5) {
    case 0: return [owner, rank, i];
    case 1: return [owner, rank, i, -(2 ** 40) - i];
    case 2: return (i * size + rank) * size + owner;
    case 3: return [owner, rank, i, 1, 2]; // five elements: msgpack
    default: return [owner, rank, i, 0.5]; // a fraction: msgpack
  }
}
/** [asking rank, i] of a request key. */
const askedBy = (k: unknown): [number, number] => {
  if (typeof k !== 'number') return [(k as number[])[1]!, (k as number[])[2]!];
  const q = (k - (k % size)) / size;
  return [q % size, (q - (q % size)) / size];
};
/** The answer to request i: -0, NaN and numbers no float32 holds. */
const answer = (i: number): number => (i % 3 === 0 ? -0 : i % 3 === 1 ? NaN : i * 1.000000001 - 2 ** 45);

const gen = ttg.make_tt((_k: number, phase: number, out) => {
  for (let i = 0; i < N; i++) {
    for (let dst = 0; dst < size; dst++) out.send(0, [rank, dst], valueOf(i));
    // histogram updates and requests between the sequence's values
    for (let u = 0; u < UPDATES / N; u++) out.send(1, next() % (COUNTERS * size), 1 + phase);
    out.sendk(2, requestKey(i, next() % size));
  }
}, [go], [seq, upd, ask], { name: 'GEN' });
gen.set_procmap((k) => k % size);
/** What ORDER's reducer has listed so far (a class of this file: it never travels). */
class Seen {
  constructor(readonly items: number[]) {}
}
const lists = new Map<string, number[]>();
const order = ttg.make_tt((k: [number, number], got: unknown) => {
  lists.set(`${k[0]}>${k[1]}`, got instanceof Seen ? got.items : [seqOf(got)]);
}, [seq], [], { name: 'ORDER' });
order.set_procmap((k) => k[1]);
order.set_input_reducer(0, (acc: unknown, v: unknown) => {
  const seen = acc instanceof Seen ? acc : new Seen([seqOf(acc)]);
  seen.items.push(seqOf(v));
  return seen;
}, 'fence');
let counted = 0;
const count = ttg.make_tt((_k: number, c: number) => {
  counted += c;
}, [upd], [], { name: 'COUNT' });
count.set_procmap((k) => k % size);
count.set_input_reducer(0, (a: number, v: number) => a + v, 'fence');
const req = ttg.make_tt((k: unknown, _v: void, out) => {
  const [src, i] = askedBy(k);
  // a key that did not arrive exactly (every element, its sign) gets an answer no request has
  const exact = JSON.stringify(k) === JSON.stringify(requestKey(i, rank, src));
  out.send(0, [src, i], exact ? answer(i) : Infinity);
}, [ask], [reply], { name: 'REQ' });
req.set_procmap((k) => (typeof k === 'number' ? k % size : (k as number[])[0]!));
let answered = 0;
let wrong = 0;
const got = ttg.make_tt((k: [number, number], v: number) => {
  answered++;
  if (k[0] !== rank || !Object.is(v, answer(k[1]))) wrong++;
}, [reply], [], { name: 'GOT' });
got.set_procmap((k) => k[0]);
ttg.make_graph_executable(gen, order, count, req, got);
ttg.execute();

if (MODE === 'duplicate') {
  // a message that fails on its receiver, inside a batch: the run fails, the messages after it in
  // the batch are still handled and counted (no hang), and the next phase works
  const dgo = new ttg.Edge<number, number>('dgo');
  const once = new ttg.Edge<number, number>('once');
  const never = new ttg.Edge<number, number>('never');
  const plain = ttg.make_tt((_k: number, _v: number, _w: number) => {}, [once, never], [], { name: 'PLAIN' });
  plain.set_procmap(() => size - 1);
  const dgen = ttg.make_tt((k: number, _v: number, out) => {
    for (let i = 0; i < 50; i++) out.send(1, i, 1);
    out.send(0, 7 + k, 1);
    // phase 0: a second value for input 0 of PLAIN[7], whose input 1 never comes: E_DUPLICATE_INPUT where it is
    if (k === 0) out.send(0, 7, 2);
    for (let i = 50; i < 100; i++) out.send(1, i, 1);
  }, [dgo], [once, upd], { name: 'DGEN' });
  ttg.make_graph_executable(ttg.make_tt((_k: number, _v: number, out) => out.send(0, 0, 0), [new ttg.Edge<number, number>('unused')], [never], { name: 'NEVER' }));
  dgen.set_procmap(() => 0);
  ttg.make_graph_executable(dgen, plain);
  /** Phase `k`'s fence: 'none', or the code it rejected with. */
  const phase = async (k: number): Promise<string> => {
    if (rank === 0) dgen.invoke(k, 0);
    return ttg.fence().then(() => 'none', (e: unknown) => (e as ttg.TtgError).code);
  };
  const t0 = performance.now();
  const code = await phase(0);
  const seconds = (performance.now() - t0) / 1000;
  counted = 0;
  const again = await phase(1);
  console.log(`RESULT ${JSON.stringify({ rank, code, seconds, again, counted: await world.allreduce(counted) })}`);
  await ttg.fence({ quiet: true });
  await ttg.finalize();
  process.exit(0);
}

const phases: Array<{ ordered: boolean; lists: number; counted: number; answered: number; wrong: number }> = [];
for (let phase = 0; phase < 3; phase++) {
  lists.clear();
  counted = answered = wrong = 0;
  gen.invoke(rank + size * phase, phase);
  await ttg.fence();
  let ordered = true;
  for (const [, got] of lists) if (got.length !== N || got.some((x, i) => x !== i)) ordered = false;
  const total = await world.allreduce(counted);
  phases.push({ ordered, lists: lists.size, counted: total, answered, wrong });
}
// MPI messages this rank sent (headers): a batch is one
const mpiSent = requireNative().stats().sent_msgs;
console.log(`RESULT ${JSON.stringify({ rank, phases, mpiSent })}`);
await ttg.finalize();
