/**
 * What the live dashboard costs a run whose tasks wait (`npm run -s bench:dashboard`): the
 * dashboard's summaries must not grow with the tasks waiting for inputs. One process; each round
 * runs the graph in a fresh process without and with `TTG_DASHBOARD=0`, alternated (BENCH_RUNS
 * rounds, default 3), medians.
 *
 *   C(k) ──next──▶ C(k+1)          a chain of N tasks (BENCH_TASKS, default 300,000) of 5 µs each
 *     └──a──▶ W(k) ◀──b── C(N-1)    W(k) gets `a` from C(k) and `b` only when the chain ends:
 *                                   N tasks wait, up to all N at once, then run
 *
 * Last line: `{ tasks, waiting_peak, off_ms, on_ms, ratio, off_cpu_ms, on_cpu_ms, cpu_ratio }`: ms from the
 * first invoke to the fence, wall clock and this process's CPU time (steadier on a shared machine).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import * as ttg from 'ttg';

import { median } from './lib/stats.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const N = Number(process.env['BENCH_TASKS'] ?? 300_000);
/** Microseconds each chain task works (BENCH_WORK_US): the run must span many summaries (4 a second). */
const WORK_US = Number(process.env['BENCH_WORK_US'] ?? 5);

/** One timed run of the graph in this process: wall and CPU ms. */
async function child(): Promise<[number, number]> {
  await ttg.initialize();
  const next = new ttg.Edge<number, void>('next');
  const a = new ttg.Edge<number, number>('a');
  const b = new ttg.Edge<number, number>('b');
  const keys = Array.from({ length: N }, (_, k) => k);
  const c = ttg.make_tt((k: number, _n: void, out) => {
    for (const until = performance.now() + WORK_US / 1000; performance.now() < until;) { /* a task's work */ }
    out.send(1, k, k);
    if (k + 1 < N) out.sendk(0, k + 1);
    else out.broadcast(2, keys, 1);
  }, [next], [next, a, b], { name: 'C' });
  let sum = 0;
  const w = ttg.make_tt((_k: number, x: number, y: number) => { sum += x + y; }, [a, b], [], { name: 'W' });
  ttg.make_graph_executable(c, w);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  c.invoke(0);
  ttg.execute();
  await ttg.fence();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (sum !== (N * (N - 1)) / 2 + N) throw new Error(`wrong sum ${sum}`);
  await ttg.finalize();
  return [ms, (cpu.user + cpu.system) / 1000];
}

/** Runs a fresh process; its last line is its wall and CPU times. */
function round(dashboard: boolean): [number, number] {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['TTG_DASHBOARD'];
  if (dashboard) env['TTG_DASHBOARD'] = '0';
  const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child'], { encoding: 'utf8', env });
  const last = run.stdout.trim().split('\n').pop() ?? '';
  if (run.status !== 0 || !/^[0-9.]+ [0-9.]+$/.test(last)) throw new Error(`a run ${dashboard ? 'with' : 'without'} the dashboard failed:\n${run.stdout}\n${run.stderr}`);
  return last.split(' ').map(Number) as [number, number];
}

if (process.argv[2] === '--child') {
  console.log((await child()).map((x) => x.toFixed(1)).join(' '));
} else {
  const off: Array<[number, number]> = [];
  const on: Array<[number, number]> = [];
  for (let r = 0; r < RUNS; r++) {
    off.push(round(false));
    on.push(round(true));
    const [a, b] = [off.at(-1)!, on.at(-1)!];
    console.log(`round ${r + 1}: off ${a[0].toFixed(0)} ms (CPU ${a[1].toFixed(0)}), on ${b[0].toFixed(0)} ms (CPU ${b[1].toFixed(0)})`);
  }
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const [offMs, onMs] = [median(off.map((x) => x[0])), median(on.map((x) => x[0]))];
  const [offCpu, onCpu] = [median(off.map((x) => x[1])), median(on.map((x) => x[1]))];
  console.log(`${2 * N} tasks (${N} waiting at the peak), medians of ${RUNS} alternated rounds: off ${r1(offMs)} ms (CPU ${r1(offCpu)}), dashboard on ${r1(onMs)} ms (CPU ${r1(onCpu)})`);
  console.log(JSON.stringify({
    tasks: 2 * N, waiting_peak: N, off_ms: r1(offMs), on_ms: r1(onMs), ratio: r3(onMs / offMs), off_cpu_ms: r1(offCpu), on_cpu_ms: r1(onCpu), cpu_ratio: r3(onCpu / offCpu),
  }));
}
