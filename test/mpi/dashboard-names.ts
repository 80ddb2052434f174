/**
 * A run for test/mpi/dashboard-names.test.ts: six TTs named like members of Object.prototype
 * (`__proto__`, `constructor`, ...), their input edges named likewise, each with tasks ready, waiting
 * for an input and held by a constraint on every rank; the last rank also sends rank 0 a hostile
 * summary of its own. With a signal path (argument), the program stops twice until the test, which
 * reads the dashboard's state, creates `<path>.counted` (it saw the counts while the tasks wait)
 * and `<path>.done` (it saw the runs); without one it runs through (TTG_REPORT / TTG_TRACE runs).
 * Prints `RESULT {rank, total, want, prototype}`: the sum of every task's key + 3 over all ranks, and
 * what `Object.prototype` holds at the end (nothing).
 *
 *   NAMES[j] [k] ◀── edge NAMES[j], edge NAMES[j + 1]: per rank j + 1 tasks invoked (ready, the
 *   world not executing yet), j + 2 with their first input only (waiting), 3 at ordinal 1 (held)
 */
import { existsSync } from 'node:fs';

import * as ttg from 'ttg';

import { defaultRuntime } from '../../src/ttg/runtime/runtime.js';

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];
const world = await ttg.initialize();
const { rank, size } = world;
const signal = process.argv[2] ?? '';

/** Waits for the test to create `<signal>.<step>` (at most a minute). */
async function step(name: string): Promise<void> {
  if (signal === '') return;
  for (const until = Date.now() + 60_000; !existsSync(`${signal}.${name}`);) {
    if (Date.now() > until) throw new Error(`rank ${rank}: no ${signal}.${name} after a minute`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The keys of this rank: rank + size * m. */
const mine = (m: number): number => rank + size * m;
const READY = (j: number) => j + 1;
const WAITING = (j: number) => j + 2;
const HELD = 3;

const c = new ttg.SequencedKeysConstraint<number>((k) => (k >= 1000 ? 1 : 0));
let sum = 0;
const tts = NAMES.map((name, j) => {
  const tt = ttg.make_tt((k: number, x: number, y: number) => { sum += k + x + y; },
    [new ttg.Edge<number, number>(name), new ttg.Edge<number, number>(NAMES[(j + 1) % NAMES.length]!)], [], { name });
  tt.set_procmap((k) => k % size);
  tt.add_constraint(c);
  return tt;
});
ttg.make_graph_executable(...tts);
tts.forEach((tt, j) => {
  for (let m = 0; m < READY(j); m++) tt.invoke(mine(m), 1, 2);
  for (let m = 100; m < 100 + WAITING(j); m++) tt.in(0).send(mine(m), 1);
  for (let m = 1000; m < 1000 + HELD; m++) tt.invoke(mine(m), 1, 2);
});
if (rank === size - 1) {
  defaultRuntime().transport!.sendSummary('{"tts": {"__proto__": [1, 2, 3, 4], "constructor": "x", "toString": null}, "traffic": 5, "errors": [null], "devices": "none", "slices": 3, "at": "now"}');
}
await step('counted');
c.release(1);
tts.forEach((tt, j) => { for (let m = 100; m < 100 + WAITING(j); m++) tt.in(1).send(mine(m), 2); });
ttg.execute();
await ttg.fence();
const total = await world.allreduce(sum);
let want = 0;
for (let r = 0; r < size; r++) {
  for (let j = 0; j < NAMES.length; j++) {
    const ms = [...Array(READY(j)).keys(), ...Array.from({ length: WAITING(j) }, (_, i) => 100 + i), ...Array.from({ length: HELD }, (_, i) => 1000 + i)];
    for (const m of ms) want += r + size * m + 3;
  }
}
await step('done');
const prototype = { keys: Object.getOwnPropertyNames(Object.prototype).filter((n) => /^\d/.test(n)).concat(Object.keys(Object.prototype)), third: String([10, 20][2]) };
console.log(`RESULT ${JSON.stringify({ rank, total, want, prototype })}`);
await ttg.finalize();
