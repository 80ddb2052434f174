/**
 * HPCG on ttg (examples/hpcg, its JavaScript kernels) beside HPCG's reference implementation, on
 * the same local grids (BENCH_SIZES, default 32 and 64 per side) at 1 and 2 ranks
 * (`npm run -s bench:hpcg`). The reference is built (mpicxx -O3, no OpenMP) from the
 * checkout that HPCG_REFERENCE names, into a temporary directory, never into this repository;
 * without it the bench prints ttg's figures alone. Rounds alternate ttg and reference runs
 * (BENCH_ROUNDS, default 3); medians. ttg's figure is its timed preconditioned run of 50
 * iterations, the reference's its "Raw Total" GFLOP/s of a run of BENCH_REF_SECONDS (default 1);
 * both count flops as HPCG's ReportResults does. The reference's scaled residual must equal ttg's.
 * Last line: `{ sizes, ranks, ttg_gflops, ref_gflops, ratio_js, ttg_relres, ref_relres }`, each
 * field but the first two keyed by size, holding one entry per rank count.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { mpirun } from './lib/mpirun.js';
import { median } from './lib/stats.js';

const SIZES = (process.env['BENCH_SIZES'] ?? process.env['BENCH_N'] ?? '32,64').split(',').map(Number);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const REF_SECONDS = Number(process.env['BENCH_REF_SECONDS'] ?? 1);
const RANKS = [1, 2];
const MAIN = fileURLToPath(new URL('../examples/hpcg/main.js', import.meta.url));
const dims = (n: number) => ['--nx', String(n), '--ny', String(n), '--nz', String(n)];

function ttgRun(n: number, np: number): { gflops: number; relres: number } {
  const run = np === 1
    ? spawnSync(process.execPath, [MAIN, ...dims(n), '--json'], { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } })
    : mpirun(np, MAIN, [...dims(n), '--json'], 600_000);
  const last = run.stdout.trim().split('\n').pop() ?? '';
  if (run.status !== 0 || !last.startsWith('{')) throw new Error(`ttg hpcg at ${np} rank(s) failed:\n${run.stderr}`);
  return JSON.parse(last) as { gflops: number; relres: number };
}

function buildReference(src: string, into: string): string {
  const exe = join(into, 'xhpcg');
  const sources = readdirSync(join(src, 'src')).filter((f) => f.endsWith('.cpp')).map((f) => join(src, 'src', f));
  execFileSync('mpicxx', ['-O3', '-DHPCG_NO_OPENMP', `-I${join(src, 'src')}`, ...sources, '-o', exe], { stdio: 'inherit' });
  return exe;
}

function referenceRun(exe: string, n: number, np: number, dir: string): { gflops: number; relres: number } {
  const cwd = mkdtempSync(join(dir, `run${n}-${np}-`));
  const args = ['-np', String(np), '--oversubscribe', '--allow-run-as-root', exe, `--nx=${n}`, `--ny=${n}`, `--nz=${n}`, `--rt=${REF_SECONDS}`];
  const run = spawnSync('mpirun', args, { cwd, encoding: 'utf8', timeout: 600_000 });
  const report = readdirSync(cwd).find((f) => f.startsWith('HPCG-Benchmark'));
  if (run.status !== 0 || report === undefined) throw new Error(`reference hpcg at ${np} rank(s) failed:\n${run.stderr}`);
  const text = readFileSync(join(cwd, report), 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}=([-+0-9.eE]+)`).exec(text)?.[1]);
  return { gflops: field('GFLOP/s Summary::Raw Total'), relres: field('Scaled residual mean') };
}

const refSrc = process.env['HPCG_REFERENCE'];
const dir = mkdtempSync(join(tmpdir(), 'ttg-hpcg-'));
try {
  const exe = refSrc === undefined ? undefined : buildReference(refSrc, dir);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const out = { sizes: SIZES, ranks: RANKS, ttg_gflops: {} as Record<number, number[]>, ref_gflops: null as Record<number, number[]> | null,
    ratio_js: null as Record<number, number[]> | null, ttg_relres: {} as Record<number, number[]>, ref_relres: null as Record<number, number[]> | null };
  if (exe !== undefined) [out.ref_gflops, out.ratio_js, out.ref_relres] = [{}, {}, {}];
  for (const n of SIZES) {
    const ttg: number[][] = RANKS.map(() => []);
    const ref: number[][] = RANKS.map(() => []);
    const relres: Array<[number, number]> = RANKS.map(() => [NaN, NaN]);
    for (let round = 0; round < ROUNDS; round++) {
      RANKS.forEach((np, i) => {
        const t = ttgRun(n, np);
        ttg[i]!.push(t.gflops);
        relres[i]![0] = t.relres;
        if (exe !== undefined) {
          const r = referenceRun(exe, n, np, dir);
          ref[i]!.push(r.gflops);
          relres[i]![1] = r.relres;
        }
      });
    }
    const ttgG = ttg.map((v) => r3(median(v)));
    const refG = exe === undefined ? null : ref.map((v) => r3(median(v)));
    console.log(`HPCG ${n}^3 per rank, median of ${ROUNDS} rounds${exe === undefined ? ' (no HPCG_REFERENCE: ttg alone)' : ''}`);
    RANKS.forEach((np, i) => {
      console.log(`${np} rank(s): ttg ${ttgG[i]} GF/s${refG === null ? '' : `, reference ${refG[i]} GF/s, ratio ${(ttgG[i]! / refG[i]!).toFixed(3)}`}; scaled residual ttg ${relres[i]![0].toExponential(5)}${refG === null ? '' : ` reference ${relres[i]![1].toExponential(5)}`}`);
    });
    out.ttg_gflops[n] = ttgG;
    out.ttg_relres[n] = relres.map(([t]) => t);
    if (refG !== null) {
      out.ref_gflops![n] = refG;
      out.ratio_js![n] = ttgG.map((t, i) => r3(t / refG[i]!));
      out.ref_relres![n] = relres.map(([, r]) => r);
    }
  }
  console.log(JSON.stringify(out));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
