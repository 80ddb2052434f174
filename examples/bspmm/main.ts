/**
 * Distributed block-sparse matrix multiply C = A B with irregular tiles (like C++ TTG's SpMM):
 * `npm run bspmm`, or `mpirun -np N node dist/examples/bspmm/main.js --m 4096 --density 0.1`.
 *
 *   BCAST_A(i,k) ──(once per rank)──▶ LOCAL_A(i,k,r) ──▶ GEMM(i,j,k) for local j
 *   BCAST_B(k,j) ──(once per rank)──▶ LOCAL_B(k,j,r) ──▶ GEMM(i,j,k) for local i
 *     ▲ held by a SequencedKeysConstraint on k          │  C(i,j) chained over the k's of (i,j)
 *     └── released (window W) as GEMMs of k finish       ▼
 *   CINIT(i,j,s) ─▶ GEMM(i,j,k0) ─▶ GEMM(i,j,k1) ─▶ … ─▶ RESULT(i,j)  (reducing input: sums
 *                                                                     the k segments, --ksplit)
 *
 * A and B are generated once and C's tiles allocated for each product (untimed) on their ranks; each
 * product is timed (`times` in the JSON, the median as `seconds`); with --check the last one is
 * compared with a dense reference. Prints TTG's timing line, or one JSON object.
 */
import * as ttg from 'ttg';
import { checkProduct } from './check.js';
import { startExample } from '../common/setup.js';
import { parseArgs } from './cli.js';
import { reduceToRoot } from './gather.js';
import { Plan } from './plan.js';
import { inputTiles, localOperands } from './operands.js';
import { actualDensity, makeStructure, multiplyFlops } from './sparse.js';
import { make_spmm } from './spmm.js';
import type { Tile } from '../common/tile.js';

const { opts, world } = await startExample(parseArgs);
const { rank, size } = world;
const s = makeStructure(opts);
const plan = new Plan(s, rank, size, opts.ksplit);
const { nt } = plan;

const times: number[] = [];
let peak = 0;
let results = new Map<number, Tile>();
const g = make_spmm(plan, { window: opts.window, onResult: (i, j, c) => { results.set(i * nt + j, c); } });
const inputs = inputTiles(plan);
for (let it = 0; it < opts.iters; it++) {
  const operands = localOperands(plan, inputs);
  results = new Map();
  await ttg.fence();
  const t0 = performance.now();
  g.start(operands);
  ttg.execute();
  await ttg.fence();
  times.push((performance.now() - t0) / 1000);
  peak = Math.max(peak, g.memory.peak);
}

const maxPeak = (await reduceToRoot(Float64Array.of(peak), 'max'))?.[0] ?? peak;
const error = opts.check ? await checkProduct(plan, results) : undefined;

const seconds = [...times].sort((x, y) => x - y)[times.length >> 1]!;
const flops = multiplyFlops(s);
const gflops = flops / seconds / 1e9;
if (rank === 0) {
  const tolerance = 1e-12 * s.k;
  const ok = opts.check ? error! <= tolerance : null;
  const { backend, streams: workers } = ttg.device.stats();
  if (opts.json) {
    console.log(JSON.stringify({
      example: 'bspmm', m: s.m, n: s.n, k: s.k, density: opts.density, ranks: size, seconds: round(seconds, 4), times: times.map((t) => round(t, 4)),
      gflops: round(gflops, 2), max_inflight_bytes: maxPeak, ok,
      tmin: opts.tmin, tmax: opts.tmax, window: opts.window ?? null, ksplit: plan.ksplit, backend, workers,
      density_a: round(actualDensity(s, 0), 4), density_b: round(actualDensity(s, 1), 4),
      error: opts.check ? error : null,
    }));
  } else {
    console.log(`BSpMM M=${s.m} N=${s.n} K=${s.k} tiles ${opts.tmin}-${opts.tmax} (${plan.mt}x${plan.kt}x${nt}) density ${opts.density} ranks=${size} backend=${backend} workers=${workers}`);
    console.log(`TTG Execution Time (milliseconds) : ${(seconds * 1000).toFixed(1)} : Flops ${flops.toExponential(3)} -- ${gflops.toFixed(2)} GF/s`);
    console.log(`Peak bytes of A/B tiles held on a rank: ${maxPeak} (window ${opts.window ?? 'unbounded'})`);
    if (opts.check) console.log(`Relative error ||C - C_ref|| / ||C_ref|| = ${error!.toExponential(3)} (${ok ? 'ok' : 'FAILED'}: at most ${tolerance.toExponential(1)})`);
  }
  if (opts.check && !ok) process.exitCode = 1;
}
await ttg.finalize();

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
