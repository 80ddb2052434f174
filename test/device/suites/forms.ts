/**
 * The same device scenarios with bodies in both forms, on the backend of this run (suite.ts): a
 * generator that yields its device steps, and an async function that awaits them. Each scenario
 * is written once as a generator; the async form is an async function awaiting every step the
 * generator makes, as a hand-written async body would (`await ttg.device.input(...)`), and awaits
 * a timer between steps so that several async tasks are suspended at once.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';
import * as ttg from 'ttg';
import { maxDiff, rand, refGemm, refPotrf, refSyrk, refTrsm, spd } from '../../device-ref.js';
import { expectTtgError, fence, rejection, tick } from '../../helpers.js';
import { backend, onSuiteDevices } from './suite.js';

type Gen = (...args: never[]) => Generator<unknown, void, unknown>;
type Form = 'generator' | 'async';

/** `gen` as a body of the given form (an async body awaits each step, with a timer turn after each). */
function body(form: Form, gen: Gen): Gen | ((...args: never[]) => Promise<void>) {
  if (form === 'generator') return gen;
  return async (...args: never[]) => {
    const it = gen(...args);
    for (let r = it.next(); r.done !== true; r = it.next(await r.value)) {
      await tick();
    }
  };
}

let graphs = 0;
/** A one-input TT named `name` whose body is `gen` in `form`; invoked for each [key, value] pair, then fenced. */
async function run(form: Form, name: string, gen: Gen, inputs: Array<[number, unknown]>, options: { consume?: number[] } = {}): Promise<void> {
  const e = new ttg.Edge<number, unknown>(`${name}-${graphs++}`);
  const tt = ttg.make_tt(body(form, gen) as never, [e], [], { name, ...options });
  ttg.make_graph_executable(tt);
  for (const [k, v] of inputs) tt.invoke(k, v);
  await fence();
}

for (const form of ['generator', 'async'] as const) {
  describe(`device tasks as ${form} bodies on the ${backend} backend`, () => {
    onSuiteDevices();

    it("POTRF's kernels (dpotrf, dtrsm, dsyrk, dgemm) equal the reference", async () => {
      const n = 24;
      const A0 = spd(n, 1), B0 = rand(n * n, 2), C0 = rand(n * n, 3);
      const A = new ttg.Buffer(A0.slice()), info = new ttg.Buffer(new Int32Array([-1]));
      const B = new ttg.Buffer(B0.slice()), C = new ttg.Buffer(C0.slice()), D = new ttg.Buffer(C0.slice());
      await run(form, 'forms-potrf', function* () {
        const { stream } = (yield ttg.device.input(A, info, B, C, D)) as ttg.device.InputResult;
        const k = ttg.device.kernels;
        k.dpotrf(stream, 'L', n, A, n, info);
        k.dtrsm(stream, 'R', 'L', 'T', 'N', n, n, 1, A, n, B, n);
        k.dsyrk(stream, 'L', 'N', n, n, -1, B, n, 1, C, n);
        k.dgemm(stream, 'N', 'T', n, n, n, -1, B, n, B, n, 1, D, n);
        yield ttg.device.kernel(A, info, B, C, D);
      }, [[0, 0]]);
      const rA = A0.slice(), rB = B0.slice(), rC = C0.slice(), rD = C0.slice();
      expect(refPotrf('L', n, rA, n)).to.equal(0);
      refTrsm('R', 'L', 'T', 'N', n, n, 1, rA, n, rB, n);
      refSyrk('L', 'N', n, n, -1, rB, n, 1, rC, n);
      refGemm('N', 'T', n, n, n, -1, rB, n, rB, n, 1, rD, n);
      expect(info.host[0]).to.equal(0);
      for (const [got, want] of [[A, rA], [B, rB], [C, rC], [D, rD]] as const) expect(maxDiff(got.host, want)).to.be.below(1e-9);
    });

    it('several waits in one task, four tasks at once, each wait seeing the work before it', async () => {
      const seen: string[] = [];
      const ones = new ttg.Buffer(new Float64Array(64).fill(1));
      await run(form, 'forms-loop', function* (k: number, y: ttg.Buffer) {
        const { stream } = (yield ttg.device.input(ones, y)) as ttg.device.InputResult;
        for (let i = 1; i <= 3; i++) {
          ttg.device.kernels.daxpy(stream, 64, k, ones, y);
          yield ttg.device.kernel(y);
          seen.push(`${k}:${y.host[0]}:${y.host[63]}:${ttg.device.current_stream() === stream}`);
        }
      }, [1, 2, 3, 4].map((k) => [k, new ttg.Buffer(64)]));
      const want = [1, 2, 3, 4].flatMap((k) => [1, 2, 3].map((i) => `${k}:${k * i}:${k * i}:true`));
      expect(seen.sort()).to.deep.equal(want.sort());
    });

    it('host tasks between device tasks see current data, and their writes reach the next device task', async () => {
      // every task consumes the buffer, so the chain moves one Buffer from task to task
      const ROUNDS = 4;
      const toDev = new ttg.Edge<number, ttg.Buffer>(`forms-hd-dev-${graphs++}`);
      const toHost = new ttg.Edge<number, ttg.Buffer>(`forms-hd-host-${graphs++}`);
      const ones = new ttg.Buffer(new Float64Array(16).fill(1));
      const hostSaw: number[] = [];
      const dev = ttg.make_tt(body(form, function* (k: number, y: ttg.Buffer, out: { send(i: number, k: number, v: ttg.Buffer): void }) {
        const { stream } = (yield ttg.device.input(ones, y)) as ttg.device.InputResult;
        ttg.device.kernels.daxpy(stream, 16, 1, ones, y);
        yield ttg.device.kernel();
        if (k < ROUNDS) out.send(0, k, y);
      } as Gen) as never, [toDev], [toHost], { name: 'forms-hd-dev', consume: [0] }).set_devicehint((k) => (k as number) % 2);
      const host = ttg.make_tt((k: number, y: ttg.Buffer, out) => {
        hostSaw.push(y.host[15]!);
        y.host.fill(y.host[0]! * 10);
        out.send(0, k + 1, y);
      }, [toHost], [toDev], { name: 'forms-hd-host', consume: [0] });
      ttg.make_graph_executable(dev, host);
      const y = new ttg.Buffer(16);
      dev.invoke(0, y);
      await fence();
      await y.toHost();
      expect(hostSaw).to.deep.equal([1, 11, 111, 1111]);
      expect(y.host[7]).to.equal(11111);
    });

    it('a working set larger than the devices completes with exact results (evictions on emulated)', async () => {
      const n = 64;   // 32 KiB per buffer; 24 buffers = 768 KiB on 2 x 256 KiB devices
      const bufs = Array.from({ length: 24 }, (_, i) => new ttg.Buffer(new Float64Array(n * n).fill(i)));
      const before = ttg.device.stats().evictions;
      await run(form, 'forms-oversub', function* (k: number) {
        const b = bufs[k]!;
        const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, n * n, 2, b);
        yield ttg.device.kernel();
      }, bufs.map((_, k) => [k, 0]));
      await Promise.all(bufs.map((b) => b.toHost()));
      bufs.forEach((b, i) => expect([b.host[0], b.host[n * n - 1]]).to.deep.equal([2 * i, 2 * i]));
      if (backend !== 'host') expect(ttg.device.stats().evictions - before).to.be.above(0);
    });

    it('an error thrown after an await fails the fence naming TT and key, and releases the task\'s pins', async () => {
      const X = new ttg.Buffer(new Float64Array(8).fill(1));
      const e = new ttg.Edge<number, number>(`forms-err-${graphs++}`);
      const tt = ttg.make_tt(body(form, function* (k: number) {
        const { stream } = (yield ttg.device.input(X)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, 8, 3, X);
        yield ttg.device.kernel();
        yield tick(5);
        throw new Error(`late failure ${k}`);
      } as Gen) as never, [e], [], { name: 'forms-err' });
      ttg.make_graph_executable(tt);
      tt.invoke(9, 0);
      expectTtgError(await rejection(fence()), 'E_TASK_FAILED', ["'forms-err'", 'key 9', 'late failure 9']);
      for (const c of X.copies) if (c !== undefined) expect(c.pins).to.equal(0);
      await X.toHost();
      expect(X.host[0]).to.equal(3);
    });
  });
}

if (backend !== 'host') describe('async device bodies written out', () => {
  onSuiteDevices();

  it('the body of the README runs, typed without casts, with timers between its steps', async () => {
    const e = new ttg.Edge<number, ttg.Buffer>('written-out');
    const out: number[][] = [];
    const T = ttg.make_tt(async (k: number, buf: ttg.Buffer) => {
      const one = new ttg.Buffer(new Float64Array(4).fill(1));
      const { stream } = await ttg.device.input(buf, one);   // typed: { stream, device }
      ttg.device.kernels.daxpy(stream, 4, 2.0, one, buf);
      await ttg.device.kernel(buf);
      await tick(2);
      ttg.device.kernels.daxpy(stream, 4, 1.0, one, buf);
      await ttg.device.kernel(buf);
      out.push([k, ...buf.host]);
    }, [e], [], { name: 'T' });
    ttg.make_graph_executable(T);
    for (let k = 0; k < 6; k++) T.invoke(k, new ttg.Buffer(new Float64Array(4).fill(k)));
    await fence();
    expect(out.sort((a, b) => a[0]! - b[0]!)).to.deep.equal([0, 1, 2, 3, 4, 5].map((k) => [k, k + 3, k + 3, k + 3, k + 3]));
  });

  for (const [mode, backend] of [['late', 'host'], ['late', 'emulated'], ['host-first', 'host']] as const) {
    it(`in a fresh process, the first async device body may make its first step after other awaits (${mode}, ${backend})`, () => {
      const child = spawnSync(process.execPath, [fileURLToPath(new URL('../../fixtures/async_device_child.js', import.meta.url)), mode, backend], { encoding: 'utf8', timeout: 60_000 });
      const r = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as { ok: boolean; seen: number[]; message?: string };
      expect(r.ok, `${r.message ?? ''}\n${child.stderr}`).to.equal(true);
      expect(r.seen).to.deep.equal(mode === 'late' ? [2, 4, 6] : [0, 2, 4, 6, 101, 202]);
    });
  }

  it('a device step awaited outside any task is an error that says so', async () => {
    expectTtgError(await rejection(Promise.resolve(ttg.device.input(new ttg.Buffer(1)))), 'E_INVALID_ARGUMENT', ['outside a task']);
  });
});
