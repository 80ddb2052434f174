/**
 * World collectives and the keyed all-reduce under mpirun (run by test/mpi/collectives.test.ts at
 * 2 and 3 ranks). Prints `RESULT {...}` per rank.
 *
 *   ok:       barrier; allreduce of numbers and typed arrays with each op; broadcast of a nested
 *             value from the last rank; collectives between fences of a running graph and on a
 *             split world; a keyed all-reduce whose partials come from tasks on every rank.
 *   misuse:   ranks calling different collectives, typed arrays of different lengths, different
 *             roots, a value that is not reducible on one rank only, a broadcast value that
 *             cannot be serialized; each rejects on every rank, and the world goes on working.
 *   intask:   a task of the world awaiting world.allreduce after an earlier await, and a plain
 *             body calling world.barrier: each fence rejects at once with E_INVALID_ARGUMENT naming
 *             the task; the world then works (fence, allreduce).
 *   missing:  a keyed all-reduce whose last rank sends no partial: every rank's fence report names
 *             the ranks whose partials arrived and those missing.
 *   helper:   an async body awaiting world.allreduce through a helper, after an await (where
 *             the task context cannot tell the task): the fence's E_HANG (TTG_HANG_TIMEOUT=2)
 *             names the collective as the cause.
 */
import * as ttg from 'ttg';

const world = await ttg.initialize();
const { rank, size } = world;
const mode = process.argv[2] ?? 'ok';
const out: Record<string, unknown> = { rank };

/** The code and message of the rejection of `p`, or 'resolved'. */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    return e instanceof ttg.TtgError ? e.message : `other: ${String(e)}`;
  }
}

if (mode === 'ok') {
  await world.barrier();
  out['sum'] = await world.allreduce(rank + 1);
  out['prod'] = await world.allreduce(rank + 2, 'prod');
  out['min'] = [...await world.allreduce(Int32Array.of(rank, -rank, 5), 'min')];
  out['max'] = [...await world.allreduce(Float32Array.of(rank * 0.5, 1), 'max')];
  out['type'] = (await world.allreduce(Uint8Array.of(1), 'sum')).constructor.name;
  // sums of up to 4 values ride in the agreement's reduction, 5 take their own: the same results
  const part = (n: number) => Float64Array.from({ length: n }, (_, i) => rank * 0.5 + i - (i === 2 ? 2 ** 40 : 0));
  out['sums'] = [];
  for (let n = 1; n <= 6; n++) (out['sums'] as number[][]).push([...await world.allreduce(part(n))]);
  const i32 = await world.allreduce(Int32Array.of(rank, -rank, 2 ** 30, 7));
  out['i32'] = [i32.constructor.name, ...i32];
  out['nanSum'] = [...await world.allreduce(Float64Array.of(rank === 0 ? NaN : 1, -0, rank === 1 ? -Infinity : 1))].map(String);
  out['negZero'] = Object.is(await world.allreduce(-0), -0);
  const value = rank === size - 1 ? { tag: 'from-last', m: new Map([[2, [Float64Array.of(1.5, 2.5)]]]), s: new Set(['a']), neg: [-0] } : undefined;
  const got = await world.broadcast(value, size - 1);
  out['bcast'] = [got!.tag, [...got!.m.get(2)![0]!], [...got!.s], Object.is(got!.neg[0], -0)];
  // 8 MB in one array, and NaN and infinities through a reduction
  const big = await world.broadcast(rank === 0 ? { a: Float64Array.from({ length: 1 << 20 }, (_, i) => i * 0.5) } : undefined, 0);
  out['big'] = [big!.a.length, big!.a[12345], big!.a[(1 << 20) - 1]];
  out['special'] = [...await world.allreduce(Float64Array.of(rank === 0 ? NaN : 1, rank === 1 ? Infinity : 0, -Infinity), 'max')].map(String);

  // between fences of a graph: a collective called while a fence is pending runs after it
  const e = new ttg.Edge<number, number>('count');
  let mine = 0;
  const tt = ttg.make_tt((_k: number, v: number) => { mine += v; }, [e], [], { name: 'COUNT' });
  tt.set_procmap((k) => k % size);
  ttg.make_graph_executable(tt);
  const phases: Array<[string[], number]> = [];
  for (let phase = 1; phase <= 3; phase++) {
    const order: string[] = [];
    if (rank === 0) for (let k = 0; k < 10 * size; k++) tt.in(0).send(k, phase);
    const f = world.fence().then(() => order.push('fence'));
    const s = world.allreduce(Float64Array.of(phase)).then(() => order.push('allreduce'));
    await Promise.all([f, s]);
    phases.push([order, await world.allreduce(mine)]);
  }
  out['phases'] = phases;

  // a split world's collectives involve its members only
  const sub = await world.split(rank % 2);
  out['subsum'] = await sub!.allreduce(rank);
  out['subbcast'] = await sub!.broadcast(rank === 0 || rank === 1 ? `root ${rank}` : 'not the root', 0);

  // keyed all-reduce: partial i of iteration k is made by task i on rank i % size; deterministic
  const parts = new ttg.Edge<[number, number], number>('dot-parts');
  const results = new ttg.Edge<[number, number], number>('dot-results');
  const start = new ttg.Edge<[number, number], number>('dot-start');
  const N = 7;
  const seen: Array<[number, number, number]> = [];
  const produce = ttg.make_tt((key: [number, number], x: number, o) => {
    o.send(0, key, x / 3 + key[1] * 1e-17);
  }, [start], [parts], { name: 'PRODUCE' });
  produce.set_procmap((key) => key[1] % size);
  const dot = ttg.make_allreduce(parts, results, {
    op: 'sum', contributions: () => N, contributor: (_k, i) => i % size, deliver: (k: number) => Array.from({ length: size }, (_, r) => [k, r] as [number, number]), name: 'DOT',
  });
  const use = ttg.make_tt((key: [number, number], v: number) => { seen.push([key[0], key[1], v]); }, [results], [], { name: 'USE' });
  use.set_procmap((key) => key[1]);
  // one partial per rank (each rank's goes straight to the exchange), results to one key on the last rank
  const ones = new ttg.Edge<[number, number], Float64Array>('one-parts');
  const oneOut = new ttg.Edge<number, Float64Array>('one-results');
  const sums: Array<[number, number[]]> = [];
  const one = ttg.make_allreduce(ones, oneOut, { op: 'max', contributions: () => size, contributor: (_k, i) => i, deliver: (k: number) => [k], name: 'ONE' });
  const last = ttg.make_tt((k: number, v: Float64Array) => { sums.push([k, [...v]]); }, [oneOut], [], { name: 'LAST' });
  last.set_procmap(() => size - 1);
  // number partials, one per rank, travel with their rank packed beside them: a fold that shows the
  // order it was given, -0 and NaN kept
  const digits = new ttg.Edge<[number, number], number>('digit-parts');
  const digitsOut = new ttg.Edge<number, number>('digit-results');
  const folded: Array<[number, string]> = [];
  const digit = ttg.make_allreduce(digits, digitsOut, {
    op: (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) || Object.is(a, -0) || Object.is(b, -0) ? Math.min(a, b) : a * 10 + b),
    contributions: () => size, contributor: (_k, i) => i, deliver: (k: number) => [k], name: 'DIGITS',
  });
  const show = ttg.make_tt((k: number, v: number) => { folded.push([k, Object.is(v, -0) ? '-0' : String(v)]); }, [digitsOut], [], { name: 'SHOW' });
  show.set_procmap(() => 0);
  ttg.make_graph_executable(produce, dot, use, one, last, digit, show);
  for (let k = 0; k < 3; k++) for (let i = 0; i < N; i++) if (i % size === rank) produce.in(0).send([k, i], (k + 1) * (i + 1));
  for (let k = 0; k < 4; k++) one.in(0).send([k, rank], Float64Array.of(rank * k, -rank));
  digit.in(0).send([0, rank], rank + 1);
  digit.in(0).send([1, rank], rank === size - 1 ? -0 : 0);
  digit.in(0).send([2, rank], rank === 1 ? NaN : rank);
  await world.fence();
  out['dot'] = seen.sort((a, b) => a[0] - b[0]);
  out['one'] = sums.sort((a, b) => a[0] - b[0]);
  out['digits'] = folded.sort((a, b) => a[0] - b[0]);
} else if (mode === 'missing') {
  const parts = new ttg.Edge<[number, number], number>('parts');
  const sums = new ttg.Edge<number, number>('sums');
  const consumer = ttg.make_tt((_k: number, _v: number) => {}, [sums], [], { name: 'CONSUMER' });
  const ar = ttg.make_allreduce(parts, sums, { op: 'sum', contributions: () => size, contributor: (_k, i) => i, deliver: () => [], name: 'AR' });
  ttg.make_graph_executable(ar, consumer);
  if (rank !== size - 1) ar.in(0).send([5, rank], rank);
  const report = await world.fence({ quiet: true });
  out['missing'] = report.incomplete.map((t) => [t.tt, t.key, t.arrived]);
} else if (mode === 'helper') {
  process.env['TTG_HANG_TIMEOUT'] = '2';
  const helper = () => world.allreduce(1);
  const e = new ttg.Edge<number, number>('in');
  const tt = ttg.make_tt(async (_k: number, _v: number) => {
    await Promise.resolve();
    await helper();
  }, [e], [], { name: 'HELPED' });
  ttg.make_graph_executable(tt);
  tt.invoke(rank, 1);
  out['helper'] = await outcome(world.fence({ quiet: true }));
} else if (mode === 'intask') {
  const e = new ttg.Edge<number, number>('in');
  const asyncTT = ttg.make_tt(async (k: number, v: number) => {
    await Promise.resolve();
    await world.allreduce(v);
  }, [e], [], { name: 'AWAITS' });
  const f = new ttg.Edge<number, number>('in2');
  const plainTT = ttg.make_tt((_k: number, v: number) => {
    void world.barrier();
    out['unreached'] = v;
  }, [f], [], { name: 'PLAIN' });
  ttg.make_graph_executable(asyncTT, plainTT);
  const t0 = performance.now();
  asyncTT.invoke(rank, 1);
  out['async'] = await outcome(world.fence());
  plainTT.invoke(10 + rank, 1);
  out['plain'] = await outcome(world.fence());
  out['seconds'] = (performance.now() - t0) / 1000;
  await world.fence();
  out['after'] = await world.allreduce(1);
} else {
  out['kinds'] = await outcome(rank === 0 ? world.barrier() : world.allreduce(1));
  out['lengths'] = await outcome(world.allreduce(new Float64Array(rank + 1)));
  // one rank's sum rides in the agreement (4 values), another's does not (5); a sum against a max
  out['fusedLengths'] = await outcome(world.allreduce(new Float64Array(rank === 0 ? 4 : 5).fill(1)));
  out['fusedOps'] = await outcome(world.allreduce(rank, rank === 0 ? 'sum' : 'max'));
  out['roots'] = await outcome(world.broadcast('x', rank === 0 ? 0 : 1));
  out['oneInvalid'] = await outcome(world.allreduce(rank === 1 ? ('x' as never) : 1));
  out['allInvalid'] = await outcome(world.allreduce(1, 'mean' as never));
  out['unserializable'] = await outcome(world.broadcast(rank === 0 ? { f: () => 0 } : undefined, 0));
  out['after'] = await world.allreduce(1);
}
await ttg.finalize();
console.log(`RESULT ${JSON.stringify(out)}`);
