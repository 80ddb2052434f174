/**
 * Distributed tiled Cholesky (POTRF) on ttg: `npm run potrf`, or
 * `mpirun -np N node dist/examples/potrf/main.js --n 8192 --nb 256`.
 *
 *   INIT ─▶ POTRF ─▶ TRSM ─▶ SYRK ─▶ … ─▶ POTRF      (see potrf.ts for the whole graph)
 *                       └──▶ GEMM ─▶ … ─▶ TRSM
 *
 * Generates the matrix on the owner ranks, factors it (timed), and with --check computes the
 * scaled residual with another task graph. Prints TTG's timing line, or one JSON object (--json).
 */
import * as ttg from 'ttg';
import { make_check } from './check.js';
import { startExample } from '../common/setup.js';
import { parseArgs } from './cli.js';
import { squareGrid } from '../common/grid.js';
import { fillTile, layout, owner, potrfFlops, tileSize } from './matrix.js';
import { make_cholesky } from './potrf.js';
import { JsWork } from './js-work.js';
import { Tile } from '../common/tile.js';

const { opts, world } = await startExample(parseArgs);
const { rank, size } = world;
const [gp] = squareGrid(size);
const P = opts.P ?? (opts.Q !== undefined ? size / opts.Q : gp);
const Q = opts.Q ?? size / P;
if (!Number.isInteger(P) || !Number.isInteger(Q) || P * Q !== size) {
  if (rank === 0) console.error(`P x Q = ${P} x ${Q} does not match ${size} rank(s)`);
  process.exit(2);
}
const l = layout(opts.n, Math.min(opts.nb, opts.n), P, Q);

/** This rank's tiles of the matrix, generated where they live. */
function generate(): Map<string, { i: number; j: number; tile: Tile }> {
  const tiles = new Map<string, { i: number; j: number; tile: Tile }>();
  for (let i = 0; i < l.nt; i++) {
    for (let j = 0; j <= i; j++) {
      if (owner(l, i, j) !== rank) continue;
      const t = new Tile(tileSize(l, i), tileSize(l, j));
      fillTile(l, opts.seed, i, j, t.buf.host);
      tiles.set(`${i},${j}`, { i, j, tile: t });
    }
  }
  return tiles;
}

const times: number[] = [];
const work = new JsWork();
let factor = new Map<string, { i: number; j: number; tile: Tile }>();
// One graph for every iteration: V8 then compiles its task bodies once (a graph per iteration
// had them recompiled each time, on the cores the kernels use).
const { init } = make_cholesky(l, (i, j, tile) => { factor.set(`${i},${j}`, { i, j, tile }); }, opts.body);
for (let it = 0; it < opts.iters; it++) {
  const tiles = generate();
  factor = new Map();
  await ttg.fence();
  work.begin();
  const t0 = performance.now();
  for (const { i, j, tile } of tiles.values()) init.invoke([i, j], tile);
  ttg.execute();
  await ttg.fence();
  times.push((performance.now() - t0) / 1000);
  work.end();
}

let residual = NaN;
if (opts.check) {
  const checker = make_check(l, opts.seed, (r) => { residual = r; });
  checker.start(factor, rank);
  await ttg.fence();
}

const seconds = [...times].sort((a, b) => a - b)[times.length >> 1]!;
const gflops = potrfFlops(l.n) / seconds / 1e9;
if (rank === 0) {
  const stats = ttg.device.stats();
  const { backend, streams: workers } = stats;
  const ok = opts.check ? residual < 60 : null;
  if (opts.json) {
    console.log(JSON.stringify({
      example: 'potrf', n: l.n, nb: l.nb, P, Q, ranks: size, backend, workers, body: opts.body, seconds: round(seconds, 4),
      gflops: round(gflops, 2), residual: opts.check ? residual : null, ok,
      // over every run and the check: what crossed between host and devices
      h2d_gib: round(stats.h2d_bytes / 2 ** 30, 2), d2h_gib: round(stats.d2h_bytes / 2 ** 30, 2), kernels: stats.kernels,
      // this rank's JS thread per factorization (the mean of the timed runs)
      ...work.perRun(),
    }));
  } else {
    console.log(`POTRF N=${l.n} NB=${l.nb} P=${P} Q=${Q} ranks=${size} backend=${backend} workers=${workers}`);
    console.log(`TTG Execution Time (milliseconds) : ${(seconds * 1000).toFixed(1)} : Flops ${potrfFlops(l.n).toExponential(3)} -- ${gflops.toFixed(2)} GF/s`);
    if (opts.check) console.log(`Scaled residual ||A - L L^T|| / (||A|| N eps) = ${residual.toExponential(3)} (${ok ? 'ok' : 'FAILED'}: below 60 is ok)`);
  }
  if (opts.check && !ok) process.exitCode = 1;
}
await ttg.finalize();

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
