/**
 * Tasks that run more than once per key, for the HTML report's count of executions
 * (test/mpi/report.test.ts), with TTG_REPORT set by the test:
 *
 *   AGAIN [0] ──▶ AGAIN [0] ...   on the last rank, 5 executions of one key (a value sent to a key
 *                                 whose task ran starts a new task), each busy for ~8 ms
 *   SUM [k]                       a reducing input of 2 values per key, fed again in each of 3
 *                                 phases: 3 executions of each of 4 keys
 *   STEPS [k]                     a `function*` body that yields twice: 4 executions of 3 slices each
 *
 * Prints `RESULT {"rank","again","sums","steps"}` (the executions this rank ran).
 */
import * as ttg from 'ttg';

const world = await ttg.initialize();
const { rank, size } = world;
const busy = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* one execution's time */ }
};
const done = { again: 0, sums: 0, steps: 0 };
const loop = new ttg.Edge<number, number>('again');
const again = ttg.make_tt((k: number, n: number, out) => {
  done.again++;
  busy(8);
  if (n < 4) out.send(0, k, n + 1);
}, [loop], [loop], { name: 'AGAIN' });
again.set_procmap(() => size - 1);
const parts = new ttg.Edge<number, number>('parts');
const sum = ttg.make_tt((_k: number, _s: number) => { done.sums++; }, [parts], [], { name: 'SUM' }).set_input_reducer(0, (a, b) => a + b, 2);
const steps = ttg.make_tt(function* (_k: number, _v: number) {
  yield new Promise((r) => setTimeout(r, 1));
  yield new Promise((r) => setTimeout(r, 1));
  done.steps++;
}, [new ttg.Edge<number, number>('steps')], [], { name: 'STEPS' });
ttg.make_graph_executable(again, sum, steps);
if (rank === 0) {
  again.invoke(0, 0);
  for (let k = 0; k < 4; k++) steps.invoke(k, k);
}
for (let phase = 0; phase < 3; phase++) {
  if (rank === 0) for (let k = 0; k < 4; k++) for (let i = 0; i < 2; i++) sum.in(0).send(k, i);
  await world.fence();
}
console.log(`RESULT ${JSON.stringify({ rank, ...done })}`);
await ttg.finalize();
