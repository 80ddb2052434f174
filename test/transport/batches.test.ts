/**
 * The buffers of small messages (transport/batches.ts) without MPI: what leaves when, in which
 * order, alone or together, and a damaged batch named rather than misread.
 */
import { expect } from 'chai';

import { Batches, forEachInBatch, isBatch } from '../../src/transport/batches.js';

interface Sent { dest: number; header: Uint8Array; count: number }

function batches(size: number, limit: number): { b: Batches; sent: Sent[] } {
  const sent: Sent[] = [];
  // copied: the buffer is reused after each send, as the addon copies a header
  const b = new Batches(size, limit, (dest, header, count) => sent.push({ dest, header: header.slice(), count }));
  return { b, sent };
}

const msg = (...bytes: number[]): Uint8Array => Uint8Array.from(bytes);
const inside = (h: Uint8Array): number[][] => {
  const out: number[][] = [];
  forEachInBatch(h, (b, at, end) => out.push(Array.from(b.subarray(at, end))));
  return out;
};

describe('small messages in batches', () => {
  it('keeps messages per destination in order and sends each destination one batch', () => {
    const { b, sent } = batches(3, 1024);
    b.add(1, msg(0x93, 1, 2));
    b.add(2, msg(0x93, 9));
    b.add(1, msg(0x93, 3));
    expect(b.has(1)).to.equal(true);
    expect(b.has(0)).to.equal(false);
    b.flushAll();
    expect(sent.map((s) => [s.dest, s.count])).to.deep.equal([[1, 2], [2, 1]]);
    expect(isBatch(sent[0]!.header)).to.equal(true);
    expect(inside(sent[0]!.header)).to.deep.equal([[0x93, 1, 2], [0x93, 3]]);
    // one message alone travels as itself
    expect(Array.from(sent[1]!.header)).to.deep.equal([0x93, 9]);
    expect(isBatch(sent[1]!.header)).to.equal(false);
    expect(b.has(1) || b.has(2)).to.equal(false);
  });

  it('sends a destination\'s buffer once it reaches the limit, and the rest later', () => {
    const { b, sent } = batches(2, 20);
    for (let i = 0; i < 5; i++) b.add(1, msg(0x92, i, i, i));
    expect(sent.length).to.equal(1);
    expect(inside(sent[0]!.header).map((m) => m[1])).to.deep.equal([0, 1, 2]);
    b.flushAll();
    expect(inside(sent[1]!.header).map((m) => m[1])).to.deep.equal([3, 4]);
  });

  it('counts what waits, flushAll sends it and nothing when nothing does; a microtask sends what was left', async () => {
    const { b, sent } = batches(2, 1024);
    b.flushAll();
    expect(sent).to.deep.equal([]);
    b.add(0, msg(0x91, 5));
    b.add(0, msg(0x91, 6));
    expect(b.waiting).to.equal(2);
    b.flushAll();
    expect(sent.length).to.equal(1);
    expect(b.waiting).to.equal(0);
    b.add(1, msg(0x91, 7));
    await Promise.resolve();
    expect(sent.map((s) => s.dest)).to.deep.equal([0, 1]);
  });

  it('names a damaged batch instead of misreading it', () => {
    const { b, sent } = batches(1, 1024);
    b.add(0, msg(0x92, 1));
    b.add(0, msg(0x92, 2, 3));
    b.flushAll();
    const h = sent[0]!.header;
    expect(() => forEachInBatch(h.subarray(0, h.length - 1), () => {})).to.throw(/holds a message of 3 bytes/);
    expect(() => forEachInBatch(h.subarray(0, 4), () => {})).to.throw(/ends inside the length/);
  });
});
