/**
 * When the small messages a task left waiting leave: at once after a task of a kind not known to be
 * short, when no task is ready, and once the oldest has waited its bound; held while short tasks follow.
 */
import { expect } from 'chai';

import { FlushTiming, HOLD_MS, SHORT_TASK_MS } from '../../src/transport/flush-timing.js';

/** Batches that count flushes, a clock the test moves, and the policy between them. */
function setup() {
  const b = { waiting: 0, flushes: 0, flushAll(): void { this.flushes++; this.waiting = 0; } };
  let t = 1000;
  const clock = { reads: 0, advance: (ms: number) => { t += ms; } };
  const timing = new FlushTiming(b, () => { clock.reads++; return t; });
  return { b, clock, timing };
}

describe('flush timing of small messages', () => {
  const A = { name: 'A' };
  const B = { name: 'B' };
  const short = SHORT_TASK_MS / 4;

  it('reads no clock and flushes nothing while nothing waits', () => {
    const { b, clock, timing } = setup();
    for (let i = 0; i < 10; i++) timing.afterTask(A, A);
    expect(b.flushes).to.equal(0);
    expect(clock.reads).to.equal(0);
  });

  it('sends at once after a task when the next is of a kind never timed, or none is ready', () => {
    const { b, timing } = setup();
    b.waiting = 1;
    timing.afterTask(A, B);
    expect(b.flushes).to.equal(1);
    b.waiting = 1;
    timing.afterTask(A, undefined);
    expect(b.flushes).to.equal(2);
  });

  it('holds while short tasks follow, until the oldest message has waited its bound', () => {
    const { b, clock, timing } = setup();
    b.waiting = 1;
    timing.afterTask(A, A); // A not timed yet: sent
    expect(b.flushes).to.equal(1);
    let held = 0;
    for (let i = 0; i < 1000 && b.flushes === 1; i++) {
      b.waiting++;
      clock.advance(short);
      timing.afterTask(A, A);
      if (b.flushes === 1) held++;
    }
    expect(b.flushes).to.equal(2);
    // the first task after the flush is timed and sends; the rest hold until HOLD_MS passed
    expect(held).to.be.within(Math.floor(HOLD_MS / short) - 2, Math.ceil(HOLD_MS / short) + 1);
    expect(held).to.be.greaterThan(3);
  });

  it('sends before a task of a kind that ran long, and when nothing follows', () => {
    const { b, clock, timing } = setup();
    b.waiting = 1;
    timing.afterTask(B, A); // B never timed: sent
    clock.advance(SHORT_TASK_MS * 3);
    b.waiting = 1;
    timing.afterTask(B, A); // B timed long now; A still unknown: sent
    clock.advance(short);
    b.waiting = 1;
    timing.afterTask(A, B); // A timed short, B long: sent
    expect(b.flushes).to.equal(3);
    clock.advance(short);
    b.waiting = 1;
    timing.afterTask(A, A); // short after short: held
    expect(b.flushes).to.equal(3);
    clock.advance(short);
    b.waiting = 2;
    timing.afterTask(A, undefined); // nothing ready: sent
    expect(b.flushes).to.equal(4);
  });

  it('does not time a task that ran after one with nothing waiting (its start is unknown)', () => {
    const { b, clock, timing } = setup();
    timing.afterTask(A, A); // nothing waits
    clock.advance(SHORT_TASK_MS * 100); // a long gap: the next end says nothing of A's length
    b.waiting = 1;
    timing.afterTask(A, A); // not timed: A unknown, sent
    expect(b.flushes).to.equal(1);
    clock.advance(short);
    b.waiting = 1;
    timing.afterTask(A, A); // timed short: held
    expect(b.flushes).to.equal(1);
  });
});
