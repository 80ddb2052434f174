/**
 * The device layer under hostile use (issue 35): bodies that list buffers twice, give up on an
 * `input()`, write host arrays after a wait, wait on buffers they did not list, send what a queued
 * kernel still reads; evictions racing copies home; failed enqueues; a fence that ended in E_HANG.
 * Every test bounds its fences (a bug shows as a failure within seconds, never as a stuck run) and
 * checks exact results computed from the operations (x = 1 scaled by 2 is 2, and so on).
 *
 * Run with TTG_DEVICE=emulated:2:512KiB:2 (every test) and host:::2 (those that apply to a backend
 * working on the host arrays in place).
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { loadNative } from '../../../src/native/addon.js';
import { rejection, tick, within } from '../../helpers.js';
import { busy, capacity, edge, FENCE_MS, fence, filled, gate, HANG_S, N, onHangTimeout, wholeDevice, wrong } from './hostile-kit.js';
import { backend, devices, onSuiteDevices } from './suite.js';

/** A small device graph runs with the right result (the device is usable after a failure). */
async function cleanGraphRuns(name: string): Promise<void> {
  const y = filled(64, 1);
  const ok = edge<number, number>(`${name}-ok`);
  const G = ttg.make_tt(function* () {
    const { stream } = (yield ttg.device.input(y)) as ttg.device.InputResult;
    ttg.device.kernels.dscal(stream, 64, 5, y);
    yield ttg.device.kernel(y);
  }, [ok], [], { name: `${name}-G` });
  ttg.make_graph_executable(G);
  G.invoke(0, 0);
  await fence();
  expect(wrong(y.host, 5)).to.deep.equal({ count: 0 });
}

describe(`the device layer under hostile use on the ${backend} backend`, () => {
  onSuiteDevices();
  onHangTimeout();

  // ---- 3: a queued kernel must read what was there when it was enqueued -----------------------
  it('a consumed value sent on before the wait is not overwritten under the sender\'s queued read: y += x sees x = 6 in every element', async () => {
    const n = 4096;
    const ones = filled(N * N, 1), C = new ttg.Buffer(N * N), y = new ttg.Buffer(n);
    type V = { x: ttg.Buffer };
    const go = edge<number, V>('q3-go'), on = edge<number, V>('q3-on');
    let ySeen: number[] = [];
    let hostSaw = -1;
    const P = ttg.make_tt(function* (k: number, v: V, out) {
      const { stream } = (yield ttg.device.input(ones, C, y)) as ttg.device.InputResult;
      busy(stream, ones, C, 1000);            // the stream is busy for a while
      yield ttg.device.input(v.x);            // x's copy-in (emulated) queues behind that work
      ttg.device.kernels.daxpy(stream, n, 1, v.x, y);   // y += x: x is only read
      out.send(0, k, v);                      // allowed: no kernel of this task writes x
      yield ttg.device.kernel(y);
      ySeen = [...y.host];
    }, [go], [on], { name: 'q3-P', consume: [0] }).set_devicehint(() => 0);
    const H = ttg.make_tt((_k: number, v: V) => {
      hostSaw = v.x.host[0]!;
      v.x.host.fill(1000);                    // a consumer may overwrite what it consumes
    }, [on], [], { name: 'q3-H', consume: [0] });
    ttg.make_graph_executable(P, H);
    P.invoke(0, { x: filled(n, 6) });
    await fence();
    expect(hostSaw, 'the consumer saw the value sent').to.equal(6);
    expect(wrong(ySeen, 6), 'elements of y = 0 + x that are not 6').to.deep.equal({ count: 0 });
  });

  // ---- 9: host writes made by a device task after its wait ------------------------------------
  it('a host write made by a device task after its wait is seen by the next kernel of a later task on that buffer: 20 -> 400 -> +20 = 420', async () => {
    const n = 256;
    const ones = filled(n, 1);
    const go = edge<number, ttg.Buffer>('hw9a-go'), on = edge<number, ttg.Buffer>('hw9a-on');
    let seen: number[] = [];
    const A = ttg.make_tt(function* (k: number, b: ttg.Buffer, out) {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, n, 10, b);   // 2 -> 20 on the device
      yield ttg.device.kernel(b);                   // and on the host
      b.host.fill(400);                             // the task writes the host array after its wait
      out.send(0, k, b);
    }, [go], [on], { name: 'hw9a-A', consume: [0] }).set_devicehint(() => 0);
    const B = ttg.make_tt(function* (_k: number, b: ttg.Buffer) {
      const { stream } = (yield ttg.device.input(b, ones)) as ttg.device.InputResult;
      ttg.device.kernels.daxpy(stream, n, 20, ones, b);   // b += 20
      yield ttg.device.kernel(b);
      seen = [...b.host];
    }, [on], [], { name: 'hw9a-B', consume: [0] }).set_devicehint(() => 0);
    ttg.make_graph_executable(A, B);
    A.invoke(0, filled(n, 2));
    await fence();
    expect(wrong(seen, 420), 'elements of b that are not 400 + 20').to.deep.equal({ count: 0 });
  });

  it('a host write made by a device task after its wait is seen by its own next kernel on that buffer: 20 -> 400 -> +20 = 420', async () => {
    const n = 256;
    const ones = filled(n, 1), b = filled(n, 2);
    const go = edge<number, number>('hw9b-go');
    let seen: number[] = [];
    const A = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(b, ones)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, n, 10, b);   // 2 -> 20
      yield ttg.device.kernel(b);
      b.host.fill(400);
      ttg.device.kernels.daxpy(stream, n, 20, ones, b);   // must see 400
      yield ttg.device.kernel(b);
      seen = [...b.host];
    }, [go], [], { name: 'hw9b-A' }).set_devicehint(() => 0);
    ttg.make_graph_executable(A);
    A.invoke(0, 0);
    await fence();
    expect(wrong(seen, 420), 'elements of b that are not 400 + 20').to.deep.equal({ count: 0 });
  });

  // ---- 5: a failed native enqueue ----------------------------------------------------------------
  it('a device enqueue that fails fails its task naming TT and key; afterwards a body that never settles is still reported as E_HANG, and the device still works', async function () {
    this.timeout(30000);
    const native = loadNative()!;
    const x = filled(64, 1);
    const go = edge<number, number>('fault-go');
    const F = ttg.make_tt(function* () {
      yield ttg.device.input(x);
      yield ttg.device.kernel();      // emulated: x's copy-in fails; host: the wait's marker fails
    }, [go], [], { name: 'fault-F' }).set_devicehint(() => ttg.device.num_devices() - 1);   // emulated: the device the other tests leave empty
    ttg.make_graph_executable(F);
    // TTG_FAULT_DEVOP at run time: the 1st device enqueue from now on throws
    native.configure({ faultDevOp: 1 } as unknown as Parameters<typeof native.configure>[0]);
    let err: unknown;
    try {
      F.invoke(7, 0);
      err = await rejection(fence());
    } finally {
      native.configure({ faultDevOp: 0 } as unknown as Parameters<typeof native.configure>[0]);
    }
    expect(err, String(err)).to.be.instanceOf(ttg.TtgError);
    const e = err as ttg.TtgError;
    expect(e.tt, e.message).to.equal('fault-F');
    expect(e.key, e.message).to.equal(7);
    const text = `${e.message} ${String((e.cause as Error | undefined)?.message ?? '')}`;
    expect(text, 'the injected failure is the cause').to.include('TTG_FAULT_DEVOP');

    // the watchdog must still see a body that never settles
    const hang = edge<number, number>('fault-hang');
    const never = ttg.make_tt(async () => { await new Promise(() => {}); }, [hang], [], { name: 'fault-never' });
    ttg.make_graph_executable(never);
    never.invoke(0, 0);
    const t0 = performance.now();
    const h = await rejection(fence());
    expect(h, String(h)).to.be.instanceOf(ttg.TtgError);
    expect((h as ttg.TtgError).code, String(h)).to.equal('E_HANG');
    expect(performance.now() - t0).to.be.below((HANG_S + 3) * 1000);

    // and the device still runs a clean graph
    await cleanGraphRuns('fault');
  });

  // ---- 5b: an op that fails where it ran (a faulted CUDA stream) --------------------------------
  it('an op whose completion reports a failure fails its task with E_DEVICE naming TT and key, at its wait or at its end; the device then runs a clean graph', async function () {
    this.timeout(30000);
    const native = loadNative()!;
    const configure = (n: number): void => native.configure({ faultDevDone: n } as unknown as Parameters<typeof native.configure>[0]);
    for (const waits of [true, false]) {
      const x = filled(64, 1);
      const go = edge<number, number>(`done-go-${String(waits)}`);
      let after = 0;
      const F = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, 64, 3, x);
        if (waits) yield ttg.device.kernel(x);   // emulated: x's copy-in failed; host: this wait's marker fails
        after++;
      }, [go], [], { name: `done-F-${String(waits)}` }).set_devicehint(() => ttg.device.num_devices() - 1);
      ttg.make_graph_executable(F);
      configure(1);   // TTG_FAULT_DEVDONE at run time: the 1st op with a completion from now on fails
      let err: unknown;
      try {
        F.invoke(3, 0);
        err = await rejection(fence());
      } finally {
        configure(0);
      }
      expect(err, String(err)).to.be.instanceOf(ttg.TtgError);
      const e = err as ttg.TtgError;
      expect(e.code, e.message).to.equal('E_DEVICE');
      expect([e.tt, e.key], e.message).to.deep.equal([`done-F-${String(waits)}`, 3]);
      expect(e.message).to.include('TTG_FAULT_DEVDONE');
      expect(after, 'the body does not go on past a failed wait').to.equal(waits ? 0 : 1);
    }
    await cleanGraphRuns('done');
    for (const d of ttg.device.stats().per_device) expect(d.pinned_bytes, 'nothing pinned once idle').to.equal(0);
  });

  if (backend === 'host') return;

  describe('devices with memory of their own (emulated, cuda)', () => {
    // ---- 2: a wait's copy home racing an eviction ----------------------------------------------
    it('a wait that copies home a buffer whose eviction started first copies its data, not freed memory: x = 2 in every element', async function () {
      this.timeout(30000);
      const cap = capacity(0);
      const ones = filled(N * N, 1), C = new ttg.Buffer(N * N);   // 2 x 128 KiB, pinned by K
      const x = filled(512, 1);                                     // 4 KiB: current only on device 0
      const big = new ttg.Buffer((cap - ones.bytes - C.bytes) / 8); // needs x's room
      expect(big.length, 'the device is large enough for this test').to.be.greaterThan(x.length);

      // device 0 holds nothing else: a buffer of its whole size evicts what earlier tests left
      const flush = new ttg.Buffer(cap / 8);
      const fl = edge<number, number>('ev2-flush');
      const Fl = ttg.make_tt(function* () { yield ttg.device.input(flush); }, [fl], [], { name: 'ev2-flush' }).set_devicehint(() => 0);
      ttg.make_graph_executable(Fl);
      Fl.invoke(0, 0);
      await fence();

      const kGate = gate(), kIn = gate(), wDone = gate();
      let seen: number[] = [];
      // K takes stream 0 of device 0 and stays there
      const K = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(ones, C)) as ttg.device.InputResult;
        kIn.open();
        yield kGate.wait;
        busy(stream, ones, C, 500);     // the copy home below queues behind this work
        yield ttg.device.kernel(x);     // x is current only on device 0 (written on the other stream)
        seen = [...x.host];
      }, [edge<number, number>('ev2-K')], [], { name: 'ev2-K' }).set_devicehint(() => 0);
      // W writes x on stream 1 of device 0 (stream 0 carries K) and ends: x = 2 only there
      const W = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, x.length, 2, x);
        yield ttg.device.kernel();
        wDone.open();
      }, [edge<number, number>('ev2-W')], [], { name: 'ev2-W' }).set_devicehint(() => 0);
      // E needs x's room: evicting x copies it home on stream 1 first
      const E = ttg.make_tt(function* () {
        yield ttg.device.input(big);
      }, [edge<number, number>('ev2-E')], [], { name: 'ev2-E' }).set_devicehint(() => 0);
      ttg.make_graph_executable(K, W, E);
      ttg.execute();
      K.invoke(0, 0);
      await within(kIn.wait, FENCE_MS, 'K selecting');
      W.invoke(0, 0);
      await within(wDone.wait, FENCE_MS, 'W writing x');
      await tick(20);
      const d2h = ttg.device.stats().d2h_bytes;
      E.invoke(0, 0);
      // let E's eviction of x start (microtasks only, so its copy home cannot have completed)
      for (let i = 0; i < 10000 && ttg.device.stats().d2h_bytes < d2h + x.bytes; i++) await null;
      kGate.open();
      await fence();
      expect(wrong(seen, 2), 'x on the host after K\'s wait').to.deep.equal({ count: 0 });
      await x.toHost();
      expect(wrong(x.host, 2), 'x on the host after the fence').to.deep.equal({ count: 0 });
    });

    // ---- 4: a wait on a buffer current on another device -----------------------------------------
    if (devices >= 2) {
      it('a wait on a buffer current only on another device copies it home: x = 2 on the host after the wait', async () => {
        const x = filled(256, 1), z = filled(16, 1);
        const wDone = gate();
        let seen: number[] = [];
        let validAfter = false;
        const W = ttg.make_tt(function* () {
          const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
          ttg.device.kernels.dscal(stream, x.length, 2, x);
          yield ttg.device.kernel();   // x = 2 only on device 1
          wDone.open();
        }, [edge<number, number>('other4-W')], [], { name: 'other4-W' }).set_devicehint(() => 1);
        const K = ttg.make_tt(function* () {
          const { stream } = (yield ttg.device.input(z)) as ttg.device.InputResult;
          ttg.device.kernels.dscal(stream, z.length, 1, z);
          yield ttg.device.kernel(x);  // "copies bufs home"
          seen = [...x.host];
          validAfter = x.validOnHost;
        }, [edge<number, number>('other4-K')], [], { name: 'other4-K' }).set_devicehint(() => 0);
        ttg.make_graph_executable(W, K);
        ttg.execute();
        W.invoke(0, 0);
        await within(wDone.wait, FENCE_MS, 'W writing x');
        await fence();
        K.invoke(0, 0);
        await fence();
        expect(wrong(seen, 2), 'x on the host after K\'s wait').to.deep.equal({ count: 0 });
        expect(validAfter, 'x valid on the host after the wait').to.equal(true);
      });
    }

    // ---- 8 (second mode, one rank): a copy home queued before a later kernel's write -------------
    it('a copy home queued before a kernel writes the buffer does not leave the old value marked current: x = 20 after 2 x 10', async function () {
      this.timeout(30000);
      const ones = filled(N * N, 1), C = new ttg.Buffer(N * N), x = filled(512, 1);
      const on = edge<number, number>('home8-on');
      const W = ttg.make_tt(function* (k: number, _v: number, out) {
        const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, x.length, 2, x);
        yield ttg.device.kernel();   // x = 2 only on the device
        out.send(0, k, 0);
      }, [edge<number, number>('home8-W')], [on], { name: 'home8-W' }).set_devicehint(() => 0);
      const L = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(x, ones, C)) as ttg.device.InputResult;
        busy(stream, ones, C, 500);
        void x.toHost();              // a copy home of x = 2, queued
        ttg.device.kernels.dscal(stream, x.length, 10, x);   // then x = 20
        yield ttg.device.kernel();
      }, [on], [], { name: 'home8-L' }).set_devicehint(() => 0);
      let hostSaw: number[] = [];
      const H = ttg.make_tt((_k: number, b: ttg.Buffer) => { hostSaw = [...b.host]; }, [edge<number, ttg.Buffer>('home8-H')], [], { name: 'home8-H' });
      ttg.make_graph_executable(W, L, H);
      W.invoke(0, 0);
      await fence();
      H.invoke(0, x);                 // a host task reads x
      await fence();
      expect(wrong(hostSaw, 20), 'x as a host task sees it').to.deep.equal({ count: 0 });
      await x.toHost();
      expect(wrong(x.host, 20), 'x on the host').to.deep.equal({ count: 0 });
    });

    // The tests below leave device 0 unusable while their bugs are present: they come last.

    // ---- 10: an async body that gives up on a pending input() ------------------------------------
    it('an async body that gives up on a pending input() leaves nothing pinned: a later task can use the whole device', async function () {
      this.timeout(30000);
      const cap = capacity(0);
      const n = Math.floor((cap * 0.6) / 8);
      const h = filled(n, 1), g = filled(n, 1);
      const hGate = gate(), hIn = gate();
      let gaveUp: boolean | undefined;
      const Hold = ttg.make_tt(function* () {
        yield ttg.device.input(h);
        hIn.open();
        yield hGate.wait;             // holds h (60% of the device) until the gate opens
      }, [edge<number, number>('giveup10-H')], [], { name: 'giveup10-H' }).set_devicehint(() => 0);
      const G = ttg.make_tt(async () => {
        const r = await Promise.race([ttg.device.input(g), tick(100).then(() => 'late' as const)]);
        gaveUp = r === 'late';        // the body ends here, its input() still pending
      }, [edge<number, number>('giveup10-G')], [], { name: 'giveup10-G' }).set_devicehint(() => 0);
      ttg.make_graph_executable(Hold, G);
      ttg.execute();
      Hold.invoke(0, 0);
      await within(hIn.wait, FENCE_MS, 'the holder selecting');
      G.invoke(0, 0);
      await tick(300);
      expect(gaveUp, 'the body gave up on its input()').to.equal(true);
      hGate.open();
      await fence();
      await tick(100);
      await wholeDevice('giveup10-whole');
    });

    // ---- 1: a second input() while another task waits for memory ----------------------------------
    for (const extra of [false, true]) {
      const what = extra ? 're-lists a buffer it holds together with a new one' : 're-lists a buffer it holds';
      it(`a task that ${what} while another task waits for that buffer's room: both finish, with right results`, async function () {
        this.timeout(30000);
        const cap = capacity(0);
        const n = Math.floor((cap * 0.6) / 8);   // a and b each fit the device alone, not together
        const a = filled(n, 1), b = filled(n, 1), c = filled(Math.floor((cap * 0.1) / 8), 1);
        const A = ttg.make_tt(function* () {
          const { stream } = (yield ttg.device.input(a)) as ttg.device.InputResult;
          yield tick(200);                       // meanwhile B waits for a's room
          if (extra) yield ttg.device.input(a, c);
          else yield ttg.device.input(a);
          ttg.device.kernels.dscal(stream, n, 2, a);
          if (extra) ttg.device.kernels.dscal(stream, c.length, 5, c);
          yield ttg.device.kernel(extra ? [a, c] : [a]);
        }, [edge<number, number>('relist1-A')], [], { name: `relist1-A${extra ? 'c' : ''}` }).set_devicehint(() => 0);
        const B = ttg.make_tt(function* () {
          const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
          ttg.device.kernels.dscal(stream, n, 3, b);
          yield ttg.device.kernel(b);
        }, [edge<number, number>('relist1-B')], [], { name: `relist1-B${extra ? 'c' : ''}` }).set_devicehint(() => 0);
        ttg.make_graph_executable(A, B);
        A.invoke(0, 0);
        B.invoke(0, 0);
        await fence();
        expect(wrong(a.host, 2), 'a after x2').to.deep.equal({ count: 0 });
        expect(wrong(b.host, 3), 'b after x3').to.deep.equal({ count: 0 });
        expect(wrong(c.host, extra ? 5 : 1), 'c').to.deep.equal({ count: 0 });
      });
    }

    // ---- 6: after E_HANG ----------------------------------------------------------------------
    it('after a fence ends in E_HANG, a graph that needs the whole device memory runs with right results, and the abandoned tasks\' memory is released', async function () {
      this.timeout(30000);
      const cap = capacity(0);
      const n = Math.floor((cap * 0.6) / 8);
      const a = filled(n, 1), b = filled(n, 1);
      const A = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(a)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, n, 2, a);
        yield new Promise(() => {});             // never settles
      }, [edge<number, number>('hang6-A')], [], { name: 'hang6-A' }).set_devicehint(() => 0);
      const B = ttg.make_tt(function* () {
        yield ttg.device.input(b);               // waits for a's room
      }, [edge<number, number>('hang6-B')], [], { name: 'hang6-B' }).set_devicehint(() => 0);
      ttg.make_graph_executable(A, B);
      A.invoke(0, 0);
      B.invoke(0, 0);
      const h = await rejection(fence());
      expect((h as ttg.TtgError).code, String(h)).to.equal('E_HANG');
      await tick(100);   // A's queued scale has run by now
      await wholeDevice('hang6-whole');
    });
  });
});
