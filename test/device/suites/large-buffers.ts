/**
 * Host-write guards on buffers of 1 MiB and more (issue 57): their hashes are taken where the copy
 * home runs or on a worker, never on the JS thread, and every guard still holds: a host task
 * writing a read-only input is E_READ_ONLY, a body's host write after a wait reaches the next
 * kernel, the program's write between fences reaches the next graph. Each test also checks that
 * the JS thread hashed no byte.
 *
 * Run with TTG_DEVICE=emulated:1:64MiB:2 and, where there is a GPU, cuda:1:64MiB:2.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { expectTtgError, rejection } from '../../helpers.js';
import { edge, fence, filled, wrong } from './hostile-kit.js';
import { onSuiteDevices } from './suite.js';

/** Doubles in a buffer of a little over 2 MiB: three hash chunks, the last one short. */
const BIG = (2 << 17) + 77;
/** An element in the second chunk, and the last one. */
const MID = (1 << 17) + 5, LAST = BIG - 1;

/** Bytes the JS thread hashed since `from` (a `js_hashed_bytes` reading). */
const hashedSince = (from: number): number => ttg.device.stats().js_hashed_bytes - from;

type Host = (k: number, ...ys: ttg.Buffer[]) => void | Promise<void>;

/** D(k) doubles each buffer on the device and waits for it (valid on the host and the device), then hands them all read-only to H. */
function toReadOnly(name: string, n: number, host: Host): { invoke(k: number, ys: ttg.Buffer[]): void } {
  const go = edge<number, ttg.Buffer[]>(`${name}-go`);
  const outs = Array.from({ length: n }, (_, i) => edge<number, ttg.Buffer>(`${name}-ro${i}`));
  const d = ttg.make_tt(function* (k: number, ys: ttg.Buffer[], out) {
    const { stream } = (yield ttg.device.input(...ys)) as ttg.device.InputResult;
    for (const y of ys) ttg.device.kernels.dscal(stream, y.length, 2, y);
    yield ttg.device.kernel(...ys);
    ys.forEach((y, i) => out.send(i as never, k, y));
  }, [go], outs, { name: `${name}-D` }).set_devicehint(() => 0);
  const h = ttg.make_tt(host as never, outs, [], { name: `${name}-H` });
  ttg.make_graph_executable(d, h);
  return d as unknown as { invoke(k: number, ys: ttg.Buffer[]): void };
}

/** One device task of a fresh TT: `body` runs on device 0. */
async function oneTask(name: string, body: () => Generator<unknown, void, unknown>): Promise<void> {
  const tt = ttg.make_tt(body, [edge<number, number>(name)], [], { name }).set_devicehint(() => 0);
  ttg.make_graph_executable(tt);
  tt.invoke(0, 0);
  await fence();
}

/** `b` scaled by `f` on device 0, then brought home by the wait. */
const scale = (name: string, b: ttg.Buffer, f: number) => oneTask(name, function* () {
  const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
  ttg.device.kernels.dscal(stream, b.length, f, b);
  yield ttg.device.kernel(b);
});

describe('host-write guards on large buffers, hashed off the JS thread', () => {
  onSuiteDevices();

  for (const kind of ['plain', 'async'] as const) {
    for (const at of [0, MID, LAST]) {
      it(`a ${kind} host task writing element ${at} of a large read-only input fails with E_READ_ONLY; the device copy is dropped`, async () => {
        const name = `lro-${kind}-${at}`;
        const write = (y: ttg.Buffer): void => { y.host[at] = -1; };
        const d = toReadOnly(name, 1, kind === 'plain' ? (_k, y) => write(y!) : async (_k, y) => { await Promise.resolve(); write(y!); });
        const y = filled(BIG, 1);
        const h0 = ttg.device.stats().js_hashed_bytes;
        d.invoke(3, [y]);
        expectTtgError(await rejection(fence()), 'E_READ_ONLY', [`'${name}-H'`, 'terminal 0', 'key 3']);
        expect(y.devices, 'device copies after the write').to.deep.equal([]);
        expect(y.host[at]).to.equal(-1);
        y.host[at] = 2;
        expect(wrong(y.host, 2)).to.deep.equal({ count: 0 });
        expect(hashedSince(h0), 'bytes hashed on the JS thread').to.equal(0);
      });
    }
  }

  it('a host task that only reads large read-only inputs runs; their device copies stay in use, current', async () => {
    const seen: number[] = [];
    const d = toReadOnly('lro-reads', 2, (_k, a, b) => { seen.push(a!.host[MID]!, b!.host[LAST]!); });
    const a = filled(BIG, 1), b = filled(BIG, 5);
    const h0 = ttg.device.stats().js_hashed_bytes, h2d = ttg.device.stats().h2d_bytes;
    d.invoke(1, [a, b]);
    await fence();
    expect(seen).to.deep.equal([2, 10]);
    expect(a.devices).to.deep.equal([0]);
    // the next device task reuses the copies: nothing copied in again
    await scale('lro-reads-next', a, 3);
    expect(ttg.device.stats().h2d_bytes - h2d, 'bytes copied in').to.equal(a.bytes + b.bytes);
    expect(wrong(a.host, 6)).to.deep.equal({ count: 0 });
    expect(hashedSince(h0), 'bytes hashed on the JS thread').to.equal(0);
  });

  it('of three read-only inputs, the one written is named; the others keep their device copies', async () => {
    const d = toReadOnly('lro-three', 3, (_k, _a, b, _c) => { b!.host[MID] = 0; });
    const a = filled(BIG, 1), b = filled(BIG, 1), c = filled(1000, 1);
    d.invoke(4, [a, b, c]);
    expectTtgError(await rejection(fence()), 'E_READ_ONLY', ["'lro-three-H'", 'terminal 1', 'key 4']);
    expect(a.devices).to.deep.equal([0]);
    expect(b.devices).to.deep.equal([]);
    expect(c.devices).to.deep.equal([0]);
  });

  it('a device task that uses a large read-only input after a host task wrote it reads what was written, and the write is E_READ_ONLY', async () => {
    // D doubles y on the device; H (read-only) writes y.host then hands a token to E, which reads y on
    // the device while H's check may still run on a worker: E must see the host's bytes, not the stale copy
    const y = filled(BIG, 1), z = filled(BIG, 0);
    const go = edge<number, ttg.Buffer>('lrw-go'), ro = edge<number, ttg.Buffer>('lrw-ro'), token = edge<number, number>('lrw-token');
    const d = ttg.make_tt(function* (k: number, b: ttg.Buffer, out) {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, b.length, 2, b);
      yield ttg.device.kernel(b);
      out.send(0, k, b);
    }, [go], [ro], { name: 'lrw-D' }).set_devicehint(() => 0);
    const h = ttg.make_tt((k: number, b: ttg.Buffer, out) => { b.host[MID] = -1; out.send(0, k, 0); }, [ro], [token], { name: 'lrw-H' });
    const e = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(y, z)) as ttg.device.InputResult;
      ttg.device.kernels.daxpy(stream, y.length, 1, y, z);
      yield ttg.device.kernel(z);
    }, [token], [], { name: 'lrw-E' }).set_devicehint(() => 0);
    ttg.make_graph_executable(d, h, e);
    d.invoke(6, y);
    expectTtgError(await rejection(fence()), 'E_READ_ONLY', ["'lrw-H'", 'terminal 0', 'key 6']);
    expect(z.host[MID], 'the write, read on the device').to.equal(-1);
    expect(z.host[0]).to.equal(2);
  });

  it('a body that throws after writing a large read-only input reports its own error', async () => {
    const d = toReadOnly('lro-throws', 1, (_k, y) => { y!.host[MID] = 0; throw new Error('mine, not the guard\'s'); });
    d.invoke(2, [filled(BIG, 1)]);
    const e = await rejection(fence());
    expect(String((e as Error).message)).to.contain('mine, not the guard\'s');
  });

  it('a body\'s host write after a wait reaches the next kernel, in the same graph and the next', async () => {
    const b = filled(BIG, 1);
    const h0 = ttg.device.stats().js_hashed_bytes;
    const go = edge<number, number>('lhw-go');
    const next = edge<number, number>('lhw-next');
    const first = ttg.make_tt(function* (k: number, _v: number, out) {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, b.length, 2, b);
      yield ttg.device.kernel(b);      // home, and still valid on the device
      b.host[MID] = -1;                // the body writes the host array and ends
      out.send(0, k, 0);               // a token: b itself is not sent
    }, [go], [next], { name: 'lhw-1' }).set_devicehint(() => 0);
    const second = ttg.make_tt(function* () {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, b.length, 3, b);
      yield ttg.device.kernel(b);
    }, [next], [], { name: 'lhw-2' }).set_devicehint(() => 0);
    ttg.make_graph_executable(first, second);
    first.invoke(0, 0);
    await fence();
    expect(b.host[MID], 'the write, scaled').to.equal(-3);
    b.host[MID] = 6;
    expect(wrong(b.host, 6)).to.deep.equal({ count: 0 });
    // the next graph: the write of the last element after the wait reaches its kernel too
    await oneTask('lhw-3', function* () {
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, b.length, 1, b);
      yield ttg.device.kernel(b);
      b.host[LAST] = 100;
    });
    await scale('lhw-4', b, 2);
    expect(b.host[LAST]).to.equal(200);
    expect(b.host[0]).to.equal(12);
    expect(hashedSince(h0), 'bytes hashed on the JS thread').to.equal(0);
  });

  it('two tasks that waited for one large buffer end together; the host write of one reaches the next graph', async () => {
    const b = filled(BIG, 1);
    const sinks = [filled(8, 0), filled(8, 0)];
    for (let round = 0; round < 4; round++) {
      const at = round % 2 === 0 ? MID : LAST;
      const go = edge<number, number>(`l2w-go-${round}`);
      const t = ttg.make_tt(function* (k: number) {
        const z = sinks[k]!;
        const { stream } = (yield ttg.device.input(b, z)) as ttg.device.InputResult;
        ttg.device.kernels.daxpy(stream, 8, 1, b, z);   // reads b's device copy (neither task writes it there)
        yield ttg.device.kernel(b, z);                   // b home, still valid on the device: watched
        if (k === round % 2) b.host[at] = -7 - round;   // one of the two writes the host array
      }, [go], [], { name: `l2w-${round}` }).set_devicehint(() => 0);
      ttg.make_graph_executable(t);
      t.invoke(0, 0);
      t.invoke(1, 0);
      await fence();
      await scale(`l2w-next-${round}`, b, 1);
      expect(b.host[at], `round ${round}: the write, through the device`).to.equal(-7 - round);
      b.host[at] = 1;
    }
    expect(wrong(b.host, 1)).to.deep.equal({ count: 0 });
  });

  it('the program\'s writes between fences reach the next graph, over several phases; unwritten, nothing is copied in again', async () => {
    const b = filled(BIG, 1);
    const h0 = ttg.device.stats().js_hashed_bytes;
    await scale('lpw-1', b, 2);
    b.host[MID] = 10;                                 // between fences: the next graph sees it
    await scale('lpw-2', b, 3);
    expect(b.host[MID]).to.equal(30);
    expect(b.host[0]).to.equal(6);
    let h2d = ttg.device.stats().h2d_bytes;
    await scale('lpw-3', b, 1);                      // no write: the device copy is current
    expect(ttg.device.stats().h2d_bytes - h2d, 'bytes copied in for an unchanged buffer').to.equal(0);
    b.host[MID] = 6;
    b.host[LAST] = 7;
    h2d = ttg.device.stats().h2d_bytes;
    await scale('lpw-4', b, 2);
    expect(ttg.device.stats().h2d_bytes - h2d, 'bytes copied in after a write').to.equal(b.bytes);
    expect(b.host[LAST]).to.equal(14);
    b.host[LAST] = 12;
    expect(wrong(b.host, 12)).to.deep.equal({ count: 0 });
    expect(hashedSince(h0), 'bytes hashed on the JS thread').to.equal(0);
  });
});
