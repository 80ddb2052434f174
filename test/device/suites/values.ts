/**
 * Buffers as parts of values, on the emulated backend (separate device memory): a host task sees
 * current data for buffers at any depth of its inputs, a host task that writes the buffers of a
 * consumable input makes the host copy the only current one, and a consuming task that has to
 * copy a shared buffer copies its current data.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { forEachBuffer } from '../../../src/device/migrate.js';
import { expectTtgError, fence, rejection } from '../../helpers.js';
import { devices, onSuiteDevices } from './suite.js';

/** A class whose instances keep a buffer in an own property. */
class Holder {
  readonly tag = 'holder';
  constructor(readonly data: ttg.Buffer) {}
}

/** Defines a describe for runs on `n` emulated devices only (test/device/backends.test.ts makes one of each). */
function onDevices(n: number, title: string, fn: () => void): void {
  if (devices === n) describe(title, () => {
    onSuiteDevices();
    fn();
  });
}

onDevices(2, 'buffers inside values (emulated backend, 2 devices)', () => {

  it('forEachBuffer finds buffers in objects, arrays, Maps (keys and values), Sets and class instances, once each, through cycles', () => {
    const bs = Array.from({ length: 7 }, (_, i) => new ttg.Buffer(new Float64Array([i])));
    const cyclic: Record<string, unknown> = { b: bs[0] };
    cyclic['self'] = cyclic;
    cyclic['again'] = [cyclic, bs[0]];
    let deep: unknown = bs[6];
    for (let i = 0; i < 100_000; i++) deep = { next: deep };   // deeper than any recursion could go
    const value = {
      inner: { db: bs[1] },
      list: [[[bs[2]]]],
      map: new Map<unknown, unknown>([[bs[3], 'key'], ['v', { x: bs[4] }]]),
      set: new Set([new Holder(bs[5]!)]),
      cyclic,
      deep,
      typed: new Float64Array(4),
    };
    const found: Array<[number, number]> = [];
    forEachBuffer([value, bs[1]], (b, i) => found.push([Number(b.host[0]), i]));
    expect(found.sort((a, b) => a[1] - b[1] || a[0] - b[0])).to.deep.equal([[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0], [1, 1]]);
  });

  it('a host task sees current data of buffers at any depth that a device task wrote and did not copy back', async () => {
    type Deep = { inner: { db: ttg.Buffer }; map: Map<string, ttg.Buffer>; set: Set<Holder>; rows: ttg.Buffer[][] };
    const make = (x: number) => new ttg.Buffer(new Float64Array(16).fill(x));
    const v: Deep = { inner: { db: make(1) }, map: new Map([['m', make(2)]]), set: new Set([new Holder(make(3))]), rows: [[make(4)]] };
    const all = (d: Deep) => [d.inner.db, d.map.get('m')!, [...d.set][0]!.data, d.rows[0]![0]!];
    const go = new ttg.Edge<number, Deep>('dv-go');
    const toHost = new ttg.Edge<number, Deep>('dv-host');
    const seen: number[] = [];
    const dev = ttg.make_tt(function* (k: number, d: Deep, out) {
      const { stream } = (yield ttg.device.input(all(d))) as ttg.device.InputResult;
      for (const b of all(d)) ttg.device.kernels.dscal(stream, 16, 10, b);
      yield ttg.device.kernel();   // nothing copied back here
      out.send(0, k, d);
    }, [go], [toHost], { name: 'dv-dev' });
    const host = ttg.make_tt((_k: number, d: Deep) => {
      for (const b of all(d)) seen.push(b.host[0]!, b.host[15]!);
    }, [toHost], [], { name: 'dv-host' });
    ttg.make_graph_executable(dev, host);
    dev.invoke(0, v);
    await fence();
    expect(seen).to.deep.equal([10, 10, 20, 20, 30, 30, 40, 40]);
  });

  it('device -> host -> device chains keep every increment: a host task writing a consumable input drops the device copies', async () => {
    const ROUNDS = 6;
    const n = 32;
    const ones = new ttg.Buffer(new Float64Array(n).fill(1));
    const toDev = new ttg.Edge<number, { y: ttg.Buffer }>('hw-dev');
    const toHost = new ttg.Edge<number, { y: ttg.Buffer }>('hw-host');
    const hostSaw: number[] = [];
    const dev = ttg.make_tt(function* (k: number, v: { y: ttg.Buffer }, out) {
      const { stream } = (yield ttg.device.input(ones, v.y)) as ttg.device.InputResult;
      ttg.device.kernels.daxpy(stream, n, 1, ones, v.y);
      yield ttg.device.kernel(k % 2 === 0 ? [v.y] : []);   // every other round copies back at the wait
      if (k < ROUNDS) out.send(0, k, v);
    }, [toDev], [toHost], { name: 'hw-dev' }).set_devicehint((k) => Math.floor(k / 2) % 2);  // both devices, each twice in a row
    const host = ttg.make_tt((k: number, v: { y: ttg.Buffer }, out) => {
      hostSaw.push(v.y.host[0]!);
      for (let i = 0; i < n; i++) v.y.host[i]! += 1;
      out.send(0, k + 1, v);
    }, [toHost], [toDev], { name: 'hw-host', consume: [0] });
    ttg.make_graph_executable(dev, host);
    const y = new ttg.Buffer(n);
    dev.invoke(0, { y });
    await fence();
    await y.toHost();
    expect(hostSaw).to.deep.equal([1, 3, 5, 7, 9, 11]);
    expect([...y.host]).to.deep.equal(Array(n).fill(2 * ROUNDS + 1));
  });

  it('a consuming device task that must copy a shared buffer copies its current data, not a stale host copy', async () => {
    const n = 8;
    const src = new ttg.Edge<number, ttg.Buffer>('cp-src');
    const fan = new ttg.Edge<number, ttg.Buffer>('cp-fan');
    const got: number[][] = [];
    const write = ttg.make_tt(function* (k: number, b: ttg.Buffer, out) {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, n, 7, b);
      yield ttg.device.kernel();   // current only on the device now
      out.broadcast(0, [2, 3], b);
    }, [src], [fan], { name: 'cp-write' });
    const use = ttg.make_tt(function* (k: number, b: ttg.Buffer) {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, n, k, b);
      yield ttg.device.kernel(b);
      got.push([k, b.host[0]!, b.host[n - 1]!]);
    }, [fan], [], { name: 'cp-use', consume: [0] });
    ttg.make_graph_executable(write, use);
    write.invoke(0, new ttg.Buffer(new Float64Array(n).fill(1)));
    await fence();
    expect(got.sort((a, b) => a[0]! - b[0]!)).to.deep.equal([[2, 14, 14], [3, 21, 21]]);
  });
});

onDevices(1, 'read-only inputs of host tasks (emulated backend, 1 device)', () => {

  /** D(k) doubles `y` on the device and copies it back, then hands it to `H` on its terminal 1 (read-only). */
  function graph(name: string, host: (k: number, tag: string, y: ttg.Buffer) => void | Promise<void>) {
    const go = new ttg.Edge<number, ttg.Buffer>(`${name}-go`);
    const tag = new ttg.Edge<number, string>(`${name}-tag`);
    const ro = new ttg.Edge<number, ttg.Buffer>(`${name}-ro`);
    const d = ttg.make_tt(function* (k: number, y: ttg.Buffer, out) {
      const { stream } = (yield ttg.device.input(y)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, y.length, 2, y);
      yield ttg.device.kernel(y);   // valid on the host and on the device now
      out.send(0, k, y);
      out.send(1, k, 'tag');
    }, [go], [ro, tag], { name: `${name}-D` });
    const h = ttg.make_tt(host, [tag, ro], [], { name: `${name}-H` });
    ttg.make_graph_executable(d, h);
    return d;
  }

  for (const kind of ['plain', 'async'] as const) {
    it(`a ${kind} host task that writes a buffer of a read-only input fails with E_READ_ONLY naming TT, terminal and key; the device copy is dropped`, async () => {
      const write = (y: ttg.Buffer) => { y.host[3] = 99; };
      const d = graph(`ro-${kind}`, kind === 'plain' ? (_k, _t, y) => write(y) : async (_k, _t, y) => { await Promise.resolve(); write(y); });
      const y = new ttg.Buffer(new Float64Array(8).fill(1));
      d.invoke(5, y);
      expectTtgError(await rejection(fence()), 'E_READ_ONLY', [`'ro-${kind}-H'`, 'terminal 1', 'key 5', 'consume: [1]']);
      expect(y.devices).to.deep.equal([]);
      expect([...y.host]).to.deep.equal([2, 2, 2, 99, 2, 2, 2, 2]);
    });
  }

  it('a host task that only reads a read-only input runs normally and the device copy stays in use', async () => {
    const seen: number[] = [];
    const d = graph('ro-reads', (_k, _t, y) => { seen.push(y.host[0]!); });
    const y = new ttg.Buffer(new Float64Array(8).fill(1));
    d.invoke(1, y);
    await fence();
    expect(seen).to.deep.equal([2]);
    expect(y.devices).to.deep.equal([0]);
  });
});

onDevices(1, 'private copies of values that hold buffers (emulated backend, 1 device)', () => {

  it('a shared consumable value holding a buffer two levels down is copied as a Buffer with the current data, not aliased', async () => {
    type V = { inner: { b: ttg.Buffer }; byName: Map<string, Holder> };
    const n = 4;
    const src = new ttg.Edge<number, V>('cpn-src');
    const fan = new ttg.Edge<number, V>('cpn-fan');
    const got: Array<[number, number, boolean, boolean]> = [];
    const write = ttg.make_tt(function* (_k: number, v: V, out) {
      const { stream } = (yield ttg.device.input(v.inner.b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, n, 7, v.inner.b);
      yield ttg.device.kernel();   // current only on the device now
      out.broadcast(0, [2, 3], v);
    }, [src], [fan], { name: 'cpn-write' });
    const use = ttg.make_tt(function* (k: number, v: V) {
      const { stream } = (yield ttg.device.input(v.inner.b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, n, k, v.inner.b);
      yield ttg.device.kernel(v.inner.b);
      got.push([k, v.inner.b.host[n - 1]!, v.inner.b instanceof ttg.Buffer, v.byName.get('h') instanceof Holder]);
    }, [fan], [], { name: 'cpn-use', consume: [0] });
    ttg.make_graph_executable(write, use);
    write.invoke(0, { inner: { b: new ttg.Buffer(new Float64Array(n).fill(1)) }, byName: new Map([['h', new Holder(new ttg.Buffer(1))]]) });
    await fence();
    expect(got.sort((a, b) => a[0] - b[0])).to.deep.equal([[2, 14, true, true], [3, 21, true, true]]);
  });
});
