/**
 * Device layer on the backend of this run (suite.ts): kernels against a plain reference; on the
 * host backend also the generator protocol, streams running concurrently and in order, buffers.
 * Residency and eviction are in memory.ts, the environment variable and the CUDA build in
 * ../device-env.test.ts.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { maxDiff, rand, refGemm, refPotrf, refSyrk, refTrsm, spd } from '../../device-ref.js';
import { expectTtgError, fence, rejection, thrown } from '../../helpers.js';
import { backend, onSuiteDevices, streams } from './suite.js';

type Step = (s: ttg.device.Stream) => void;

/** Runs one device task that inputs `bufs`, enqueues `enqueue(stream)` and waits with `back` copied home. */
async function deviceTask(name: string, bufs: ttg.Buffer<ttg.BufferArray>[], enqueue: Step, back = bufs): Promise<void> {
  const e = new ttg.Edge<number, number>(`${name}-in`);
  const tt = ttg.make_tt(function* () {
    const { stream } = (yield ttg.device.input(bufs)) as ttg.device.InputResult;
    enqueue(stream);
    yield ttg.device.kernel(back);
  }, [e], [], { name });
  ttg.make_graph_executable(tt);
  tt.invoke(0, 0);
  await fence();
}

describe(`device kernels on the ${backend} backend equal a plain reference`, () => {
  onSuiteDevices();
  const m = 19, n = 23, k = 17;
  for (const [ta, tb] of [['N', 'N'], ['T', 'N'], ['N', 'T'], ['T', 'T']] as const) {
    it(`dgemm ${ta}${tb}`, async () => {
      const [ar, ac] = ta === 'N' ? [m, k] : [k, m];
      const [br, bc] = tb === 'N' ? [k, n] : [n, k];
      const A = rand(ar * ac, 1), B = rand(br * bc, 2), C0 = rand(m * n, 3);
      const C = new ttg.Buffer(C0.slice());
      const bA = new ttg.Buffer(A), bB = new ttg.Buffer(B);
      await deviceTask(`dk-gemm-${backend}-${ta}${tb}`, [bA, bB, C],
        (s) => ttg.device.kernels.dgemm(s, ta, tb, m, n, k, 0.75, bA, ar, bB, br, -0.5, C, m), [C]);
      const ref = C0.slice();
      refGemm(ta, tb, m, n, k, 0.75, A, ar, B, br, -0.5, ref, m);
      expect(maxDiff(C.host, ref)).to.be.below(1e-12);
    });
  }
  for (const [uplo, t] of [['L', 'N'], ['U', 'T']] as const) {
    it(`dsyrk ${uplo}${t}`, async () => {
      const A = rand(n * k, 4), C0 = rand(n * n, 5);
      const lda = t === 'N' ? n : k;
      const C = new ttg.Buffer(C0.slice()), bA = new ttg.Buffer(A);
      await deviceTask(`dk-syrk-${backend}-${uplo}${t}`, [bA, C], (s) => ttg.device.kernels.dsyrk(s, uplo, t, n, k, -1, bA, lda, 1, C, n), [C]);
      const ref = C0.slice();
      refSyrk(uplo, t, n, k, -1, A, lda, 1, ref, n);
      expect(maxDiff(C.host, ref)).to.be.below(1e-12);
    });
  }
  for (const f of ['LLNN', 'LUTN', 'RLTN', 'RUNU', 'RLNN', 'LLTU']) {
    it(`dtrsm ${f}`, async () => {
      const [side, uplo, ta, diag] = f.split('') as [string, string, string, string];
      const na = side === 'L' ? m : n;
      const A = spd(na, 6), B0 = rand(m * n, 7);
      const B = new ttg.Buffer(B0.slice()), bA = new ttg.Buffer(A);
      await deviceTask(`dk-trsm-${backend}-${f}`, [bA, B], (s) => ttg.device.kernels.dtrsm(s, side, uplo, ta, diag, m, n, 2, bA, na, B, m), [B]);
      const ref = B0.slice();
      refTrsm(side, uplo, ta, diag, m, n, 2, A, na, ref, m);
      expect(maxDiff(B.host, ref)).to.be.below(1e-10);
    });
  }
  for (const uplo of ['L', 'U']) {
    it(`dpotrf ${uplo} with info, and info > 0 for a matrix that is not positive definite`, async () => {
      const A0 = spd(n, 8);
      const A = new ttg.Buffer(A0.slice()), info = new ttg.Buffer(new Int32Array([-7]));
      await deviceTask(`dk-potrf-${backend}-${uplo}`, [A, info], (s) => ttg.device.kernels.dpotrf(s, uplo, n, A, n, info), [A, info]);
      const ref = A0.slice();
      expect(refPotrf(uplo, n, ref, n)).to.equal(0);
      expect(info.host[0]).to.equal(0);
      expect(maxDiff(A.host, ref)).to.be.below(1e-12);
      const bad = new ttg.Buffer(new Float64Array([1, 2, 2, 1])), info2 = new ttg.Buffer(new Int32Array(1));
      await deviceTask(`dk-potrf-bad-${backend}-${uplo}`, [bad, info2], (s) => ttg.device.kernels.dpotrf(s, uplo, 2, bad, 2, info2), [info2]);
      expect(info2.host[0]).to.equal(2);
    });
  }
  it('daxpy then dscal on one stream run in order', async () => {
    const X = new ttg.Buffer(rand(1000, 9)), Y = new ttg.Buffer(rand(1000, 10));
    const ref = Y.host.map((y, i) => (y + 3 * X.host[i]!) * -2);
    await deviceTask(`dk-axpy-${backend}`, [X, Y], (s) => {
      ttg.device.kernels.daxpy(s, 1000, 3, X, Y);
      ttg.device.kernels.dscal(s, 1000, -2, Y);
    }, [Y]);
    expect(maxDiff(Y.host, ref)).to.be.below(1e-12);
  });
});

if (backend === 'host') describe(`device tasks on the host backend (${streams ?? 'default'} streams)`, () => {
  onSuiteDevices();

  it('ready device tasks run before host tasks of higher priority until every stream carries two, then priority rules', async () => {
    // 64 device tasks (priority 0) and 20 host tasks (priorities 10..29) become ready in one body.
    // The first run learns which TT feeds a device; in the second, device tasks go first until
    // each stream carries two of them, and once fed the host tasks run in priority order before
    // the remaining device tasks (no completion is taken inside one drain of the ready queue).
    const DEV = 64, HOST = 20;
    const go = new ttg.Edge<number, number>('feed-go');
    const toDev = new ttg.Edge<number, ttg.Buffer>('feed-dev');
    const toHost = new ttg.Edge<number, number>('feed-host');
    let order: string[] = [];
    let bufs: ttg.Buffer[] = [];
    const used = new Set<string>();
    const src = ttg.make_tt((_k: number, _v: number, out) => {
      for (let k = 0; k < DEV; k++) out.send(0, k, bufs[k]!);
      for (let k = 0; k < HOST; k++) out.send(1, k, k);
    }, [go], [toDev, toHost], { name: 'feed-src' });
    const dev = ttg.make_tt(function* (k: number, b: ttg.Buffer) {
      order.push(`d${k}`);
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      used.add(`${stream.device}/${stream.index}`);
      ttg.device.kernels.dscal(stream, 8, 2, b);
      yield ttg.device.kernel(b);
    }, [toDev], [], { name: 'feed-dev' });
    const host = ttg.make_tt((k: number) => { order.push(`h${k}`); }, [toHost], [], { name: 'feed-host' }).set_priomap((k) => 10 + k);
    ttg.make_graph_executable(src, dev, host);
    const run = async (): Promise<string[]> => {
      order = [];
      bufs = Array.from({ length: DEV }, (_, k) => new ttg.Buffer(new Float64Array(8).fill(k)));
      src.invoke(0, 0);
      await fence();
      for (let k = 0; k < DEV; k++) expect(bufs[k]!.host[7], `buffer ${k}`).to.equal(2 * k);
      return order;
    };
    const hostOrder = Array.from({ length: HOST }, (_, k) => `h${HOST - 1 - k}`);
    const first = await run();
    expect(first.slice(0, HOST), 'before any of its tasks took a stream, a device TT waits its priority').to.deep.equal(hostOrder);
    for (const phase of [2, 3, 4]) {
      const order = await run();
      expect(order[0], `run ${phase}: a device task first while the streams are idle`).to.match(/^d/);
      expect(order.filter((x) => x.startsWith('h')), 'host tasks among themselves by priority').to.deep.equal(hostOrder);
      // two per stream: every stream then has its next kernel queued (the count must not drift from run to run)
      expect(order.indexOf(hostOrder[0]!), `run ${phase}: device tasks before the first host task`).to.equal(2 * used.size);
      const lastHost = order.indexOf('h0');
      expect(lastHost, 'device tasks left for after the host tasks').to.be.below(order.length - 1);
      expect(order.slice(lastHost + 1).every((x) => x.startsWith('d')), 'once the streams are fed, the remaining device tasks wait for the host tasks of higher priority').to.equal(true);
    }
  });

  it('uses buffers in place: no copies, and the result is on the host after kernel()', async () => {
    const before = ttg.device.stats();
    const X = new ttg.Buffer(new Float64Array([1, 2, 3]));
    await deviceTask('dt-inplace', [X], (s) => ttg.device.kernels.dscal(s, 3, 2, X));
    expect([...X.host]).to.deep.equal([2, 4, 6]);
    const after = ttg.device.stats();
    expect(after.h2d_bytes - before.h2d_bytes).to.equal(0);
    expect(after.kernels - before.kernels).to.equal(1);
  });

  it('two independent long kernels overlap in time on two streams, and run one after the other on one', async function () {
    this.timeout(30000);
    // Stream-side timestamps (not wall time of the whole run): on a VM that throttles its vCPUs
    // the kernels may slow down, but if the streams are concurrent their intervals still overlap.
    const NB = 192, REPS = 20;
    let times = [new Float64Array(2), new Float64Array(2)];
    const used: number[] = [];
    const data = [0, 1].map(() => [new ttg.Buffer(rand(NB * NB, 1)), new ttg.Buffer(rand(NB * NB, 2)), new ttg.Buffer(NB * NB)] as const);
    const e = new ttg.Edge<number, number>('ov-in');
    const tt = ttg.make_tt(function* (key: number) {
      const [A, B, C] = data[key]!;
      const { stream } = (yield ttg.device.input(A, B, C)) as ttg.device.InputResult;
      used.push(stream.index);
      ttg.device.stamp(stream, times[key]!, 0);
      for (let r = 0; r < REPS; r++) ttg.device.kernels.dgemm(stream, 'N', 'N', NB, NB, NB, 1, A, NB, B, NB, 0, C, NB);
      ttg.device.stamp(stream, times[key]!, 1);
      yield ttg.device.kernel(C);
    }, [e], [], { name: 'ov' });
    ttg.make_graph_executable(tt);
    const overlap = async (): Promise<number> => {
      times = [new Float64Array(2), new Float64Array(2)];
      tt.invoke(0, 0);
      tt.invoke(1, 0);
      await fence();
      const [a, b] = times as [Float64Array, Float64Array];
      const shorter = Math.min(a[1]! - a[0]!, b[1]! - b[0]!);
      expect(shorter).to.be.greaterThan(0);
      return (Math.min(a[1]!, b[1]!) - Math.max(a[0]!, b[0]!)) / shorter;
    };
    if (streams === 1) {
      // The control, run with TTG_DEVICE=host:::1: on one stream the tasks run one after the other.
      expect(await overlap()).to.be.at.most(0);
      return;
    }
    // Serial streams give <= 0 (the control above); 0.1 leaves room for a loaded CI machine, where
    // another process delaying one worker measured 0.26.
    expect(await overlap()).to.be.greaterThan(0.1);
    expect(new Set(used).size, 'the two tasks got different streams').to.equal(2);
  });

  it('a chain of tasks on one tile stays on the stream (worker) that wrote it', async () => {
    // Two chains, each rewriting its own tile: first-among-equals placement alone would move chain
    // 1 onto stream 0 whenever both streams are idle; affinity keeps each tile on one worker.
    const STEPS = 30;
    const tiles = [new ttg.Buffer(new Float64Array(64).fill(1)), new ttg.Buffer(new Float64Array(64).fill(1))];
    const used: Array<Set<number>> = [new Set(), new Set()];
    const e = new ttg.Edge<[number, number], ttg.Buffer>('aff');
    const tt = ttg.make_tt(function* (key: [number, number], T: ttg.Buffer, out) {
      const { stream } = (yield ttg.device.input(T)) as ttg.device.InputResult;
      used[key[0]]!.add(stream.index);
      ttg.device.kernels.dscal(stream, 64, 2, T);
      yield ttg.device.kernel();
      if (key[1] + 1 < STEPS) out.send(0, [key[0], key[1] + 1], T);
    }, [e], [e], { name: 'aff' });
    ttg.make_graph_executable(tt);
    tt.invoke([0, 0], tiles[0]!);
    tt.invoke([1, 0], tiles[1]!);
    await fence();
    expect(used.map((u) => [...u])).to.deep.equal([[0], [1]]);
    expect(tiles[1]!.host[0]).to.equal(2 ** STEPS);
  });

  it('select/wait are aliases; current_stream() is the task stream inside the body and undefined outside', async () => {
    expect(ttg.device.select).to.equal(ttg.device.input);
    expect(ttg.device.wait).to.equal(ttg.device.kernel);
    expect(ttg.device.current_stream()).to.equal(undefined);
    const X = new ttg.Buffer(4);
    let same = false;
    const e = new ttg.Edge<number, number>('cs-in');
    const tt = ttg.make_tt(function* () {
      const { stream, device } = (yield ttg.device.select(X)) as ttg.device.InputResult;
      same = ttg.device.current_stream() === stream && device === 0;
      yield ttg.device.wait(X);
    }, [e], [], { name: 'cs' });
    ttg.make_graph_executable(tt);
    tt.invoke(0, 0);
    await fence();
    expect(same).to.equal(true);
    expect(ttg.device.num_devices()).to.equal(1);
  });

  for (const kind of ['function*', 'async function*'] as const) {
    it(`${kind === 'function*' ? 'a' : 'an'} ${kind} body may wait several times; each wait resumes it in its task's stream context`, async () => {
      const X = new ttg.Buffer(new Float64Array([1, 2, 3, 4]));
      const seen: boolean[] = [];
      const e = new ttg.Edge<number, number>(`multi-${kind}`);
      function* body(): Generator<unknown, void, unknown> {
        for (let round = 0; round < 3; round++) {
          const { stream } = (yield ttg.device.input(X)) as ttg.device.InputResult;
          ttg.device.kernels.dscal(stream, 4, 2, X);
          yield ttg.device.kernel();
          seen.push(ttg.device.current_stream() === stream);
        }
        yield ttg.device.kernel(X);
      }
      // yield* runs the same steps synchronously inside each resumption of the async generator
      const tt = kind === 'function*'
        ? ttg.make_tt(body, [e], [], { name: 'multi-wait' })
        : ttg.make_tt(async function* () { yield* body(); }, [e], [], { name: 'multi-wait' });
      ttg.make_graph_executable(tt);
      tt.invoke(0, 0);
      await fence();
      expect(seen).to.deep.equal([true, true, true]);
      expect([...X.host]).to.deep.equal([8, 16, 24, 32]);
      expect(ttg.device.current_stream()).to.equal(undefined);
    });
  }

  it('kernels check their arguments: flags, sizes, stream, and residency', async () => {
    const X = new ttg.Buffer(4), Y = new ttg.Buffer(new Float32Array(4));
    const errs: unknown[] = [];
    const e = new ttg.Edge<number, number>('kc-in');
    const tt = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(X)) as ttg.device.InputResult;
      const k = ttg.device.kernels;
      for (const f of [
        () => k.dgemm(stream, 'X', 'N', 2, 2, 2, 1, X, 2, X, 2, 0, X, 2),
        () => k.dgemm(stream, 'N', 'N', 3, 3, 3, 1, X, 3, X, 3, 0, X, 3),
        () => k.dscal(stream, 4, 1, Y as unknown as ttg.Buffer),
        () => k.dscal({} as ttg.device.Stream, 4, 1, X),
        () => k.dpotrf(stream, 'L', 2, X, 1),
      ]) { try { f(); } catch (err) { errs.push(err); } }
      yield ttg.device.kernel();
    }, [e], [], { name: 'kc' });
    ttg.make_graph_executable(tt);
    tt.invoke(0, 0);
    await fence();
    expect(errs).to.have.length(5);
    expectTtgError(errs[0], 'E_INVALID_ARGUMENT', ['transA']);
    expectTtgError(errs[1], 'E_INVALID_ARGUMENT', ['has 4 elements']);
    expectTtgError(errs[2], 'E_INVALID_ARGUMENT', ['Float64Array']);
    expectTtgError(errs[3], 'E_INVALID_ARGUMENT', ['stream']);
    expectTtgError(errs[4], 'E_INVALID_ARGUMENT', ['leading dimension']);
  });

  it('input() rejects non-buffers; a throwing device body fails the fence with E_TASK_FAILED', async () => {
    expectTtgError(thrown(() => ttg.device.input(new Float64Array(2) as unknown as ttg.Buffer)), 'E_INVALID_ARGUMENT', ['ttg.Buffer']);
    const e = new ttg.Edge<number, number>('thr-in');
    const tt = ttg.make_tt(function* () {
      yield ttg.device.input(new ttg.Buffer(1));
      throw new Error('boom');
    }, [e], [], { name: 'thr' });
    ttg.make_graph_executable(tt);
    tt.invoke(5, 0);
    expectTtgError(await rejection(fence()), 'E_TASK_FAILED', ["'thr'", 'key 5', 'boom']);
  });
});

if (backend === 'host') describe('ttg.Buffer', () => {
  it('owns a zeroed Float64Array or wraps a TypedArray without copying', () => {
    const own = new ttg.Buffer(3);
    expect(own.owning).to.equal(true);
    expect(own.host).to.be.instanceOf(Float64Array);
    expect(own.length).to.equal(3);
    expect(own.bytes).to.equal(24);
    const mem = new Int32Array(5);
    const wrap = new ttg.Buffer(mem);
    expect(wrap.owning).to.equal(false);
    expect(wrap.host).to.equal(mem);
    expect(wrap.validOnHost).to.equal(true);
    expect(wrap.devices).to.deep.equal([]);
    expect(wrap.last_writer).to.equal(-1);
  });

  it('rejects bad constructor arguments; make_scratch makes a device-only buffer', () => {
    expectTtgError(thrown(() => new ttg.Buffer(-1)), 'E_INVALID_ARGUMENT', ['length']);
    expectTtgError(thrown(() => new ttg.Buffer({} as unknown as number)), 'E_INVALID_ARGUMENT', ['TypedArray']);
    expect(ttg.device.make_scratch(8).scratch).to.equal(true);
  });
});
