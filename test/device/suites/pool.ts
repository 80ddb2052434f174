/**
 * The device memory pool (src/device/pool.ts) through the emulated or cuda backend with a small
 * capacity: tiles of one size reuse their blocks across evictions and phases with few native
 * allocations; a storm of mixed sizes (one larger than any slab, one of half the device) keeps
 * every element right; pins hold while others evict; an evicted copy comes back right; the real
 * allocator's refusals evict or fail as before; finalize frees every native allocation.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { loadNative } from '../../../src/native/addon.js';
import { deviceRuntime } from '../../../src/device/runtime.js';
import { expectTtgError, rejection, rng, tick, within } from '../../helpers.js';
import { capacity, edge, fence, FENCE_MS, gate, wholeDevice, wrong } from './hostile-kit.js';
import { devices, onSuiteDevices } from './suite.js';

/** Doubles per device: the suite's device memory, in elements. */
const cap = (d = 0): number => capacity(d) / 8;

/** Each pool may exceed its capacity by 1/32 of it (pool.ts, TOLERANCE) unless fragmentation forces a one-block slab. */
function expectPoolWithin(tag: string): void {
  for (const [d, s] of ttg.device.stats().per_device.entries()) {
    if (s.place !== 'device') continue;
    expect(s.used_bytes, `${tag}: used bytes on device ${d}`).to.be.at.most(s.capacity);
    expect(s.pool_bytes, `${tag}: pool bytes on device ${d} hold its copies`).to.be.at.least(s.used_bytes);
  }
}

/** Elements of `x` that are not `f(i)`, and the first of them. */
function wrongBy(x: Float64Array, f: (i: number) => number): { count: number; at?: number; got?: number; want?: number } {
  let count = 0, at: number | undefined;
  for (let i = 0; i < x.length; i++) if (x[i] !== f(i)) { if (count === 0) at = i; count++; }
  return count === 0 ? { count } : { count, at, got: x[at!], want: f(at!) };
}

/** A graph that multiplies each buffer it is given by 2, `rounds` times, on device `dev` (or any). */
function doubler(name: string, rounds: number, dev?: number) {  // eslint-disable-line @typescript-eslint/explicit-function-return-type
  const e = edge<[number, number], ttg.Buffer>(name);
  const tt = ttg.make_tt(function* (key: [number, number], X: ttg.Buffer, out) {
    const { stream } = (yield ttg.device.input(X)) as ttg.device.InputResult;
    ttg.device.kernels.dscal(stream, X.length, 2, X);
    yield ttg.device.kernel();   // no copy back: eviction and toHost() must bring the data home
    if (key[1] + 1 < rounds) out.send(0, [key[0], key[1] + 1], X);
  }, [e], [e], { name });
  if (dev !== undefined) tt.set_devicehint(() => dev);
  return tt;
}

describe('device memory pool (emulated or cuda backend)', () => {
  onSuiteDevices(); // run with TTG_DEVICE=emulated:2:256KiB:2 (or cuda:1:256KiB:2)

  it('tiles of one size, 3x oversubscribed: every element right, far fewer native allocations than copies, none in a second phase', async function () {
    this.timeout(30000);
    const N = cap() / 32, TILES = 3 * 32 * devices, ROUNDS = 3;   // tiles of 1/32 of a device
    const tiles = Array.from({ length: TILES }, (_, t) => new ttg.Buffer(new Float64Array(N).map((_, i) => t * N + i)));
    const tt = doubler('one-size', ROUNDS);
    ttg.make_graph_executable(tt);
    const s0 = ttg.device.stats();
    for (let t = 0; t < TILES; t++) tt.invoke([t, 0], tiles[t]!);
    await fence();
    await Promise.all(tiles.map((b) => b.toHost()));
    const s1 = ttg.device.stats();
    for (let t = 0; t < TILES; t++) expect(wrongBy(tiles[t]!.host, (i) => (t * N + i) * 2 ** ROUNDS), `tile ${t}`).to.deep.equal({ count: 0 });
    const allocs = s1.allocations - s0.allocations, reused = s1.reused - s0.reused;
    expect(s1.evictions - s0.evictions, 'evictions').to.be.greaterThan(TILES / 2);
    // geometric slabs: 1, 1, 2, 4, 4, ... blocks (a slab holds at most 1/8 of the device)
    expect(allocs, 'native allocations').to.be.at.most(12 * devices);
    expect(allocs + reused, 'copies placed: each tile at least once').to.be.at.least(TILES);
    expect(reused, 'blocks reused after evictions').to.be.at.least(s1.evictions - s0.evictions - 2 * devices);
    expectPoolWithin('one size');
    for (const s of s1.per_device) if (s.place === 'device') expect(s.pool_bytes, 'pool bytes').to.be.at.most(s.capacity * (1 + 1 / 32));
    // the same again in a new phase: the blocks are there already
    for (let t = 0; t < TILES; t++) tt.invoke([t, 0], tiles[t]!);
    await fence();
    await Promise.all(tiles.map((b) => b.toHost()));
    const s2 = ttg.device.stats();
    for (let t = 0; t < TILES; t++) expect(wrongBy(tiles[t]!.host, (i) => (t * N + i) * 4 ** ROUNDS), `tile ${t}, phase 2`).to.deep.equal({ count: 0 });
    expect(s2.allocations - s1.allocations, 'native allocations in the second phase').to.equal(0);
    expect(s2.reused - s1.reused, 'reused in the second phase').to.be.at.least(TILES);
    // the addon holds what the pool counts: no allocation leaked, none freed behind the pool's back
    expect(loadNative()!.devInfo().allocations, 'native allocations alive').to.be.at.most(s2.allocations).and.above(0);
  });

  it('a storm of mixed sizes (one larger than any slab, one of half the device) over three phases with host writes between: every element right, then one buffer takes the whole device', async function () {
    this.timeout(60000);
    const c = cap();
    // sizes in doubles: tiny, ragged, the slab limit (1/8 of the device), past it, half the device
    const sizes = [1, 7, 100, 1000, 1024, 1100, 1280, 3000, c / 8, c / 8 + 1000, c / 2];
    const random = rng(57);
    const bufs = Array.from({ length: 40 }, (_, t) => {
      const n = sizes[t % sizes.length]!;
      return new ttg.Buffer(new Float64Array(n).map((_, i) => t * 1e6 + i));
    });
    // buffer t holds (base[t] + i) * factor[t]
    const base = bufs.map((_, t) => t * 1e6), factor = bufs.map(() => 1);
    const ROUNDS = 2;
    const tt = doubler('mixed', ROUNDS);
    ttg.make_graph_executable(tt);
    for (let phase = 0; phase < 3; phase++) {
      const order = bufs.map((_, t) => t).sort(() => random() - 0.5);
      for (const t of order) tt.invoke([t, 0], bufs[t]!);
      await fence();
      await Promise.all(bufs.map((b) => b.toHost()));
      for (let t = 0; t < bufs.length; t++) {
        factor[t]! *= 2 ** ROUNDS;
        expect(wrongBy(bufs[t]!.host, (i) => (base[t]! + i) * factor[t]!), `buffer ${t} (${bufs[t]!.length} doubles), phase ${phase}`).to.deep.equal({ count: 0 });
      }
      expectPoolWithin(`phase ${phase}`);
      // the program writes every other buffer between fences: the next phase must copy it in again
      for (let t = phase % 2; t < bufs.length; t += 2) {
        base[t] = (phase + 1) * 1e8 + t * 1e6;
        factor[t] = 1;
        bufs[t]!.host.set(new Float64Array(bufs[t]!.length).map((_, i) => base[t]! + i));
      }
    }
    // everything is evictable now: a buffer of the whole device needs the slabs of every other size freed
    for (let d = 0; d < devices; d++) await wholeDevice(`mixed-whole-${d}`, d);
    expectPoolWithin('whole device');
  });

  it('a pinned copy written on the device survives a storm that evicts everything else, then is evicted (copied home) and used again', async function () {
    this.timeout(30000);
    const N = cap() / 4;
    const P = new ttg.Buffer(new Float64Array(N).map((_, i) => i));
    const held = gate(), pinned = gate();
    const Hold = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(P)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, N, 3, P);
      yield ttg.device.kernel();
      pinned.open();
      yield held.wait;   // holds P on device 0 while the storm runs
    }, [edge<number, number>('pin-hold')], [], { name: 'pin-hold' }).set_devicehint(() => 0);
    const T = 24, n = cap() / 16;
    const storm = Array.from({ length: T }, (_, t) => new ttg.Buffer(new Float64Array(n).map((_, i) => -t * n - i)));
    const tt = doubler('pin-storm', 2, 0);
    ttg.make_graph_executable(Hold, tt);
    ttg.execute();
    Hold.invoke(0, 0);
    await within(pinned.wait, FENCE_MS, 'the holder pinning P');
    const ev0 = ttg.device.stats().per_device[0]!.evictions;
    for (let t = 0; t < T; t++) tt.invoke([t, 0], storm[t]!);
    await tick(300);
    held.open();
    await fence();
    expect(ttg.device.stats().per_device[0]!.evictions - ev0, 'evictions on device 0: the storm is 1.5 devices beside P').to.be.at.least(T / 2);
    // a second storm evicts P (unpinned now): its only current copy must come home first
    for (let t = 0; t < T; t++) tt.invoke([t, 0], storm[t]!);
    await fence();
    expect(P.devices.includes(0), 'P was evicted from device 0').to.equal(false);
    const again = doubler('pin-again', 1, 0);
    ttg.make_graph_executable(again);
    again.invoke([0, 0], P);
    await fence();
    await P.toHost();
    await Promise.all(storm.map((b) => b.toHost()));
    expect(wrongBy(P.host, (i) => i * 6), 'P: x3 while pinned, x2 after its eviction').to.deep.equal({ count: 0 });
    for (let t = 0; t < T; t++) expect(wrongBy(storm[t]!.host, (i) => (-t * n - i) * 16), `storm buffer ${t}`).to.deep.equal({ count: 0 });
  });

  it('the real allocator refusing: evictions make room and the task completes; refusing for good fails the task with E_DEVICE_MEMORY', async function () {
    this.timeout(30000);
    const native = deviceRuntime()!.backend.native;
    const real = native.devAlloc;
    const n = cap() / 8;
    // fill device 0 with copies of one size
    const fill = Array.from({ length: 6 }, (_, t) => new ttg.Buffer(new Float64Array(n).fill(t + 1)));
    const tt = doubler('refuse-fill', 1, 0);
    ttg.make_graph_executable(tt);
    for (let t = 0; t < fill.length; t++) tt.invoke([t, 0], fill[t]!);
    await fence();
    let refusals = 0, refused = 0;
    native.devAlloc = (d: number, bytes: number) => (refusals > 0 ? (refusals--, refused++, null) : real.call(native, d, bytes));
    try {
      // a size with no free block: the pool asks the allocator, which refuses twice (a slab, then one block)
      const X = new ttg.Buffer(new Float64Array(n + 333).fill(5));
      const ev0 = ttg.device.stats().per_device[0]!.evictions;
      refusals = 2;
      const one = doubler('refuse-once', 1, 0);
      ttg.make_graph_executable(one);
      one.invoke([0, 0], X);
      await fence();
      await X.toHost();
      expect(refused, 'refusals').to.equal(2);
      expect(wrong(X.host, 10), 'X after x2').to.deep.equal({ count: 0 });
      expect(ttg.device.stats().per_device[0]!.evictions - ev0, 'an eviction made room').to.be.at.least(1);
      // refusing for good: every copy is evicted, then the task fails at once (nothing pinned to wait for)
      const Y = new ttg.Buffer(new Float64Array(n + 777).fill(1));
      refusals = Infinity;
      const never = doubler('refuse-always', 1, 0);
      ttg.make_graph_executable(never);
      never.invoke([0, 0], Y);
      expectTtgError(await rejection(fence()), 'E_DEVICE_MEMORY', ['failed although nothing is left to evict']);
    } finally {
      native.devAlloc = real;
    }
    await Promise.all(fill.map((b) => b.toHost()));
    for (let t = 0; t < fill.length; t++) expect(wrong(fill[t]!.host, 2 * (t + 1)), `fill ${t} after the refusals`).to.deep.equal({ count: 0 });
    await wholeDevice('refuse-whole', 0);
  });

  it('finalize frees every native allocation (the last test of this process)', async () => {
    expect(loadNative()!.devInfo().allocations, 'alive before finalize').to.be.above(0);
    await ttg.finalize();
    expect(loadNative()!.devInfo().allocations, 'alive after finalize').to.equal(0);
  });
});
