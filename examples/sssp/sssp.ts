/**
 * The SSSP example's task graph: one task per relaxation, delta-stepping's buckets as priorities.
 *
 *   start ──▶ RELAX [bucket, v] ──relax (d + w to each head whose distance it lowers)──┐
 *                 ▲  on v's owner, lower buckets first                                 │
 *                 └────────────────────────────────────────────────────────────────────┘
 *   after the fence: each rank's distances ──owned──▶ DIST [rank] (a collector on rank 0)
 *
 * A task carries a tentative distance d for vertex v. If d is lower than what v's owner knows,
 * v takes it and its out-edges are relaxed; otherwise the task ends at once. This is label
 * correcting: it converges to the shortest distances in any order, so correctness does not rest
 * on priorities, phases or message timing. The order only decides the wasted work, and that is
 * where delta-stepping comes in: a task's bucket is floor(d / Δ), its priority minus that, so each
 * rank runs its lowest bucket first (Dijkstra's order as Δ shrinks, a FIFO Bellman-Ford at Δ =
 * Infinity). Unlike bale's delta-stepping there is no barrier per bucket: ranks never wait for
 * each other, and a rank that runs ahead of the others only does some work twice.
 *
 * The bucket travels in the key (bucket * n + v, one safe integer, rather than a tuple) because a
 * priomap sees only the key, and because a number sent to an integer key is the transport's
 * fixed 24-byte message, which travels in a batch with the others to that rank.
 *
 * Each rank keeps one array over all vertices: for its own vertices the lowest distance it knows,
 * for the others the lowest it has sent them. A relaxation that cannot lower that is not sent:
 * the head's owner already has (or will get) something at least as low.
 */
import * as ttg from 'ttg';

import type { Graph } from './graph.js';

/** Work counted on this rank. */
export interface Counts {
  /** Relaxations sent: tasks made, all but the first. */
  relaxations: number;
  /** Tasks that lowered their vertex's distance and relaxed its out-edges. */
  improvements: number;
}

/** The SSSP graph on one world (every rank builds it alike), ready to start. */
export interface Sssp {
  /** Starts the search from `source` (call it on one rank, then `execute` and `fence`). */
  start(source: number): void;
  /** What this rank did since it was made. */
  readonly counts: Counts;
  /**
   * After the search's fence: sends this rank's distances to rank 0 through the collector and
   * fences; on rank 0, resolves to every vertex's distance (Infinity where unreached), elsewhere to undefined.
   */
  gather(): Promise<Float64Array | undefined>;
}

/** Builds the graph over `world` for `g`, vertex v on rank `owner(v)`, buckets of width `delta`. */
export function make_sssp(g: Graph, delta: number, owner: (v: number) => number, world: ttg.World): Sssp {
  const { rank, size } = world;
  const { n, offsets, heads, weights } = g;
  const tent = new Float64Array(n).fill(Infinity);
  /** Per own vertex: the distance its out-edges were relaxed with (a duplicate task of that distance does nothing). */
  const relaxedAt = new Float64Array(n).fill(Infinity);
  const counts: Counts = { relaxations: 0, improvements: 0 };
  // the bucket is capped so that bucket * n + v stays a safe integer; above the cap only the order suffers
  const maxBucket = Math.floor((Number.MAX_SAFE_INTEGER - n) / n);
  const keyOf = (d: number, v: number): number => Math.min(Math.floor(d / delta), maxBucket) * n + v;

  const relax = new ttg.Edge<number, number>('relax');
  const body = ttg.make_tt((key: number, d: number, out) => {
    const v = key % n;
    if (d > tent[v]! || d >= relaxedAt[v]!) return;
    tent[v] = d;
    relaxedAt[v] = d;
    counts.improvements++;
    for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++) {
      const w = heads[e]!;
      const dw = d + weights[e]!;
      if (dw < tent[w]!) {
        tent[w] = dw;
        counts.relaxations++;
        out.send(0, keyOf(dw, w), dw);
      }
    }
  }, [relax], [relax], { name: 'RELAX', world });
  body.set_procmap((key) => owner(key % n));
  body.set_priomap((key) => -Math.floor(key / n));

  const owned = new ttg.Edge<number, Float64Array>('owned');
  const dist = ttg.make_collector(owned, { on: 0, name: 'DIST', world });
  ttg.make_graph_executable(body, dist);

  return {
    start: (source) => body.invoke(keyOf(0, source), 0),
    counts,
    async gather() {
      // this rank's vertices in increasing order: rank 0 deals them back out with `owner`
      const mine: number[] = [];
      for (let v = 0; v < n; v++) if (owner(v) === rank) mine.push(tent[v]!);
      dist.in(0).send(rank, Float64Array.from(mine));
      world.execute();
      await world.fence();
      if (rank !== 0) return undefined;
      const all = new Float64Array(n);
      const parts = Array.from({ length: size }, (_, r) => dist.get(r)!);
      const next = new Int32Array(size);
      for (let v = 0; v < n; v++) {
        const r = owner(v);
        all[v] = parts[r]![next[r]!++]!;
      }
      return all;
    },
  };
}
