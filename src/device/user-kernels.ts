/**
 * A program's own kernels (native/include/ttg_kernel.h): C functions from shared libraries the
 * program built, registered with `ttg.device.kernels.load` and enqueued like the built-in ones.
 * Each declares its buffer operands (read `in`, written `out`, both `inout`) and its number of
 * scalars; a call is checked against that (and against the stream's residency rules) before it is
 * enqueued, and the buffers it writes are marked written as for built-in kernels.
 */
import { isAbsolute, resolve } from 'node:path';

import { loadNative, nativeLoadError } from '../native/addon.js';
import { Buffer, type AnyBuffer, type BufferArray } from './buffer.js';
import { DeviceErrors } from './errors.js';
import { deviceRuntime, requireRuntime } from './runtime.js';
import { place } from './kernels.js';
import { checkWrite, kernelFailure, noteOp, noteWrite, whyNotUsable } from './steps.js';
import { Stream } from './streams.js';

/** How a kernel uses one buffer operand. */
export type Access = 'in' | 'out' | 'inout';

/** What `ttg.device.kernels.load` needs to know of one kernel. */
export interface KernelSpec {
  /** The function that runs on the host pool (host and emulated backends). */
  host: string;
  /** The function that launches the kernel on a CUDA stream (cuda backend), if there is one. */
  cuda?: string;
  /** Its buffer operands, in order. */
  buffers: readonly Access[];
  /** How many numbers it takes after the buffers (default 0). */
  scalars?: number;
}

/** The operands of one call. */
export interface KernelOperands {
  buffers: readonly AnyBuffer[];
  scalars?: readonly number[];
}

/**
 * The operands of a call on the calling thread: typed arrays (the caller's memory) or
 * `ttg.Buffer`s whose host copy is current and that no task or copy holds.
 */
export interface HereOperands {
  buffers: ReadonlyArray<AnyBuffer | BufferArray>;
  scalars?: readonly number[];
}

/**
 * A loaded kernel: call it with the task's stream and its operands (enqueued, like the built-in
 * kernels), or `.here(operands)` to run its host function on the calling thread at once.
 */
export interface KernelFn {
  (stream: Stream, operands: KernelOperands): void;
  /** Runs the kernel's host function on this thread and returns when it has (`kernels.callHere`). */
  here(operands: HereOperands): void;
}

interface Loaded {
  library: string;
  spec: KernelSpec;
  host: number;
  cuda: number | undefined;
}

const loaded = new Map<string, Loaded>();

function checkSpec(name: string, spec: KernelSpec): void {
  const what = `kernels.load: kernel '${name}'`;
  if (typeof spec !== 'object' || spec === null) throw DeviceErrors.invalid(what, 'needs { host, cuda?, buffers, scalars? }');
  if (typeof spec.host !== 'string' || spec.host === '') throw DeviceErrors.invalid(what, 'needs the name of its host function (host)');
  if (spec.cuda !== undefined && typeof spec.cuda !== 'string') throw DeviceErrors.invalid(what, 'cuda must be the name of a function');
  if (!Array.isArray(spec.buffers) || spec.buffers.some((a) => a !== 'in' && a !== 'out' && a !== 'inout')) {
    throw DeviceErrors.invalid(what, "needs buffers: an array of 'in', 'out' or 'inout'");
  }
  if (spec.scalars !== undefined && !(Number.isInteger(spec.scalars) && spec.scalars >= 0)) {
    throw DeviceErrors.invalid(what, `scalars must be a non-negative integer, got ${String(spec.scalars)}`);
  }
}

/**
 * Loads the kernels `specs` names from the shared library at `library` and returns them by name
 * (also callable as `kernels.call(name, ...)`). Loading the same kernel again from the same
 * library and function is allowed; another kernel under a loaded name is `E_INVALID_ARGUMENT`.
 */
export function load<const S extends Record<string, KernelSpec>>(library: string, specs: S): { [N in keyof S]: KernelFn } {
  if (typeof library !== 'string' || library === '') throw DeviceErrors.invalid('kernels.load(library)', 'needs the path of a shared library');
  const native = loadNative();
  if (native === null) throw DeviceErrors.unavailable(`the native addon did not load (${nativeLoadError() ?? 'unknown'})`);
  const path = isAbsolute(library) ? library : resolve(library);
  // no prototype: a kernel named `__proto__` or `constructor` is a kernel like any other
  const out = Object.create(null) as Record<string, KernelFn>;
  for (const [name, spec] of Object.entries(specs)) {
    checkSpec(name, spec);
    const had = loaded.get(name);
    if (had !== undefined) {
      if (had.library !== path || had.spec.host !== spec.host || had.spec.cuda !== spec.cuda || JSON.stringify(had.spec.buffers) !== JSON.stringify(spec.buffers) || (had.spec.scalars ?? 0) !== (spec.scalars ?? 0)) {
        throw DeviceErrors.invalid(`kernels.load: kernel '${name}'`, `is already loaded from ${had.library} (${had.spec.host})`);
      }
    } else {
      let host: number;
      let cuda: number | undefined;
      try {
        host = native.devLoadKernel(path, spec.host);
        cuda = spec.cuda === undefined ? undefined : native.devLoadKernel(path, spec.cuda);
      } catch (e) {
        throw DeviceErrors.invalid(`kernels.load: kernel '${name}'`, (e as Error).message.replace(/^ttg_native\.devLoadKernel: /, ''));
      }
      loaded.set(name, { library: path, spec: { ...spec, buffers: [...spec.buffers] }, host, cuda });
    }
    out[name] = Object.assign((stream: Stream, operands: KernelOperands) => call(name, stream, operands), {
      here: (operands: HereOperands) => callHere(name, operands),
    });
  }
  return out as { [N in keyof S]: KernelFn };
}

function loadedKernel(name: string, what: string): Loaded {
  const k = loaded.get(name);
  if (k === undefined) throw DeviceErrors.invalid(what, 'names no loaded kernel: load it with ttg.device.kernels.load(library, { ... })');
  return k;
}

/** The call's buffers and scalars, checked against the kernel's spec. */
function checkOperands<B>(k: Loaded, what: string, operands: { buffers: readonly B[]; scalars?: readonly number[] }): { bufs: readonly B[]; scalars: readonly number[] } {
  const bufs = operands?.buffers;
  const access = k.spec.buffers;
  if (!Array.isArray(bufs) || bufs.length !== access.length) {
    throw DeviceErrors.invalid(what, `takes ${access.length} buffer(s) (${access.join(', ')}), got ${Array.isArray(bufs) ? bufs.length : String(bufs)}`);
  }
  const scalars = operands.scalars ?? [];
  const nScalars = k.spec.scalars ?? 0;
  if (!Array.isArray(scalars) || scalars.length !== nScalars || scalars.some((x) => typeof x !== 'number')) {
    throw DeviceErrors.invalid(what, `takes ${nScalars} number(s) as scalars, got ${Array.isArray(scalars) ? `[${scalars.map((x) => typeof x).join(', ')}]` : String(scalars)}`);
  }
  return { bufs, scalars };
}

/** Enqueues kernel `name` on `stream` (the task's, from `input()`); returns at once. */
export function call(name: string, stream: Stream, operands: KernelOperands): void {
  const what = `kernels.call('${String(name)}')`;
  const k = loadedKernel(name, what);
  const r = requireRuntime();
  if (!(stream instanceof Stream)) throw DeviceErrors.invalid(what, 'needs the stream from `ttg.device.input(...)`');
  const { bufs, scalars } = checkOperands(k, what, operands);
  const access = k.spec.buffers;
  const fn = r.backend.name === 'cuda' ? k.cuda : k.host;
  if (fn === undefined) throw DeviceErrors.invalid(what, 'has no CUDA function (give cuda: in kernels.load) and the backend is cuda');
  if (bufs.length === 0) {
    // no operand to check it with: the stream must still be the running task's
    const why = whyNotUsable(undefined, stream);
    if (why !== undefined) throw DeviceErrors.invalid(what, why);
  }
  const places: Array<number | ArrayBufferView> = [];
  const lengths = new Float64Array(bufs.length);
  bufs.forEach((b, i) => {
    if (!(b instanceof Buffer)) throw DeviceErrors.invalid(what, `buffer ${i} is not a ttg.Buffer`);
    places.push(place(r, `call('${name}')`, `buffer ${i}`, b, stream));
    if (access[i] !== 'in') checkWrite(`kernels.call('${name}'): buffer ${i}`, b);
    lengths[i] = b.length;
  });
  // On the pool a kernel's error comes with its own completion, which fails the task at its next
  // wait or its end; a CUDA function's fails the next completion of its stream.
  const pool = r.backend.name !== 'cuda' || stream.device === r.backend.hostPlace;
  r.streams.call(stream, name, fn, places, lengths, Float64Array.from(scalars), pool ? kernelFailure(name) : undefined);
  noteOp();
  bufs.forEach((b, i) => {
    if (access[i] === 'in') return;
    r.memory.markWritten(b, stream);
    noteWrite(b);
  });
  r.memory.counters[stream.device]!.kernels++;
  stream.kernels++;
}

/**
 * Runs kernel `name`'s host function on the calling thread and returns when it has: no stream, no
 * hand-off, no completion to wait for; for kernels shorter than a hand-off to a stream's worker
 * (tens of microseconds), on any backend. A typed array is the caller's memory, read and written
 * in place; a `ttg.Buffer` must be current on the host and held by no device task or copy in
 * flight (else `E_INVALID_ARGUMENT`), and one the kernel writes loses its device copies.
 */
export function callHere(name: string, operands: HereOperands): void {
  const what = `kernels.callHere('${String(name)}')`;
  const k = loadedKernel(name, what);
  const { bufs, scalars } = checkOperands(k, what, operands);
  const views = bufs.map((b, i) => (b instanceof Buffer ? hostOf(b, what, i) : checkedView(b, what, i)));
  const error = loadNative()!.devCallHere(k.host, views, Float64Array.from(scalars));
  bufs.forEach((b, i) => {
    if (b instanceof Buffer && k.spec.buffers[i] !== 'in') deviceRuntime()?.memory.hostWrites(b);
  });
  if (error !== 0) throw DeviceErrors.opFailed(`${what} returned error ${error}`);
}

function checkedView(a: unknown, what: string, i: number): BufferArray {
  if (!ArrayBuffer.isView(a) || a instanceof DataView) throw DeviceErrors.invalid(what, `buffer ${i} is neither a typed array nor a ttg.Buffer`);
  return a as BufferArray;
}

/** `b.host`, when nothing else may be using it now. */
function hostOf(b: AnyBuffer, what: string, i: number): BufferArray {
  const r = deviceRuntime();
  const busy = !b.hostValid ? 'its current contents are on a device (`await b.toHost()` first)'
    : r !== undefined && [...r.holding].some((st) => st.listed.includes(b)) ? 'a device task holds it (listed in its `ttg.device.input`) until its kernels have run'
      : b.toHostPending !== undefined || b.queuedReaders > 0 || b.copies.some((c) => c !== undefined && c.pins > 0) ? 'a copy or a kernel still uses it'
        : undefined;
  if (busy !== undefined) throw DeviceErrors.invalid(what, `buffer ${i}: ${busy}`);
  return b.host;
}
