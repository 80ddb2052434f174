/**
 * The live dashboard's per-rank summary (src/observe/dashboard/summary.ts, task-sampler.ts): exact task counts
 * per TT, and a sample of task times whose size follows the rate, so light tasks cost one
 * decrement each and heavy ones are all timed.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { defaultRuntime } from '../../src/ttg/runtime/runtime.js';
import { Summarizer } from '../../src/observe/dashboard/summary.js';
import { SAMPLE_GAP_MS, SUMMARY_MS } from '../../src/observe/dashboard/task-sampler.js';
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

  it('counts every task per TT, and times tasks about SAMPLE_GAP_MS apart whatever their rate', async () => {
    const s = new Summarizer(defaultRuntime());
    try {
      s.take([]);
      const t0 = performance.now();
      await chain('LIGHT', 20_000);
      const wall = performance.now() - t0;
      await chain('LIGHT', 20_000);
      const r = s.take([]);
      expect(r.tts['LIGHT']![0]).to.equal(40_000);
      // the first tasks are timed, then the rate sets the gap: a few per SAMPLE_GAP_MS of running
      expect(r.slices.length).to.be.at.least(2);
      expect(r.slices.length).to.be.below((4 * wall) / SAMPLE_GAP_MS + 20);
      expect(r.every).to.be.above(1);
      for (const [tt, start, dur] of r.slices) {
        expect(tt).to.equal('LIGHT');
        expect(start).to.be.closeTo(Date.now(), 60_000);
        expect(dur).to.be.at.least(0);
      }
      // a summary caps the rate by its period's count: 40,000 tasks per period time at least 100
      expect(defaultRuntime().scheduler.sampler!.every).to.be.at.most(Math.ceil((40_000 * SAMPLE_GAP_MS) / SUMMARY_MS));
    } finally {
      s.stop();
    }
  });

  it('counts the tasks ready to run and those waiting for inputs, per TT', async () => {
    const s = new Summarizer(defaultRuntime());
    try {
      const a = new ttg.Edge<number, number>('a');
      const b = new ttg.Edge<number, number>('b');
      const pair = ttg.make_tt((_k: number, _x: number, _y: number) => {}, [a, b], [], { name: 'PAIR' });
      const one = ttg.make_tt((_k: number, _x: number) => {}, [new ttg.Edge<number, number>('c')], [], { name: 'ONE' });
      ttg.make_graph_executable(pair, one);
      for (let k = 0; k < 7; k++) pair.in(0).send(k, k);
      for (let k = 0; k < 500; k++) one.invoke(k, k);
      // nothing has run yet: the invokes only queued their tasks
      const r = s.take([]);
      expect(r.tts['ONE']).to.deep.equal([0, 500, 0, 0]);
      expect(r.tts['PAIR']).to.deep.equal([0, 0, 7, 0]);
      for (let k = 0; k < 7; k++) pair.in(1).send(k, k);
      await fence();
      const after = s.take([]);
      expect(after.tts['ONE']).to.deep.equal([500, 0, 0, 0]);
      expect(after.tts['PAIR']).to.deep.equal([7, 0, 0, 0]);
    } finally {
      s.stop();
    }
  });

  it('slow tasks after light ones: after a quiet period every one is timed, with its real duration', async () => {
    const s = new Summarizer(defaultRuntime());
    try {
      s.take([]);
      await chain('LIGHT', 20_000);
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
