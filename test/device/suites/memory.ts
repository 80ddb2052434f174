/**
 * The memory manager through the `emulated` backend (separate device memory with a small
 * capacity, explicit asynchronous copies): oversubscription with LRU eviction and copy-back,
 * migration to the host for host tasks, read-only replicas on two devices, and the error for a
 * task whose pinned set can never fit.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectTtgError, fence, rejection } from '../../helpers.js';
import { devices, onSuiteDevices } from './suite.js';

const KiB = 1024;
/** Tests of copies on two devices: defined only for runs with two (a one-GPU run leaves them out). */
const itTwo = (title: string, fn: Mocha.AsyncFunc): void => { if (devices >= 2) it(title, fn); };

describe('device memory manager (emulated or cuda backend)', () => {
  onSuiteDevices(); // run with TTG_DEVICE=emulated:2:256KiB (or cuda:1:256KiB)

  it('an oversubscribed working set (4x the memory of both devices) completes with exact results and evictions', async function () {
    this.timeout(30000);
    const N = 4096, TILES = 64, STEPS = 4;  // 64 tiles x 32 KiB = 2 MiB against 2 x 256 KiB
    const tiles = Array.from({ length: TILES }, (_, t) => new ttg.Buffer(new Float64Array(N).map((_, i) => t + i)));
    const ones = new ttg.Buffer(new Float64Array(N).fill(1));
    const e = new ttg.Edge<[number, number], ttg.Buffer>('os-e');
    const tt = ttg.make_tt(function* (key: [number, number], X: ttg.Buffer, out) {
      const { stream } = (yield ttg.device.input(X, ones)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, N, 2, X);          // X = 2X + 1, STEPS times
      ttg.device.kernels.daxpy(stream, N, 1, ones, X);
      yield ttg.device.kernel();                           // no copy-back: eviction must write back
      if (key[1] + 1 < STEPS) out.send(0, [key[0], key[1] + 1], X);
    }, [e], [e], { name: 'os' });
    ttg.make_graph_executable(tt);
    const before = ttg.device.stats();
    for (let t = 0; t < TILES; t++) tt.invoke([t, 0], tiles[t]!);
    await fence();
    await Promise.all(tiles.map((b) => b.toHost()));
    const s = ttg.device.stats();
    for (let t = 0; t < TILES; t++) {
      const x = tiles[t]!.host;
      for (const i of [0, 1, N - 1]) expect(x[i]).to.equal((t + i) * 2 ** STEPS + (2 ** STEPS - 1));
    }
    expect(s.evictions - before.evictions).to.be.greaterThan(TILES);
    for (const d of s.per_device) expect(d.evictions, 'evictions on every device').to.be.greaterThan(0);
    for (const d of s.per_device) expect(d.used_bytes).to.be.at.most(d.capacity);
  });

  it('a buffer written on a device is migrated to the host before a plain host task reads it', async () => {
    const X = new ttg.Buffer(new Float64Array([1, 2, 3, 4]));
    const toHost = new ttg.Edge<number, ttg.Buffer>('mg-host');
    const go = new ttg.Edge<number, ttg.Buffer>('mg-go');
    let seen: number[] = [];
    let validWhenRun = false;
    const dev = ttg.make_tt(function* (k: number, b: ttg.Buffer, out) {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, 4, 10, b);
      yield ttg.device.kernel();   // nothing copied back here
      out.send(0, k, b);
    }, [go], [toHost], { name: 'mg-dev' });
    const host = ttg.make_tt((_k: number, b: ttg.Buffer) => {
      validWhenRun = b.validOnHost;
      seen = [...b.host];
    }, [toHost], [], { name: 'mg-host' });
    ttg.make_graph_executable(dev, host);
    const d2h = ttg.device.stats().d2h_bytes;
    dev.invoke(0, X);
    await fence();
    expect(validWhenRun).to.equal(true);
    expect(seen).to.deep.equal([10, 20, 30, 40]);
    expect(ttg.device.stats().d2h_bytes - d2h).to.equal(32);
  });

  it('values holding buffers as properties or array elements migrate too', async () => {
    const a = new ttg.Buffer(new Float64Array([1])), b = new ttg.Buffer(new Float64Array([2]));
    const go = new ttg.Edge<number, { t: ttg.Buffer; list: ttg.Buffer[] }>('mgv-go');
    const toHost = new ttg.Edge<number, { t: ttg.Buffer; list: ttg.Buffer[] }>('mgv-host');
    const got: number[] = [];
    const dev = ttg.make_tt(function* (k: number, v: { t: ttg.Buffer; list: ttg.Buffer[] }, out) {
      const { stream } = (yield ttg.device.input(v.t, v.list)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, 1, 3, v.t);
      ttg.device.kernels.dscal(stream, 1, 5, v.list[0]!);
      yield ttg.device.kernel();
      out.send(0, k, v);
    }, [go], [toHost], { name: 'mgv-dev' });
    const host = ttg.make_tt(async (_k: number, v: { t: ttg.Buffer; list: ttg.Buffer[] }) => {
      got.push(v.t.host[0]!, v.list[0]!.host[0]!);
    }, [toHost], [], { name: 'mgv-host' });
    ttg.make_graph_executable(dev, host);
    dev.invoke(0, { t: a, list: [b] });
    await fence();
    expect(got).to.deep.equal([3, 10]);
  });

  itTwo('a buffer read by tasks on two devices has valid read-only copies on both', async () => {
    const X = new ttg.Buffer(new Float64Array(64).fill(2));
    const Ys = [new ttg.Buffer(64), new ttg.Buffer(64)];
    const e = new ttg.Edge<number, number>('ro-e');
    const devices: number[] = [];
    let bothValid = false;
    let arrived = 0;
    let release!: () => void;
    const bothIn = new Promise<void>((r) => { release = r; });
    const tt = ttg.make_tt(async function* (k: number) {
      const Y = Ys[k]!;
      const { stream, device } = (yield ttg.device.input(X, Y)) as ttg.device.InputResult;
      devices.push(device);
      if (++arrived === 2) { bothValid = X.devices.length === 2; release(); }
      yield bothIn;   // both tasks hold X at the same time
      ttg.device.kernels.daxpy(stream, 64, k + 1, X, Y);
      yield ttg.device.kernel(Y);
    }, [e], [], { name: 'ro' }).set_devicehint((k) => k);
    ttg.make_graph_executable(tt);
    const h2d = ttg.device.stats().h2d_bytes;
    tt.invoke(0, 0);
    tt.invoke(1, 0);
    await fence();
    expect(devices.sort()).to.deep.equal([0, 1]);
    expect(bothValid).to.equal(true);
    expect(X.validOnHost).to.equal(true);
    expect([...Ys[0]!.host.slice(0, 2)]).to.deep.equal([2, 2]);
    expect([...Ys[1]!.host.slice(0, 2)]).to.deep.equal([4, 4]);
    expect(ttg.device.stats().h2d_bytes - h2d).to.equal(4 * 64 * 8);  // X twice, each Y once
  });

  itTwo('writing a replicated buffer on one device invalidates the other copies', async () => {
    const X = new ttg.Buffer(new Float64Array(8).fill(1));
    const e = new ttg.Edge<number, number>('inv-e');
    const order: number[] = [];
    const tt = ttg.make_tt(function* (k: number, _v: number, out) {
      const { stream } = (yield ttg.device.input(X)) as ttg.device.InputResult;
      if (k === 1) ttg.device.kernels.dscal(stream, 8, 7, X);
      yield ttg.device.kernel();
      order.push(k);
      if (k === 0) out.send(0, 1, 0);
    }, [e], [e], { name: 'inv' }).set_devicehint((k) => k);
    ttg.make_graph_executable(tt);
    tt.invoke(0, 0);
    await fence();
    expect(order).to.deep.equal([0, 1]);
    expect(X.devices).to.deep.equal([1]);
    expect(X.validOnHost).to.equal(false);
    expect(X.last_writer).to.equal(1);
    await X.toHost();
    expect(X.host[0]).to.equal(7);
  });

  it('a task whose pinned buffers exceed the device memory fails with E_DEVICE_MEMORY, not a hang', async () => {
    const big = [new ttg.Buffer(20 * KiB), new ttg.Buffer(20 * KiB)];  // 2 x 160 KiB > 256 KiB
    const e = new ttg.Edge<number, number>('pin-e');
    const tt = ttg.make_tt(function* () {
      yield ttg.device.input(big);
    }, [e], [], { name: 'pin' });
    ttg.make_graph_executable(tt);
    tt.invoke(3, 0);
    const err = expectTtgError(await rejection(fence()), 'E_DEVICE_MEMORY', ["'pin'", 'key 3', '327680 bytes', '262144']);
    expect(err.key).to.equal(3);
    // The device is usable afterwards.
    const X = new ttg.Buffer(new Float64Array([1]));
    const e2 = new ttg.Edge<number, number>('pin-after');
    const ok = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(X)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, 1, 4, X);
      yield ttg.device.kernel(X);
    }, [e2], [], { name: 'pin-after' });
    ttg.make_graph_executable(ok);
    ok.invoke(0, 0);
    await fence();
    expect(X.host[0]).to.equal(4);
  });

  it('scratch buffers are never copied in or out', async () => {
    const S = ttg.device.make_scratch(512);
    const X = new ttg.Buffer(new Float64Array(512).fill(1));
    const e = new ttg.Edge<number, number>('scr-e');
    const tt = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(X, S)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, 512, 0, S);
      ttg.device.kernels.daxpy(stream, 512, 3, X, S);
      ttg.device.kernels.daxpy(stream, 512, 1, S, X);
      yield ttg.device.kernel(X, S);
    }, [e], [], { name: 'scr' });
    ttg.make_graph_executable(tt);
    const s0 = ttg.device.stats();
    tt.invoke(0, 0);
    await fence();
    const s1 = ttg.device.stats();
    expect(X.host[0]).to.equal(4);
    expect(s1.h2d_bytes - s0.h2d_bytes).to.equal(512 * 8);
    expect(s1.d2h_bytes - s0.d2h_bytes).to.equal(512 * 8);
  });
});
