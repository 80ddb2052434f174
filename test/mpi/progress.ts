/**
 * A fence that lasts a few seconds, for the progress line's tests (test/mpi/progress.test.ts): a
 * chain of 600 tasks of ~5 ms each, passing from rank to rank. Prints `RESULT {...}` per rank.
 *
 *   STEP [k] (on rank k mod size) ──▶ STEP [k + 1]
 */
import * as ttg from 'ttg';

const world = await ttg.initialize();
const { rank, size } = world;
const N = 600;
const next = new ttg.Edge<number, void>('next');
let ran = 0;
const step = ttg.make_tt((k: number, _n: void, out) => {
  const until = performance.now() + 5;
  while (performance.now() < until) { /* a task's work */ }
  ran++;
  if (k + 1 < N) out.sendk(0, k + 1);
}, [next], [next], { name: 'STEP' });
step.set_procmap((k) => k % size);
ttg.make_graph_executable(step);
if (rank === 0) step.invoke(0);
await world.fence();
console.log(`RESULT ${JSON.stringify({ rank, ran })}`);
await ttg.finalize();
