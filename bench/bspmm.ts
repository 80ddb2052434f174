/**
 * BSpMM on one process (host backend, one stream per core) at densities 1.0, 0.3 and 0.1, with
 * M=N=K=4096 and tiles of 128..256, against the tile ceiling (one single-threaded 256x256 dgemm
 * loop per core on native threads, `devPeak`) measured in the same run, interleaved round by
 * round because this VM's speed drifts; then the example under `mpirun -np 2` with one worker
 * per rank. Each round also replays the same GEMMs on the same streams with no task graph
 * (bench/kernel-replay.ts): the bound that the tiles themselves set. Prints a summary and, last,
 * one JSON object (SPEC §7): m, n, k, densities, ttg_gflops (per density), peak_gflops,
 * peak_ratio (density 1.0), plus kernels_gflops and runtime_ratio (ttg / kernels only, per
 * density), kernels_peak_ratio (density 1.0) and mpi2_gflops. Then, with no warm-up at all, fresh
 * processes (bench/bspmm-fresh.ts): runtime_ratio_cold (the first product of a process against the
 * first replay of another) and runtime_ratio_warm (the products after it against the replays after
 * it), per density, with ttg_gflops_cold and ttg_gflops_warm.
 *
 *   BCAST_A/B ─▶ LOCAL_A/B ─▶ GEMM(i,j,k) ─▶ GEMM(i,j,k') … ─▶ RESULT   (examples/bspmm)
 */
import { availableParallelism } from 'node:os';
import * as ttg from 'ttg';
import { baselines } from './lib/baselines.js';
import { coldWarmRatios, ttgSpmm } from './bspmm-fresh.js';
import { replayGemms } from './kernel-replay.js';
import { exampleGflopsOnTwoRanks } from './lib/mpirun.js';
import { Plan } from '../examples/bspmm/plan.js';
import { makeStructure } from '../examples/bspmm/sparse.js';
import { make_spmm } from '../examples/bspmm/spmm.js';
import { median } from './lib/stats.js';

const SIZE = Number(process.env['BSPMM_SIZE'] ?? 4096);
const TMIN = 128;
const TMAX = 256;
const DENSITIES = (process.env['BSPMM_DENSITIES'] ?? '1,0.3,0.1').split(',').map(Number);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const SEED = 11;
/** GEMM tasks run untimed per density before measuring. */
const WARM_TASKS = 10000;
const cores = availableParallelism();
const r3 = (x: number) => Math.round(x * 1000) / 1000;

function structure(density: number) {
  return makeStructure({ m: SIZE, n: SIZE, k: SIZE, tmin: TMIN, tmax: TMAX, density, seed: SEED });
}


/** The ceiling: about 0.2 s of single-threaded 256x256 dgemm per core. */
const peak = () => baselines().devPeak(256, 200, cores);

function mpi2(density: number): number | null {
  return exampleGflopsOnTwoRanks('bspmm', ['--m', String(SIZE), '--n', String(SIZE), '--k', String(SIZE), '--tmin', String(TMIN),
    '--tmax', String(TMAX), '--density', String(density), '--seed', String(SEED), '--workers', '1', '--iters', String(RUNS)]);
}

await ttg.initialize({ device: { backend: 'host' } });
console.log(`BSpMM bench: M=N=K=${SIZE}, tiles ${TMIN}..${TMAX}, ${cores} cores, host backend with ${ttg.device.stats().streams} streams`);
const ttg_gflops: number[] = [];
const kernels_gflops: number[] = [];
const runtime_ratio: number[] = [];
let peak_gflops = NaN;
let peak_ratio = NaN;
let kernels_peak_ratio = NaN;
for (const density of DENSITIES) {
  const plan = new Plan(structure(density), 0, 1);
  const g = make_spmm(plan, { onResult: () => {} }); // built once, as the example does for --iters
  // warm-up: BLAS buffers, and V8's optimizing compiler, which reaches the runtime's hot paths
  // only after some thousands of tasks (a sparse product has a few hundred GEMMs)
  const warm = Math.min(100, Math.max(2, Math.ceil(WARM_TASKS / plan.localGemms)));
  for (let w = 0; w < warm; w++) await ttgSpmm(plan, g);
  await replayGemms(plan);
  const rounds: Array<{ t: number; k: number; p: number }> = [];
  for (let r = 0; r < RUNS; r++) {
    // the three measurements in a rotating order, so the VM's drift does not favour one of them
    const round = { t: NaN, k: NaN, p: NaN };
    const steps = [
      async () => { round.t = await ttgSpmm(plan, g); },
      async () => { round.k = await replayGemms(plan); },
      async () => { if (density === 1) round.p = peak(); },
    ];
    for (let i = 0; i < steps.length; i++) await steps[(i + r) % steps.length]!();
    rounds.push(round);
  }
  ttg_gflops.push(median(rounds.map((x) => x.t)));
  kernels_gflops.push(median(rounds.map((x) => x.k)));
  runtime_ratio.push(median(rounds.map((x) => x.t / x.k)));
  console.log(`  density ${density}: ${rounds.map((x) => x.t.toFixed(1)).join(', ')} GF/s; kernels only ${rounds.map((x) => x.k.toFixed(1)).join(', ')}` +
    (density === 1 ? `; ceiling ${rounds.map((x) => x.p.toFixed(1)).join(', ')}` : ''));
  if (density === 1) {
    peak_gflops = median(rounds.map((x) => x.p));
    peak_ratio = median(rounds.map((x) => x.t / x.p));
    kernels_peak_ratio = median(rounds.map((x) => x.k / x.p));
  }
}
await ttg.finalize();
const mpi2_gflops = DENSITIES.map((d) => mpi2(d));
console.log(`  mpirun -np 2, 1 worker each: ${mpi2_gflops.map((g) => g?.toFixed(1) ?? 'failed').join(', ')} GF/s`);
// fresh processes: FRESH_ROUNDS each of ttg and of the replay, FRESH_PRODUCTS products in each
const FRESH_ROUNDS = Number(process.env['BENCH_FRESH_ROUNDS'] ?? 3);
const FRESH_PRODUCTS = Number(process.env['BENCH_FRESH_PRODUCTS'] ?? 4);
const fresh = DENSITIES.map((d) => coldWarmRatios(d, FRESH_ROUNDS, FRESH_PRODUCTS, { size: SIZE, tmin: TMIN, tmax: TMAX, seed: SEED }));
console.log(`  fresh processes, ttg / replay: cold ${fresh.map((f) => f.cold.toFixed(3)).join(', ')}; warm ${fresh.map((f) => f.warm.toFixed(3)).join(', ')}`);
console.log(JSON.stringify({
  m: SIZE, n: SIZE, k: SIZE, densities: DENSITIES, ttg_gflops: ttg_gflops.map(r3), peak_gflops: r3(peak_gflops),
  peak_ratio: r3(peak_ratio), kernels_gflops: kernels_gflops.map(r3), kernels_peak_ratio: r3(kernels_peak_ratio),
  runtime_ratio: runtime_ratio.map(r3), mpi2_gflops: mpi2_gflops.map((g) => (g === null ? null : r3(g))),
  runtime_ratio_cold: fresh.map((f) => r3(f.cold)), runtime_ratio_warm: fresh.map((f) => r3(f.warm)),
  ttg_gflops_cold: fresh.map((f) => r3(f.ttgCold)), ttg_gflops_warm: fresh.map((f) => r3(f.ttgWarm)),
}));
