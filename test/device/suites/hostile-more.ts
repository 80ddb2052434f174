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

import { loadNative } from '../../../src/native/addon.js';
import { within } from '../../helpers.js';
import { backend, onSuiteDevices } from './suite.js';

/** Fences here must settle within this (the hang watchdog fires after HANG_S). */
const FENCE_MS = 8000;
/** TTG_HANG_TIMEOUT of this suite, in seconds. */
const HANG_S = 3;

/** A fence that must settle within {@link FENCE_MS}. */
function fence(): Promise<ttg.FenceReport> {
  return within(ttg.fence({ quiet: true }), FENCE_MS, 'ttg.fence()');
}

/** Capacity in bytes of device `d` (Infinity on the host backend). */
function capacity(d = 0): number {
  return ttg.device.stats().per_device[d]!.capacity;
}

/** Bytes of a buffer that takes `share` of device 0 (64 KiB on the host backend). */
function share(part: number): number {
  const cap = capacity(0);
  return Number.isFinite(cap) ? Math.floor((cap * part) / 8) : 8192;
}

/** A buffer of `n` doubles, all `v`. */
function filled(n: number, v: number): ttg.Buffer {
  return new ttg.Buffer(new Float64Array(n).fill(v));
}

/** Elements of `a` that differ from `want`, and the first of them. */
function wrong(a: ArrayLike<number>, want: number): { count: number; first?: number; at?: number } {
  let count = 0, first: number | undefined, at: number | undefined;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== want) {
      if (count === 0) { first = a[i]; at = i; }
      count++;
    }
  }
  return count === 0 ? { count } : { count, first, at };
}

let graphs = 0;
/** A fresh edge name (every graph of this process needs its own). */
function edge<K, V>(name: string): ttg.Edge<K, V> {
  return new ttg.Edge<K, V>(`${name}-${graphs++}`);
}

type Faults = { faultDevOp?: number; faultDevDone?: number };
/** Sets the addon's fault injection (TTG_FAULT_DEVOP / TTG_FAULT_DEVDONE at run time; 0: off). */
function faults(f: Faults): void {
  const native = loadNative()!;
  native.configure(f as unknown as Parameters<typeof native.configure>[0]);
}

/** Nothing pinned on any place, and the device's used bytes within its capacity. */
function resting(what: string): void {
  for (const [d, s] of ttg.device.stats().per_device.entries()) {
    expect(s.pinned_bytes, `${what}: bytes pinned on place ${d}`).to.equal(0);
    expect(s.used_bytes, `${what}: bytes used on place ${d}`).to.be.at.most(s.capacity);
  }
}

/**
 * Runs one device task on device `dev` that takes the whole of its memory (64 KiB on the host
 * backend), scales it by 3 and copies it home; checks the result and, with memory of its own,
 * that the device's used bytes are that buffer's alone.
 */
async function wholeDevice(name: string, dev = 0): Promise<void> {
  const cap = capacity(dev);
  const full = filled(Number.isFinite(cap) ? cap / 8 : 8192, 1);
  const e = edge<number, number>(name);
  const tt = ttg.make_tt(function* () {
    const { stream } = (yield ttg.device.input(full)) as ttg.device.InputResult;
    ttg.device.kernels.dscal(stream, full.length, 3, full);
    yield ttg.device.kernel(full);
  }, [e], [], { name }).set_devicehint(() => dev);
  ttg.make_graph_executable(tt);
  tt.invoke(0, 0);
  await fence();
  expect(wrong(full.host, 3), 'the whole-device buffer after x3').to.deep.equal({ count: 0 });
  if (Number.isFinite(cap)) expect(ttg.device.stats().per_device[dev]!.used_bytes, 'bytes used on the device: the whole-device buffer only').to.equal(full.bytes);
  resting(name);
}

/** Runs `body` as the generator body of one task of a fresh TT named `name` on device 0, key `key`; resolves the fence's or undefined. */
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
  let savedHang: string | undefined;
  before(() => {
    savedHang = process.env['TTG_HANG_TIMEOUT'];
    process.env['TTG_HANG_TIMEOUT'] = String(HANG_S);
  });
  after(() => {
    if (savedHang === undefined) delete process.env['TTG_HANG_TIMEOUT'];
    else process.env['TTG_HANG_TIMEOUT'] = savedHang;
  });
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
    await wholeDevice('twice1-whole');
  });
  // ---- last: finalize settles after all of the above ---------------------------------------------------
  it('finalize settles after the failures above', async () => {
    await within(ttg.finalize(), FENCE_MS, 'ttg.finalize()');
  });
});
