/**
 * BSpMM products in a fresh process, for bench:bspmm's cold and warm ratios: the first product of
 * a process (V8, BLAS and the operands all cold) and the ones after it, each against the same GEMMs
 * replayed with no graph (bench/kernel-replay.ts), also in a fresh process of its own, so that
 * neither warms the other.
 *
 *   node dist/bench/bspmm-fresh.js ttg|replay <density> <products>    prints one JSON array of GF/s
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as ttg from 'ttg';

import { Plan } from '../examples/bspmm/plan.js';
import { make_spmm } from '../examples/bspmm/spmm.js';
import { localOperands } from '../examples/bspmm/operands.js';
import { makeStructure, multiplyFlops } from '../examples/bspmm/sparse.js';
import { replayGemms } from './kernel-replay.js';
import { median } from './lib/stats.js';

/** The product bench:bspmm measures. */
export interface ProductShape { size: number; tmin: number; tmax: number; seed: number }

/** GF/s of one timed product on `g` (operands made untimed, as in the example). */
export async function ttgSpmm(plan: Plan, g: ReturnType<typeof make_spmm>): Promise<number> {
  const operands = localOperands(plan);
  await ttg.fence();
  const t0 = performance.now();
  g.start(operands);
  ttg.execute();
  await ttg.fence();
  return multiplyFlops(plan.s) / ((performance.now() - t0) / 1000) / 1e9;
}

/** GF/s of `n` products in this process, by ttg or by the kernel replay. */
async function products(kind: 'ttg' | 'replay', density: number, n: number, shape: ProductShape): Promise<number[]> {
  await ttg.initialize({ device: { backend: 'host' } });
  const plan = new Plan(makeStructure({ m: shape.size, n: shape.size, k: shape.size, tmin: shape.tmin, tmax: shape.tmax, density, seed: shape.seed }), 0, 1);
  const g = kind === 'ttg' ? make_spmm(plan, { onResult: () => {} }) : undefined;
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(g === undefined ? await replayGemms(plan) : await ttgSpmm(plan, g));
  await ttg.finalize();
  return out;
}

function child(kind: 'ttg' | 'replay', density: number, n: number, shape: ProductShape): number[] {
  const args = [fileURLToPath(import.meta.url), kind, String(density), String(n), JSON.stringify(shape)];
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: '1' }, timeout: 600_000 });
  const last = run.stdout?.trim().split('\n').pop() ?? '';
  if (run.status !== 0 || !last.startsWith('[')) throw new Error(`bspmm-fresh ${kind} ${density} failed:\n${run.stderr}`);
  return JSON.parse(last) as number[];
}

/**
 * `rounds` fresh processes each of ttg and of the replay (alternated) at `density`, `n` products
 * each: the ratios of the medians of first products (cold) and of later products (warm).
 */
export function coldWarmRatios(density: number, rounds: number, n: number, shape: ProductShape): { cold: number; warm: number; ttgCold: number; ttgWarm: number } {
  const t: number[][] = [];
  const k: number[][] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) { t.push(child('ttg', density, n, shape)); k.push(child('replay', density, n, shape)); }
    else { k.push(child('replay', density, n, shape)); t.push(child('ttg', density, n, shape)); }
  }
  const first = (xs: number[][]) => median(xs.map((x) => x[0]!));
  const later = (xs: number[][]) => median(xs.flatMap((x) => x.slice(1)));
  return { cold: first(t) / first(k), warm: later(t) / later(k), ttgCold: first(t), ttgWarm: later(t) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [kind, density, n, shape] = process.argv.slice(2);
  console.log(JSON.stringify(await products(kind as 'ttg' | 'replay', Number(density), Number(n), JSON.parse(shape!) as ProductShape)));
}
