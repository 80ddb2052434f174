/**
 * POTRF on one process versus LAPACKE_dpotrf (OpenBLAS, all cores) and the tile ceiling (one
 * single-threaded 256x256 dgemm loop per core on native threads), all on the same N=8192 matrix in
 * the same run; then the example under `mpirun -np 2` with one worker per rank. Prints a summary
 * and, last, one JSON object (SPEC §7): n, nb, ttg_gflops, lapack_gflops, peak_gflops, ratio,
 * peak_ratio (plus mpi2_nb, best of its own short NB sweep, and mpi2_gflops and mpi2_peak_ratio:
 * medians over BENCH_RUNS runs of the example, each against the ceiling measured just before it),
 * and the JS thread's device work per timed run (examples/potrf/js-work.ts).
 *
 *   INIT ─▶ POTRF ─▶ TRSM ─▶ SYRK/GEMM ─▶ …   (examples/potrf)
 */
import { availableParallelism } from 'node:os';
import * as ttg from 'ttg';
import { baselines } from './lib/baselines.js';
import { exampleGflopsOnTwoRanks } from './lib/mpirun.js';
import { entry, fillTile, layout, potrfFlops, tileSize } from '../examples/potrf/matrix.js';
import { JsWork } from '../examples/potrf/js-work.js';
import { make_cholesky } from '../examples/potrf/potrf.js';
import { Tile } from '../examples/common/tile.js';
import { median } from './lib/stats.js';

const N = Number(process.env['POTRF_N'] ?? 8192);
const SWEEP = (process.env['POTRF_NBS'] ?? '192,256,320,384').split(',').map(Number);
// With one worker per rank, fewer and larger tiles pay off (less task and message overhead per flop)
const SWEEP2 = (process.env['POTRF_MPI2_NBS'] ?? '320,384,448,512').split(',').map(Number);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const SEED = 3872;
const cores = availableParallelism();
const baseline = baselines();
const flops = potrfFlops(N);

/** One graph per tile size, reused by every run of it (V8 compiles its bodies once). */
const graphs = new Map<number, ReturnType<typeof make_cholesky>>();

/** The JS thread's device work over the timed runs at the chosen tile size (issue 57). */
const work = new JsWork();

async function ttgPotrf(nb: number, counted = false): Promise<number> {
  const l = layout(N, nb, 1, 1);
  const tiles: Array<[number, number, Tile]> = [];
  for (let i = 0; i < l.nt; i++) {
    for (let j = 0; j <= i; j++) {
      const t = new Tile(tileSize(l, i), tileSize(l, j));
      fillTile(l, SEED, i, j, t.buf.host);
      tiles.push([i, j, t]);
    }
  }
  const { init } = graphs.get(nb) ?? graphs.set(nb, make_cholesky(l, () => {})).get(nb)!;
  if (counted) work.begin();
  const t0 = performance.now();
  for (const [i, j, t] of tiles) init.invoke([i, j], t);
  ttg.execute();
  await ttg.fence();
  const seconds = (performance.now() - t0) / 1000;
  if (counted) work.end();
  return flops / seconds / 1e9;
}

function lapack(): number {
  const a = new Float64Array(N * N);
  for (let c = 0; c < N; c++) for (let r = c; r < N; r++) a[c * N + r] = entry(N, SEED, r, c);
  const seconds = baseline.lapackDpotrf(a, N, cores);
  return flops / seconds / 1e9;
}

function mpi2(nb: number, iters = RUNS): number | null {
  return exampleGflopsOnTwoRanks('potrf', ['--n', String(N), '--nb', String(nb), '--workers', '1', '--iters', String(iters)]);
}

await ttg.initialize({ device: { backend: 'host' } });
console.log(`POTRF bench: N=${N}, ${cores} cores, host backend with ${ttg.device.stats().streams} streams`);
await ttgPotrf(256); // warm-up
const sweep = new Map<number, number>();
for (const nb of SWEEP) {
  sweep.set(nb, await ttgPotrf(nb));
  console.log(`  sweep NB=${nb}: ${sweep.get(nb)!.toFixed(1)} GF/s`);
}
const nb = [...sweep].sort((a, b) => b[1] - a[1])[0]![0];
// The VM's speed drifts: interleave the three measurements and take medians.
const t: number[] = [];
const lp: number[] = [];
const pk: number[] = [];
for (let r = 0; r < RUNS; r++) {
  t.push(await ttgPotrf(nb, true));
  lp.push(lapack());
  pk.push(baseline.devPeak(256, 200, cores));
  console.log(`  run ${r}: ttg ${t[r]!.toFixed(1)}, LAPACKE ${lp[r]!.toFixed(1)}, ceiling ${pk[r]!.toFixed(1)} GF/s`);
}
await ttg.finalize();
const ttg_gflops = median(t);
const lapack_gflops = median(lp);
const peak_gflops = median(pk);
// Two ranks, one worker each: a short NB sweep of its own, then runs against the ceiling measured
// just before each (drift again).
const sweep2 = new Map<number, number>();
for (const b of SWEEP2) {
  const g = mpi2(b, 1);
  if (g === null) break;
  sweep2.set(b, g);
  console.log(`  mpirun -np 2 sweep NB=${b}: ${g.toFixed(1)} GF/s`);
}
const nb2 = [...sweep2].sort((a, b) => b[1] - a[1])[0]?.[0] ?? nb;
const m2s: number[] = [];
const m2ratios: number[] = [];
for (let r = 0; r < RUNS; r++) {
  const ceiling = baseline.devPeak(256, 200, cores);
  const m = mpi2(nb2);
  if (m === null) break;
  m2s.push(m);
  m2ratios.push(m / ceiling);
  console.log(`  mpirun -np 2, 1 worker each, NB=${nb2}: ${m.toFixed(1)} GF/s (ceiling just before: ${ceiling.toFixed(1)})`);
}
const m2 = m2s.length === RUNS ? median(m2s) : null;
const r3 = (x: number) => Math.round(x * 1000) / 1000;
console.log(JSON.stringify({
  n: N, nb, ttg_gflops: r3(ttg_gflops), lapack_gflops: r3(lapack_gflops), peak_gflops: r3(peak_gflops),
  ratio: r3(ttg_gflops / lapack_gflops), peak_ratio: r3(ttg_gflops / peak_gflops),
  mpi2_nb: nb2, mpi2_gflops: m2 === null ? null : r3(m2), mpi2_peak_ratio: m2 === null ? null : r3(median(m2ratios)),
  ...work.perRun(),
}));
