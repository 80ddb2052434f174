/**
 * What the JS thread's polls between batches of messages (transport/endpoint.ts) must leave to the
 * rest of the program; these runs (test/mpi/loop-turns.ts, 2 ranks, a poll of up to 200 ms) check
 * that timers still fire during a long exchange, and that the steps of async bodies run before the
 * poll (else each hop would wait out a poll). A poll chained without a turn of the event loop, or
 * made before the batch's microtasks, fails them.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { rankResults } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/loop-turns.js', import.meta.url));
const ENV = { TTG_JS_POLL_US: '200000' };

interface Result { rank: number; hops: number; maxGapMs: number }

describe('polls between batches of messages', function () {
  this.timeout(120_000);

  it('leave timers their turn during a long exchange of messages', () => {
    for (const r of rankResults<Result>(2, SCRIPT, ['sync', '600'], 60_000, ENV)) {
      expect(r.hops, `rank ${r.rank}`).to.be.above(1000);
      // a 5 ms interval; a turn of the loop at least every few batches
      expect(r.maxGapMs, `rank ${r.rank}: longest gap between timer ticks`).to.be.below(150);
    }
  });

  it('run the steps of async bodies before waiting for the next batch', () => {
    for (const r of rankResults<Result>(2, SCRIPT, ['async', '600'], 60_000, ENV)) {
      // a hop that waited out a 200 ms poll would allow a handful in 600 ms
      expect(r.hops, `rank ${r.rank}`).to.be.above(1000);
    }
  });
});
