/**
 * Large runs for the HTML report's tests (test/mpi/report-large.test.ts), with TTG_REPORT set by
 * the test. `argv[2]`:
 *
 *   many N      N tasks of empty bodies over the ranks (each rank invokes its own keys: no messages)
 *   longkeys N  N tasks whose keys are strings of 100 KB
 *
 * Rank 0 prints `RESULT {"rank","ms","ran"}` with the milliseconds finalize() took.
 */
import * as ttg from 'ttg';

const [mode = 'many', count = '1000000'] = process.argv.slice(2);
const n = Number(count);
const world = await ttg.initialize();
const { rank, size } = world;
let ran = 0;
if (mode === 'many') {
  const go = ttg.make_tt((_k: number, _v: number) => { ran++; }, [new ttg.Edge<number, number>('go')], [], { name: 'TINY' });
  go.set_procmap((k) => k % size);
  ttg.make_graph_executable(go);
  for (let k = rank; k < n; k += size) go.invoke(k, k);
} else {
  const pad = 'k'.repeat(100_000);
  const tt = ttg.make_tt((_k: string, _v: number) => { ran++; }, [new ttg.Edge<string, number>('long')], [], { name: 'LONGKEY' });
  tt.set_procmap(() => rank);
  ttg.make_graph_executable(tt);
  for (let k = rank; k < n; k += size) tt.invoke(`${k}:${pad}`, k);
}
await world.fence();
const t0 = performance.now();
await ttg.finalize();
console.log(`RESULT ${JSON.stringify({ rank, ms: Math.round(performance.now() - t0), ran })}`);
