/**
 * The run that scripts/screenshots.mjs photographs (under `mpirun -np 2`, with TTG_DASHBOARD and
 * TTG_REPORT set by it): a chain of N (argument; 1200) generator tasks of ~4 ms passing from rank
 * to rank, each feeding a ~3 ms task on the other rank, whose values 8 reducing tasks sum (so the
 * page shows three TTs, tasks waiting for inputs, and both ranks busy for 8 s or so).
 *
 *   GEN [k] (rank k mod size) ──▶ GEN [k + 1]
 *      └──▶ STENCIL [k] (rank k + 1 mod size) ──▶ SUM [k mod 8] (a reducing input of N / 8 values)
 */
import * as ttg from 'ttg';

const N = Number(process.argv[2] ?? 1200);
const busy = (ms) => {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* a task's work */ }
};

const world = await ttg.initialize();
const next = new ttg.Edge('next');
const cells = new ttg.Edge('cells');
const parts = new ttg.Edge('parts');
const gen = ttg.make_tt((k, _n, out) => {
  busy(4);
  if (k + 1 < N) out.sendk(0, k + 1);
  out.send(1, k, k);
}, [next], [next, cells], { name: 'GEN' });
gen.set_procmap((k) => k % world.size);
const stencil = ttg.make_tt((k, v, out) => {
  busy(3);
  out.send(0, k % 8, v);
}, [cells], [parts], { name: 'STENCIL' });
stencil.set_procmap((k) => (k + 1) % world.size);
const sum = ttg.make_tt(() => busy(2), [parts], [], { name: 'SUM' }).set_input_reducer(0, (a, b) => a + b, N / 8);
sum.set_procmap((k) => k % world.size);
ttg.make_graph_executable(gen, stencil, sum);
if (world.rank === 0) gen.invoke(0);
await world.fence();
await ttg.finalize();
