/**
 * Issue 55: random pairs of task keys (test/serialize/key-pairs.ts) fed from two ranks into one
 * TT, run by test/mpi/key-pairs.test.ts under `mpirun -np 2` (and `-np 1` with
 * TTG_CHECK_SERIALIZE=1). Keys that name the same task must meet in one task; keys that differ
 * never may:
 *
 *   Src([p, 0]) on rank p % size ─────a──▶ J(key) ◀──b───── Src([p, 1]) on rank (p + 1) % size
 *
 * Pair p of the same task: side 0 sends input a = p to key A, side 1 input b = p to key B; one
 * task J runs with (p, p). Pair p of two tasks: side 0 also sends a = -p-1 to B and side 1 b = -p-1
 * to A, so J(A) runs with (p, -p-1) and J(B) with (-p-1, p), and keys taken for one another give
 * an input twice (an error) or a task that never completes (E_HANG). Each rank writes the tasks J
 * ran there to `$TTG_TEST_OUT/keys-<rank>.jsonl` (one line each), then `DONE`; argv: first pair,
 * count (pairs with keys of their own: one that draws a key an earlier one has is left out).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import * as ttg from 'ttg';

import { keyPairs, keyText } from '../serialize/key-pairs.js';

const world = await ttg.initialize();
const { rank, size } = world;
const first = Number(process.argv[2] ?? 1);
const count = Number(process.argv[3] ?? 100);
const out = join(process.env['TTG_TEST_OUT'] ?? '.', `keys-${rank}.jsonl`);
writeFileSync(out, '');

const pairs = new Map(keyPairs(first, count).map((x) => [x.p, x]));

const toA = new ttg.Edge<unknown, number>('a');
const toB = new ttg.Edge<unknown, number>('b');
const src = ttg.make_tt((pk: [number, number], _v: number, outs) => {
  const [p, side] = pk;
  const { a, b, same } = pairs.get(p)!;
  if (side === 0) {
    outs.send(0, a, p);
    if (!same) outs.send(0, b, -p - 1);
  } else {
    outs.send(1, b, p);
    if (!same) outs.send(1, a, -p - 1);
  }
}, [new ttg.Edge<[number, number], number>('go')], [toA, toB], { name: 'Src' });
src.set_procmap((pk) => (pk[0] + pk[1]) % size);
const lines: string[] = [];
const j = ttg.make_tt((key: unknown, x: number, y: number) => {
  lines.push(JSON.stringify({ key: keyText(key), x, y }));
}, [toA, toB], [], { name: 'J' });
ttg.make_graph_executable(src, j);

ttg.execute();
for (const p of pairs.keys()) for (const side of [0, 1]) if ((p + side) % size === rank) src.invoke([p, side], 0);
let error: string | undefined;
try {
  await ttg.fence();
} catch (e) {
  error = `${(e as ttg.TtgError).code}: ${(e as Error).message}`;
}
appendFileSync(out, lines.map((l) => `${l}\n`).join(''));
appendFileSync(out, `${JSON.stringify({ done: rank, error })}\n`);
await ttg.finalize();
