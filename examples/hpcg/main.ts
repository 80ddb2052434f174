/**
 * HPCG 3.0's algorithm on ttg: `npm run hpcg`, or `mpirun -np N node dist/examples/hpcg/main.js
 * --nx 32 --ny 32 --nz 32`. The 27-point operator on a 3-D grid split over the ranks (HPCG's
 * process grid), conjugate gradients preconditioned by a 4-level multigrid V-cycle with one
 * symmetric Gauss-Seidel sweep before and after, halos exchanged through edges and dot products
 * through a keyed all-reduce (see graph.ts).
 *
 *   START ─▶ HALO [s, r] ◀─halo pieces─ neighbours      DOT [s, r] ◀─ SUM (make_allreduce) ◀─ every rank
 *              └────────── each step resumes the rank's program (solver.ts) ──────────┘
 *
 * Runs HPCG's symmetry tests, then `--iters` CG iterations without and with the preconditioner
 * (the timed run), with the kernels of kernels.c (native, the default when a C compiler builds
 * them) or of vectors.ts (--kernel js). With --check, rank 0 also runs every rank's program in one
 * process (simulate.ts, JavaScript kernels) and expects the same bits; the symmetry departures must be at most 1 and the
 * preconditioner must help. JSON (--json): example, nx, ny, nz, ranks, kernel, iterations, relres,
 * gflops, ok, with flops counted as HPCG's ReportResults counts them.
 */
import * as ttg from 'ttg';

import { startExample } from '../common/setup.js';
import { parseArgs } from './cli.js';
import { geometry } from './geometry.js';
import { make_solver } from './graph.js';
import { simulate } from './simulate.js';
import { chooseKernels } from './kernels.js';
import { cg, LEVELS, RankData, symmetry, type CgResult, type Symmetry } from './solver.js';
import { globalNonzeros } from './vectors.js';

const { opts, world } = await startExample(parseArgs);
const { rank, size } = world;
const g = geometry(rank, size, opts.nx, opts.ny, opts.nz);
const { kernels, name: kernel } = chooseKernels(opts.kernel);
const data = new RankData(g, kernels);
const solver = make_solver(g, world);

const sym = await solver.run(() => symmetry(data));
const plain = await solver.run(() => cg(data, opts.iters, 0, false));
await world.barrier();
const t0 = performance.now();
const pre = await solver.run(() => cg(data, opts.iters, 0, true));
const seconds = await world.allreduce((performance.now() - t0) / 1000, 'max');

/** HPCG's ReportResults flop count for one CG set of `iters` iterations. */
function flops(iters: number): number {
  const rows = g.gnx * g.gny * g.gnz;
  const nnz = globalNonzeros(g);
  let total = (3 * iters + 1) * 2 * rows * 2 + (iters + 1) * 2 * nnz; // dots, WAXPBYs, SpMVs
  let level = data.levels[0]!.g;
  for (let l = 0; l + 1 < LEVELS; l++, level = data.levels[l]!.g) total += iters * (4 + 2 + 4) * globalNonzeros(level);
  return total + iters * 4 * globalNonzeros(data.levels[LEVELS - 1]!.g);
}

let ok: boolean | null = null;
if (opts.check) {
  let same = true;
  if (rank === 0) {
    const ranks = Array.from({ length: size }, (_, r) => new RankData(geometry(r, size, opts.nx, opts.ny, opts.nz)));
    const s = simulate(ranks.map((d) => symmetry(d)))[0]!;
    const p = simulate(ranks.map((d) => cg(d, opts.iters, 0, false)))[0]!;
    const q = simulate(ranks.map((d) => cg(d, opts.iters, 0, true)))[0]!;
    const eq = (a: CgResult, b: CgResult) => a.iterations === b.iterations && Object.is(a.normr, b.normr) && Object.is(a.normr0, b.normr0);
    same = Object.is(s.spmv, sym.spmv) && Object.is(s.mg, sym.mg) && eq(p, plain) && eq(q, pre);
  }
  const symmetric = (x: Symmetry) => x.spmv <= 1 && x.mg <= 1;
  ok = (await world.broadcast(same, 0)) && symmetric(sym) && pre.normr / pre.normr0 < plain.normr / plain.normr0 && Number.isFinite(pre.normr);
}

const relres = pre.normr / pre.normr0;
const gflops = flops(pre.iterations) / seconds / 1e9;
if (rank === 0) {
  if (opts.json) {
    console.log(JSON.stringify({ example: 'hpcg', nx: g.nx, ny: g.ny, nz: g.nz, ranks: size, kernel, iterations: pre.iterations, relres, relres_unpreconditioned: plain.normr / plain.normr0, symmetry: sym, seconds, gflops, ok }));
  } else {
    console.log(`hpcg: ${g.nx}x${g.ny}x${g.nz} per rank on ${size} rank(s) (${g.npx}x${g.npy}x${g.npz}), ${kernel} kernels, ${pre.iterations} iterations: relres ${relres.toExponential(4)} (unpreconditioned ${(plain.normr / plain.normr0).toExponential(4)}), ${seconds.toFixed(3)} s, ${gflops.toFixed(3)} GF/s; symmetry departures ${sym.spmv.toExponential(2)} (A), ${sym.mg.toExponential(2)} (M)${ok === null ? '' : `, check ${ok ? 'ok' : 'FAILED'}`}`);
  }
}
await ttg.finalize();
if (ok === false) process.exitCode = 1;
