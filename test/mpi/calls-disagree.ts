/**
 * Ranks whose calls disagree, and errors that meet at a fence (run by calls-disagree.test.ts under
 * mpirun at 2 and 3 ranks). Each rank prints one `RESULT <json>` line and exits 0.
 *
 * Modes:
 * - `mismatch`: work crosses ranks, then rank 0 awaits `world.allreduce(5)` while rank 1 awaits
 *   `fence()` (and rank 2 `world.barrier()`): every rank gets E_COLLECTIVE naming each call; the
 *   fence did not end its phase, so the next fence collects all of the work, and later phases,
 *   collectives and splits work. Several such mismatches in a row (broadcast, split, fence with
 *   streams that end at it).
 * - `in-task`: a task calls `world.allreduce` (refused), then the ranks disagree as above; a task
 *   of a split world calling its parent's collective, and a parent's task calling the split
 *   world's, are refused too.
 * - `first-error`: tasks on every rank throw in one phase, the least rank's late: every rank's
 *   fence rejects with one error (the least rank's that raised one), every rank's in `err.errors`.
 * - `strict`: rank 0 sends to a TT that the last rank never makes executable, every rank's fence
 *   is strict: every rank rejects with E_INCOMPLETE naming where the work waits.
 * - `huge-header`: a task sends a value whose header exceeds the addon's limit (1 GiB): the fence
 *   rejects with that error at once (not E_HANG), and the next phase works.
 */
import * as ttg from 'ttg';

const mode = process.argv[2] ?? 'mismatch';
const world = await ttg.initialize();
const { rank, size } = world;

/** What a call rejected with (code and message), or 'ok' and its value. */
async function outcome(p: Promise<unknown>): Promise<{ code: string; message: string; errors?: string[] }> {
  try {
    const v = await p;
    return { code: 'ok', message: JSON.stringify(v ?? null) };
  } catch (e) {
    const err = e as ttg.TtgError & { errors?: ttg.TtgError[] };
    return { code: err.code ?? String(e), message: err.detail ?? err.message, ...(err.errors ? { errors: err.errors.map((x) => `${x.rank}:${x.detail}`) } : {}) };
  }
}

/** A graph whose tasks on every rank send to keys on the others; its collector gets every value on rank 0. */
function crossGraph(name: string) {
  const start = new ttg.Edge<number, number>(`${name}.start`);
  const hop = new ttg.Edge<number, number>(`${name}.hop`);
  const out = new ttg.Edge<number, number>(`${name}.out`);
  const a = ttg.make_tt((k: number, v: number, o) => o.send(0, k + 1, v * 2), [start], [hop], { name: `${name}.A` });
  const b = ttg.make_tt(async (k: number, v: number, o) => {
    await new Promise((r) => setTimeout(r, 1));
    o.send(0, k, v + 1);
  }, [hop], [out], { name: `${name}.B` });
  a.set_procmap((k) => k % size);
  b.set_procmap((k) => k % size);
  const got = ttg.make_collector(out, { on: 0, name: `${name}.got` });
  ttg.make_graph_executable(a, b, got);
  const invoke = (base: number): void => {
    for (let i = 0; i < 20; i++) if (i % size === rank) a.invoke(base + i, i);
  };
  const sum = (): number => (rank === 0 ? got.values().reduce((x, y) => x + y, 0) : -1);
  return { invoke, sum, got };
}

/** Rank 0 calls `first`, the last rank (or rank 1 at 3 ranks) `second`, any other `third`. */
function disagree(first: () => Promise<unknown>, second: () => Promise<unknown>, third: () => Promise<unknown>) {
  return outcome(rank === 0 ? first() : rank === 1 ? second() : third());
}

const result: Record<string, unknown> = { rank };

if (mode === 'mismatch' || mode === 'in-task') {
  const g = crossGraph('x');
  if (mode === 'in-task') {
    // a task's collective is refused (and the body goes on); the ranks then disagree as a program may
    const refused: string[] = [];
    const go = new ttg.Edge<number, number>('go');
    const t = ttg.make_tt((_k: number, _v: number) => {
      try {
        void world.allreduce(1);
      } catch (e) {
        refused.push((e as ttg.TtgError).code);
      }
    }, [go], [], { name: 'COLL' });
    ttg.make_graph_executable(t);
    t.invoke(rank, 0);
    result['refused'] = refused;
    const sub = (await world.split(rank % 2))!;
    const subGo = new ttg.Edge<number, number>('subGo');
    const inSub: string[] = [];
    const st = ttg.make_tt(async (_k: number, _v: number) => {
      await Promise.resolve();
      try {
        await world.allreduce(1);
      } catch (e) {
        inSub.push((e as ttg.TtgError).code);
      }
    }, [subGo], [], { name: 'SUBCOLL', world: sub });
    ttg.make_graph_executable(st);
    sub.execute();
    st.invoke(sub.rank, 0);
    const pt = ttg.make_tt((_k: number, _v: number) => {
      try {
        void sub.barrier();
      } catch (e) {
        inSub.push((e as ttg.TtgError).code);
      }
    }, [go], [], { name: 'PARENTCOLL' });
    ttg.make_graph_executable(pt);
    pt.invoke(rank, 0);
    ttg.execute();
    await sub.fence();
    result['inSub'] = inSub;
  }
  ttg.execute();
  g.invoke(0);
  const first = await disagree(() => world.allreduce(5), () => ttg.fence(), () => world.barrier());
  result['first'] = first;
  const f1 = await outcome(ttg.fence());
  result['after'] = [f1.code, g.sum()];
  g.got.clear();
  // a broadcast against a split against a fence, with work in flight again
  g.invoke(100);
  result['second'] = await disagree(() => world.broadcast('b', 0), () => world.split(0), () => ttg.fence());
  result['third'] = await disagree(() => ttg.fence(), () => world.allreduce(Float64Array.of(1, 2)), () => world.allreduce(3, 'max'));
  result['after2'] = [(await outcome(ttg.fence())).code, g.sum()];
  g.got.clear();
  // the same collective with another length, then matching calls: everything works
  result['fourth'] = await outcome(world.allreduce(rank === 0 ? Float64Array.of(1) : Float64Array.of(1, 2)));
  for (let phase = 0; phase < 3; phase++) {
    g.invoke(200 + 100 * phase);
    await ttg.fence();
  }
  result['after3'] = g.sum();
  result['sum'] = await world.allreduce(rank + 1);
  const sub2 = (await world.split(0))!;
  result['sub'] = await sub2.allreduce(1);
  // the same in a split world: its fence meets its own allreduce, then both work again
  result['subMismatch'] = await outcome(sub2.rank === 0 ? sub2.allreduce(1) : sub2.fence());
  result['subAfter'] = [(await outcome(sub2.fence())).code, await sub2.allreduce(2)];
} else if (mode === 'first-error') {
  const go = new ttg.Edge<number, number>('go');
  const t = ttg.make_tt(async (k: number) => {
    // the least rank's task throws last: its error arrives everywhere after the others'
    if (k === 0) await new Promise((r) => setTimeout(r, 100));
    throw new Error(`boom-${k}`);
  }, [go], [], { name: 'THROW' });
  t.set_procmap((k) => k);
  ttg.make_graph_executable(t);
  ttg.execute();
  const outcomes = [];
  for (let phase = 0; phase < 3; phase++) {
    // phase 0: every rank throws; 1: ranks 1.. throw; 2: only the last
    for (let k = phase === 2 ? size - 1 : phase; k < size; k++) if (k === rank) t.invoke(k, 0);
    outcomes.push(await outcome(ttg.fence()));
  }
  result['outcomes'] = outcomes;
  result['next'] = await outcome(ttg.fence());
} else if (mode === 'strict') {
  const e = new ttg.Edge<number, number>('toLate');
  const go = new ttg.Edge<number, number>('go');
  const src = ttg.make_tt((k: number, v: number, o) => o.send(0, k, v), [go], [e], { name: 'SRC' });
  const late = ttg.make_tt((_k: number, _v: number) => {}, [e], [], { name: 'LATE' });
  late.set_procmap(() => size - 1);
  src.set_procmap(() => 0);
  // the last rank never makes LATE executable: what rank 0 sends it stays parked there
  if (rank !== size - 1) ttg.make_graph_executable(src, late);
  ttg.execute();
  if (rank === 0) src.invoke(1, 1);
  result['strict'] = await outcome(ttg.fence({ strict: true, quiet: true }));
  // a task missing an input on rank 0 only
  const a = new ttg.Edge<number, number>('a');
  const b = new ttg.Edge<number, number>('b');
  const two = ttg.make_tt((_k: number, _x: number, _y: number) => {}, [a, b], [], { name: 'TWO' });
  two.set_procmap(() => 0);
  ttg.make_graph_executable(two);
  if (rank === size - 1) two.in(0).send(7, 1);
  result['strict2'] = await outcome(ttg.fence({ strict: true, quiet: true }));
  result['lax'] = await outcome(ttg.fence({ quiet: true }).then((r) => r.incomplete.length + r.parked.length));
} else if (mode === 'huge-header') {
  const go = new ttg.Edge<number, number>('go');
  const far = new ttg.Edge<number, unknown>('far');
  const s = rank === 0 ? 'x'.repeat(370_000_000) : '';
  const t = ttg.make_tt((k: number, _v: number, o) => o.send(0, k, { a: s, b: s, c: s }), [go], [far], { name: 'BIG' });
  const sink = ttg.make_tt((_k: number, _v: unknown) => {}, [far], [], { name: 'SINK' });
  t.set_procmap(() => 0);
  sink.set_procmap(() => size - 1);
  ttg.make_graph_executable(t, sink);
  ttg.execute();
  if (rank === 0) t.invoke(1, 0);
  const t0 = performance.now();
  result['big'] = await outcome(ttg.fence());
  result['seconds'] = (performance.now() - t0) / 1000;
  result['next'] = await outcome(world.allreduce(1));
}

console.log(`RESULT ${JSON.stringify(result)}`);
await ttg.finalize();
