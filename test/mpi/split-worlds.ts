/**
 * Split worlds under mpirun (run by test/split-worlds.test.ts). Prints `RESULT {...}` per rank.
 *
 *   potrf: the ranks split in two (2+2 at 4 ranks, 1+2 at 3); each half factors its own matrix
 *          with POTRF and checks it, three times, while the default world passes a token around
 *          every rank; the TTs of all three graphs share ids, so a message routed to the wrong
 *          world would be caught.
 *   error: in one half a task throws; that half's fence rejects on its ranks, the other half and
 *          the default world fence cleanly, and the failed half runs its next phase.
 *   nested: a split of a split, a rank that joins no world (negative color), and an edge that
 *          joins two worlds (E_INVALID_ARGUMENT).
 */
import * as ttg from 'ttg';
import { make_check } from '../../examples/potrf/check.js';
import { squareGrid } from '../../examples/common/grid.js';
import { fillTile, layout, owner, tileSize } from '../../examples/potrf/matrix.js';
import { make_cholesky } from '../../examples/potrf/potrf.js';
import { Tile } from '../../examples/common/tile.js';

const world = await ttg.initialize({ device: { backend: 'host', streams: 1 } });
const mode = process.argv[2] ?? 'potrf';
const out: Record<string, unknown> = { rank: world.rank };

/** Splits the job in two halves: rank 0 alone at 3 ranks, 2+2 at 4. */
async function halves(): Promise<{ sub: ttg.World; color: number }> {
  const color = world.rank < Math.floor(world.size / 2) ? 0 : 1;
  // key reverses the order within a half: the sub-world ranks are not the job's order
  const sub = await world.split(color, -world.rank);
  if (sub === undefined) throw new Error('no world for a non-negative color');
  return { sub, color };
}

/**
 * A token passed around every rank of `w`, `laps` times; resolves to the hops counted here. The
 * token is a small typed array (it travels inside its message's header, marked with the world):
 * a hop counts only when it arrived intact.
 */
function ring(w: ttg.World, laps: number): { start(): void; hops(): number } {
  const e = new ttg.Edge<number, Int32Array>('ring');
  const token = (k: number): Int32Array => Int32Array.of(k, 7, -3);
  let hops = 0;
  const tt = ttg.make_tt((k: number, v: Int32Array, o) => {
    if (v.join() === token(k).join()) hops++;
    if (k + 1 < laps * w.size) o.send(0, k + 1, token(k + 1));
  }, [e], [e], { world: w, name: 'RING' });
  tt.set_procmap((k) => k % w.size);
  ttg.make_graph_executable(tt);
  return { start: () => { if (w.rank === 0) tt.invoke(0, token(0)); }, hops: () => hops };
}

/** POTRF on `w` with the check graph; resolves to the scaled residual (known on rank 0 of w). */
async function potrf(w: ttg.World, n: number, nb: number, seed: number): Promise<number> {
  const [P, Q] = squareGrid(w.size);
  const l = layout(n, nb, P, Q);
  const factor = new Map<string, { i: number; j: number; tile: Tile }>();
  const { init } = make_cholesky(l, (i, j, tile) => factor.set(`${i},${j}`, { i, j, tile }), 'generator', w);
  for (let i = 0; i < l.nt; i++) {
    for (let j = 0; j <= i; j++) {
      if (owner(l, i, j) !== w.rank) continue;
      const t = new Tile(tileSize(l, i), tileSize(l, j));
      fillTile(l, seed, i, j, t.buf.host);
      init.invoke([i, j], t);
    }
  }
  w.execute();
  await w.fence();
  let residual = NaN;
  make_check(l, seed, (r) => { residual = r; }, w).start(factor, w.rank);
  await w.fence();
  return residual;
}

if (mode === 'potrf') {
  const { sub, color } = await halves();
  const r = ring(world, 50);
  r.start();
  ttg.execute();
  const residuals: number[] = [];
  for (let it = 0; it < 3; it++) residuals.push(await potrf(sub, 320 + 64 * color, 64, 7 + it + 10 * color));
  await ttg.fence();
  Object.assign(out, { color, subRank: sub.rank, subSize: sub.size, residuals: sub.rank === 0 ? residuals : [], ringHops: r.hops() });
} else if (mode === 'error') {
  const { sub, color } = await halves();
  const e = new ttg.Edge<number, number>('work');
  let ran = 0;
  const tt = ttg.make_tt((k: number, v: number) => {
    ran++;
    if (color === 1 && k === 3 && v === 1) throw new Error('boom in half 1');
  }, [e], [], { world: sub, name: `WORK${color}` });
  tt.set_procmap((k) => k % sub.size);
  ttg.make_graph_executable(tt);
  const r = ring(world, 20);
  r.start();
  ttg.execute();
  sub.execute();
  const fences: string[] = [];
  for (let phase = 1; phase <= 2; phase++) {
    if (sub.rank === 0) for (let k = 0; k < 8; k++) tt.invoke(k, phase);
    try {
      await sub.fence();
      fences.push('ok');
    } catch (err) {
      const t = err as ttg.TtgError;
      fences.push(`${t.code}: ${t.message}`);
    }
  }
  await ttg.fence();
  Object.assign(out, { color, fences, ran, ringHops: r.hops() });
} else if (mode === 'nested') {
  const { sub, color } = await halves();
  // within a half, rank 0 of the half joins nothing; the others form a world of their own
  const inner = await sub.split(sub.rank === 0 ? -1 : 5);
  let innerHops = -1;
  if (inner !== undefined) {
    const r = ring(inner, 10);
    r.start();
    inner.execute();
    await inner.fence();
    innerHops = r.hops();
  }
  const a = new ttg.Edge<number, number>('cross');
  const src = ttg.make_tt((k: number, _v: number, o) => o.send(0, k, 1), [new ttg.Edge<number, number>('in')], [a], { world: sub, name: 'SRC' });
  ttg.make_tt((_k: number, _v: number) => {}, [a], [], { world, name: 'DST' });
  let cross = 'no error';
  try {
    ttg.make_graph_executable(src);
  } catch (err) {
    cross = `${(err as ttg.TtgError).code}: ${(err as ttg.TtgError).message}`;
  }
  Object.assign(out, { color, inner: inner === undefined ? null : { rank: inner.rank, size: inner.size }, innerHops, cross });
}
console.log(`RESULT ${JSON.stringify(out)}`);
await ttg.finalize();
