/**
 * make_collector under mpirun (run by test/mpi/collector.test.ts at 2 and 3 ranks): 12 squares
 * computed where their keys hash, collected on their owners, on every rank, and on rank 0; a keyed
 * all-reduce's result collected on every rank; reading a key collected elsewhere. Prints
 * `RESULT {...}` per rank.
 *
 *   SQ [k] ──squares──▶ OWNER, ALL, ZERO (three collectors on one edge)
 *   PART [k, r] ──▶ SUM (make_allreduce) ──sums──▶ TOTALS (on: 'all')
 */
import * as ttg from 'ttg';

const world = await ttg.initialize();
const { rank, size } = world;
const go = new ttg.Edge<number, number>('go');
const squares = new ttg.Edge<number, number>('squares');
const sq = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v * v), [go], [squares], { name: 'SQ' });
const owner = ttg.make_collector(squares, { name: 'OWNER' });
const all = ttg.make_collector(squares, { on: 'all', name: 'ALL' });
const zero = ttg.make_collector(squares, { on: 0, name: 'ZERO' });
const parts = new ttg.Edge<[string, number], number>('parts');
const sums = new ttg.Edge<string, number>('sums');
const sum = ttg.make_allreduce(parts, sums, { op: 'sum', contributions: () => size, contributor: (_k, i) => i, deliver: (k) => [k], name: 'SUM' });
const totals = ttg.make_collector(sums, { on: 'all', name: 'TOTALS' });
ttg.make_graph_executable(sq, owner, all, zero, sum, totals);
if (rank === 0) for (let k = 0; k < 12; k++) sq.invoke(k, k);
for (const key of ['x', 'y']) sum.in(0).send([key, rank], rank + (key === 'y' ? 10 : 0));
await world.fence();
const sorted = (e: Array<[unknown, number]>) => e.sort((a, b) => (typeof a[0] === 'number' ? a[0] - (b[0] as number) : String(a[0]).localeCompare(String(b[0]))));
const elsewhere = (c: ttg.Collected<number, number>, k: number): string => {
  try {
    c.get(k);
    return 'read';
  } catch (e) {
    return (e as ttg.TtgError).message;
  }
};
const notMine = Array.from({ length: 12 }, (_, k) => k).find((k) => sq.ownerOf(k) !== rank);
console.log(`RESULT ${JSON.stringify({
  rank,
  owner: owner.entries().map(([k]) => k).sort((a, b) => a - b),
  owned: Array.from({ length: 12 }, (_, k) => k).filter((k) => sq.ownerOf(k) === rank),
  all: sorted(all.entries()),
  zero: rank === 0 ? sorted(zero.entries()) : elsewhere(zero, 3),
  ownerElsewhere: notMine === undefined ? null : elsewhere(owner, notMine),
  totals: sorted(totals.entries()),
})}`);
await ttg.finalize();
