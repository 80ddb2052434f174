/**
 * The device layer under hostile use, second pass (issue 56): a buffer listed twice in one
 * `input()`, several `input()`s of one async body in flight, failed waits and failed markers
 * (`TTG_FAULT_DEVDONE`, `TTG_FAULT_DEVOP`), host writes between graphs, and a kernel writing a
 * buffer that another task's queued kernels still read. Every test bounds its fences and checks
 * exact results and, at the end, that nothing stays pinned and the whole device is usable.
 *
 * Run with TTG_DEVICE=emulated:2:512KiB:2, host:::2 and, where there is a GPU, cuda:1:512KiB:2.
 * (User kernels that report an error: the user-kernels suite.)
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { deviceRuntime } from '../../../src/device/runtime.js';
import { setTracer } from '../../../src/ttg/common/trace-sink.js';
import { expectTtgError, rejection, tick, within } from '../../helpers.js';
import { busy, capacity, edge, expectHome, faults, FENCE_MS, fence, filled, gate, N, onHangTimeout, resting, wholeDevice, wrong } from './hostile-kit.js';
import { backend, devices, onSuiteDevices } from './suite.js';

/** Bytes of a buffer that takes `share` of device 0 (64 KiB on the host backend). */
function share(part: number): number {
  const cap = capacity(0);
  return Number.isFinite(cap) ? Math.floor((cap * part) / 8) : 8192;
}


/** {@link wholeDevice}, then nothing pinned. */
async function whole(name: string, dev = 0): Promise<void> {
  await wholeDevice(name, dev);
  resting(name);
}

/** Runs `body` as the generator body of one task of a fresh TT named `name` on device 0, key `key`; resolves the fence's rejection, or undefined. */
async function oneTask(name: string, body: () => Generator<unknown, void, unknown>, key = 0): Promise<unknown> {
  const tt = ttg.make_tt(body, [edge<number, number>(name)], [], { name }).set_devicehint(() => 0);
  ttg.make_graph_executable(tt);
  tt.invoke(key, 0);
  try {
    await fence();
    return undefined;
  } catch (e) {
    return e;
  }
}

describe(`the device layer under hostile use, second pass, on the ${backend} backend`, () => {
  onSuiteDevices();
  onHangTimeout();
  afterEach(() => faults({ faultDevOp: 0, faultDevDone: 0 }));

  // ---- 1: a buffer listed twice -----------------------------------------------------------------
  it('input(a, a) with a larger than half the device runs: a = 2 in every element, nothing pinned after', async function () {
    this.timeout(30000);
    const a = filled(share(0.6), 1);
    const err = await oneTask('twice1', function* () {
      const { stream } = (yield ttg.device.input(a, a)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, a.length, 2, a);
      yield ttg.device.kernel(a, a);
    });
    expect(err, String(err)).to.equal(undefined);
    expect(wrong(a.host, 2), 'a after x2').to.deep.equal({ count: 0 });
    resting('after input(a, a)');
    // and listed twice again in a second input() of a task that holds it
    const err2 = await oneTask('twice1b', function* () {
      const { stream } = (yield ttg.device.input(a)) as ttg.device.InputResult;
      yield ttg.device.input([a, a], a);
      ttg.device.kernels.dscal(stream, a.length, 2, a);
      yield ttg.device.kernel(a);
    });
    expect(err2, String(err2)).to.equal(undefined);
    expect(wrong(a.host, 4), 'a after x2 x2').to.deep.equal({ count: 0 });
    await whole('twice1-whole');
  });

  // ---- 2: several input()s of an async body in flight --------------------------------------------
  it('an async body with two input()s in flight (the first waiting for room) that returns leaves nothing pinned; both buffers are pinned only while it runs', async function () {
    this.timeout(30000);
    const n = share(0.6);
    const h = filled(n, 1), a = filled(n, 1), b = filled(64, 1);
    const hGate = gate(), hIn = gate();
    let firstTook = false;
    const Hold = ttg.make_tt(function* () {
      yield ttg.device.input(h);
      hIn.open();
      yield hGate.wait;             // holds h (60% of the device) until the gate opens
    }, [edge<number, number>('inflight2-H')], [], { name: 'inflight2-H' }).set_devicehint(() => 0);
    const G = ttg.make_tt(async () => {
      void ttg.device.input(a).then(() => { firstTook = true; });   // waits for h's room
      const { stream } = await ttg.device.input(b);                    // fits at once
      ttg.device.kernels.dscal(stream, b.length, 2, b);
      await ttg.device.kernel(b);
    }, [edge<number, number>('inflight2-G')], [], { name: 'inflight2-G' }).set_devicehint(() => 0);
    ttg.make_graph_executable(Hold, G);
    ttg.execute();
    Hold.invoke(0, 0);
    await within(hIn.wait, FENCE_MS, 'the holder selecting');
    G.invoke(0, 0);
    await tick(200);
    hGate.open();
    await fence();
    await tick(50);
    expect(firstTook, 'the first input() was granted').to.equal(true);
    expect(wrong(b.host, 2), 'b after x2').to.deep.equal({ count: 0 });
    resting('after the async body');
    await whole('inflight2-whole');
  });

  it('an async body whose second input() cannot fit beside what its first one holds fails with E_DEVICE_MEMORY instead of waiting for itself', async function () {
    if (!Number.isFinite(capacity(0))) return;   // the host backend has no memory limit
    this.timeout(30000);
    const n = share(0.6);
    const a = filled(n, 1), c = filled(n, 1);
    const h = filled(n, 1);
    const hGate = gate(), hIn = gate();
    const Hold = ttg.make_tt(function* () {
      yield ttg.device.input(h);
      hIn.open();
      yield hGate.wait;
    }, [edge<number, number>('self2-H')], [], { name: 'self2-H' }).set_devicehint(() => 0);
    const G = ttg.make_tt(async () => {
      const first = ttg.device.input(a);                           // waits for h's room
      await ttg.device.input(filled(8, 1));
      void first.then(() => {}, () => {});
      await ttg.device.input(c);                                   // a + c do not fit: refused once a is held
    }, [edge<number, number>('self2-G')], [], { name: 'self2-G' }).set_devicehint(() => 0);
    ttg.make_graph_executable(Hold, G);
    ttg.execute();
    Hold.invoke(0, 0);
    await within(hIn.wait, FENCE_MS, 'the holder selecting');
    G.invoke(5, 0);
    await tick(100);
    hGate.open();
    const e = await rejection(fence());
    expectTtgError(e, 'E_DEVICE_MEMORY', ["TT 'self2-G'", 'key 5']);
    await tick(50);
    resting('after the refused input()');
    await whole('self2-whole');
  });

  // ---- 3: a failed wait settles the buffer's copy home ----------------------------------------------
  it('after a wait that failed (TTG_FAULT_DEVDONE), toHost() and the drain of finalize settle, and the device runs a clean graph', async function () {
    this.timeout(30000);
    const x = filled(512, 1);
    faults({ faultDevDone: 1 });    // the 1st op with a completion from now on fails
    const err = await oneTask('failwait3', function* () {
      const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, x.length, 3, x);
      yield ttg.device.kernel(x);
    }, 4);
    faults({ faultDevDone: 0 });
    expectTtgError(err, 'E_DEVICE', ["TT 'failwait3'", 'key 4', 'TTG_FAULT_DEVDONE']);
    await within(x.toHost(), FENCE_MS, 'x.toHost() after the failed wait');
    await within(deviceRuntime()!.memory.drainAll(), FENCE_MS, 'the drain of finalize');
    resting('after the failed wait');
    await whole('failwait3-whole');
  });

  if (backend !== 'host' && devices >= 2) {
    it('a wait on a buffer current only on another device that fails (TTG_FAULT_DEVDONE) throws E_DEVICE into the body', async function () {
      this.timeout(30000);
      const x = filled(256, 1), z = filled(16, 1);
      const W = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, x.length, 2, x);
        yield ttg.device.kernel();   // x = 2 only on device 1
      }, [edge<number, number>('other3-W')], [], { name: 'other3-W' }).set_devicehint(() => 1);
      ttg.make_graph_executable(W);
      W.invoke(0, 0);
      await fence();
      let seen: unknown;
      const K = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(z)) as ttg.device.InputResult;   // z's copy in fails
        ttg.device.kernels.dscal(stream, z.length, 1, z);
        try {
          yield ttg.device.kernel(x);
        } catch (e) {
          seen = e;
          throw e;
        }
      }, [edge<number, number>('other3-K')], [], { name: 'other3-K' }).set_devicehint(() => 0);
      ttg.make_graph_executable(K);
      faults({ faultDevDone: 1 });
      K.invoke(6, 0);
      const e = await rejection(fence());
      faults({ faultDevDone: 0 });
      expectTtgError(e, 'E_DEVICE', ["TT 'other3-K'", 'key 6', 'TTG_FAULT_DEVDONE']);
      expectTtgError(seen, 'E_DEVICE', ['TTG_FAULT_DEVDONE']);
      await expectHome(x, 2, 'x on the host');
      resting('after the failed wait');
      await whole('other3-whole');
    });
  }

  // ---- 4: the wait's marker cannot be enqueued ------------------------------------------------------
  it('a wait whose marker cannot be enqueued (TTG_FAULT_DEVOP) fails with E_DEVICE naming TT and key, and its copies home leave no pin', async function () {
    this.timeout(30000);
    const x = filled(4096, 1);
    // ops: [x's copy in], dscal, [x's copy home], the wait's marker
    faults({ faultDevOp: backend === 'host' ? 2 : 4 });
    let after = 0;
    const err = await oneTask('nomark4', function* () {
      const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, x.length, 3, x);
      yield ttg.device.kernel(x);
      after++;
    }, 8);
    faults({ faultDevOp: 0 });
    expectTtgError(err, 'E_DEVICE', ["TT 'nomark4'", 'key 8', 'TTG_FAULT_DEVOP']);
    expect(after, 'the body does not go on past the failed wait').to.equal(0);
    await tick(50);
    resting('after the failed marker');
    await expectHome(x, 3, 'x = 3 (the scale ran)');
    // the second of two copies home refused: the first stays pinned until the task's end
    const a = filled(2048, 1), b = filled(2048, 1);
    // ops: [a's, b's copies in], two dscal, [a's copy home, b's copy home] (host: the marker)
    faults({ faultDevOp: backend === 'host' ? 3 : 6 });
    const err2 = await oneTask('nomark4b', function* () {
      const { stream } = (yield ttg.device.input(a, b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, a.length, 2, a);
      ttg.device.kernels.dscal(stream, b.length, 5, b);
      yield ttg.device.kernel(a, b);
    }, 2);
    faults({ faultDevOp: 0 });
    expectTtgError(err2, 'E_DEVICE', ["TT 'nomark4b'", 'key 2', 'TTG_FAULT_DEVOP']);
    await tick(50);
    resting('after the refused copy home');
    await within(Promise.all([a.toHost(), b.toHost()]), FENCE_MS, 'toHost()');
    expect([wrong(a.host, 2), wrong(b.host, 5)], 'a = 2, b = 5').to.deep.equal([{ count: 0 }, { count: 0 }]);
    await whole('nomark4-whole');
  });

  // ---- 7: the marker at a task's end cannot be enqueued ------------------------------------------------
  it('a task whose end marker cannot be enqueued (TTG_FAULT_DEVOP) fails with E_DEVICE naming TT and key and gives back its pins', async function () {
    this.timeout(30000);
    const x = filled(share(0.6), 1);
    // ops: [x's copy in], dscal, the end marker
    faults({ faultDevOp: backend === 'host' ? 2 : 3 });
    const err = await oneTask('endmark7', function* () {
      const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, x.length, 3, x);
    }, 9);
    faults({ faultDevOp: 0 });
    expectTtgError(err, 'E_DEVICE', ["TT 'endmark7'", 'key 9', 'TTG_FAULT_DEVOP']);
    resting('after the failed end marker');
    await expectHome(x, 3, 'x = 3 (the scale ran)');
    await whole('endmark7-whole');
  });

  // ---- 6: host writes between graphs ----------------------------------------------------------------
  it('a host write between graphs is seen by the next graph: x2 on the device, the program writes 10, x3 = 30', async () => {
    const b = filled(1024, 1);
    const scale = (name: string, f: number) => oneTask(name, function* () {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, b.length, f, b);
      yield ttg.device.kernel(b);
    });
    expect(await scale('hw6-1', 2)).to.equal(undefined);
    await b.toHost();
    expect(wrong(b.host, 2)).to.deep.equal({ count: 0 });
    b.host.fill(10);
    expect(await scale('hw6-2', 3)).to.equal(undefined);
    expect(wrong(b.host, 30), 'b after the host write and x3').to.deep.equal({ count: 0 });
    // once more without toHost(): the wait brought it home
    b.host.fill(7);
    expect(await scale('hw6-3', 3)).to.equal(undefined);
    expect(wrong(b.host, 21), 'b after the host write and x3').to.deep.equal({ count: 0 });
  });

  it('a host write between graphs to a buffer the first graph only read is seen by the next graph: y += x with x = 1, then 10', async () => {
    const x = filled(1024, 1), y = filled(1024, 0);
    const add = (name: string) => oneTask(name, function* () {
      const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
      ttg.device.kernels.daxpy(stream, x.length, 1, x, y);
      yield ttg.device.kernel(y);
    });
    expect(await add('hw6r-1')).to.equal(undefined);
    expect(wrong(y.host, 1)).to.deep.equal({ count: 0 });
    x.host.fill(10);                 // x never left the host: its device copy was only read
    expect(await add('hw6r-2')).to.equal(undefined);
    expect(wrong(y.host, 11), 'y after y += 10').to.deep.equal({ count: 0 });
    // a write of the same bytes, and none at all: nothing to copy again
    const h2d = ttg.device.stats().h2d_bytes;
    x.host.fill(10);
    expect(await add('hw6r-3')).to.equal(undefined);
    expect(wrong(y.host, 21), 'y after y += 10').to.deep.equal({ count: 0 });
    if (backend !== 'host') expect(ttg.device.stats().h2d_bytes - h2d, 'bytes copied in for an unchanged x').to.be.at.most(y.bytes);
  });

  it('a host write between graphs that restores what a device held before an eviction is seen: y += x with x = 1, 10, then 1 again', async function () {
    this.timeout(30000);
    const x = filled(1024, 1), y = filled(1024, 0);
    const add = (name: string, waitX = false) => oneTask(name, function* () {
      const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
      ttg.device.kernels.daxpy(stream, x.length, 1, x, y);
      if (waitX) yield ttg.device.kernel(y, x);   // x is watched: its host copy equals the device's
      else yield ttg.device.kernel(y);
    });
    expect(await add('hw6e-1', true)).to.equal(undefined);
    await whole('hw6e-evict');   // x's copy is evicted
    x.host.fill(10);
    expect(await add('hw6e-2')).to.equal(undefined);   // x = 10 copied in
    expect(wrong(y.host, 11)).to.deep.equal({ count: 0 });
    x.host.fill(1);                    // the bytes the device held before the eviction
    expect(await add('hw6e-3')).to.equal(undefined);
    expect(wrong(y.host, 12), 'y after y += 1').to.deep.equal({ count: 0 });
  });

  // ---- 7: a kernel writing what another task's queued kernels read -----------------------------------
  it('with tracing on, trace stamps the addon refuses cost only their events: the task runs, its values are right, nothing stays pinned', async function () {
    this.timeout(30000);
    type DevOps = (pack: Float64Array, views: readonly ArrayBufferView[], from: number, to: number) => void;
    const native = deviceRuntime()!.backend.native as { devOps: DevOps };
    const devOps = native.devOps;
    const events: string[] = [];
    const later: Array<() => void> = [];
    setTracer({
      full: true, now: () => performance.now() * 1000, thread() {}, ran() {}, resuming: () => 0, resumed() {}, ended() {}, fence() {}, error() {},
      deviceOp: (name: string) => { events.push(name); }, sent() {}, sendFlow: () => 0, recvSlice() {}, later: (fn: () => void) => { later.push(fn); },
    });
    // the addon refuses every trace stamp (op kind 8, slot 1 of 17 per op), as TTG_FAULT_DEVOP
    // refuses one enqueue: the ops before it are queued, the refusal names its index
    native.devOps = (pack, views, from, to) => {
      for (let i = from; i < to; i++) {
        if (pack[i * 17 + 1] !== 8) continue;
        if (i > from) devOps.call(native, pack, views, from, i);
        throw Object.assign(new Error('stamp refused by the test'), { index: i });
      }
      devOps.call(native, pack, views, from, to);
    };
    let err: unknown;
    const a = filled(4096, 3);
    try {
      err = await oneTask('stamps', function* () {
        const { stream } = (yield ttg.device.input(a)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, a.length, 2, a);
        yield ttg.device.kernel(a);
      });
    } finally {
      native.devOps = devOps;
      setTracer(undefined);
    }
    expect(err, String(err)).to.equal(undefined);
    expect(wrong(a.host, 6), 'a = 2 x 3').to.deep.equal({ count: 0 });
    for (const fn of later) fn();
    expect(events, 'no device event with made-up times').to.deep.equal([]);
    resting('after refused trace stamps');
  });

  it('a kernel that writes a buffer another task\'s queued kernels still read, held through an input the writer does not consume, is E_INVALID_ARGUMENT naming the writer', async function () {
    this.timeout(30000);
    const n = 4096;
    const ones = filled(N * N, 1), C = new ttg.Buffer(N * N), y = new ttg.Buffer(n);
    type V = { x: ttg.Buffer };
    const on = edge<number, V>('qw7-on');
    const x = filled(n, 6);
    let ySeen: number[] = [];
    const P = ttg.make_tt(function* (k: number, v: V, out) {
      const { stream } = (yield ttg.device.input(ones, C, y, v.x)) as ttg.device.InputResult;
      busy(stream, ones, C, 1000);            // the stream is busy for a while
      ttg.device.kernels.daxpy(stream, n, 1, v.x, y);   // y += x: x is only read, still queued
      out.send(0, k, v);                      // allowed: no kernel of this task writes x
      yield ttg.device.kernel(y);
      ySeen = [...y.host];
    }, [edge<number, V>('qw7-go')], [on], { name: 'qw7-P', consume: [0] }).set_devicehint(() => 0);
    const W = ttg.make_tt(function* (_k: number, v: V) {
      const { stream } = (yield ttg.device.input(v.x)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, n, 1000, v.x);   // W does not consume v: refused
      yield ttg.device.kernel(v.x);
    }, [on], [], { name: 'qw7-W' }).set_devicehint(() => 0);
    ttg.make_graph_executable(P, W);
    P.invoke(3, { x });
    const e = await fence().then(() => undefined, (err: unknown) => err);
    if (e === undefined && backend === 'cuda') {
      // a GPU can finish P's 1000 small dgemms and its read of x as fast as JS enqueues them (the
      // suite's device is too small for longer ones): then no read was queued when W wrote, and
      // the write is allowed; it must have come after the read
      expect(wrong(ySeen, 6), 'elements of y = 0 + x that are not 6').to.deep.equal({ count: 0 });
      await expectHome(x, 6000, 'x scaled once, after the read');
      resting('after the write that came after the read');
      return;
    }
    expectTtgError(e, 'E_INVALID_ARGUMENT', ["TT 'qw7-W'", 'key 3', 'queued']);
    await tick(50);
    expect(wrong(ySeen, 6), 'elements of y = 0 + x that are not 6').to.deep.equal({ count: 0 });
    await expectHome(x, 6, 'x untouched');
    resting('after the refused write');
  });

  // ---- 7 (last but one: it leaves pins on the last device): an end marker refused every time ----
  it('a task whose end marker is refused every time fails with E_DEVICE naming TT and key after its tries; its pins stay (its kernels may still run)', async function () {
    this.timeout(30000);
    const r = deviceRuntime()!;
    const dev = ttg.device.num_devices() - 1;
    const x = filled(4096, 1);
    let tries = 0;
    // the addon refuses every marker from now on (as TTG_FAULT_DEVOP refuses one enqueue)
    Object.defineProperty(r.streams, 'marker', {
      configurable: true,
      value: () => { tries++; throw new ttg.TtgError('E_DEVICE', 'a device operation could not be enqueued: refused by the test'); },
    });
    let err: unknown;
    try {
      const tt = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, x.length, 3, x);
      }, [edge<number, number>('endmark7x')], [], { name: 'endmark7x' }).set_devicehint(() => dev);
      ttg.make_graph_executable(tt);
      tt.invoke(11, 0);
      err = await rejection(fence());
    } finally {
      delete (r.streams as unknown as Record<string, unknown>)['marker'];
    }
    expectTtgError(err, 'E_DEVICE', ["TT 'endmark7x'", 'key 11', 'refused by the test']);
    expect(tries, 'the end marker was tried 8 times').to.equal(8);
    const pinned = ttg.device.stats().per_device[dev]!.pinned_bytes;
    expect(pinned, 'the task\'s pins stay').to.equal(backend === 'host' ? 0 : x.bytes);
  });

  // ---- last: finalize settles after all of the above ---------------------------------------------------
  it('finalize settles after the failures above', async () => {
    await within(ttg.finalize(), FENCE_MS, 'ttg.finalize()');
  });
});
