/**
 * A program's own kernels on the backend of this run (suite.ts): built here with cc from
 * test/fixtures/kernels/test_kernels.c, loaded with `ttg.device.kernels.load`, enqueued like the
 * built-in kernels (several times in one task, across tasks, with waits between) or run on the
 * calling thread (`.here`), and refused, naming the kernel, when the call does not match what was
 * declared.
 */
import { execFileSync } from 'node:child_process';

import { join } from 'node:path';

import { expect } from 'chai';
import * as ttg from 'ttg';

import { expectTtgError, fence, rejection, thrown, tick } from '../../helpers.js';
import { backend, onSuiteDevices } from './suite.js';
import { build, nvcc, root, specs, type SPECS } from './test-kernels.js';
import { scratchDir } from '../../scratch-dir.js';

let graphs = 0;
/** Runs `body` as the generator body of one device task and fences. */
async function inTask(body: () => Generator<unknown, void, unknown>): Promise<void> {
  const e = new ttg.Edge<number, number>(`uk-${graphs++}`);
  const tt = ttg.make_tt(body, [e], [], { name: `uk-task-${graphs}` });
  ttg.make_graph_executable(tt);
  tt.invoke(0, 0);
  await fence();
}

describe(`a program's own kernels on the ${backend} backend`, () => {
  onSuiteDevices();
  let lib = '';
  let k: Record<keyof typeof SPECS, ttg.device.KernelFn>;
  before(() => {
    lib = build();
    k = ttg.device.kernels.load(lib, specs());
  });

  it('runs in stream order with the built-in kernels, many times in one task, waits between; results come home', async () => {
    const x = new ttg.Buffer(Float64Array.from({ length: 1000 }, (_, i) => i));
    const y = new ttg.Buffer(new Float64Array(1000).fill(1));
    const seen: number[] = [];
    await inTask(function* () {
      const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
      k.axpby(stream, { buffers: [x, y], scalars: [2, 3] });                // y = 2x + 3
      ttg.device.kernels.dscal(stream, 1000, 0.5, y);                       // y = x + 1.5
      ttg.device.kernels.call('axpby', stream, { buffers: [x, y], scalars: [1, -1] }); // y = -1.5
      yield ttg.device.kernel(y);
      seen.push(y.host[0]!, y.host[999]!);
      k.axpby(stream, { buffers: [x, y], scalars: [0, 2] });                // y = -3
      yield ttg.device.kernel(y);
      seen.push(y.host[500]!);
    });
    expect(seen).to.deep.equal([-1.5, -1.5, -3]);
    expect([...x.host.subarray(0, 3)]).to.deep.equal([0, 1, 2]);
  });

  it('passes buffers with their lengths, scalars in order and no stream on the pool (the task\'s on cuda); any typed array', async () => {
    const a = new ttg.Buffer(new Float32Array(7));
    const counts = new ttg.Buffer(new Int32Array([1, 2, 3]));
    const out = new ttg.Buffer(new Float64Array(8));
    await inTask(function* () {
      const { stream } = (yield ttg.device.input(a, counts, out)) as ttg.device.InputResult;
      k.describe(stream, { buffers: [a, counts, out], scalars: [1.5, -2, 1e300] });
      k.increment(stream, { buffers: [counts] });
      k.increment(stream, { buffers: [counts] });
      yield ttg.device.kernel(out, counts);
    });
    expect([...out.host]).to.deep.equal([303, 7, 3, 8, 1.5, -2, 1e300, backend === 'cuda' ? 0 : 1]);
    expect([...counts.host]).to.deep.equal([3, 4, 5]);
  });

  it('counts as a kernel; a buffer it writes is not sent before a wait', async () => {
    const before = ttg.device.stats().kernels;
    const y = new ttg.Buffer(new Int32Array(4));
    const e = new ttg.Edge<number, number>('uk-send');
    const sink = new ttg.Edge<number, ttg.Buffer<Int32Array>>('uk-sink');
    const tt = ttg.make_tt(function* (_k: number, _v: number, o) {
      const { stream } = (yield ttg.device.input(y)) as ttg.device.InputResult;
      k.increment(stream, { buffers: [y] });
      o.send(0, 0, y);
    }, [e], [sink], { name: 'uk-early-send' });
    const recv = ttg.make_tt(() => {}, [sink], [], { name: 'uk-recv' });
    ttg.make_graph_executable(tt, recv);
    tt.invoke(0, 0);
    expectTtgError(await rejection(fence()), 'E_INVALID_ARGUMENT', ['uk-early-send', 'no `yield ttg.device.kernel()` has waited']);
    expect(ttg.device.stats().kernels - before).to.equal(1);
  });

  it('a call that does not match the declaration is E_INVALID_ARGUMENT naming the kernel and the task', async () => {
    const x = new ttg.Buffer(new Float64Array(4));
    const y = new ttg.Buffer(new Float64Array(4));
    const other = new ttg.Buffer(new Float64Array(4));
    const cases: Array<[(s: ttg.device.Stream) => void, string[]]> = [
      [(s) => k.axpby(s, { buffers: [x], scalars: [1, 2] }), ["'axpby'", 'takes 2 buffer(s) (in, inout), got 1']],
      [(s) => k.axpby(s, { buffers: [x, y], scalars: [1] }), ["'axpby'", 'takes 2 number(s) as scalars']],
      [(s) => k.axpby(s, { buffers: [x, y], scalars: [1, '2' as unknown as number] }), ["'axpby'", 'number, string']],
      [(s) => k.axpby(s, { buffers: [x, x.host as unknown as ttg.Buffer], scalars: [1, 2] }), ["'axpby'", 'buffer 1 is not a ttg.Buffer']],
      [(s) => k.axpby(s, { buffers: [x, other], scalars: [1, 2] }), ["'axpby'", 'buffer 1']],
      [(s) => ttg.device.kernels.call('nope', s, { buffers: [] }), ["'nope'", 'names no loaded kernel']],
      [() => k.axpby(undefined as unknown as ttg.device.Stream, { buffers: [x, y], scalars: [1, 2] }), ["'axpby'", 'needs the stream']],
    ];
    for (const [bad, parts] of cases) {
      const err = await (async () => {
        let caught: unknown;
        await inTask(function* () {
          const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
          try {
            bad(stream);
          } catch (e) {
            caught = e;
          }
        });
        return caught;
      })();
      expectTtgError(err, 'E_INVALID_ARGUMENT', parts);
    }
    // thrown inside the body: the fence names the task
    const e = new ttg.Edge<number, number>('uk-throw');
    const tt = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
      k.axpby(stream, { buffers: [x], scalars: [1, 2] });
    }, [e], [], { name: 'uk-bad-call' });
    ttg.make_graph_executable(tt);
    tt.invoke(3, 0);
    expectTtgError(await rejection(fence()), 'E_INVALID_ARGUMENT', ["'axpby'", "TT 'uk-bad-call'", 'key 3']);
    // outside any task
    expectTtgError(thrown(() => k.axpby(undefined as unknown as ttg.device.Stream, { buffers: [x, y], scalars: [1, 2] })), 'E_INVALID_ARGUMENT', ["'axpby'"]);
    // a kernel without buffers on the stream of a task that ended
    let kept: ttg.device.Stream | undefined;
    await inTask(function* () {
      kept = ((yield ttg.device.input(x)) as ttg.device.InputResult).stream;
    });
    expectTtgError(thrown(() => k.fail_with(kept!, { buffers: [], scalars: [1] })), 'E_INVALID_ARGUMENT', ["'fail_with'", 'outside a running device task']);
  });

  it('.here runs the host function on the calling thread at once, on typed arrays or idle Buffers, in and out of tasks', async () => {
    const x = Float64Array.of(1, 2, 3);
    const y = new Float64Array(3).fill(1);
    k.axpby.here({ buffers: [x, y], scalars: [2, 3] });
    expect([...y]).to.deep.equal([5, 7, 9]);
    ttg.device.kernels.callHere('axpby', { buffers: [x, y], scalars: [0, 2] });
    expect([...y]).to.deep.equal([10, 14, 18]);
    const where = new Float64Array(1);
    k.on_main_thread.here({ buffers: [where] });
    expect(where[0]).to.equal(1);
    const out = new Float64Array(8);
    k.describe.here({ buffers: [new Float32Array(7), Int32Array.of(1, 2, 3), out], scalars: [1.5, -2, 1e300] });
    expect([...out]).to.deep.equal([303, 7, 3, 8, 1.5, -2, 1e300, 1]);
    // in a host task, on a Buffer it received
    const e = new ttg.Edge<number, ttg.Buffer<Int32Array>>('uk-here');
    const seen: number[] = [];
    const tt = ttg.make_tt((_k: number, b: ttg.Buffer<Int32Array>) => {
      k.increment.here({ buffers: [b] });
      seen.push(...b.host);
    }, [e], [], { name: 'uk-here-task' });
    ttg.make_graph_executable(tt);
    tt.invoke(0, new ttg.Buffer(Int32Array.of(4, 5)));
    await fence();
    expect(seen).to.deep.equal([5, 6]);
  });

  it('a Buffer .here writes loses its device copies: the next kernel on it reads what .here wrote', async () => {
    const y = new ttg.Buffer(new Int32Array(4));
    const inc = function* () {
      const { stream } = (yield ttg.device.input(y)) as ttg.device.InputResult;
      k.increment(stream, { buffers: [y] });
      yield ttg.device.kernel(y);
    };
    await inTask(inc);
    k.increment.here({ buffers: [y] });
    expect([...y.host]).to.deep.equal([2, 2, 2, 2]);
    await inTask(inc);
    expect([...y.host]).to.deep.equal([3, 3, 3, 3]);
  });

  it('.here refuses a Buffer a running task holds, operands that are not arrays, and reports the kernel\'s error', async () => {
    const y = new ttg.Buffer(new Int32Array(2));
    let held: unknown;
    await inTask(function* () {
      yield ttg.device.input(y);
      held = thrown(() => k.increment.here({ buffers: [y] }));
    });
    expectTtgError(held, 'E_INVALID_ARGUMENT', ["callHere('increment')", 'buffer 0', 'a device task holds it']);
    expect([...y.host]).to.deep.equal([0, 0]);
    expectTtgError(thrown(() => k.increment.here({ buffers: [new DataView(new ArrayBuffer(8)) as unknown as Int32Array] })), 'E_INVALID_ARGUMENT', ["'increment'", 'neither a typed array nor a ttg.Buffer']);
    expectTtgError(thrown(() => k.axpby.here({ buffers: [new Float64Array(1)], scalars: [1, 2] })), 'E_INVALID_ARGUMENT', ["'axpby'", 'takes 2 buffer(s)']);
    expectTtgError(thrown(() => ttg.device.kernels.callHere('nope', { buffers: [] })), 'E_INVALID_ARGUMENT', ["'nope'", 'names no loaded kernel']);
    expectTtgError(thrown(() => k.fail_with.here({ buffers: [], scalars: [7] })), 'E_DEVICE', ["callHere('fail_with')", 'error 7']);
    expect(() => k.fail_with.here({ buffers: [], scalars: [0] })).to.not.throw();
  });

  it('a kernel that reports an error fails its task with E_DEVICE naming the kernel, TT and key, at its wait or at its end; the device then runs a clean graph (issue 56)', async function () {
    this.timeout(30000);
    for (const waits of [true, false]) {
      const x = new ttg.Buffer(new Int32Array(16));
      let after = 0;
      const name = `uk-fails-${String(waits)}`;
      const e = new ttg.Edge<number, number>(`uk-fails-${graphs++}`);
      const tt = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
        k.increment(stream, { buffers: [x] });
        k.fail_with(stream, { buffers: [], scalars: [7] });
        if (waits) yield ttg.device.kernel(x);
        after++;
      }, [e], [], { name });
      ttg.make_graph_executable(tt);
      tt.invoke(4, 0);
      const err = expectTtgError(await rejection(fence()), 'E_DEVICE', [`TT '${name}'`, 'key 4', 'error 7']);
      if (backend !== 'cuda') expect(err.message).to.include("'fail_with'");
      expect(after, 'the body does not go on past a failed wait').to.equal(waits ? 0 : 1);
    }
    // a call that reports no error is no failure
    const y = new ttg.Buffer(new Int32Array(4));
    await inTask(function* () {
      const { stream } = (yield ttg.device.input(y)) as ttg.device.InputResult;
      k.fail_with(stream, { buffers: [], scalars: [0] });
      k.increment(stream, { buffers: [y] });
      yield ttg.device.kernel(y);
    });
    expect([...y.host]).to.deep.equal([1, 1, 1, 1]);
    await tick(20);
    for (const d of ttg.device.stats().per_device) expect(d.pinned_bytes, 'nothing pinned once idle').to.equal(0);
  });

  it('a host write between graphs by .here on the raw host array is seen by the next graph: 1 -> 2 on the device, 8 increments by .here, +1 = 11 (issue 56)', async () => {
    const y = new ttg.Buffer(new Int32Array(64));
    const inc = function* () {
      const { stream } = (yield ttg.device.input(y)) as ttg.device.InputResult;
      k.increment(stream, { buffers: [y] });
      yield ttg.device.kernel(y);
    };
    y.host.fill(1);
    await inTask(inc);
    expect([...new Set(y.host)]).to.deep.equal([2]);
    // eight increments of the raw array (not the Buffer: the runtime is not told)
    for (let i = 0; i < 8; i++) k.increment.here({ buffers: [y.host] });
    await inTask(inc);
    expect([...new Set(y.host)], 'y after 8 host increments and one on the device').to.deep.equal([11]);
  });

  it('a kernel with a CUDA function too (built by nvcc when it exists) loads; this backend runs the function for it', async function () {
    if (!nvcc) {
      // no CUDA toolchain here: the same library built by cc, its CUDA name pointing at the host function
      k = { ...k, ...ttg.device.kernels.load(lib, { axpby2: { host: 'axpby', cuda: 'axpby', buffers: ['in', 'inout'], scalars: 2 } }) };
    } else {
      this.timeout(120_000);
      const cu = join(scratchDir('ttg-cuda-kernels-'), 'libtestcuda.so');
      execFileSync('nvcc', ['-shared', '-Xcompiler', '-fPIC', '-O2', `-I${join(root, 'native', 'include')}`, join(root, 'test', 'fixtures', 'kernels', 'test_kernels_cuda.cu'), '-o', cu]);
      k = { ...k, ...ttg.device.kernels.load(cu, { axpby2: { host: 'axpby_host', cuda: 'axpby_cuda', buffers: ['in', 'inout'], scalars: 2 } }) };
    }
    const x = new ttg.Buffer(Float64Array.of(1, 2, 3));
    const y = new ttg.Buffer(Float64Array.of(1, 1, 1));
    await inTask(function* () {
      const { stream } = (yield ttg.device.input(x, y)) as ttg.device.InputResult;
      (k as unknown as Record<string, ttg.device.KernelFn>)['axpby2']!(stream, { buffers: [x, y], scalars: [10, 1] });
      yield ttg.device.kernel(y);
    });
    expect([...y.host]).to.deep.equal([11, 21, 31]);
  });

  it('kernels named like members of Object.prototype are kernels like any other: listed, called, and the prototype untouched', async () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];
    const spec = { host: 'increment', buffers: ['inout'], ...(backend === 'cuda' ? { cuda: 'increment_cuda' } : {}) } as const;
    const loaded = ttg.device.kernels.load(lib, Object.fromEntries(names.map((n) => [n, spec])));
    expect(Object.keys(loaded).sort()).to.deep.equal([...names].sort());
    const counts = new ttg.Buffer(new Int32Array([0, 10]));
    await inTask(function* () {
      const { stream } = (yield ttg.device.input(counts)) as ttg.device.InputResult;
      for (const n of names) (Object.getOwnPropertyDescriptor(loaded, n)!.value as ttg.device.KernelFn)(stream, { buffers: [counts] });
      ttg.device.kernels.call('__proto__', stream, { buffers: [counts] });
      yield ttg.device.kernel(counts);
    });
    expect([...counts.host]).to.deep.equal([7, 17]);
    expect(Object.keys(Object.prototype)).to.deep.equal([]);
    expect(typeof ({} as { toString: unknown }).toString).to.equal('function');
  });

  it('loading: a missing library or function, a bad declaration, and a name taken by another kernel are errors naming it', () => {
    expectTtgError(thrown(() => ttg.device.kernels.load('/nonexistent/libk.so', { a: { host: 'a', buffers: [] } })), 'E_INVALID_ARGUMENT', ["'a'", 'cannot load /nonexistent/libk.so']);
    expectTtgError(thrown(() => ttg.device.kernels.load(lib, { b: { host: 'no_such_fn', buffers: [] } })), 'E_INVALID_ARGUMENT', ["'b'", "no function 'no_such_fn'"]);
    expectTtgError(thrown(() => ttg.device.kernels.load(lib, { c: { host: 'axpby', buffers: ['rw' as 'in'] } })), 'E_INVALID_ARGUMENT', ["'c'", "'in', 'out' or 'inout'"]);
    expectTtgError(thrown(() => ttg.device.kernels.load(lib, { d: { host: 'axpby', buffers: [], scalars: -1 } })), 'E_INVALID_ARGUMENT', ["'d'", 'non-negative integer']);
    expectTtgError(thrown(() => ttg.device.kernels.load(lib, { axpby: { host: 'increment', buffers: ['inout'] } })), 'E_INVALID_ARGUMENT', ["'axpby'", 'already loaded']);
    expect(() => ttg.device.kernels.load(lib, { axpby: specs().axpby })).to.not.throw();
  });
});
