/**
 * The live dashboard's per-rank summary (src/ttg/summary.ts, task-sampler.ts): exact task counts
 * per TT, and a sample of task times whose size follows the rate, so light tasks cost one
 * decrement each and heavy ones are all timed.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { defaultRuntime } from '../../src/ttg/runtime.js';
import { Summarizer } from '../../src/ttg/summary.js';
import { SAMPLES_PER_PERIOD } from '../../src/ttg/task-sampler.js';
import { fence } from '../helpers.js';

/** A chain of `n` tasks of TT `name`, each spinning `ms`. */
async function chain(name: string, n: number, ms = 0): Promise<void> {
  const e = new ttg.Edge<number, void>(`${name}-next`);
  const tt = ttg.make_tt((k: number, _v: void, out) => {
    if (ms > 0) for (const until = performance.now() + ms; performance.now() < until;) { /* work */ }
    if (k + 1 < n) out.sendk(0, k + 1);
  }, [e], [e], { name });
  ttg.make_graph_executable(tt);
  tt.invoke(0);
  await fence();
}

describe('the dashboard\'s summary of a rank', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('counts every task per TT, and times about a fixed number per period whatever the rate', async () => {
    const s = new Summarizer(defaultRuntime());
    try {
      s.take([]);
      await chain('LIGHT', 20_000);
      const first = s.take([]);
      expect(first.tts['LIGHT']![0]).to.equal(20_000);
      expect(first.every).to.equal(1);
      // the next period times one task in 20,000 / SAMPLES_PER_PERIOD
      await chain('LIGHT', 20_000);
      const second = s.take([]);
      expect(second.tts['LIGHT']![0]).to.equal(40_000);
      expect(second.every).to.equal(20_000 / SAMPLES_PER_PERIOD);
      expect(second.slices.length).to.be.within(SAMPLES_PER_PERIOD - 1, SAMPLES_PER_PERIOD + 1);
      for (const [tt, start, dur] of second.slices) {
        expect(tt).to.equal('LIGHT');
        expect(start).to.be.closeTo(Date.now(), 60_000);
        expect(dur).to.be.at.least(0);
      }
    } finally {
      s.stop();
    }
  });

  it('after a quiet period every task is timed, with its real duration', async () => {
    const s = new Summarizer(defaultRuntime());
    try {
      s.take([]);
      s.take([]);
      await chain('HEAVY', 12, 2);
      const r = s.take([]);
      expect(r.tts['HEAVY']![0]).to.equal(12);
      expect(r.slices).to.have.length(12);
      for (const [, , dur] of r.slices) expect(dur).to.be.at.least(2);
    } finally {
      s.stop();
    }
    expect(defaultRuntime().scheduler.sampler).to.equal(undefined);
  });
});
