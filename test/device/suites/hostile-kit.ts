/**
 * What the hostile-use suites (hostile.ts, hostile-more.ts, op-packing.ts, fault-stress.ts) share:
 * bounded fences, filled buffers and the count of wrong elements, a buffer's values checked on the
 * host, fault injection, "nothing pinned", a stream kept busy, gates, fresh edge names, and one
 * task that takes a whole device.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { loadNative } from '../../../src/native/addon.js';
import { within } from '../../helpers.js';

/** Fences here must settle within this (the hang watchdog fires after HANG_S). */
export const FENCE_MS = 8000;
/** TTG_HANG_TIMEOUT of these suites, in seconds. */
export const HANG_S = 3;
/** Side of the matrices of a "long kernel": 128 x 128 doubles (128 KiB). */
export const N = 128;

/** A fence that must settle within {@link FENCE_MS}. */
export function fence(): Promise<ttg.FenceReport> {
  return within(ttg.fence({ quiet: true }), FENCE_MS, 'ttg.fence()');
}

/** Capacity in bytes of device `d` (Infinity on the host backend). */
export function capacity(d = 0): number {
  return ttg.device.stats().per_device[d]!.capacity;
}

/** A buffer of `n` doubles, all `v`. */
export function filled(n: number, v: number): ttg.Buffer {
  return new ttg.Buffer(new Float64Array(n).fill(v));
}

/** Elements of `a` that differ from `want`, and the first of them. */
export function wrong(a: ArrayLike<number>, want: number): { count: number; first?: number; at?: number } {
  let count = 0, first: number | undefined, at: number | undefined;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== want) {
      if (count === 0) { first = a[i]; at = i; }
      count++;
    }
  }
  return count === 0 ? { count } : { count, first, at };
}

/** Brings `b` home (within {@link FENCE_MS}) and expects every element to be `want`. */
export async function expectHome(b: ttg.Buffer, want: number, what: string): Promise<void> {
  await within(b.toHost(), FENCE_MS, `${what}: toHost()`);
  expect(wrong(b.host, want), what).to.deep.equal({ count: 0 });
}

/** Sets the addon's fault injection (TTG_FAULT_DEVOP / TTG_FAULT_DEVDONE at run time; 0: off). */
export function faults(f: { faultDevOp?: number; faultDevDone?: number }): void {
  const native = loadNative()!;
  native.configure(f as unknown as Parameters<typeof native.configure>[0]);
}

/** Nothing pinned on any place, and the device's used bytes within its capacity. */
export function resting(what: string): void {
  for (const [d, s] of ttg.device.stats().per_device.entries()) {
    expect(s.pinned_bytes, `${what}: bytes pinned on place ${d}`).to.equal(0);
    expect(s.used_bytes, `${what}: bytes used on place ${d}`).to.be.at.most(s.capacity);
  }
}

/** Enqueues `reps` dgemms C += ones * ones / N on `stream`: a stream kept busy for a while (each ~0.2 ms). */
export function busy(stream: ttg.device.Stream, ones: ttg.Buffer, C: ttg.Buffer, reps: number): void {
  for (let i = 0; i < reps; i++) ttg.device.kernels.dgemm(stream, 'N', 'N', N, N, N, 1 / N, ones, N, ones, N, 1, C, N);
}

/** A promise and the function that resolves it. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => { open = r; });
  return { wait, open };
}

let graphs = 0;
/** A fresh edge name (every graph of this process needs its own). */
export function edge<K, V>(name: string): ttg.Edge<K, V> {
  return new ttg.Edge<K, V>(`${name}-${graphs++}`);
}

/**
 * Runs one device task on device `dev` that takes the whole of its memory (64 KiB on the host
 * backend), scales it by 3 and copies it home; checks the result and, on a device with memory of
 * its own, that its used bytes are that buffer's alone.
 */
export async function wholeDevice(name: string, dev = 0): Promise<void> {
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
}

/** Sets TTG_HANG_TIMEOUT to {@link HANG_S} for the enclosing describe (restored after it). */
export function onHangTimeout(): void {
  let saved: string | undefined;
  before(() => {
    saved = process.env['TTG_HANG_TIMEOUT'];
    process.env['TTG_HANG_TIMEOUT'] = String(HANG_S);
  });
  after(() => {
    if (saved === undefined) delete process.env['TTG_HANG_TIMEOUT'];
    else process.env['TTG_HANG_TIMEOUT'] = saved;
  });
}
