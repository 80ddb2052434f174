/**
 * Hostile regression cases under mpirun (run by test/mpi/hostile-core.test.ts). Each mode builds
 * one small graph or calls one collective, and every rank prints `RESULT {...}`; the test decides.
 *
 *   cow      a partial of `make_allreduce` is also sent to a task that consumes it and writes it in
 *            place on the contributor's rank: the fold must see the value as it was sent.
 *   plan     phase 1 makes the all-reduce's per-key plan and then fails; phase 2 changes
 *            `contributions` (4 to 6) or `contributor` (i mod size to 0), as argv[3] says: the
 *            fold must use the new counts.
 *   parked   a value goes to a TT that rank 1 made but never made executable: the fence report must
 *            list the undelivered message, and a strict fence must reject with E_INCOMPLETE.
 *   split    rank 1 calls `world.split` with a color that is not an integer (1.5, then NaN): every
 *            rank's split must reject, and the next collective must still match up.
 */
import * as ttg from 'ttg';

const world = await ttg.initialize();
const { rank, size } = world;
const mode = process.argv[2] ?? 'cow';
const out: Record<string, unknown> = { rank };
const ranks = [...Array(size).keys()];

/** A settled promise as data: the value, or the rejection's code and message. */
async function settle<T>(p: Promise<T>): Promise<{ ok: T } | { code: string; message: string }> {
  try {
    return { ok: await p };
  } catch (e) {
    return e instanceof ttg.TtgError ? { code: e.code, message: e.message } : { code: 'not a TtgError', message: String(e) };
  }
}

if (mode === 'cow') {
  const go = new ttg.Edge<number, number>('go');
  const parts = new ttg.Edge<[number, number], Float64Array>('parts');
  const results = new ttg.Edge<[number, number], Float64Array>('results');
  const toConsumer = new ttg.Edge<number, Float64Array>('consumer');
  const got: number[][] = [];
  // SRC[i] on rank i % size makes partial i; SRC[0] also hands its array to a consumer beside it
  const src = ttg.make_tt((i: number, _x: number, o) => {
    const v = i === 0 ? Float64Array.of(1, 2) : Float64Array.of(10, 20);
    o.send(0, [0, i], v);
    if (i === 0) o.send(1, 0, v);
  }, [go], [parts, toConsumer], { name: 'SRC' }).set_procmap((i) => i % size);
  const ar = ttg.make_allreduce(parts, results, {
    op: 'sum', contributions: () => 2, deliver: (k: number) => ranks.map((s): [number, number] => [k, s]), name: 'AR',
  });
  const sink = ttg.make_tt((_k: [number, number], v: Float64Array) => { got.push([...v]); }, [results], [], { name: 'SINK' })
    .set_procmap((k) => k[1]);
  const consumer = ttg.make_tt((_k: number, v: Float64Array) => {
    for (let j = 0; j < v.length; j++) v[j] = v[j]! + 1000;
  }, [toConsumer], [], { name: 'MUT', consume: [0] }).set_procmap(() => 0);
  ttg.make_graph_executable(src, ar, sink, consumer);
  for (const i of [0, 1]) if (i % size === rank) src.invoke(i, 0);
  out['fence'] = await settle(ttg.fence({ quiet: true }).then((r) => r.incomplete.length));
  out['got'] = got;
} else if (mode === 'plan') {
  const change = process.argv[3] ?? 'contributions';
  const parts = new ttg.Edge<[number, number], number>('parts');
  const results = new ttg.Edge<[number, number], number>('results');
  let phase = 1; // read by contributions() and contributor(): what phase 2 changes
  const n = (): number => (phase === 2 && change === 'contributions' ? 6 : 4);
  const contributor = (_k: number, i: number): number => (phase === 2 && change === 'contributor' ? 0 : i % size);
  const got: Array<[number, number]> = [];
  const ar = ttg.make_allreduce(parts, results, {
    op: 'sum', contributions: n, contributor, deliver: (k: number) => ranks.map((s): [number, number] => [k, s]), name: 'AR',
  });
  const sink = ttg.make_tt((k: [number, number], v: number) => { got.push([k[0], v]); }, [results], [], { name: 'SINK' })
    .set_procmap((k) => k[1]);
  const boom = ttg.make_tt((_k: number, _x: number) => { throw new Error('phase 1 fails'); }, [new ttg.Edge<number, number>('boom')], [], { name: 'BOOM' })
    .set_procmap((k) => k);
  ttg.make_graph_executable(ar, sink, boom);

  // phase 1: each rank's first partial of key 0 makes the plans there; then each rank fails
  ar.in(0).send([0, rank], 100);
  boom.invoke(rank, 0);
  const p1 = await settle(ttg.fence({ quiet: true }));
  out['phase1'] = 'code' in p1 ? p1.code : 'resolved';

  // phase 2: partials 1, 2, ... of key 0 from their (new) contributors
  phase = 2;
  for (let i = 0; i < n(); i++) if (contributor(0, i) === rank) ar.in(0).send([0, i], i + 1);
  const p2 = await settle(ttg.fence({ quiet: true }));
  out['phase2'] = 'ok' in p2 ? p2.ok.incomplete.map((t) => `${t.tt}[${JSON.stringify(t.key)}]`) : `${p2.code}: ${p2.message}`;
  out['got'] = got;
} else if (mode === 'parked') {
  const go = new ttg.Edge<number, number>('go');
  const edges = [new ttg.Edge<number, number>('to-parked-1'), new ttg.Edge<number, number>('to-parked-2')] as const;
  const feed = ttg.make_tt((j: number, v: number, o) => {
    if (j === 0) o.send(0, 1, v);
    else o.send(1, 1, v);
  }, [go], [...edges], { name: 'FEED' })
    .set_procmap(() => 0);
  // rank 1 makes both TTs (so it knows their names) but makes nothing executable: making FEED
  // executable would make the TTs it feeds executable too
  const targets = edges.map((e, j) => ttg.make_tt((_k: number, _v: number) => {}, [e], [], { name: `PARKED-${j + 1}` }).set_procmap((k) => k % size));
  if (rank === 0) ttg.make_graph_executable(feed, ...targets);
  // phase 1 asks for the report, phase 2 for a strict fence, each about its own undelivered message
  if (rank === 0) feed.invoke(0, 42);
  const report = await settle(ttg.fence({ quiet: true }));
  out['report'] = 'ok' in report ? JSON.stringify(report.ok) : `${report.code}: ${report.message}`;
  if (rank === 0) feed.invoke(1, 43);
  out['strict'] = await settle(ttg.fence({ strict: true, quiet: true }).then((r) => JSON.stringify(r)));
  out['targets'] = targets.length; // keeps the TTs alive until here
} else if (mode === 'split') {
  for (const [name, bad] of [['fraction', 1.5], ['nan', NaN]] as const) {
    out[name] = await settle(world.split(rank === 1 ? bad : 0).then((w) => (w === undefined ? 'undefined' : `world of ${w.size}`)));
    // the rejected split must not leave the ranks out of step in the world's order of collectives
    out[`${name}-after`] = await world.allreduce(1);
  }
}
await ttg.finalize();
console.log(`RESULT ${JSON.stringify(out)}`);
