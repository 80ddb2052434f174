/**
 * A small run for the HTML report's tests (test/mpi/report.test.ts), with TTG_REPORT set by the
 * test: 40 MAP tasks spread over the ranks, each sending to REDUCE [k mod 4] (a reducing input of
 * 10 values), one of the MAP tasks slow; then a second fence where BOOM [3] on the last rank throws
 * (the report lists the error). Prints `RESULT {...}` per rank.
 *
 *   MAP [k] (on rank k mod size) ──▶ REDUCE [k mod 4]          BOOM [3] (throws)
 */
import * as ttg from 'ttg';

const world = await ttg.initialize();
const { rank, size } = world;
const go = new ttg.Edge<number, number>('go');
const parts = new ttg.Edge<number, number>('parts');
let ran = 0;
const map = ttg.make_tt((k: number, v: number, out) => {
  ran++;
  if (k === 7) {
    const until = performance.now() + 30;
    while (performance.now() < until) { /* the slow one */ }
  }
  out.send(0, k % 4, v * 2);
}, [go], [parts], { name: 'MAP' });
map.set_procmap((k) => k % size);
const reduce = ttg.make_tt((_k: number, _sum: number) => { ran++; }, [parts], [], { name: 'REDUCE' }).set_input_reducer(0, (a, b) => a + b, 10);
const boom = ttg.make_tt(() => { throw new Error('planted failure for the report'); }, [new ttg.Edge<number, void>('boom')], [], { name: 'BOOM' });
boom.set_procmap(() => size - 1);
ttg.make_graph_executable(map, reduce, boom);
if (rank === 0) for (let k = 0; k < 40; k++) map.invoke(k, k);
await world.fence();
if (rank === 0) boom.invoke(3);
let failed = '';
await world.fence().catch((e: ttg.TtgError) => { failed = e.code; });
console.log(`RESULT ${JSON.stringify({ rank, ran, failed })}`);
await ttg.finalize();
