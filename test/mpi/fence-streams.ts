/**
 * Reducing inputs that end at the fence under mpirun (run by test/mpi/fence-streams.test.ts at 2
 * and 3 ranks): 300 items spread over the ranks, summed per category by a TT whose input ends at
 * the fence (the categories' owners are wherever their keys hash), each category's sum sent on to
 * a grand total that also ends at the fence, in two phases; with `mismatch`, rank 0 alone builds one
 * more TT whose input ends at the fence, and every rank's fence rejects with E_COLLECTIVE. Prints
 * `RESULT {...}` per rank.
 *
 *   READ [i] (on rank i mod size) ──▶ SUM [category] ('fence') ──▶ TOTAL [0] ('fence')
 */
import * as ttg from 'ttg';

const world = await ttg.initialize();
const { rank, size } = world;
const CATS = 13;
const items = new ttg.Edge<number, number>('items');
const byCat = new ttg.Edge<string, number>('by-category');
const toTotal = new ttg.Edge<number, number>('to-total');
const sums = new Float64Array(CATS);
const runs = new Float64Array(CATS);
let total = 0;
const read = ttg.make_tt((i: number, v: number, out) => out.send(0, `c${i % CATS}`, v), [items], [byCat], { name: 'READ' });
read.set_procmap((i) => i % size);
const sum = ttg.make_tt((cat: string, s: number, out) => {
  const c = Number(cat.slice(1));
  sums[c] = s;
  runs[c]! += 1;
  out.send(0, 0, s);
}, [byCat], [toTotal], { name: 'SUM' }).set_input_reducer(0, (a, b) => a + b, 'fence');
const grand = ttg.make_tt((_k: number, s: number) => { total = s; }, [toTotal], [], { name: 'TOTAL' }).set_input_reducer(0, (a, b) => a + b, 'fence');
ttg.make_graph_executable(read, sum, grand);
const out: Record<string, unknown> = { rank, phases: [] };
if (process.argv[2] === 'mismatch') {
  if (rank === 0) {
    const own = new ttg.Edge<number, number>('own');
    const extra = ttg.make_tt(() => {}, [own], [], { name: 'EXTRA' }).set_input_reducer(0, (a, b) => a + b, 'fence');
    ttg.make_graph_executable(extra);
    extra.set_procmap(() => 0);
    extra.in(0).send(1, 1);
  }
  try {
    await world.fence({ quiet: true });
    out['mismatch'] = 'resolved';
  } catch (e) {
    out['mismatch'] = (e as ttg.TtgError).message;
  }
  console.log(`RESULT ${JSON.stringify(out)}`);
  process.exit(0);
}
for (let phase = 1; phase <= 2; phase++) {
  sums.fill(0);
  runs.fill(0);
  total = 0;
  for (let i = rank; i < 300; i += size) read.invoke(i, i * phase);
  const report = await world.fence();
  const all = await world.allreduce(sums);
  const ran = await world.allreduce(runs);
  (out['phases'] as unknown[]).push({ sums: [...all], runs: [...ran], total: await world.allreduce(total), incomplete: report.incomplete.length });
}
await ttg.finalize();
console.log(`RESULT ${JSON.stringify(out)}`);
