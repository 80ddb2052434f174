/**
 * Task Bench's METG(50%) for the stencil-1D pattern on 2 ranks, ttg against plain MPI in the same
 * run (`npm run -s bench:taskbench`; without mpirun it starts `mpirun -np 2` on itself).
 *
 *   S(t, x) ──▶ S(t+1, x-1), S(t+1, x), S(t+1, x+1)      x in [0, W), W = 2 ranks × COLS columns
 *
 * Each task runs a compute-bound kernel (`busy(ns)`, a spin on the thread that runs the task, as
 * Task Bench's kernel runs on the worker executing it) of a given duration. Columns are block-
 * distributed, so only the columns at a rank boundary exchange messages. The baseline is the same
 * stencil in plain MPI (one column per rank; nonblocking sends and receives, then a wait, as Task
 * Bench's MPI implementation) on ttg's comm thread. For each kernel duration, swept downward, the
 * two run one after the other (in alternating order); efficiency = (tasks × kernel time) /
 * (wall × cores) with one core per rank, and task granularity = wall × cores / tasks (Task
 * Bench's definitions). METG(50%) is the granularity at which efficiency falls to 50%,
 * interpolated (log scale) between the two bracketing runs. Also measured: the CPU use of a rank
 * left idle in a fence while its peer computes.
 *
 * Last line: `{ pattern, ranks, metg_us, mpi_metg_us, metg_ratio, efficiency_1ms,
 * mpi_efficiency_1ms, idle_cpu_pct, width, cols_per_rank, sweep }`.
 *
 * Environment: BENCH_COLS columns per rank for ttg (default 1: width = cores, as Task Bench
 * measures METG; more columns per rank overdecompose and hide the message latency), BENCH_WORK_MS
 * kernel time per rank per run (default 200), BENCH_MPIRUN_ARGS extra mpirun arguments.
 */

import * as ttg from 'ttg';

import { baselines, rawStencil } from './lib/baselines.js';
import { idleCpuPct } from './lib/idle-cpu.js';
import { relaunchUnderMpirun } from './lib/mpirun.js';

const COLS = Number(process.env['BENCH_COLS'] ?? 1);
const WORK_MS = Number(process.env['BENCH_WORK_MS'] ?? 200);
/** Kernel durations swept, in microseconds (each runtime stops once its efficiency is far below 50%). */
const DURATIONS_US = [1000, 500, 200, 100, 50, 20, 10, 5, 2, 1, 0.5, 0.2];
const FAR_BELOW = 0.2;

relaunchUnderMpirun(import.meta.url);

const world = await ttg.initialize();
const { rank, size } = world;
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

function stepsFor(kernelUs: number, cols: number): number {
  return Math.max(20, Math.min(50_000, Math.round((WORK_MS * 1000) / (kernelUs * cols))));
}

/** The point of a run of `n` steps on `width` columns that took `seconds` on the slowest rank. */
async function point(kernelUs: number, n: number, width: number, seconds: number): Promise<Point> {
  // every rank uses the slowest rank's time, so all take the same decisions
  const wall = await world.allreduce(seconds, 'max');
  const tasks = n * width;
  const cores = size;
  return {
    kernel_us: kernelUs, steps: n, tasks, wall_ms: +(wall * 1000).toFixed(2),
    efficiency: +((tasks * kernelUs) / (wall * 1e6 * cores)).toFixed(3), granularity_us: +((wall * 1e6 * cores) / tasks).toFixed(3),
  };
}

async function runTtg(kernelUs: number): Promise<Point> {
  kernelNs = kernelUs * 1000;
  steps = stepsFor(kernelUs, COLS);
  await world.barrier();
  const t0 = performance.now();
  for (let x = rank * COLS; x < (rank + 1) * COLS; x++) s.invoke(x, 0, 0, 0);
  ttg.execute();
  await ttg.fence();
  return point(kernelUs, steps, W, (performance.now() - t0) / 1000);
}

async function runMpi(kernelUs: number): Promise<Point> {
  const n = stepsFor(kernelUs, 1);
  return point(kernelUs, n, size, await rawStencil(kernelUs * 1000, n));
}

await runTtg(50); // warm-up
await runMpi(50);
const sweeps: Record<'ttg' | 'mpi', Point[]> = { ttg: [], mpi: [] };
for (const [i, d] of DURATIONS_US.entries()) {
  const order = i % 2 === 0 ? (['ttg', 'mpi'] as const) : (['mpi', 'ttg'] as const);
  for (const who of order) {
    const ps = sweeps[who];
    if (ps.length > 0 && ps[ps.length - 1]!.efficiency < FAR_BELOW) continue;
    const p = who === 'ttg' ? await runTtg(d) : await runMpi(d);
    ps.push(p);
    if (rank === 0) console.log(`${who.padEnd(3)} kernel ${String(d).padStart(5)} us  steps ${String(p.steps).padStart(6)}  efficiency ${(p.efficiency * 100).toFixed(1).padStart(5)} %  granularity ${p.granularity_us} us`);
  }
}
const idleCpu = await idleCpuPct(rank, 1000);

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

const m = metg(sweeps.ttg);
const mm = metg(sweeps.mpi);
await ttg.finalize();
if (rank === 0) {
  const r2 = (x: number | null) => (x === null ? null : Math.round(x * 100) / 100);
  console.log(`METG(50%): ttg ${r2(m)} us, MPI ${r2(mm)} us; idle rank ${idleCpu.toFixed(1)}% of a core`);
  console.log(JSON.stringify({
    pattern: 'stencil_1d', ranks: size, metg_us: r2(m), mpi_metg_us: r2(mm), metg_ratio: m === null || mm === null ? null : r2(m / mm),
    efficiency_1ms: sweeps.ttg[0]!.efficiency, mpi_efficiency_1ms: sweeps.mpi[0]!.efficiency, idle_cpu_pct: r2(idleCpu),
    width: W, cols_per_rank: COLS, sweep: sweeps.ttg, mpi_sweep: sweeps.mpi,
  }));
}
