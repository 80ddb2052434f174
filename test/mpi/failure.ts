/**
 * Error propagation under mpirun (run by test/distributed.test.ts). Mode `throw`: a body throws
 * on the last rank; mode `serialize`: a body sends a function to another rank; modes `syntax`,
 * `enoent` and `custom`: the last rank's body throws a SyntaxError from JSON.parse, the ENOENT of a
 * missing file, or an error of its own class with a property that cannot travel and a cause. Every rank prints
 * `REJECTED <json>` when its fence rejects, then rethrows, so the job must end non-zero.
 *
 *   W(k) on rank k % size ──▶ V(k) on rank (k+1) % size
 */
import * as ttg from 'ttg';
import { readFileSync } from 'node:fs';

import { fenceOutcome } from './fence-outcome.js';

class Custom extends Error {
  readonly detail: { k: number; tags: string[] };
  readonly callback = () => 0;
  constructor(k: number) {
    super(`custom at ${k}`, { cause: new RangeError(`inner ${k}`) });
    this.name = 'Custom';
    this.detail = { k, tags: ['a'] };
  }
}

const mode = process.argv[2] ?? 'throw';
const world = await ttg.initialize();
const { rank, size } = world;
const go = new ttg.Edge<number, number>('go');
const link = new ttg.Edge<number, unknown>('link');
const w = ttg.make_tt((k: number, v: number, out) => {
  if (rank === size - 1) {
    if (mode === 'throw') throw new Error(`boom at ${k}`);
    if (mode === 'syntax') JSON.parse('{not json');
    if (mode === 'enoent') readFileSync(`/nonexistent/ttg-${k}.json`);
    if (mode === 'custom') throw new Custom(k);
  }
  out.send(0, k, mode === 'serialize' ? { f: () => v } : v);
}, [go], [link], { name: 'W' });
const v = ttg.make_tt((_k: number, _x: unknown) => {}, [link], [], { name: 'V' });
w.set_procmap((k) => k % size);
v.set_procmap((k) => (k + 1) % size);
ttg.make_graph_executable(w, v);
if (rank === 0) for (let k = 0; k < 4 * size; k++) w.invoke(k, k);
await fenceOutcome(rank, true);
