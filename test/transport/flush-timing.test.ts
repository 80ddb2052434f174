/**
 * When the small messages a task left waiting leave: at once after a task that is not one of a run
 * of senders, before a task of a kind not known to be short, when no task is ready, and once the
 * oldest has waited its bound; held while short sending tasks follow each other.
 */
import { expect } from 'chai';

import { FlushTiming, HOLD_MS, SHORT_TASK_MS } from '../../src/transport/flush-timing.js';

/** Batches that count flushes, a clock the test moves, and the policy between them. */
function setup() {
  const b = {
    waiting: 0,
    added: 0,
    flushes: 0,
    flushAll(): void {
      this.flushes++;
      this.waiting = 0;
    },
    /** A task's small message. */
    add(): void {
      this.waiting++;
      this.added++;
    },
  };
  let t = 1000;
  const clock = { reads: 0, advance: (ms: number) => { t += ms; } };
  const timing = new FlushTiming(b, () => {
    clock.reads++;
    return t;
  });
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
    b.add();
    timing.afterTask(A, B);
    expect(b.flushes).to.equal(1);
    b.add();
    timing.afterTask(A, undefined);
    expect(b.flushes).to.equal(2);
  });

  it('holds while short sending tasks follow each other, until the oldest message has waited its bound', () => {
    const { b, clock, timing } = setup();
    b.add();
    timing.afterTask(A, A); // A not timed yet: sent
    expect(b.flushes).to.equal(1);
    let held = 0;
    for (let i = 0; i < 1000 && b.flushes === 1; i++) {
      b.add();
      clock.advance(short);
      timing.afterTask(A, A);
      if (b.flushes === 1) held++;
    }
    expect(b.flushes).to.equal(2);
    expect(held).to.be.within(Math.floor(HOLD_MS / short) - 2, Math.ceil(HOLD_MS / short) + 1);
    expect(held).to.be.greaterThan(3);
  });

  it('sends at once what one sender among tasks that send nothing left (a stencil\'s boundary task)', () => {
    const { b, clock, timing } = setup();
    // A is known to run short: two senders in a row, the second timed and held, then nothing ready
    b.add();
    timing.afterTask(A, A);
    clock.advance(short);
    b.add();
    timing.afterTask(A, A);
    expect(b.waiting).to.equal(1);
    timing.afterTask(A, undefined);
    b.flushes = 0;
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 7; i++) {
        clock.advance(short);
        timing.afterTask(A, A);
      }
      clock.advance(short);
      b.add();
      timing.afterTask(A, A);
      expect(b.waiting, `round ${round}`).to.equal(0);
    }
    expect(b.flushes).to.equal(20);
  });

  it('sends before a task of a kind that ran long, and when nothing follows', () => {
    const { b, clock, timing } = setup();
    b.add();
    timing.afterTask(B, A); // B never timed: sent
    clock.advance(SHORT_TASK_MS * 3);
    b.add();
    timing.afterTask(B, A); // B timed long now; A still unknown: sent
    clock.advance(short);
    b.add();
    timing.afterTask(A, B); // A timed short, B long: sent
    expect(b.flushes).to.equal(3);
    clock.advance(short);
    b.add();
    timing.afterTask(A, A); // short after short, both sent: held
    expect(b.flushes).to.equal(3);
    clock.advance(short);
    b.add();
    timing.afterTask(A, undefined); // nothing ready: sent
    expect(b.flushes).to.equal(4);
  });

  it('does not time a task that ran after one with nothing waiting (its start is unknown)', () => {
    const { b, clock, timing } = setup();
    timing.afterTask(A, A); // nothing waits
    clock.advance(SHORT_TASK_MS * 100); // a long gap: the next end says nothing of A's length
    b.add();
    timing.afterTask(A, A); // not timed: A unknown, sent
    expect(b.flushes).to.equal(1);
    clock.advance(short);
    b.add();
    timing.afterTask(A, A); // timed short, a second sender in a row: held
    expect(b.flushes).to.equal(1);
  });
});
