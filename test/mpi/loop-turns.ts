/**
 * What the JS thread's polls between batches of messages leave to the rest of the program, run by
 * loop-turns.test.ts under mpirun with a long TTG_JS_POLL_US (so a poll made too early waits long).
 * Prints `RESULT {...}` per rank.
 *
 *   PING [k] (rank 0) ──▶ PONG [k] (rank 1) ──▶ PING [k + 1]      for MS milliseconds
 *
 * `sync` mode: plain bodies; a 5 ms interval timer on every rank records the longest gap between its
 * ticks while the exchange runs (the event loop must still turn between batches). `async` mode: the
 * bodies await several resolved promises before they send (each step of an async body must run
 * before the JS thread waits for the next batch, or each hop waits a whole poll).
 */
import * as ttg from 'ttg';

const MODE = process.argv[2] ?? 'sync';
const MS = Number(process.argv[3] ?? 400);
const world = await ttg.initialize();
const { rank, size } = world;
if (size !== 2) throw new Error('loop-turns runs at 2 ranks');

const toPong = new ttg.Edge<number, number>('to-pong');
const toPing = new ttg.Edge<number, number>('to-ping');
let deadline = 0;
let hops = 0;
const steps = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await Promise.resolve();
};
const ping = ttg.make_tt(MODE === 'async'
  ? async (k: number, v: number, out) => { hops++; await steps(); if (performance.now() < deadline) out.send(0, k + 1, v + 1); }
  : (k: number, v: number, out) => { hops++; if (performance.now() < deadline) out.send(0, k + 1, v + 1); },
[toPing], [toPong], { name: 'PING' });
const pong = ttg.make_tt(MODE === 'async'
  ? async (k: number, v: number, out) => { hops++; await steps(); out.send(0, k, v + 1); }
  : (k: number, v: number, out) => { hops++; out.send(0, k, v + 1); },
[toPong], [toPing], { name: 'PONG' });
ping.set_procmap(() => 0);
pong.set_procmap(() => 1);
ttg.make_graph_executable(ping, pong);

let last = performance.now();
let maxGap = 0;
// gaps while messages flow (up to `end`): the last poll waits out TTG_JS_POLL_US once the exchange has ended
let end = 0;
const gap = (now: number): void => {
  if (last < end) maxGap = Math.max(maxGap, Math.min(now, end) - last);
  last = now;
};
const timer = setInterval(() => gap(performance.now()), 5);
deadline = performance.now() + MS;
end = deadline - 20;
last = performance.now();
if (rank === 0) ping.invoke(0, 0);
await ttg.fence();
gap(performance.now());
clearInterval(timer);
console.log(`RESULT ${JSON.stringify({ rank, hops, maxGapMs: maxGap })}`);
await ttg.finalize();
