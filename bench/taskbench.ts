/**
 * Task Bench's METG(50%) for the stencil-1D pattern on 2 ranks (`npm run -s bench:taskbench`;
 * without mpirun it starts `mpirun -np 2` on itself).
 *
 *   S(t, x) ──▶ S(t+1, x-1), S(t+1, x), S(t+1, x+1)      x in [0, W), W = 2 ranks × COLS columns
 *
 * Each task runs a native compute-bound kernel (`busy(ns)`, a spin on the JS thread, as Task
 * Bench's kernel runs on the worker executing the task) of a given duration. Columns are block-
 * distributed, so only the columns at a rank boundary exchange messages. The kernel duration is
 * swept downward; for each run, efficiency = (tasks × kernel time) / (wall × cores) with one core
 * per rank, and task granularity = wall × cores / tasks (Task Bench's definition). METG(50%) is
 * the granularity at which efficiency falls to 50%, interpolated (log scale) between the two
 * bracketing runs. Last line: `{ pattern, ranks, metg_us, ... }`.
 *
 * Environment: BENCH_COLS columns per rank (default 1: width = cores, as Task Bench measures
 * METG; more columns per rank overdecompose and hide the message latency), BENCH_WORK_MS kernel time per rank per
 * run (default 200), BENCH_MPIRUN_ARGS extra mpirun arguments.
 */

import * as ttg from 'ttg';

import { requireNative } from '../src/native/addon.js';
import { baselines } from './lib/baselines.js';
import { relaunchUnderMpirun } from './lib/mpirun.js';

const COLS = Number(process.env['BENCH_COLS'] ?? 1);
const WORK_MS = Number(process.env['BENCH_WORK_MS'] ?? 200);
/** Kernel durations swept, in microseconds (stops early once efficiency is far below 50%). */
const DURATIONS_US = [1000, 500, 200, 100, 50, 20, 10, 5, 2, 1];

relaunchUnderMpirun(import.meta.url);

const world = await ttg.initialize();
const { rank, size } = world;
const native = requireNative();
const { busy } = baselines();
const W = COLS * size;
let steps = 0;
let kernelNs = 0;

// Keys are t * W + x (integers take the runtime's fast path); column x lives on rank x / COLS.
const left = new ttg.Edge<number, number>('left');
const center = new ttg.Edge<number, number>('center');
const right = new ttg.Edge<number, number>('right');
const s = ttg.make_tt((key: number, _l: number, _c: number, _r: number, out) => {
  busy(kernelNs);
  const t = Math.floor(key / W);
  if (t + 1 === steps) return;
  const x = key - t * W;
  const next = key + W;
  // boundary columns have no neighbour on one side: they fill that input themselves
  if (x + 1 < W) out.send(0, next + 1, x);  // the left input of (t+1, x+1)
  if (x === 0) out.send(0, next, x);
  out.send(1, next, x);
  if (x > 0) out.send(2, next - 1, x);      // the right input of (t+1, x-1)
  if (x === W - 1) out.send(2, next, x);
}, [left, center, right], [left, center, right], { name: 'stencil' });
s.set_procmap((key) => Math.floor((key % W) / COLS));
ttg.make_graph_executable(s);

interface Point { kernel_us: number; steps: number; tasks: number; wall_ms: number; efficiency: number; granularity_us: number }

async function run(kernelUs: number): Promise<Point> {
  kernelNs = kernelUs * 1000;
  steps = Math.max(20, Math.min(50_000, Math.round((WORK_MS * 1000) / (kernelUs * COLS))));
  await ttg.fence();
  const t0 = performance.now();
  for (let x = rank * COLS; x < (rank + 1) * COLS; x++) s.invoke(x, 0, 0, 0);
  ttg.execute();
  await ttg.fence();
  const wallMs = performance.now() - t0;
  // every rank uses rank 0's measurement, so all take the same decisions
  native.keepAlive(true); // the allreduce must keep this process alive
  const [w] = await native.allreduce(Float64Array.of(rank === 0 ? wallMs : 0));
  const tasks = steps * W;
  const cores = size;
  const efficiency = (tasks * kernelUs) / (w! * 1000 * cores);
  return { kernel_us: kernelUs, steps, tasks, wall_ms: +w!.toFixed(2), efficiency: +efficiency.toFixed(3), granularity_us: +((w! * 1000 * cores) / tasks).toFixed(2) };
}

await run(50); // warm-up
const points: Point[] = [];
for (const d of DURATIONS_US) {
  const p = await run(d);
  points.push(p);
  if (rank === 0) console.log(`kernel ${String(d).padStart(5)} us  steps ${String(p.steps).padStart(6)}  efficiency ${(p.efficiency * 100).toFixed(1).padStart(5)} %  granularity ${p.granularity_us} us`);
  if (p.efficiency < 0.2) break;
}

/** Granularity at 50% efficiency: log-linear interpolation between the last run above and the first below. */
function metg(ps: Point[]): number | null {
  for (let i = 1; i < ps.length; i++) {
    const a = ps[i - 1]!;
    const b = ps[i]!;
    if (a.efficiency >= 0.5 && b.efficiency < 0.5) {
      const f = (a.efficiency - 0.5) / (a.efficiency - b.efficiency);
      return Math.exp(Math.log(a.granularity_us) + f * (Math.log(b.granularity_us) - Math.log(a.granularity_us)));
    }
  }
  const last = ps[ps.length - 1];
  return last !== undefined && last.efficiency >= 0.5 ? last.granularity_us : null; // never fell below 50%: an upper bound
}

const m = metg(points);
await ttg.finalize();
if (rank === 0) {
  console.log(JSON.stringify({
    pattern: 'stencil_1d', ranks: size, metg_us: m === null ? null : +m.toFixed(2), width: W, cols_per_rank: COLS, sweep: points,
  }));
}
