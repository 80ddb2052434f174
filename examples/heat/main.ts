/**
 * 2-D heat equation (Jacobi sweeps) on blocks with one-cell halos exchanged through edges, the
 * interiors updated in JavaScript or (--kernel native) by the program's own C kernel (stencil.c):
 * `npm run heat`, or `mpirun -np N node dist/examples/heat/main.js --n 2048 --blocks 16`.
 *
 *   STEP [i, j, t] ──strips──▶ BORDER [neighbours, t] ──▶ STEP [i, j, t+1]     (see heat.ts)
 *
 * With --check every rank also sweeps the whole field alone and compares its blocks bit for bit;
 * the count of differing cells is summed over the ranks (`World.allreduce`). Prints a line, or one
 * JSON object (--json): example, n, blocks, iters, ranks, kernel, seconds, gcells_per_s, ok.
 */
import * as ttg from 'ttg';

import { squareGrid } from '../common/grid.js';
import { startExample } from '../common/setup.js';
import { parseArgs } from './cli.js';
import { initial, sequential, span, type Grid } from './grid.js';
import { make_heat } from './heat.js';
import { loadInteriorKernel } from './kernel.js';

const { opts, world } = await startExample(parseArgs);
const { rank, size } = world;
const g: Grid = { n: opts.n, B: opts.blocks, alpha: opts.alpha };
const [P, Q] = squareGrid(size);
/** Contiguous blocks of blocks: neighbours are mostly on the same rank. */
const owner = (i: number, j: number): number => Math.floor((i * P) / g.B) * Q + Math.floor((j * Q) / g.B);

const interior = opts.kernel === 'native' ? loadInteriorKernel() : undefined;
const { step, final } = make_heat(g, opts.iters, owner, world, interior);

const start: Array<[number, number, Float64Array]> = [];
for (let i = 0; i < g.B; i++) {
  for (let j = 0; j < g.B; j++) {
    if (owner(i, j) !== rank) continue;
    const [r0, r1] = span(g, i);
    const [c0, c1] = span(g, j);
    const u = new Float64Array((r1 - r0) * (c1 - c0));
    for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) u[(r - r0) * (c1 - c0) + (c - c0)] = initial(g, r, c);
    start.push([i, j, u]);
  }
}
await world.fence();
const t0 = performance.now();
for (const [i, j, u] of start) step.in(0).send([i, j, 0], u);
world.execute();
await world.fence();
const seconds = (await world.allreduce((performance.now() - t0) / 1000, 'max'));

let ok: boolean | null = null;
if (opts.check) {
  const ref = sequential(g, opts.iters);
  let bad = 0;
  for (const [[i, j], block] of final) {
    const [r0, r1] = span(g, i);
    const [c0, c1] = span(g, j);
    const w = c1 - c0;
    for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) if (!Object.is(block[(r - r0) * w + (c - c0)], ref[r * g.n + c])) bad++;
  }
  const expected = start.length;
  if (final.size !== expected) bad += 1 + Math.abs(final.size - expected);
  ok = (await world.allreduce(bad)) === 0;
}

const gcells = (g.n * g.n * opts.iters) / seconds / 1e9;
if (rank === 0) {
  if (opts.json) {
    console.log(JSON.stringify({ example: 'heat', n: g.n, blocks: g.B, iters: opts.iters, ranks: size, kernel: opts.kernel, seconds, gcells_per_s: gcells, ok }));
  } else {
    console.log(`heat: ${g.n} x ${g.n} in ${g.B} x ${g.B} blocks, ${opts.iters} sweeps on ${size} rank(s), ${opts.kernel} interior: ${seconds.toFixed(3)} s, ${gcells.toFixed(3)} Gcells/s${ok === null ? '' : `, check ${ok ? 'ok' : 'FAILED'}`}`);
  }
}
await ttg.finalize();
if (ok === false) process.exitCode = 1;
