/**
 * StreamManager in isolation: stream placement (pick: least-loaded first, with affinity to the
 * stream that last wrote a task's buffers when that stream is at most one task busier), and how
 * completion batches run the markers' callbacks.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import type { Backend } from '../../src/device/backend.js';
import { StreamManager } from '../../src/device/streams.js';

/** Notify ids the manager enqueued (in order), through a stand-in for the addon's devOps (slot 12 of 17 per op). */
const enqueued: number[] = [];

function manager(streams: number): StreamManager {
  const native = {
    devOps: (pack: Float64Array, _views: unknown, from: number, to: number) => {
      for (let i = from; i < to; i++) enqueued.push(pack[i * 17 + 12]!);
    },
  };
  const backend = { name: 'host', devices: 2, places: 2, hostPlace: -1, streamsOf: [streams, streams], learned: false, streamsPerDevice: streams, capacity: [Infinity, Infinity], inPlace: true, native } as unknown as Backend;
  return new StreamManager(backend);
}

function written(m: StreamManager, device: number, stream: number, length: number): ttg.Buffer {
  const b = new ttg.Buffer(length);
  b.lastWriterStream = m.byDevice[device]![stream]!.id;
  return b;
}

describe('device stream placement', () => {
  it('without written buffers: the least-loaded stream, the first among equals', () => {
    const m = manager(3);
    const [s0, s1, s2] = m.byDevice[0]!;
    expect(m.pick(0)).to.equal(s0);
    s0!.load = 2;
    s1!.load = 1;
    s2!.load = 1;
    expect(m.pick(0, [new ttg.Buffer(8)])).to.equal(s1);
  });

  it('prefers the stream that wrote the buffers while it carries at most one task more', () => {
    const m = manager(2);
    const [s0, s1] = m.byDevice[0]!;
    const b = written(m, 0, 1, 16);
    expect(m.pick(0, [b])).to.equal(s1);
    s1!.load = 1;
    expect(m.pick(0, [b]), 'one task more: still the writer').to.equal(s1);
    s1!.load = 2;
    expect(m.pick(0, [b]), 'two tasks more: the least loaded').to.equal(s0);
  });

  it('among writers, the one that wrote the most bytes; writers on another device do not count', () => {
    const m = manager(2);
    const [, s1] = m.byDevice[0]!;
    const small = written(m, 0, 0, 8);
    const big = written(m, 0, 1, 64);
    expect(m.pick(0, [small, big])).to.equal(s1);
    const elsewhere = written(m, 1, 0, 1024);
    expect(m.pick(0, [small, elsewhere])).to.equal(m.byDevice[0]![0]);
  });

  it('a completion batch runs each marker callback once, all of them even when one throws, then rethrows the first error', () => {
    const m = manager(1);
    const s0 = m.byDevice[0]![0]!;
    const ran: string[] = [];
    enqueued.length = 0;
    m.marker(s0, () => ran.push('a'));
    m.marker(s0, () => {
      ran.push('b');
      throw new Error('first');
    });
    m.marker(s0, () => {
      ran.push('c');
      throw new Error('second');
    });
    m.marker(s0, () => ran.push('d'));
    expect(enqueued).to.have.length(4);
    expect(() => m.onDone(Float64Array.from(enqueued))).to.throw('first');
    expect(ran).to.deep.equal(['a', 'b', 'c', 'd']);
    m.onDone(Float64Array.from(enqueued));
    expect(ran, 'a reported id runs nothing twice').to.have.length(4);
  });
});
