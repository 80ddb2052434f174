/**
 * HPCG on ttg (examples/hpcg, with its native and its JavaScript kernels) beside HPCG's reference
 * implementation, on the same local grids (BENCH_SIZES, default 32 and 64 per side) at 1 and 2
 * ranks (`npm run -s bench:hpcg`). The reference is built (mpicxx -O3, no OpenMP) from the
 * checkout that HPCG_REFERENCE names, into a temporary directory, never into this repository;
 * without it the bench prints ttg's figures alone. Rounds alternate ttg and reference runs
 * (BENCH_ROUNDS, default 3); medians. ttg's figure is its timed preconditioned run of 50
 * iterations, the reference's its "Raw Total" GFLOP/s of a run of BENCH_REF_SECONDS (default 1);
 * both count flops as HPCG's ReportResults does. The reference's scaled residual must equal ttg's.
 * Last line: `{ sizes, ranks, native_gflops, js_gflops, ref_gflops, ratio_native, ratio_js,
 * ttg_relres, ref_relres }`, each field but the first two keyed by size, holding one entry per
 * rank count.
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

type Kernel = 'native' | 'js';
const KERNELS: readonly Kernel[] = ['native', 'js'];

function ttgRun(n: number, np: number, kernel: Kernel): { gflops: number; relres: number } {
  const args = [...dims(n), '--kernel', kernel, '--json'];
  const run = np === 1
    ? spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } })
    : mpirun(np, MAIN, args, 600_000);
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
  type PerSize = Record<number, number[]>;
  const out = { sizes: SIZES, ranks: RANKS, native_gflops: {} as PerSize, js_gflops: {} as PerSize, ref_gflops: null as PerSize | null,
    ratio_native: null as PerSize | null, ratio_js: null as PerSize | null, ttg_relres: {} as PerSize, ref_relres: null as PerSize | null };
  if (exe !== undefined) [out.ref_gflops, out.ratio_native, out.ratio_js, out.ref_relres] = [{}, {}, {}, {}];
  for (const n of SIZES) {
    const ttg: Record<Kernel, number[][]> = { native: RANKS.map(() => []), js: RANKS.map(() => []) };
    const ref: number[][] = RANKS.map(() => []);
    const relres: Array<[number, number]> = RANKS.map(() => [NaN, NaN]);
    for (let round = 0; round < ROUNDS; round++) {
      RANKS.forEach((np, i) => {
        for (const kernel of KERNELS) {
          const t = ttgRun(n, np, kernel);
          ttg[kernel][i]!.push(t.gflops);
          if (kernel === 'native') relres[i]![0] = t.relres;
          else if (!Object.is(t.relres, relres[i]![0])) throw new Error(`native and JavaScript kernels disagree at ${n}^3, ${np} rank(s): ${relres[i]![0]} / ${t.relres}`);
        }
        if (exe !== undefined) {
          const r = referenceRun(exe, n, np, dir);
          ref[i]!.push(r.gflops);
          relres[i]![1] = r.relres;
        }
      });
    }
    const g = { native: ttg.native.map((v) => r3(median(v))), js: ttg.js.map((v) => r3(median(v))) };
    const refG = exe === undefined ? null : ref.map((v) => r3(median(v)));
    console.log(`HPCG ${n}^3 per rank, median of ${ROUNDS} rounds${exe === undefined ? ' (no HPCG_REFERENCE: ttg alone)' : ''}`);
    RANKS.forEach((np, i) => {
      const vs = (x: number) => (refG === null ? '' : ` (${(x / refG[i]!).toFixed(3)})`);
      console.log(`${np} rank(s): ttg native ${g.native[i]}${vs(g.native[i]!)}, js ${g.js[i]}${vs(g.js[i]!)} GF/s${refG === null ? '' : `, reference ${refG[i]} GF/s`}; scaled residual ttg ${relres[i]![0].toExponential(5)}${refG === null ? '' : ` reference ${relres[i]![1].toExponential(5)}`}`);
    });
    out.native_gflops[n] = g.native;
    out.js_gflops[n] = g.js;
    out.ttg_relres[n] = relres.map(([t]) => t);
    if (refG !== null) {
      out.ref_gflops![n] = refG;
      out.ratio_native![n] = g.native.map((t, i) => r3(t / refG[i]!));
      out.ratio_js![n] = g.js.map((t, i) => r3(t / refG[i]!));
      out.ref_relres![n] = relres.map(([, r]) => r);
    }
  }
  console.log(JSON.stringify(out));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
