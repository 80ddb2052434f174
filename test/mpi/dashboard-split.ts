/**
 * A run for the live dashboard's test of split worlds (test/mpi/dashboard.test.ts), at 3 ranks with
 * TTG_DASHBOARD set by the test: ranks 0 and 2 split off a world of their own, rank 1 one alone.
 * In each, SUB runs a chain of 60 tasks of ~3 ms over its ranks; then, in the world of ranks 0
 * and 2, FAIL [5] throws on rank 2; the fence's rejection is caught, the ranks stay a second more
 * (the dashboard shows the error), then finalize. Prints `RESULT {...}` per rank.
 *
 *   world {0, 2}: SUB [k] (world rank k mod 2) ──▶ SUB [k + 1]        FAIL [5] (throws)
 *   world {1}:    SUB [k] ──▶ SUB [k + 1]
 */
import * as ttg from 'ttg';

const world = await ttg.initialize();
const { rank } = world;
const w = (await world.split(rank === 1 ? 1 : 0, rank))!;
const next = new ttg.Edge<number, void>('next');
const sub = ttg.make_tt((k: number, _n: void, out) => {
  for (const until = performance.now() + 3; performance.now() < until;) { /* a task's work */ }
  if (k + 1 < 60) out.sendk(0, k + 1);
}, [next], [next], { name: 'SUB', world: w });
sub.set_procmap((k) => k % w.size);
const go = new ttg.Edge<number, void>('go');
const fail = ttg.make_tt(() => { throw new Error('planted failure in a split world'); }, [go], [], { name: 'FAIL', world: w });
fail.set_procmap(() => w.size - 1);
ttg.make_graph_executable(sub, fail);
w.execute();
if (w.rank === 0) sub.invoke(0);
await w.fence();
if (w.size === 2 && w.rank === 0) fail.invoke(5);
let failed = '';
await w.fence({ quiet: true }).catch((e: ttg.TtgError) => { failed = e.code; });
await new Promise((r) => setTimeout(r, 1500));
console.log(`RESULT ${JSON.stringify({ rank, failed })}`);
await ttg.finalize();
