/**
 * The `ttg.device` namespace: the device-task protocol, kernels, scratch buffers and counters.
 * Importing it (through 'ttg') installs the device layer's hooks into the core.
 */
import { Buffer, type AnyBuffer } from './buffer.js';
import { deviceRuntime } from './runtime.js';
import { collectBuffers, currentStream, DeviceStep, noteOp, runningTask, whyNotUsable, type InputResult } from './steps.js';
import { devicePort } from './port.js';
import { stepTask } from './task-context.js';
import { DeviceErrors } from './errors.js';
import { OpKind, Stream as StreamClass, type Stream } from './streams.js';
import * as kernelFns from './kernels.js';
import * as userKernels from './user-kernels.js';
export type { Access, HereOperands, KernelFn, KernelOperands, KernelSpec } from './user-kernels.js';

export { Stream } from './streams.js';
export type { InputResult, DeviceStep } from './steps.js';

/**
 * `yield ttg.device.input(...buffers)`: picks the task's device (its TT's devicehint, else the
 * least loaded) and stream, makes the buffers valid there and pins them until the task ends;
 * resumes with `{ stream, device }`. May be yielded again in the same task to add buffers.
 */
export function input(...buffers: Array<AnyBuffer | readonly AnyBuffer[]>): DeviceStep<InputResult> {
  return new DeviceStep('input', collectBuffers('ttg.device.input(...)', buffers), stepTask(devicePort));
}

/**
 * `yield ttg.device.kernel(...buffers)`: waits until everything the task enqueued on its stream
 * has run and copies the listed buffers back to the host. May be yielded any number of times; the
 * task's buffers stay pinned until the task ends.
 */
export function kernel(...buffers: Array<AnyBuffer | readonly AnyBuffer[]>): DeviceStep<void> {
  const task = stepTask(devicePort);
  if (buffers.length === 0 && task === undefined) return WAIT_ONLY;
  return new DeviceStep('kernel', buffers.length === 0 ? NO_BUFFERS : collectBuffers('ttg.device.kernel(...)', buffers), task);
}

const NO_BUFFERS: readonly AnyBuffer[] = Object.freeze([]);
/** `kernel()` without buffers yielded by a generator, the most common wait: one immutable step for all. */
const WAIT_ONLY = new DeviceStep<void>('kernel', NO_BUFFERS);

/** Alias of {@link input} (the name used by current C++ TTG). */
export const select = input;
/** Alias of {@link kernel} (the name used by current C++ TTG). */
export const wait = kernel;

/** A device-only buffer of `length` doubles: never copied to or from the host. */
export function make_scratch(length: number): Buffer {
  return new Buffer<Float64Array>(length, { scratch: true });
}

/** Number of devices of the running backend (0 when the device layer is off). */
export function num_devices(): number {
  return deviceRuntime()?.backend.devices ?? 0;
}

/** The stream of the device task whose body is running (after its `input()`), else undefined. */
export function current_stream(): Stream | undefined {
  return currentStream();
}

/**
 * The kernels of SPEC §5, identical on every backend, and a program's own: `load(library, specs)`
 * registers C functions from a shared library (native/include/ttg_kernel.h), `call(name, stream,
 * { buffers, scalars })` enqueues one (or call what `load` returned), `callHere(name, { buffers,
 * scalars })` (or `.here`) runs one on the calling thread at once.
 */
export const kernels = {
  dgemm: kernelFns.dgemm,
  dsyrk: kernelFns.dsyrk,
  dtrsm: kernelFns.dtrsm,
  dpotrf: kernelFns.dpotrf,
  daxpy: kernelFns.daxpy,
  dscal: kernelFns.dscal,
  load: userKernels.load,
  call: userKernels.call,
  callHere: userKernels.callHere,
} as const;

/**
 * Enqueues a timestamp on `stream`: when the stream reaches it, `into[index]` receives the
 * steady-clock time in milliseconds (the same clock for every stream and backend, so intervals
 * of different streams can be compared; like recording a CUDA event). Read `into` after the
 * task's next `kernel()` wait; the task keeps it alive until it ends.
 */
export function stamp(stream: Stream, into: Float64Array, index = 0): void {
  const r = deviceRuntime();
  if (r === undefined || !(stream instanceof StreamClass)) throw DeviceErrors.invalid('ttg.device.stamp(stream, into, index)', 'needs a device stream');
  if (!(into instanceof Float64Array) || !Number.isInteger(index) || index < 0 || index >= into.length) {
    throw DeviceErrors.invalid('ttg.device.stamp(stream, into, index)', 'needs a Float64Array and an index inside it');
  }
  const why = whyNotUsable(undefined, stream);
  if (why !== undefined) throw DeviceErrors.invalid('ttg.device.stamp(stream, into, index)', why);
  r.streams.op(stream, OpKind.Stamp, '', 0, 0, 0, 0, 0, into.subarray(index, index + 1), 0, null, 0, null, 0, null, 0, runningTask());
  noteOp();
  (runningTask().written ??= []).push(into);   // the stream writes it when it gets there, however the program holds it
}

/** Counters of one place: a device, or the host place beside the devices. */
export interface DeviceStats {
  /** `device`, or `host` for the host place beside emulated devices. */
  place: 'device' | 'host';
  /** Copies evicted to make room. */
  evictions: number;
  /** Bytes copied host to device. */
  h2d_bytes: number;
  /** Bytes copied device to host. */
  d2h_bytes: number;
  /** Kernels enqueued. */
  kernels: number;
  /** Bytes of device memory in use: the bytes of the buffers with a copy here. */
  used_bytes: number;
  /**
   * Bytes of device memory the memory pool holds (its slabs, free blocks included; 0 for the host
   * place). At most `capacity`, except by free blocks that slabs still in use keep when copies of
   * another size need the room.
   */
  pool_bytes: number;
  /** Bytes of the copies that running tasks or queued copies pin (0 once the place is idle). */
  pinned_bytes: number;
  /** Device capacity in bytes (Infinity for host). */
  capacity: number;
  /** Device tasks that ended here (counted on backends with memory of their own: emulated, cuda). */
  tasks: number;
  /** Milliseconds those tasks worked: from their first input() (or the end of the task before them on their stream) to their end. */
  busy_ms: number;
}

/** What {@link stats} returns: totals plus `per_device`. */
export interface Stats extends Omit<DeviceStats, 'used_bytes' | 'pool_bytes' | 'pinned_bytes' | 'capacity' | 'place' | 'tasks' | 'busy_ms'> {
  /** `host`, `emulated`, `cuda`, or `off`. */
  backend: string;
  /** Ops enqueued on all streams: kernels, copies, program kernel calls, completion markers. */
  ops: number;
  /** Host bytes hashed on the JS thread (read-only guards; host writes between fences). */
  js_hashed_bytes: number;
  /** Bytes the JS thread copied into pinned staging for copies to a device (cuda). */
  js_staged_bytes: number;
  /** Native device allocations made (cudaMalloc on cuda): the memory pool's slabs, each carved into blocks for copies. */
  allocations: number;
  /** Copies placed in a block the memory pool already held (freed by an eviction, or carved earlier): no native allocation. */
  reused: number;
  /** Number of devices. */
  devices: number;
  /** Streams per device. */
  streams: number;
  /** Per-place counters: the devices, then the host place if there is one. */
  per_device: DeviceStats[];
}

/** Counters since the backend started (tests and benchmarks). */
export function stats(): Stats {
  const r = deviceRuntime();
  if (r === undefined) return { backend: 'off', devices: 0, streams: 0, evictions: 0, h2d_bytes: 0, d2h_bytes: 0, kernels: 0, ops: 0, js_hashed_bytes: 0, js_staged_bytes: 0, allocations: 0, reused: 0, per_device: [] };
  const per = r.memory.counters.map((c, d): DeviceStats => ({
    place: d === r.backend.hostPlace ? 'host' : 'device', ...c, used_bytes: r.memory.used[d]!, pool_bytes: r.memory.pool.reserved[d]!, pinned_bytes: r.memory.pinnedBytes(d), capacity: r.backend.capacity[d]!,
  }));
  const sum = (k: 'evictions' | 'h2d_bytes' | 'd2h_bytes' | 'kernels') => per.reduce((a, c) => a + c[k], 0);
  return {
    backend: r.backend.name, devices: r.backend.devices, streams: r.backend.streamsPerDevice,
    evictions: sum('evictions'), h2d_bytes: sum('h2d_bytes'), d2h_bytes: sum('d2h_bytes'), kernels: sum('kernels'),
    ops: r.streams.enqueued, js_hashed_bytes: r.memory.hashedBytes, js_staged_bytes: r.streams.stagedBytes, allocations: r.memory.allocations, reused: r.memory.reused, per_device: per,
  };
}

/** The addon's device capabilities (BLAS or loops, CUDA compiled, CUDA devices), or null without the addon. */
export function info(): ReturnType<NonNullable<ReturnType<typeof deviceRuntime>>['backend']['native']['devInfo']> | null {
  const r = deviceRuntime();
  return r === undefined ? null : r.backend.native.devInfo();
}
