/**
 * A collector shows the phases this rank has fenced (run by test/mpi/collector-phases.test.ts at 2
 * and 3 ranks). Prints `RESULT {...}` per rank. Modes:
 *
 *   item7:      after its fence, rank 0 awaits `world.allreduce(1)` (and a pause), then reads and
 *               clears a collector with on: 0; rank 1 starts phase 2 as soon as the allreduce ends
 *               (SRC['x'] on rank 1 sends 2 to rank 0). Rank 0 must read phase 1's value, and
 *               phase 2's after the next fence.
 *   loop <on>:  PHASES phases; in phase p every rank invokes its share of the keys 0..3*size-1 and
 *               rank 1 invokes 'x'; SRC (on another rank than the invoker) sends p*1000+k (p for
 *               'x') to a collector (on: 0, 'all' or 'owner'). After each fence and an allreduce,
 *               every rank but 1 pauses, then all read and clear(): rank 1 races ahead into the
 *               next phase. Every read must show exactly phase p's values of this rank. A last
 *               phase is not fenced: finalize ends it, and it shows after finalize.
 *
 *   SRC [k] ──e──▶ COLLECT (on: 0 | 'all' | 'owner')
 */
import * as ttg from 'ttg';

type Key = number | string;
const mode = process.argv[2] ?? 'item7';
const onArg = process.argv[3] ?? '0';
const PHASES = 12;
const world = await ttg.initialize();
const { rank, size } = world;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const go = new ttg.Edge<Key, number>('go');
const e = new ttg.Edge<Key, number>('e');
const src = ttg.make_tt((k: Key, v: number, out) => out.send(0, k, v), [go], [e], { name: 'SRC' });
src.set_procmap((k) => (typeof k === 'string' ? 1 : (k + 1) % size));
const on: ttg.CollectOn = onArg === 'all' || onArg === 'owner' ? onArg : Number(onArg);
const col = ttg.make_collector(e, { on, name: 'COLLECT' });
ttg.make_graph_executable(src, col);

const out: Record<string, unknown> = { rank };
if (mode === 'item7') {
  if (rank === 1) src.invoke('x', 1);
  await world.fence();
  await world.allreduce(1);
  if (rank === 1) src.invoke('x', 2);  // phase 2 starts on rank 1 at once
  if (rank === 0) {
    await pause(100);  // whatever else rank 0 awaits: rank 1's phase-2 value reaches it meanwhile
    out['phase1'] = col.get('x') ?? null;
    col.clear();
    out['afterClear'] = col.size;
  }
  await world.fence();
  if (rank === 0) out['phase2'] = col.get('x') ?? null;
} else if (mode === 'loop') {
  const keys = Array.from({ length: 3 * size }, (_, k) => k);
  /** Keys this rank's collector holds. */
  const mine: Key[] = [...keys, 'x'].filter((k) => (on === 'all' ? true : on === 'owner' ? col.ownerOf(k) === rank : on === rank));
  const value = (k: Key, p: number) => (typeof k === 'string' ? p : p * 1000 + k);
  const invoke = (p: number) => {
    for (const k of keys) if (k % size === rank) src.invoke(k, value(k, p));
    if (rank === 1) src.invoke('x', value('x', p));
  };
  /** What this rank shows that is not exactly phase p's values of its keys. */
  const wrong: string[] = [];
  const check = (p: number) => {
    const seen = new Map(col.entries());
    for (const k of mine) if (seen.get(k) !== value(k, p)) wrong.push(`phase ${p} key ${k}: ${String(seen.get(k))}`);
    if (seen.size !== mine.length) wrong.push(`phase ${p}: ${seen.size} values shown, ${mine.length} expected`);
  };
  for (let p = 0; p < PHASES; p++) {
    invoke(p);
    await world.fence();
    await world.allreduce(1);
    if (rank !== 1) await pause(20);
    check(p);
    col.clear();
    if (col.size !== 0) wrong.push(`phase ${p}: ${col.size} values after clear()`);
  }
  invoke(PHASES);
  await ttg.finalize();
  check(PHASES);
  out['wrong'] = wrong.slice(0, 8);
  out['wrongs'] = wrong.length;
} else {
  throw new Error(`unknown mode ${mode}`);
}
await ttg.finalize();
console.log(`RESULT ${JSON.stringify(out)}`);
