/**
 * Ops packed for the addon (issue 57, item 5): the kernels and stamps of a generator body's step
 * reach the addon together with the next op that must be queued at once (a copy, a marker, a
 * program's kernel) or when the step ends, in one `devOps` call. Hostile uses of that: more ops
 * than one pack holds, ops across several waits, an op refused in the middle of a pack
 * (TTG_FAULT_DEVOP counts every op), a body that throws after enqueuing, a step that yields a
 * promise with an op packed while another task runs next, async bodies interleaved, an async body
 * that enqueues and then awaits something else, and tracing on. Each test checks exact values,
 * which task failed with what, and that nothing stays pinned.
 *
 * Run with TTG_DEVICE=host:::2 and emulated:2:512KiB:2 (and cuda:1:512KiB:2 where there is a GPU).
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { setTracer } from '../../../src/ttg/common/trace-sink.js';
import { expectTtgError, tick, within } from '../../helpers.js';
import { edge, expectHome, faults, FENCE_MS, fence, filled, resting, wholeDevice, wrong } from './hostile-kit.js';
import { backend, onSuiteDevices } from './suite.js';

/** TTG_FAULT_DEVOP at run time: the nth device op enqueued from now on is refused (0: off). */
const faultDevOp = (n: number): void => faults({ faultDevOp: n });

/** The fence's rejection, or undefined. */
async function fenced(): Promise<unknown> {
  try {
    await fence();
    return undefined;
  } catch (e) {
    return e;
  }
}

/** Device ops a copy in adds before a task's kernels here: one per buffer not on the device. */
const copyIn = backend === 'host' ? 0 : 1;

describe(`ops packed into one addon call, on the ${backend} backend`, () => {
  onSuiteDevices();
  afterEach(() => faultDevOp(0));

  it('more ops than one pack holds, in one task before its wait, all run in order', async () => {
    const x = filled(512, 1), y = filled(512, 0);
    const tt = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
      for (let i = 0; i < 100; i++) ttg.device.kernels.daxpy(stream, x.length, 1, x, y);   // y = 100
      ttg.device.kernels.dscal(stream, y.length, 0.5, y);                                  // y = 50
      for (let i = 0; i < 70; i++) ttg.device.kernels.daxpy(stream, x.length, 1, x, y);    // y = 120
      yield ttg.device.kernel(y);
    }, [edge<number, number>('pk-many')], [], { name: 'pk-many' }).set_devicehint(() => 0);
    ttg.make_graph_executable(tt);
    tt.invoke(0, 0);
    expect(await fenced()).to.equal(undefined);
    expect(wrong(y.host, 120), 'y after 170 axpys and a scale, in order').to.deep.equal({ count: 0 });
    resting('after many ops');
  });

  it('ops across several waits: each wait sees exactly the ops before it', async () => {
    const x = filled(256, 1), y = filled(256, 0);
    const seen: number[] = [];
    const tt = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
      for (let w = 1; w <= 5; w++) {
        for (let i = 0; i < w; i++) ttg.device.kernels.daxpy(stream, x.length, 1, x, y);
        yield ttg.device.kernel(y);
        seen.push(wrong(y.host, y.host[0]!).count === 0 ? y.host[0]! : -1);   // -1: not one value
      }
    }, [edge<number, number>('pk-waits')], [], { name: 'pk-waits' }).set_devicehint(() => 0);
    ttg.make_graph_executable(tt);
    tt.invoke(0, 0);
    expect(await fenced()).to.equal(undefined);
    expect(seen, 'y after each wait (1, 1+2, 1+2+3, ...)').to.deep.equal([1, 3, 6, 10, 15]);
    resting('after several waits');
  });

  it('an op refused in the middle of a pack (TTG_FAULT_DEVOP) fails its task with E_DEVICE at its wait; the ops around it run', async () => {
    const x = filled(256, 1), y = filled(256, 0);
    let after = 0;
    const tt = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
      for (let i = 0; i < 10; i++) ttg.device.kernels.daxpy(stream, x.length, 1, x, y);
      yield ttg.device.kernel(y);
      after++;
    }, [edge<number, number>('pk-refused')], [], { name: 'pk-refused' }).set_devicehint(() => 0);
    ttg.make_graph_executable(tt);
    // ops: [x's, y's copies in], ten axpys (the 5th refused), [y's copy home], the wait's marker
    faultDevOp(2 * copyIn + 5);
    tt.invoke(4, 0);
    const err = await fenced();
    faultDevOp(0);
    expectTtgError(err, 'E_DEVICE', ["TT 'pk-refused'", 'key 4', 'TTG_FAULT_DEVOP']);
    expect(after, 'the body does not go on past the failed wait').to.equal(0);
    await tick(20);
    resting('after the refused op');
    await expectHome(y, 9, 'y: the nine axpys around the refused one ran');
    await wholeDevice('pk-refused-whole');
    resting('pk-refused-whole');
  });

  it('an op refused after the last wait fails the task at its end; its pins wait for the ops after it', async () => {
    const x = filled(4096, 1);
    const tt = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, x.length, 2, x);
      ttg.device.kernels.dscal(stream, x.length, 3, x);
      ttg.device.kernels.dscal(stream, x.length, 5, x);
    }, [edge<number, number>('pk-end')], [], { name: 'pk-end' }).set_devicehint(() => 0);
    ttg.make_graph_executable(tt);
    // ops: [x's copy in], three scales (the 2nd refused), the end marker
    faultDevOp(copyIn + 2);
    tt.invoke(6, 0);
    const err = await fenced();
    faultDevOp(0);
    expectTtgError(err, 'E_DEVICE', ["TT 'pk-end'", 'key 6', 'TTG_FAULT_DEVOP']);
    resting('after the refused op at the end');
    await expectHome(x, 10, 'x = 2 x 5 (the 3 was refused)');
  });

  it('a body that throws after enqueuing fails with its own error; its ops run before its pins go', async () => {
    const x = filled(4096, 1), y = filled(4096, 1);
    const gen = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
      for (let i = 0; i < 40; i++) ttg.device.kernels.dscal(stream, x.length, i % 2 === 0 ? 2 : 0.5, x);
      ttg.device.kernels.dscal(stream, x.length, 3, x);
      throw new Error('boom after enqueuing');
    }, [edge<number, number>('pk-throw')], [], { name: 'pk-throw' }).set_devicehint(() => 0);
    ttg.make_graph_executable(gen);
    gen.invoke(1, 0);
    const err = await fenced();
    expect(String(err)).to.include('boom after enqueuing');
    resting('after the generator body threw');
    await expectHome(x, 3, 'x: every op ran');

    const asy = ttg.make_tt(async () => {
      const { stream } = await ttg.device.input(y);
      ttg.device.kernels.dscal(stream, y.length, 7, y);
      throw new Error('async boom after enqueuing');
    }, [edge<number, number>('pk-throw-async')], [], { name: 'pk-throw-async' }).set_devicehint(() => 0);
    ttg.make_graph_executable(asy);
    asy.invoke(2, 0);
    const err2 = await fenced();
    expect(String(err2)).to.include('async boom after enqueuing');
    resting('after the async body threw');
    await expectHome(y, 7, 'y: its op ran');
  });

  it('a step that yields a promise with an op packed, another task running next: the refusal fails the task that packed it only', async () => {
    const a = filled(256, 1), b = filled(256, 1);
    let aAfter = 0;
    const hop = edge<number, number>('pk-hop');
    const A = ttg.make_tt(function* (k: number, _v: number, out) {
      const { stream } = (yield ttg.device.input(a)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, a.length, 2, a);   // packed until the step ends
      out.send(0, k, 0);
      yield Promise.resolve();                             // not a device step: the step's end hands the op over
      yield ttg.device.kernel(a);
      aAfter++;
    }, [edge<number, number>('pk-A')], [hop], { name: 'pk-A' }).set_devicehint(() => 0);
    const B = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, b.length, 3, b);
      yield ttg.device.kernel(b);
    }, [hop], [], { name: 'pk-B' }).set_devicehint(() => 0);
    ttg.make_graph_executable(A, B);
    // ops: [a's copy in], A's scale (refused), then B's
    faultDevOp(copyIn + 1);
    A.invoke(3, 0);
    const err = await fenced();
    faultDevOp(0);
    expectTtgError(err, 'E_DEVICE', ["TT 'pk-A'", 'key 3', 'TTG_FAULT_DEVOP']);
    expect(aAfter, 'A does not go on past its failed wait').to.equal(0);
    await tick(20);
    resting('after the refused op of another task');
    await within(Promise.all([a.toHost(), b.toHost()]), FENCE_MS, 'toHost()');
    expect(wrong(a.host, 1), 'a: its scale was refused').to.deep.equal({ count: 0 });
    expect(wrong(b.host, 3), 'b: B ran').to.deep.equal({ count: 0 });
  });

  it('two async bodies interleaved on one device: every op in its task\'s order, exact values', async () => {
    const a = filled(256, 0), b = filled(256, 0), one = filled(256, 1);
    let openA!: () => void, openB!: () => void;
    const gateA = new Promise<void>((r) => (openA = r)), gateB = new Promise<void>((r) => (openB = r));
    const go = edge<number, number>('pk-two');
    const tt = ttg.make_tt(async (k: number) => {
      const mine = k === 0 ? a : b;
      const { stream } = await ttg.device.input(mine, one);
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i <= k; i++) ttg.device.kernels.daxpy(stream, mine.length, 1, one, mine);
        if (k === 0) { openB(); await gateA; } else { openA(); await gateB; }
        ttg.device.kernels.dscal(stream, mine.length, 2, mine);
        await ttg.device.kernel(mine);
      }
    }, [go], [], { name: 'pk-two' }).set_devicehint(() => 0);
    ttg.make_graph_executable(tt);
    tt.invoke(0, 0);
    tt.invoke(1, 0);
    expect(await fenced()).to.equal(undefined);
    // a: ((0+1)*2+1)*2+1)*2 = 14; b: ((0+2)*2+2)*2+2)*2 = 28
    expect(wrong(a.host, 14), 'a').to.deep.equal({ count: 0 });
    expect(wrong(b.host, 28), 'b').to.deep.equal({ count: 0 });
    resting('after two interleaved bodies');
  });

  it('a body that enqueues and then awaits or yields something else: its ops run meanwhile', async () => {
    const x = filled(256, 1);
    const at = new Float64Array(1).fill(-2);
    let reached = -2;
    const tt = ttg.make_tt(async () => {
      const { stream } = await ttg.device.input(x);
      ttg.device.kernels.dscal(stream, x.length, 2, x);
      ttg.device.stamp(stream, at, 0);
      for (let i = 0; i < 200 && at[0]! < 0; i++) await tick(10);
      reached = at[0]!;
      await ttg.device.kernel(x);
    }, [edge<number, number>('pk-await')], [], { name: 'pk-await' }).set_devicehint(() => 0);
    ttg.make_graph_executable(tt);
    tt.invoke(0, 0);
    expect(await fenced()).to.equal(undefined);
    expect(reached, 'the stamp ran before the body\'s wait').to.be.greaterThan(0);
    expect(wrong(x.host, 2), 'x').to.deep.equal({ count: 0 });

    // a generator step that yields a promise: the step's end hands its packed ops over
    at[0] = -2;
    reached = -2;
    const gen = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, x.length, 3, x);
      ttg.device.stamp(stream, at, 0);
      yield (async () => { for (let i = 0; i < 200 && at[0]! < 0; i++) await tick(10); })();
      reached = at[0]!;
      yield ttg.device.kernel(x);
    }, [edge<number, number>('pk-await-gen')], [], { name: 'pk-await-gen' }).set_devicehint(() => 0);
    ttg.make_graph_executable(gen);
    gen.invoke(0, 0);
    expect(await fenced()).to.equal(undefined);
    expect(reached, 'the stamp ran before the generator\'s wait').to.be.greaterThan(0);
    expect(wrong(x.host, 6), 'x').to.deep.equal({ count: 0 });
  });

  it('with tracing on, every packed op gets its device event with its own stamps, and values are right', async () => {
    const events: Array<{ name: string; t0: number; t1: number }> = [];
    const later: Array<() => void> = [];
    setTracer({
      full: true, now: () => performance.now() * 1000, thread() {}, ran() {}, resuming: () => 0, resumed() {}, ended() {}, fence() {}, error() {},
      deviceOp: (name: string, _tid: number, t0: number, t1: number) => { events.push({ name, t0, t1 }); }, sent() {}, sendFlow: () => 0, recvSlice() {},
      later: (fn: () => void) => { later.push(fn); },
    });
    const x = filled(1024, 1), y = filled(1024, 0);
    let err: unknown;
    try {
      const tt = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
        for (let i = 0; i < 20; i++) ttg.device.kernels.daxpy(stream, x.length, 1, x, y);
        yield ttg.device.kernel(y);
        ttg.device.kernels.dscal(stream, y.length, 2, y);
        yield ttg.device.kernel(y);
      }, [edge<number, number>('pk-trace')], [], { name: 'pk-trace' }).set_devicehint(() => 0);
      ttg.make_graph_executable(tt);
      tt.invoke(0, 0);
      err = await fenced();
    } finally {
      setTracer(undefined);
    }
    expect(err, String(err)).to.equal(undefined);
    expect(wrong(y.host, 40), 'y = 20 x 2').to.deep.equal({ count: 0 });
    for (const fn of later) fn();
    const kernels = events.filter((e) => e.name === 'daxpy' || e.name === 'dscal');
    expect(kernels.map((e) => e.name), 'one event per kernel').to.deep.equal([...Array<string>(20).fill('daxpy'), 'dscal']);
    for (const e of events) expect(e.t1, `${e.name}: ends after it starts`).to.be.at.least(e.t0);
    for (let i = 1; i < kernels.length; i++) expect(kernels[i]!.t0, 'in stream order').to.be.at.least(kernels[i - 1]!.t1);
    resting('after tracing');
  });

  it('finalize settles after all of the above', async () => {
    await within(ttg.finalize(), FENCE_MS, 'ttg.finalize()');
  });
});
