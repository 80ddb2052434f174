/**
 * One device body, one behaviour on every backend: a task selects once and then enqueues and
 * waits any number of times (C++ TTG's device_coro "loop"), each wait seeing all the work before
 * it; fence() never ends under a running kernel; kernels say why they may not use a buffer.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { deviceRuntime } from '../../../src/device/runtime.js';
import { expectTtgError, fence, rejection, tick } from '../../helpers.js';
import { backend, onSuiteDevices } from './suite.js';

/** Matrices big enough that a dgemm takes milliseconds: a wait that returns early is caught. */
const N = 512;
/** C += ones(N) * ones(N) / N: every entry of C grows by exactly 1 (N a power of two: 1/N and every partial sum are exact, in any order of summation). */
function addOne(stream: ttg.device.Stream, ones: ttg.Buffer, C: ttg.Buffer): void {
  ttg.device.kernels.dgemm(stream, 'N', 'N', N, N, N, 1 / N, ones, N, ones, N, 1, C, N);
}
/** [min, max] of the entries of `a`. */
function range(a: Float64Array): [number, number] {
  let lo = Infinity, hi = -Infinity;
  for (const x of a) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
  return [lo, hi];
}

let graphs = 0;
/** Runs the generator function `body` once as a one-task graph and fences. */
async function runTask(body: () => Generator<unknown, void, unknown>, name: string): Promise<void> {
  const e = new ttg.Edge<number, number>(`${name}-in${graphs++}`);
  const tt = ttg.make_tt(body, [e], [], { name });
  ttg.make_graph_executable(tt);
  tt.invoke(0, 0);
  await fence();
}

describe(`device coherence on the ${backend} backend`, () => {
  onSuiteDevices();

  for (const kind of ['function*', 'async function*'] as const) {
    it(`a ${kind} body selects once, then enqueues and waits three times; each wait sees all work before it`, async () => {
      const ones = new ttg.Buffer(new Float64Array(N * N).fill(1));
      const C = new ttg.Buffer(N * N);
      const seen: Array<[number, number]> = [];
      const e = new ttg.Edge<number, number>(`loop-${backend}-${kind}`);
      function* body(): Generator<unknown, void, unknown> {
        const { stream } = (yield ttg.device.select(ones, C)) as ttg.device.InputResult;
        for (let i = 0; i < 3; i++) {
          addOne(stream, ones, C);
          addOne(stream, ones, C);
          yield ttg.device.wait(C);
          seen.push(range(C.host));
        }
      }
      const tt = kind === 'function*'
        ? ttg.make_tt(body, [e], [], { name: 'loop' })
        : ttg.make_tt(async function* () { yield* body(); }, [e], [], { name: 'loop' });
      ttg.make_graph_executable(tt);
      tt.invoke(0, 0);
      await fence();
      expect(seen).to.deep.equal([[2, 2], [4, 4], [6, 6]]);
    });
  }

  it('a body may wait, enqueue more and wait again on a buffer it did not copy back at first', async () => {
    const x = new ttg.Buffer(new Float64Array(64).fill(1));
    const y = new ttg.Buffer(64);
    const seen: number[] = [];
    await runTask(function* () {
      const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
      ttg.device.kernels.daxpy(stream, 64, 1, x, y);
      yield ttg.device.kernel();
      ttg.device.kernels.daxpy(stream, 64, 1, x, y);
      ttg.device.kernels.dscal(stream, 64, 0.5, y);
      yield ttg.device.kernel(y);
      seen.push(y.host[0]!, y.host[63]!);
      ttg.device.kernels.daxpy(stream, 64, 2, x, y);
      yield ttg.device.kernel(y);
      seen.push(y.host[0]!, y.host[63]!);
    }, 'rewait');
    expect(seen).to.deep.equal([1, 1, 3, 3]);
  });

  it('kernels running longer than TTG_HANG_TIMEOUT are work, not a hang', async () => {
    const n = 1024;
    const ones = new ttg.Buffer(new Float64Array(n * n).fill(1));
    const C = new ttg.Buffer(n * n);
    const saved = process.env['TTG_HANG_TIMEOUT'];
    process.env['TTG_HANG_TIMEOUT'] = '0.2';
    // 24 dgemm outlast 600 ms on a host core; a GPU needs more of them (cuBLAS on an H100: ~0.04 ms each)
    const reps = backend !== 'cuda' ? 24 : /cuBLAS/.test(ttg.device.info()?.cuda_kernels ?? '') ? 24 * 1000 : 24 * 60;
    const t0 = performance.now();
    try {
      await runTask(function* () {
        const { stream } = (yield ttg.device.input(ones, C)) as ttg.device.InputResult;
        for (let i = 0; i < reps; i++) ttg.device.kernels.dgemm(stream, 'N', 'N', n, n, n, 1 / n, ones, n, ones, n, 1, C, n);
        yield ttg.device.kernel(C);
      }, 'long-kernels');
    } finally {
      if (saved === undefined) delete process.env['TTG_HANG_TIMEOUT'];
      else process.env['TTG_HANG_TIMEOUT'] = saved;
    }
    expect(performance.now() - t0).to.be.above(600);   // the kernels outlasted the timeout three times
    expect(range(C.host)).to.deep.equal([reps, reps]);
  });

  it('fence() resolves only after kernels that a body enqueued and never waited for have run', async () => {
    const ones = new ttg.Buffer(new Float64Array(N * N).fill(1));
    const C = new ttg.Buffer(N * N);
    await runTask(function* () {
      const { stream } = (yield ttg.device.input(ones, C)) as ttg.device.InputResult;
      addOne(stream, ones, C);
      yield ttg.device.kernel();
      for (let i = 0; i < 7; i++) addOne(stream, ones, C);  // the body ends without a wait
    }, 'nowait');
    await C.toHost();
    const after = C.host.slice();
    await tick(300);
    expect(range(after)).to.deep.equal([8, 8]);
    expect(range(C.host)).to.deep.equal([8, 8]);
  });

  it('a body that throws with kernels in flight fails the fence only after they ran; the next task can use the buffer', async () => {
    const ones = new ttg.Buffer(new Float64Array(N * N).fill(1));
    const C = new ttg.Buffer(N * N);
    const e = new ttg.Edge<number, number>(`throws-${backend}`);
    const tt = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(ones, C)) as ttg.device.InputResult;
      for (let i = 0; i < 5; i++) addOne(stream, ones, C);
      throw new Error('after enqueueing');
    }, [e], [], { name: 'throws' });
    ttg.make_graph_executable(tt);
    tt.invoke(1, 0);
    expectTtgError(await rejection(fence()), 'E_TASK_FAILED', ["'throws'", 'after enqueueing']);
    await C.toHost();
    const after = C.host.slice();
    await tick(200);
    expect(range(after)).to.deep.equal([5, 5]);
    expect(range(C.host)).to.deep.equal([5, 5]);
    await runTask(function* () {
      const { stream } = (yield ttg.device.input(ones, C)) as ttg.device.InputResult;
      addOne(stream, ones, C);
      yield ttg.device.kernel(C);
    }, 'after-throw');
    expect(range(C.host)).to.deep.equal([6, 6]);
  });

  it('sending a buffer that the task\'s kernels write before a wait covered them is an error naming the TT and key; after a wait it is fine', async () => {
    const ones = new ttg.Buffer(new Float64Array(N * N).fill(1));
    const out = new ttg.Edge<number, { c: ttg.Buffer }>(`early-out-${backend}`);
    const got: number[] = [];
    const sink = ttg.make_tt((_k: number, v: { c: ttg.Buffer }) => { got.push(v.c.host[0]!); }, [out], [], { name: 'early-sink' });
    const make = (name: string, waitFirst: boolean) => {
      const e = new ttg.Edge<number, ttg.Buffer>(`${name}-in-${backend}`);
      const tt = ttg.make_tt(function* (k: number, C: ttg.Buffer, o) {
        const { stream } = (yield ttg.device.input(ones, C)) as ttg.device.InputResult;
        addOne(stream, ones, C);
        if (waitFirst) yield ttg.device.kernel();
        o.send(0, k, { c: C });
        yield ttg.device.kernel();
      }, [e], [out], { name });
      return tt;
    };
    const early = make('early', false), late = make('late', true);
    ttg.make_graph_executable(early, late, sink);
    early.invoke(4, new ttg.Buffer(N * N));
    expectTtgError(await rejection(fence()), 'E_INVALID_ARGUMENT', ["'early'", 'key 4', 'no `yield ttg.device.kernel()` has waited']);
    late.invoke(5, new ttg.Buffer(N * N));
    await fence();
    expect(got).to.deep.equal([1]);
  });

  it('kernels on a buffer the task did not list, or on a stream kept from an ended task, say why', async () => {
    const X = new ttg.Buffer(8), Z = new ttg.Buffer(8);
    let kept: ttg.device.Stream | undefined;
    const errs: unknown[] = [];
    await runTask(function* () {
      const { stream } = (yield ttg.device.input(X)) as ttg.device.InputResult;
      kept = stream;
      ttg.device.kernels.dscal(stream, 8, 2, X);
      yield ttg.device.kernel(X);
    }, 'keeps');
    const tryIt = (f: () => void) => { try { f(); } catch (err) { errs.push(err); } };
    // after the task ended: outside any device task
    tryIt(() => ttg.device.kernels.dscal(kept!, 8, 2, X));
    await runTask(function* () {
      const { stream } = (yield ttg.device.input(Z)) as ttg.device.InputResult;
      tryIt(() => ttg.device.kernels.dscal(stream, 8, 2, X));         // X: listed by the ended task, not this one
      const other = deviceRuntime()!.streams.all.find((s) => s !== stream)!;
      tryIt(() => ttg.device.kernels.dscal(other, 8, 2, Z));
      yield ttg.device.kernel();
    }, 'borrows');
    expect(errs).to.have.length(3);
    expectTtgError(errs[0], 'E_INVALID_ARGUMENT', ['kernels.dscal', 'outside a running device task', 'released when it ends']);
    expectTtgError(errs[1], 'E_INVALID_ARGUMENT', ['kernels.dscal', 'X', 'input(']);
    if (backend !== 'host') expectTtgError(errs[1], 'E_INVALID_ARGUMENT', ['released when that task ended']);
    expectTtgError(errs[2], 'E_INVALID_ARGUMENT', ['stream', 'this task selected stream']);
  });
});
