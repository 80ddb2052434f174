/**
 * Issue 36 across ranks, run by test/mpi/value-roundtrip.test.ts under `mpirun -np 2`: the values
 * of test/serialize/values.ts go from a task on rank 0 to a TT on rank 1, each in its own phase
 * (one fence per value, so a refused value fails only its own phase). Rank 1 makes the value
 * again and compares what arrived with it (strictDiff), and writes one line per value as soon as
 * its fence is over (a rank that dies or hangs still leaves the earlier lines) to a file of its
 * own, `$TTG_TEST_OUT/out-<rank>.jsonl` (two ranks' lines through mpirun's forwarding can
 * interleave under load):
 *
 *   CASE {name, kind: equal | changed | error | missing, diff?, code?, message?, ms}
 *   GEN  {seed, via, verdict, what, kind, code, failure?}
 *   DONE <rank>
 *
 * Modes (argv[2]):
 *   cases [plain|split]        the fixed cases (CASES not marked local or alone)
 *   case <name>                one case alone
 *   dag                        DAG_CASES
 *   world                      WORLD_CASES through world.broadcast from rank 0; each rank
 *                              writes its outcomes
 *   property <first> <count>   seeded random values: those with nothing hostile inside 50 to a
 *                              phase, the others one to a phase; by send, by broadcast (every
 *                              third seed) and, every tenth, also by world.broadcast
 *   allreduce <first> <count> generated values as the two partials of a keyed all-reduce (one
 *                              from each rank, one phase per key): folded into [v0, v1], or
 *                              refused as a send would be
 *   moved <variant>            a consumed array moved to rank 0, then sent again inside a value:
 *                              X(i) on rank 0 ──256 KiB──▶ P(i) on rank 1 (consumes; sends it to
 *                              Q(i) on rank 0, which moves it, then sends { inner: [it] } (or [it],
 *                              a Map holding it) to Q2(i) on rank 0) — E_MOVED; rank 1 prints the line
 *
 *   S(i) on rank 0 ──to──▶ R(key) on rank 1 (send, or broadcast to keys 1000+i and 2000+i)
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

import * as ttg from 'ttg';

import { CASES, DAG_CASES, MOVED, causeOf, generate, judge, judgeGenerated, registerSplitClasses, settleRun, strictDiff, WORLD_CASES, worldBroadcastRun, type Case, type Outcome } from '../serialize/values.js';

const world = await ttg.initialize();
const { rank, size } = world;
if (size !== 2) throw new Error('run with mpirun -np 2');
registerSplitClasses();

const mode = process.argv[2] ?? 'cases';

let make: () => { key?: unknown; value: unknown } = () => ({ value: 0 });
let via: NonNullable<Case['via']> = 'send';
let arrived: { key: unknown; value: unknown }[] = [];

const go = new ttg.Edge<number, number>('go');
const to = new ttg.Edge<unknown, unknown>('to');
const s = ttg.make_tt((i: number, _v: number, out) => {
  const { key, value } = make();
  if (via === 'send') out.send(0, key ?? i, value);
  else out.broadcast(0, [1000 + i, 2000 + i], value);
}, [go], [to], { name: 'S' });
const r = ttg.make_tt((key: unknown, value: unknown) => {
  arrived.push({ key, value });
}, [to], [], { name: 'R' });
s.set_procmap(() => 0);
r.set_procmap(() => 1);

// the moved mode's graph (made on every rank, in every mode: TTs match by creation order)
const L = 32768;
const xs = new ttg.Edge<number, Float64Array>('x');
const toQ = new ttg.Edge<number, Float64Array>('toQ');
const toQ2 = new ttg.Edge<number, unknown>('toQ2');
let detachedAfterMove = -1;
const p = ttg.make_tt((i: number, a: Float64Array, out) => {
  out.send(0, i, a); // moved: a consumed input that came from another rank, transferred
  detachedAfterMove = a.length === 0 ? 1 : 0;
  const inside = i === 0 ? { inner: [a] } : i === 1 ? [1, a] : new Map([['a', a]]);
  out.send(1, i, inside);
}, [xs], [toQ, toQ2], { name: 'P', consume: [0] });
const q = ttg.make_tt((_i: number, _a: Float64Array) => {}, [toQ], [], { name: 'Q' });
const q2 = ttg.make_tt((key: unknown, value: unknown) => {
  arrived.push({ key, value });
}, [toQ2], [], { name: 'Q2' });
p.set_procmap(() => 1);
q.set_procmap(() => 0);
q2.set_procmap(() => 0);
// the property mode's graph: G(seed) on rank 0 sends generated value `seed` to R(seed), or broadcasts it to R('a'+seed) and R('b'+seed)
const gens = ttg.make_tt((seed: number, _v: number, outs) => {
  const value = generate(seed).value;
  if (viaOf(seed) === 'send') outs.send(0, seed, value);
  else outs.broadcast(0, [`a${seed}`, `b${seed}`], value);
}, [new ttg.Edge<number, number>('gen')], [to], { name: 'G' });
gens.set_procmap(() => 0);

// the allreduce mode's graph: partial [k, r] from rank r, folded as [partial 0, partial 1], to C(k) on rank k % 2
const partials = new ttg.Edge<[number, number], unknown>('partials');
const results = new ttg.Edge<number, unknown>('results');
const ar = ttg.make_allreduce(partials, results, { op: (a, b) => [a, b], contributions: () => 2, contributor: (_k, i) => i, deliver: (k: number) => [k], name: 'AR' });
const folded = new Map<number, unknown>();
const c = ttg.make_tt((k: number, v: unknown) => {
  folded.set(k, v);
}, [results], [], { name: 'C' });
c.set_procmap((k) => k % 2);

ttg.make_graph_executable(s, r, p, q, q2, gens, ar, c);

let round = 0;

/** One phase: rank 0 sends what `m` makes; rank 1 compares what arrived with a fresh `m()`. */
async function run(name: string, m: typeof make, how: typeof via): Promise<Outcome> {
  make = m;
  via = how;
  arrived = [];
  const t0 = performance.now();
  const i = round++;
  if (rank === 0) s.invoke(i, 0);
  ttg.execute();
  return settleRun(name, m, how, arrived, t0);
}

const out = join(process.env['TTG_TEST_OUT'] ?? '.', `out-${rank}.jsonl`);
const write = (line: string) => appendFileSync(out, `${line}\n`);
const report = (line: string) => {
  if (rank === 1) write(line);
};

/** How seed `seed` of the property mode travels. */
const viaOf = (seed: number): 'send' | 'broadcast' => (seed % 3 === 1 ? 'broadcast' : 'send');

/**
 * Arrivals of generated values not yet judged, by seed. Rank 0 starts the next phase as soon as
 * its own fence and collectives are over, and R runs a task that arrives between two phases at
 * once (tasks run from the first `execute()` on), so a value may arrive before this rank's loop
 * reaches the phase it belongs to: it waits here.
 */
const early = new Map<number, unknown[]>();

/** Moves what R received into {@link early}. */
function sortArrivals(): void {
  for (const a of arrived) {
    const seed = typeof a.key === 'number' ? a.key : Number(String(a.key).slice(1));
    early.set(seed, [...(early.get(seed) ?? []), a.value]);
  }
  arrived = [];
}

/**
 * One phase for the generated values of `seeds`: rank 0 sends each (its own key, or broadcast to
 * two), rank 1 compares each arrival with the value made again from its seed.
 */
async function runSeeds(seeds: readonly number[]): Promise<Map<number, Outcome>> {
  const t0 = performance.now();
  make = () => ({ value: undefined });
  if (rank === 0) for (const seed of seeds) gens.invoke(seed, 0);
  ttg.execute();
  const outcomes = new Map<number, Outcome>();
  try {
    await ttg.fence({ quiet: true });
  } catch (e) {
    const err = e as ttg.TtgError;
    for (const seed of seeds) outcomes.set(seed, { name: `seed ${seed}`, kind: 'error', code: err.code ?? `not a TtgError (${(e as Error)?.name})`, message: err.message, cause: causeOf(err), ms: performance.now() - t0 });
    return outcomes;
  }
  const ms = performance.now() - t0;
  sortArrivals();
  for (const seed of seeds) {
    const values = early.get(seed) ?? [];
    early.delete(seed);
    const want = viaOf(seed) === 'send' ? 1 : 2;
    const diff = values.length !== want ? `${values.length} of ${want} arrivals` : values.map((v) => strictDiff(generate(seed).value, v)).find((d) => d !== undefined);
    outcomes.set(seed, diff === undefined ? { name: `seed ${seed}`, kind: 'equal', ms } : { name: `seed ${seed}`, kind: values.length !== want ? 'missing' : 'changed', diff, ms });
  }
  return outcomes;
}

if (mode === 'cases' || mode === 'dag') {
  const which = process.argv[3] ?? 'plain';
  const list = mode === 'dag' ? DAG_CASES : CASES.filter((c) => c.where !== 'local' && !c.alone && (which === 'split') === (c.split === true));
  for (const c of list) report(`CASE ${JSON.stringify(await run(c.name, c.make, c.via ?? 'send'))}`);
} else if (mode === 'case') {
  // one named case alone (those that make today's run hang, which poisons the world's later fences)
  const c = [...CASES, ...DAG_CASES].find((x) => x.name === process.argv[3]);
  if (c === undefined) throw new Error(`no case named ${process.argv[3]}`);
  report(`CASE ${JSON.stringify(await run(c.name, c.make, c.via ?? 'send'))}`);
} else if (mode === 'world') {
  // every rank must learn a refusal: each writes its own outcomes
  for (const c of WORLD_CASES.filter((x) => x.where !== 'local')) write(`CASE ${JSON.stringify({ ...await worldBroadcastRun(world, c), name: `${c.name} (rank ${rank})` })}`);
} else if (mode === 'property') {
  const first = Number(process.argv[3] ?? 1);
  const count = Number(process.argv[4] ?? 100);
  const line = (seed: number, via: string, o: Outcome) => {
    const g = generate(seed);
    return `GEN ${JSON.stringify({ seed, via, verdict: g.verdict, what: g.what, kind: o.kind, code: o.code, diff: o.diff, failure: judgeGenerated(g, o) })}`;
  };
  let batch: number[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    for (const [seed, o] of await runSeeds(batch)) report(line(seed, viaOf(seed), o));
    batch = [];
  };
  for (let seed = first; seed < first + count; seed++) {
    const g = generate(seed);
    // a refused value fails its phase: alone in one, so that it fails no other value
    if (g.verdict === 'equal') batch.push(seed);
    else for (const [sd, o] of await runSeeds([seed])) report(line(sd, viaOf(sd), o));
    if (batch.length === 50) await flush();
    if (seed % 10 === 0) {
      const o = await worldBroadcastRun(world, { name: `seed ${seed}`, item: 0, expect: { equal: true }, make: () => ({ value: generate(seed).value }) });
      write(line(seed, `world.broadcast (rank ${rank})`, o));
    }
  }
  await flush();
  sortArrivals();
  // a value that arrived for no phase of its own
  for (const seed of early.keys()) report(`GEN ${JSON.stringify({ seed, via: 'stray', kind: 'changed', failure: 'arrived, but in no phase of its seed (twice, or never sent)' })}`);
} else if (mode === 'allreduce') {
  // issue 55: the keyed all-reduce's partials cross ranks under a send's rules
  const first = Number(process.argv[3] ?? 1);
  const count = Number(process.argv[4] ?? 100);
  const seedOf = (k: number, from: number) => 100_000 + 2 * k + from;
  for (let k = first; k < first + count; k++) {
    const gs = [generate(seedOf(k, 0)), generate(seedOf(k, 1))];
    const t0 = performance.now();
    ar.in(0).send([k, rank], generate(seedOf(k, rank)).value);
    ttg.execute();
    let o: Outcome;
    try {
      await ttg.fence({ quiet: true });
      const diff = k % 2 !== rank ? undefined : folded.has(k) ? strictDiff([gs[0]!.value, gs[1]!.value], folded.get(k)) : 'no result';
      o = diff === undefined ? { name: `k ${k}`, kind: 'equal' } : { name: `k ${k}`, kind: 'changed', diff };
    } catch (e) {
      const err = e as ttg.TtgError;
      o = { name: `k ${k}`, kind: 'error', code: err.code ?? `not a TtgError (${(e as Error)?.name})`, message: err.message, cause: causeOf(err) };
    }
    o.ms = performance.now() - t0;
    const verdict = gs.some((g) => g.verdict === 'refuse') ? 'refuse' : gs.some((g) => g.verdict === 'either') ? 'either' : 'equal';
    const failure = verdict === 'refuse' ? judge({ code: 'E_SERIALIZE' }, o) : judge(verdict === 'equal' ? { equal: true } : { equalOrRefused: true }, o);
    write(`GEN ${JSON.stringify({ seed: k, via: `allreduce (rank ${rank})`, verdict, what: gs.map((g) => g.what).filter((w) => w !== undefined).join(', '), kind: o.kind, code: o.code, diff: o.diff, failure })}`);
  }
} else if (mode === 'moved') {
  // one variant per run: today the failed send leaves the phase unbalanced, E_HANG then poisons the world
  const i = MOVED.indexOf(process.argv[3] ?? MOVED[0]!);
  arrived = [];
  const t0 = performance.now();
  if (rank === 0) {
    const a = new Float64Array(L);
    for (let j = 0; j < L; j++) a[j] = j + 0.5;
    p.invoke(i, a);
  }
  ttg.execute();
  let o: Outcome & { detached?: number };
  try {
    await ttg.fence({ quiet: true });
    o = { name: MOVED[i]!, kind: 'missing', diff: 'no error and no arrival' };
  } catch (e) {
    const err = e as ttg.TtgError;
    o = { name: MOVED[i]!, kind: 'error', code: err.code ?? `not a TtgError (${(e as Error)?.name})`, message: err.message, cause: causeOf(err) };
  }
  // Q2 runs on rank 0, P (which knows whether its first send detached the array) on rank 1
  if (rank === 0 && arrived.length > 0) console.log(`ARRIVED ${JSON.stringify({ name: MOVED[i], value: String((arrived[0]!.value as { inner?: unknown }).inner ?? arrived[0]!.value) })}`);
  if (rank === 1) write(`CASE ${JSON.stringify({ ...o, ms: performance.now() - t0, detached: detachedAfterMove })}`);
}
write(`DONE ${rank}`);
await ttg.finalize();

