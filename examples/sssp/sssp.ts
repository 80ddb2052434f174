/**
 * The SSSP example's task graph: one task per relaxation, delta-stepping's buckets as phases
 * (default) or as priorities.
 *
 *   run: RELAX [0, source] with 0
 *         RELAX [b, v] ──d + w, same bucket b──▶ RELAX [b, head]        (on head's owner, at once)
 *              │       ──d + w, later bucket c──▶ kept on this rank until phase c opens, then
 *              │                                  sent from the main program ──▶ RELAX [c, head]
 *   phases: fence ─▶ allreduce(lowest kept bucket) ─▶ send its relaxations ─▶ fence ─▶ ...
 *   after the last phase: each rank's distances ──owned──▶ DIST [rank] (a collector on rank 0)
 *
 * A task carries a tentative distance d for vertex v. If d is lower than what v's owner knows,
 * v takes it and its out-edges are relaxed; otherwise the task ends at once. This is label
 * correcting: it converges to the shortest distances in any order, so correctness rests on no
 * order, phase or message timing, only the wasted work does. Delta-stepping cuts that waste by
 * running bucket floor(d / Δ) by bucket:
 *
 * - `phases`: a phase per bucket, ended by a fence (bale's delta-stepping reduces over the PEs
 *   for the same reason: a bucket is done only when no rank has work in it and none is in
 *   flight). A relaxation into a later bucket waits on the rank that made it, so a lower one
 *   found meanwhile replaces it there, and at its phase the main program sends them all: those
 *   for one rank leave together, in the transport's batches. Within a phase tasks send at once.
 * - `priorities`: one phase, a task's priority minus its bucket, so each rank runs its lowest
 *   bucket first. Ranks never wait for each other, but a rank that runs ahead of the others' late
 *   relaxations does work twice, each relaxation is a message of its own task (a task's sends
 *   leave when it ends), and the ready queue orders every task in a heap.
 *
 * With Δ = Infinity both are one FIFO phase (Bellman-Ford in no particular order); as Δ shrinks
 * they approach Dijkstra's order, and `phases` pays a fence per bucket.
 *
 * The bucket travels in the key (bucket * n + v, one safe integer, rather than a tuple) because a
 * priomap sees only the key, and because a number sent to an integer key is the transport's
 * fixed 24-byte message, which travels in a batch with the others to that rank.
 *
 * Each rank keeps one array over all vertices: for its own vertices the lowest distance it knows,
 * for the others the lowest it has sent (or kept for) them. A relaxation that cannot lower that is
 * not sent: the head's owner already has (or will get) something at least as low.
 */
import * as ttg from 'ttg';

import type { Graph } from './graph.js';

/** How buckets order the work: one phase per bucket (the default), or priorities in one phase. */
export type Schedule = 'phases' | 'priorities';

/** Work counted on this rank. */
export interface Counts {
  /** Relaxations sent: tasks made, all but the first. */
  relaxations: number;
  /** Tasks that lowered their vertex's distance and relaxed its out-edges. */
  improvements: number;
  /** Buckets run, each a phase ended by a fence (1 with priorities). */
  phases: number;
}

/** The SSSP graph on one world (every rank builds it alike), ready to run. */
export interface Sssp {
  /** Runs the search from `source` to its last fence (every rank calls it). */
  run(source: number): Promise<void>;
  /** What this rank did since it was made. */
  readonly counts: Counts;
  /**
   * After {@link run}: sends this rank's distances to rank 0 through the collector and fences; on
   * rank 0, resolves to every vertex's distance (Infinity where unreached), elsewhere to undefined.
   */
  gather(): Promise<Float64Array | undefined>;
}

/** Relaxations this rank keeps for a later bucket: heads and distances. */
interface Deferred { heads: number[]; dists: number[] }

/**
 * Builds the graph over `world` for `g`: vertex v on rank `owner(v)`, buckets of width `delta`,
 * ordered as `schedule` says.
 */
export function make_sssp(g: Graph, delta: number, owner: (v: number) => number, world: ttg.World, schedule: Schedule = 'phases'): Sssp {
  const { rank, size } = world;
  const { n, offsets, heads, weights } = g;
  const tent = new Float64Array(n).fill(Infinity);
  /** Per own vertex: the distance its out-edges were relaxed with (a duplicate task of that distance does nothing). */
  const relaxedAt = new Float64Array(n).fill(Infinity);
  const counts: Counts = { relaxations: 0, improvements: 0, phases: 0 };
  // the bucket is capped so that bucket * n + v stays a safe integer; above the cap only the order suffers
  const maxBucket = Math.floor((Number.MAX_SAFE_INTEGER - n) / n);
  const bucketOf = (d: number): number => Math.min(Math.floor(d / delta), maxBucket);
  /** With priorities every bucket is open; in phases, the bucket of the running phase. */
  let current = schedule === 'priorities' ? Infinity : 0;
  const later = new Map<number, Deferred>();
  /** The buckets of `later`, a binary min-heap. */
  const laterBuckets: number[] = [];

  const defer = (b: number, w: number, dw: number): void => {
    let l = later.get(b);
    if (l === undefined) {
      later.set(b, l = { heads: [], dists: [] });
      heapPush(laterBuckets, b);
    }
    l.heads.push(w);
    l.dists.push(dw);
  };

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
        const b = bucketOf(dw);
        if (b > current) {
          defer(b, w, dw);
        } else {
          counts.relaxations++;
          out.send(0, b * n + w, dw);
        }
      }
    }
  }, [relax], [relax], { name: 'RELAX', world });
  body.set_procmap((key) => owner(key % n));
  if (schedule === 'priorities') body.set_priomap((key) => -Math.floor(key / n));

  const owned = new ttg.Edge<number, Float64Array>('owned');
  const dist = ttg.make_collector(owned, { on: 0, name: 'DIST', world });
  ttg.make_graph_executable(body, dist);

  return {
    counts,
    async run(source) {
      if (rank === 0) body.invoke(source, 0);
      world.execute();
      await world.fence();
      counts.phases = 1;
      for (;;) {
        // the lowest bucket any rank kept relaxations for opens next; they leave now, from the
        // main program, so those for one rank travel together (a task's sends leave when it ends)
        const next = await world.allreduce(laterBuckets.length === 0 ? Infinity : laterBuckets[0]!, 'min');
        if (next === Infinity) return;
        current = next;
        counts.phases++;
        const l = later.get(next);
        if (l !== undefined) {
          later.delete(next);
          heapPop(laterBuckets);
          for (let i = 0; i < l.heads.length; i++) {
            const w = l.heads[i]!, dw = l.dists[i]!;
            // a lower distance for w left this rank meanwhile (or, for its own w, arrived here)
            if (dw !== tent[w]) continue;
            counts.relaxations++;
            body.in(0).send(next * n + w, dw);
          }
        }
        await world.fence();
      }
    },
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

function heapPush(h: number[], x: number): void {
  let i = h.length;
  h.push(x);
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (h[p]! <= x) break;
    h[i] = h[p]!;
    i = p;
  }
  h[i] = x;
}

function heapPop(h: number[]): void {
  const last = h.pop()!;
  if (h.length === 0) return;
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= h.length) break;
    if (c + 1 < h.length && h[c + 1]! < h[c]!) c++;
    if (h[c]! >= last) break;
    h[i] = h[c]!;
    i = c;
  }
  h[i] = last;
}
