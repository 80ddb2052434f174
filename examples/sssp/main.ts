/**
 * Single-source shortest paths by delta-stepping, one task per relaxation: `npm run sssp`, or
 * `mpirun -np N node dist/examples/sssp/main.js --vertices 200000 --degree 5`.
 *
 *   RELAX [b, v] ──d + w──▶ RELAX [b, head]     (same bucket: at once, on head's owner)
 *        ▲      └─d + w──▶ kept for bucket c ──(phase c: sent from the main program)──▶ RELAX [c, head]
 *        └─ [0, source] with 0                  (see sssp.ts; --schedule priorities: one phase)
 *   after the last phase: distances ──▶ DIST [rank] (a collector on rank 0)
 *
 * Every rank generates the same graph from the seed (or reads the same Matrix Market file, such
 * as one bale's `sssp -D` wrote), so only relaxations travel. With --check rank 0 runs Dijkstra
 * and compares every distance bit for bit (Infinity where no path leads). Prints a line, or one
 * JSON object (--json): example, graph, vertices, edges, ranks, layout, schedule, delta, source,
 * seconds, phases, relaxations, improvements, reached, farthest, ok.
 */
import { writeFileSync } from 'node:fs';

import * as ttg from 'ttg';

import { startExample } from '../common/setup.js';
import { parseArgs } from './cli.js';
import { dijkstra } from './dijkstra.js';
import { defaultDelta, geometricGraph, randomGraph, type Graph } from './graph.js';
import { readMatrixMarket } from './mtx.js';
import { make_sssp } from './sssp.js';

const { opts, world } = await startExample(parseArgs);
const { rank, size } = world;

/** A file that cannot be read or a source outside it is a bad option too: every rank says so alike and leaves with 2. */
async function refuse(message: string): Promise<never> {
  if (rank === 0) console.error(message);
  await ttg.finalize();
  process.exit(2);
}

let g: Graph;
try {
  g = opts.mtx !== undefined ? readMatrixMarket(opts.mtx)
    : opts.graph === 'geometric' ? geometricGraph(opts.vertices, opts.degree, opts.seed)
      : randomGraph(opts.vertices, opts.degree, opts.seed);
} catch (e) {
  g = await refuse((e as Error).message);
}
if (opts.source >= g.n) await refuse(`--source must be below the graph's ${g.n} vertices, got ${opts.source}`);
const delta = opts.delta ?? defaultDelta(g);

const n = g.n;
const owner = opts.layout === 'block' ? (v: number): number => Math.floor((v * size) / n) : (v: number): number => v % size;
const sssp = make_sssp(g, delta, owner, world, opts.schedule);
await world.fence();
const t0 = performance.now();
await sssp.run(opts.source);
const seconds = await world.allreduce((performance.now() - t0) / 1000, 'max');
const [relaxations, improvements] = await world.allreduce(Float64Array.of(sssp.counts.relaxations, sssp.counts.improvements));
const phases = sssp.counts.phases;

const dist = await sssp.gather();
let bad = 0, reached = 0, farthest = 0;
if (dist !== undefined) {
  for (const d of dist) {
    if (d === Infinity) continue;
    reached++;
    if (d > farthest) farthest = d;
  }
  if (opts.check) {
    const ref = dijkstra(g, opts.source);
    for (let v = 0; v < g.n; v++) if (!Object.is(dist[v], ref[v])) bad++;
  }
  if (opts.out !== undefined) writeFileSync(opts.out, dist.join('\n') + '\n');
}
const ok = opts.check ? (await world.allreduce(bad)) === 0 : null;

if (rank === 0) {
  const graph = opts.mtx !== undefined ? 'mtx' : opts.graph;
  const edges = g.heads.length;
  if (opts.json) {
    console.log(JSON.stringify({
      example: 'sssp', graph, vertices: g.n, edges, ranks: size, layout: opts.layout, schedule: opts.schedule, delta, source: opts.source,
      seconds, phases, relaxations, improvements, reached, farthest, ok,
    }));
  } else {
    console.log(`sssp: ${graph} graph, ${g.n} vertices, ${edges} edges, delta ${delta.toPrecision(3)}, on ${size} rank(s) (${opts.layout}, ${opts.schedule}): ${seconds.toFixed(3)} s in ${phases} phase(s), `
      + `${relaxations} relaxations, ${improvements} improvements, ${reached} reached, farthest ${farthest.toPrecision(6)}`
      + `${ok === null ? '' : `, check ${ok ? 'ok' : `FAILED (${bad} distances differ)`}`}`);
  }
}
await ttg.finalize();
if (ok === false) process.exitCode = 1;
