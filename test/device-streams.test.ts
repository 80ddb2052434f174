/**
 * Stream placement (StreamManager.pick) in isolation: least-loaded first, with affinity to the
 * stream that last wrote a task's buffers when that stream is at most one task busier.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import type { Backend } from '../src/device/backend.js';
import { StreamManager } from '../src/device/streams.js';

function manager(streams: number): StreamManager {
  const backend = { name: 'host', devices: 2, streamsPerDevice: streams, capacity: [Infinity, Infinity], inPlace: true } as unknown as Backend;
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
});
