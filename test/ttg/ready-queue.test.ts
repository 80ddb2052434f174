/**
 * The ready queue against a plain reference (sort by priority, then arrival), over random mixes of
 * pushes and shifts: priority 0, negative, fractional and repeated priorities, -0, long runs of one
 * priority that never empties, and a queue emptied and filled again.
 */
import { expect } from 'chai';

import { xorshift32 } from '../../bench/lib/xorshift.js';
import { ReadyQueue, type Prioritized } from '../../src/ttg/run/ready-queue.js';

interface Item extends Prioritized { id: number }

/** Uniform in [0, 1) from `seed`. */
function rng(seed: number): () => number {
  const next = xorshift32(seed);
  return () => next() / 2 ** 32;
}

/** The item the reference would take next: highest priority, then earliest arrival. */
function takeReference(ref: Item[]): Item | undefined {
  let best = -1;
  for (let i = 0; i < ref.length; i++) {
    const x = ref[i]!;
    const b = ref[best];
    if (b === undefined || x.prio > b.prio || (x.prio === b.prio && x.seq < b.seq)) best = i;
  }
  return best < 0 ? undefined : ref.splice(best, 1)[0];
}

describe('ready queue', () => {
  const PRIOS = [0, 0, 0, -0, 1, 2, -1, -7, 0.5, 1e9, -1e9, 3, 3, 3];

  for (const seed of [1, 2, 3, 4, 5]) {
    it(`takes items by priority, then arrival, as a reference does (seed ${seed})`, () => {
      const r = rng(seed);
      const q = new ReadyQueue<Item>();
      const ref: Item[] = [];
      let seq = 0;
      for (let step = 0; step < 20_000; step++) {
        // phases of mostly pushing, then mostly shifting, so the queue empties now and then
        const pushing = Math.floor(step / 2000) % 2 === 0 ? r() < 0.7 : r() < 0.3;
        if (pushing) {
          const prio = seed === 5 ? -3 : PRIOS[Math.floor(r() * PRIOS.length)]!;
          const item = { prio, seq: seq++, id: step };
          q.push(item);
          ref.push(item);
        } else {
          const peeked = q.peek();
          const got = q.shift();
          expect(got).to.equal(peeked);
          expect(got?.id, `step ${step}`).to.equal(takeReference(ref)?.id);
        }
        expect(q.size).to.equal(ref.length);
      }
      expect([...q.items(Infinity)].length).to.equal(ref.length);
      const rest = q.drain().map((x) => x.id);
      const want: number[] = [];
      for (let x = takeReference(ref); x !== undefined; x = takeReference(ref)) want.push(x.id);
      expect(rest).to.deep.equal(want);
      expect(q.size).to.equal(0);
      expect(q.shift()).to.equal(undefined);
      expect(q.peek()).to.equal(undefined);
    });
  }

  it('keeps one priority that never empties in order, without keeping what it gave out', () => {
    const q = new ReadyQueue<Item>();
    let seq = 0;
    let next = 0;
    for (let i = 0; i < 100; i++) q.push({ prio: -2, seq: seq++, id: seq });
    for (let round = 0; round < 50_000; round++) {
      q.push({ prio: -2, seq: seq++, id: seq });
      expect(q.shift()!.seq).to.equal(next++);
    }
    expect(q.size).to.equal(100);
    const held = (q as unknown as { heap: Array<{ items: unknown[] }> }).heap[0]!.items.length;
    expect(held, 'the bucket is compacted as it goes').to.be.below(5000);
  });
});
