/**
 * `finalize()` of a program that forgot its last fence (run by test/mpi/finalize-pending.test.ts
 * under mpirun at 2 and 3 ranks, and as a plain process). Prints `RESULT {...}` per rank, after
 * finalize. Modes:
 *
 *   forgot <on>: every rank invokes its share of 1,000 keys; SQ[k] (on the rank its key hashes to)
 *                sends k*k to a collector (on: 'all' or 0); no fence, then finalize: the work ends
 *                in finalize, and the collector, read after it, holds all 1,000 values.
 *   queued:      as `forgot all`, with a fence the program called but did not await before finalize
 *                (finalize's fence queues behind it), then more work invoked before finalize.
 *   throws:      as `forgot 0`, and SQ[7] throws: finalize rejects with E_TASK_FAILED on every rank;
 *                the program catches it and ends with exit code 0 (MPI ended properly, no abort).
 *   mismatch:    as `forgot all`, but the last rank first awaits `world.allreduce(1)` while the others
 *                are in finalize: it gets E_COLLECTIVE, the others' finalize waits for its fence.
 *   extra-fence first|others: as `forgot all`, but rank 0 (or every other rank) awaits one fence more
 *                than the rest before finalize: a finalize's fence meets another rank's finalize, and
 *                every rank ends (no rank fences forever), every value arrived.
 *   split:       the default world and a split world (two halves at 3 ranks: {0, 1}, {2}; one at 2)
 *                each run 1,000 keys into a collector of their own; no fence of either world.
 *
 *   SQ [k] ──squares──▶ COLLECT (on: 'all' | 0)
 */
import * as ttg from 'ttg';

const KEYS = 1000;
const mode = process.argv[2] ?? 'forgot';
const onArg = process.argv[3] ?? 'all';
const world = await ttg.initialize();
const { rank, size } = world;

/** SQ and its collector on `w`; `thrower`: the key whose task throws. */
function graph(w: ttg.World, on: ttg.CollectOn, tag: string, thrower?: number) {
  const go = new ttg.Edge<number, number>(`go-${tag}`);
  const squares = new ttg.Edge<number, number>(`squares-${tag}`);
  const sq = ttg.make_tt((k: number, v: number, out) => {
    if (k === thrower) throw new Error(`square-xyz of ${k}`);
    out.send(0, k, v * v);
  }, [go], [squares], { name: `SQ-${tag}`, world: w });
  const col = ttg.make_collector(squares, { on, name: `COLLECT-${tag}`, world: w });
  ttg.make_graph_executable(sq, col);
  // this rank's share of the keys (their tasks run where the keys hash)
  const invoke = (from = 0, to = KEYS) => {
    for (let k = from; k < to; k++) if (k % w.size === w.rank) sq.invoke(k, k);
  };
  return { col, invoke };
}

/** What `col` shows here: how many values, and those that are not the square of their key. */
function shown(col: ttg.Collected<number, number>): { count: number; wrong: number } {
  let wrong = 0;
  for (const [k, v] of col) if (v !== k * k) wrong++;
  return { count: col.size, wrong };
}

const out: Record<string, unknown> = { rank };
const on: ttg.CollectOn = onArg === 'all' ? 'all' : Number(onArg);
if (mode === 'forgot') {
  const g = graph(world, on, 'd');
  g.invoke();
  await ttg.finalize();
  Object.assign(out, shown(g.col));
} else if (mode === 'queued') {
  const g = graph(world, 'all', 'd');
  g.invoke(0, KEYS / 2);
  const fenced = ttg.fence();
  g.invoke(KEYS / 2, KEYS);
  await ttg.finalize();
  await fenced;
  Object.assign(out, shown(g.col));
} else if (mode === 'throws') {
  const g = graph(world, 0, 'd', 7);
  g.invoke();
  try {
    await ttg.finalize();
    out['code'] = 'none';
  } catch (e) {
    out['code'] = (e as ttg.TtgError).code;
    out['message'] = (e as Error).message;
  }
} else if (mode === 'mismatch') {
  const g = graph(world, 'all', 'd');
  g.invoke();
  if (rank === size - 1) {
    try {
      await world.allreduce(1);
      out['allreduce'] = 'ok';
    } catch (e) {
      out['allreduce'] = (e as ttg.TtgError).code;
    }
  }
  await ttg.finalize();
  Object.assign(out, shown(g.col));
} else if (mode === 'extra-fence') {
  const g = graph(world, 'all', 'd');
  g.invoke();
  // `first`: rank 0 fences once more than the others (its finalize's fence meets their finalize);
  // `others`: every rank but 0 does
  if ((rank === 0) === (onArg === 'first')) await ttg.fence();
  await ttg.finalize();
  Object.assign(out, shown(g.col));
} else if (mode === 'split') {
  const color = size > 2 && rank === size - 1 ? 1 : 0;
  const sub = await world.split(color);
  if (sub === undefined) throw new Error('no world for a non-negative color');
  const d = graph(world, 0, 'd');
  const s = graph(sub, 'all', 's');
  d.invoke();
  s.invoke();
  await ttg.finalize();
  out['subSize'] = sub.size;
  out['d'] = shown(d.col);
  out['s'] = shown(s.col);
} else {
  throw new Error(`unknown mode ${mode}`);
}
console.log(`RESULT ${JSON.stringify(out)}`);
