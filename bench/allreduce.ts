/**
 * Latency of the keyed all-reduce (`make_allreduce`) beside one MPI_Allreduce of the same size and
 * one ttg hop, at 2 and 3 ranks (`npm run -s bench:allreduce`: it runs itself under
 * `mpirun -np 2` and `-np 3`). Each rank contributes one partial per iteration; the result goes
 * to a task on every rank, which contributes the next iteration's partial:
 *
 *   NEXT [k, r] ──partial [k+1, r]──▶ DOT (make_allreduce) ──result──▶ NEXT [k+1, r]   (r: every rank)
 *
 * In each round, interleaved: `mpi_us`, MPI_Allreduce of ELEMS doubles in a C loop on ttg's comm
 * thread; `hop_us`, half a ttg round trip between ranks 0 and 1 (two TTs passing a number);
 * `keyed_us`, one iteration of the loop above; `world_us`, one `world.allreduce` from the main
 * program (an agreement round and the reduction). Medians over BENCH_ROUNDS (default 7) rounds.
 * Goal of the keyed all-reduce: keyed_us <= 2 mpi_us + hop_us (`goal_ratio` <= 1).
 * Last line: `{ ranks, elems, mpi_us, hop_us, keyed_us, world_us, goal_ratio }`, one entry per
 * rank count.
 */
import { fileURLToPath } from 'node:url';

import * as ttg from 'ttg';

import { rawAllreduce } from './lib/baselines.js';
import { mpirun } from './lib/mpirun.js';
import { held } from './lib/held.js';
import { median } from './lib/stats.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 7);
/** Untimed runs of each loop (ITERS iterations each) before the rounds. */
const WARM_ROUNDS = 3;
const ITERS = Number(process.env['BENCH_ITERS'] ?? 2000);
const ELEMS = Number(process.env['BENCH_ELEMS'] ?? 1);
const RANK_COUNTS = [2, 3];

interface Figures { mpi_us: number; hop_us: number; keyed_us: number; world_us: number }

if (process.env['OMPI_COMM_WORLD_SIZE'] === undefined) {
  const all: Figures[] = [];
  for (const np of RANK_COUNTS) {
    const run = mpirun(np, fileURLToPath(import.meta.url), [], 600_000);
    const last = run.stdout.trim().split('\n').pop() ?? '';
    if (run.status !== 0 || !last.startsWith('{')) throw new Error(`mpirun -np ${np} failed (${run.status}):\n${run.output}`);
    all.push(JSON.parse(last) as Figures);
  }
  const r2 = (x: number) => Math.round(x * 100) / 100;
  console.log(`keyed all-reduce of ${ELEMS} double(s), median of ${ROUNDS} rounds`);
  console.log('ranks   mpi_us   hop_us   keyed_us   world_us   keyed/(2 mpi + hop)');
  RANK_COUNTS.forEach((np, i) => {
    const f = all[i]!;
    console.log(`${String(np).padEnd(5)} ${r2(f.mpi_us).toFixed(2).padStart(8)} ${r2(f.hop_us).toFixed(2).padStart(8)} ${r2(f.keyed_us).toFixed(2).padStart(10)} ${r2(f.world_us).toFixed(2).padStart(10)} ${(f.keyed_us / (2 * f.mpi_us + f.hop_us)).toFixed(2).padStart(12)}`);
  });
  const col = (k: keyof Figures) => all.map((f) => r2(f[k]));
  console.log(JSON.stringify({
    ranks: RANK_COUNTS, elems: ELEMS, mpi_us: col('mpi_us'), hop_us: col('hop_us'), keyed_us: col('keyed_us'), world_us: col('world_us'),
    goal_ratio: all.map((f) => Math.round((f.keyed_us / (2 * f.mpi_us + f.hop_us)) * 100) / 100),
  }));
  process.exit(0);
}

const world = await ttg.initialize();
const { rank, size } = world;
const value = (k: number): number | Float64Array => (ELEMS === 1 ? rank + k : new Float64Array(ELEMS).fill(rank + k));

// ---- the keyed all-reduce loop ----
const parts = new ttg.Edge<[number, number], number | Float64Array>('partials');
const results = new ttg.Edge<[number, number], number | Float64Array>('results');
let end = 0;
let finished: (() => void) | undefined;
const dot = ttg.make_allreduce(parts, results, {
  op: 'sum', contributions: () => size, contributor: (_k, i) => i,
  deliver: (k: number) => Array.from({ length: size }, (_, r): [number, number] => [k, r]), name: 'DOT',
});
const next = ttg.make_tt((key: [number, number], _sum: number | Float64Array, out) => {
  const k = key[0] + 1;
  if (k === end) finished?.();
  else out.send(0, [k, rank], value(k));
}, [results], [parts], { name: 'NEXT' });
next.set_procmap((key) => key[1]);

// ---- one hop: a number passed back and forth between ranks 0 and 1 ----
const ping = new ttg.Edge<number, number>('ping');
const pong = new ttg.Edge<number, number>('pong');
let hopEnd = 0;
let hopDone: (() => void) | undefined;
const A = ttg.make_tt((k: number, v: number, out) => {
  if (k === hopEnd) hopDone?.();
  else out.send(0, k, v);
}, [ping], [pong], { name: 'A' });
const B = ttg.make_tt((k: number, v: number, out) => out.send(0, k + 1, v), [pong], [ping], { name: 'B' });
A.set_procmap(() => 0);
B.set_procmap(() => 1);
ttg.make_graph_executable(dot, next, A, B);
world.execute();


let key0 = 0;
/** Microseconds per iteration of the keyed loop (rank 0's clock). */
async function keyed(iters: number): Promise<number> {
  const start = key0;
  end = start + iters;
  key0 = end + 1;
  const done = new Promise<void>((r) => (finished = r));
  const t0 = performance.now();
  dot.in(0).send([start, rank], value(start));
  await held(done);
  const us = ((performance.now() - t0) * 1000) / iters;
  await world.fence();
  return us;
}

let hop0 = 0;
async function hop(iters: number): Promise<number> {
  const start = hop0;
  hopEnd = start + iters;
  hop0 = hopEnd + 1;
  const done = new Promise<void>((r) => (hopDone = r));
  const t0 = performance.now();
  if (rank === 0) A.in(0).send(start, 1);
  if (rank === 0) await held(done);
  const us = ((performance.now() - t0) * 1000) / iters / 2;
  await world.fence();
  return us;
}

async function worldCollective(iters: number): Promise<number> {
  const x = value(0);
  const t0 = performance.now();
  for (let i = 0; i < iters; i++) await world.allreduce(x as never);
  return ((performance.now() - t0) * 1000) / iters;
}

// warm-up: V8 compiles the paths first. They reach their optimized code after a few thousand
// calls: with 200 calls of world.allreduce to warm up, its rounds read 15-20 us at 2 ranks while a
// longer loop settles at ~5.5 us (the first 2,000 calls take ~30 us each).
for (let i = 0; i < WARM_ROUNDS; i++) {
  await keyed(ITERS);
  await hop(ITERS);
  await worldCollective(ITERS);
}
await rawAllreduce(ELEMS, ITERS);

const f: Record<keyof Figures, number[]> = { mpi_us: [], hop_us: [], keyed_us: [], world_us: [] };
for (let round = 0; round < ROUNDS; round++) {
  f.mpi_us.push((await rawAllreduce(ELEMS, ITERS)) * 1e6);
  f.hop_us.push(await hop(ITERS));
  f.keyed_us.push(await keyed(ITERS));
  f.world_us.push(await worldCollective(ITERS / 10));
}
const mine = { mpi_us: median(f.mpi_us), hop_us: median(f.hop_us), keyed_us: median(f.keyed_us), world_us: median(f.world_us) };
// rank 0's figures are the job's (its clock timed the loops)
const all = await world.broadcast(mine, 0);
await ttg.finalize();
if (rank === 0) console.log(JSON.stringify(all));
