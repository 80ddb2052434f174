/**
 * What TTG_REPORT and TTG_TRACE cost per task (a probe: `node dist/bench/trace-cost.js`): the same
 * runs with neither, with the report, with the trace, in alternated fresh processes (BENCH_RUNS
 * rounds, default 5), medians of the wall time of the fence per task (the gathering and writing
 * at finalize are timed apart, as `finalize_ms`).
 *
 *   chain (1 rank):  C(k) ──▶ C(k+1)                  1,000,000 plain tasks (BENCH_CHAIN)
 *   pingpong (2):    P(k) on rank k % 2 ──▶ P(k+1)    100,000 tasks, each sends one message to the other rank (BENCH_PINGPONG)
 *
 * Last line: `{ runs, chain_ns: {off, report, trace}, pingpong_ns: {...}, finalize_ms: {...} }`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as ttg from 'ttg';

import { median } from './lib/stats.js';
import { mpirunCommand } from './lib/mpirun.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const MODES = ['off', 'report', 'trace'] as const;
type Mode = (typeof MODES)[number];
/** Tasks of each shape (BENCH_CHAIN, BENCH_PINGPONG: fewer, to compare with a build whose report failed past ~125k slices). */
const CHAIN = Number(process.env['BENCH_CHAIN'] ?? 1_000_000);
const PINGPONG = Number(process.env['BENCH_PINGPONG'] ?? 100_000);
const SHAPES = { chain: { np: 1, n: CHAIN }, pingpong: { np: 2, n: PINGPONG } } as const;
type Shape = keyof typeof SHAPES;

/** One measured run, in this process (a child of the driver): prints `{ ns, finalize_ms }` on rank 0. */
async function child(shape: Shape): Promise<void> {
  const world = await ttg.initialize();
  const { n } = SHAPES[shape];
  const next = new ttg.Edge<number, number>('next');
  const c = ttg.make_tt((k: number, v: number, out) => { if (k < n) out.send(0, k + 1, v + 1); }, [next], [next], { name: shape });
  c.set_procmap((k) => k % world.size);
  ttg.make_graph_executable(c);
  await world.fence();
  const t0 = performance.now();
  if (world.rank === 0) c.invoke(1, 0);
  await world.fence();
  const ns = ((performance.now() - t0) * 1e6) / n;
  const f0 = performance.now();
  await ttg.finalize();
  if (world.rank === 0) console.log(JSON.stringify({ ns, finalize_ms: performance.now() - f0 }));
}

/** Runs `shape` once with `mode`'s settings in fresh processes: its result line. */
function once(shape: Shape, mode: Mode, dir: string): { ns: number; finalize_ms: number } {
  const env: Record<string, string> = mode === 'off' ? {} : mode === 'report' ? { TTG_REPORT: join(dir, 'r.html') } : { TTG_TRACE: join(dir, 't.json') };
  const self = fileURLToPath(import.meta.url);
  const { np } = SHAPES[shape];
  const c = np === 1
    ? { command: process.execPath, args: [self, 'child', shape], env: { ...process.env, ...env } }
    : mpirunCommand(np, self, ['child', shape], env);
  const run = spawnSync(c.command, c.args, { encoding: 'utf8', env: c.env, timeout: 300_000 });
  const line = run.stdout.split('\n').find((l) => l.startsWith('{'));
  if (run.status !== 0 || line === undefined) throw new Error(`${shape} ${mode} failed: ${run.stdout}\n${run.stderr}`);
  return JSON.parse(line) as { ns: number; finalize_ms: number };
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'ttg-trace-cost-'));
  const out: Record<string, Record<Mode, number>> = {};
  try {
    for (const shape of Object.keys(SHAPES) as Shape[]) {
      const ns: Record<Mode, number[]> = { off: [], report: [], trace: [] };
      const fin: Record<Mode, number[]> = { off: [], report: [], trace: [] };
      // alternated: a slow moment of the machine falls on every mode alike
      for (let r = 0; r < RUNS; r++) {
        for (const mode of MODES) {
          const x = once(shape, mode, dir);
          ns[mode].push(x.ns);
          fin[mode].push(x.finalize_ms);
        }
      }
      const med = (m: Record<Mode, number[]>, digits: number) => Object.fromEntries(MODES.map((k) => [k, Number(median(m[k]).toFixed(digits))])) as Record<Mode, number>;
      out[`${shape}_ns`] = med(ns, 0);
      out[`${shape}_finalize_ms`] = med(fin, 0);
      console.log(`${shape}: ns per task ${JSON.stringify(out[`${shape}_ns`])}, finalize ms ${JSON.stringify(out[`${shape}_finalize_ms`])}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ runs: RUNS, ...out }));
}

if (process.argv[2] === 'child') await child(process.argv[3] as Shape);
else main();
