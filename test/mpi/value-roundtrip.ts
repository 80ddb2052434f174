/**
 * Issue 36 across ranks, run by test/mpi/value-roundtrip.test.ts under `mpirun -np 2`: the values
 * of test/serialize/values.ts go from a task on rank 0 to a TT on rank 1, each in its own phase
 * (one fence per value, so a refused value fails only its own phase). Rank 1 makes the value
 * again and compares what arrived with it (strictDiff), and prints one line per value as soon as
 * its fence is over (a rank that dies or hangs still leaves the earlier lines):
 *
 *   CASE {name, kind: equal | changed | error | missing, diff?, code?, message?, ms}
 *   GEN  {seed, verdict, what, kind, code, failure?}
 *
 * Modes (argv[2]):
 *   cases [plain|split]        the fixed cases (CASES not marked local or alone)
 *   case <name>                one case alone
 *   dag                        DAG_CASES
 *   world <dir>                WORLD_CASES through world.broadcast from rank 0; each rank writes
 *                              its outcomes to <dir>/world-<rank>.jsonl
 *   property <first> <count>   seeded random values
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

import { CASES, DAG_CASES, MOVED, causeOf, generate, judgeGenerated, registerSplitClasses, settleRun, WORLD_CASES, worldBroadcastRun, type Case, type Outcome } from '../serialize/values.js';

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
ttg.make_graph_executable(s, r, p, q, q2);

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

const report = (line: string) => {
  if (rank === 1) console.log(line);
};

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
  // every rank must learn a refusal: each writes its own outcomes, to a file of its own (two
  // ranks' long lines through mpirun's forwarding may interleave)
  const file = join(process.argv[3] ?? '.', `world-${rank}.jsonl`);
  for (const c of WORLD_CASES.filter((x) => x.where !== 'local')) appendFileSync(file, `${JSON.stringify({ ...await worldBroadcastRun(world, c), name: `${c.name} (rank ${rank})` })}\n`);
} else if (mode === 'property') {
  const first = Number(process.argv[3] ?? 1);
  const count = Number(process.argv[4] ?? 100);
  for (let seed = first; seed < first + count; seed++) {
    const o = await run(`seed ${seed}`, () => ({ value: generate(seed).value }), 'send');
    const g = generate(seed);
    report(`GEN ${JSON.stringify({ seed, verdict: g.verdict, what: g.what, kind: o.kind, code: o.code, failure: judgeGenerated(g, o) })}`);
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
  if (rank === 1) console.log(`CASE ${JSON.stringify({ ...o, ms: performance.now() - t0, detached: detachedAfterMove })}`);
}
console.log(`DONE ${rank}`);
await ttg.finalize();

