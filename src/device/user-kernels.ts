/**
 * A program's own kernels (native/include/ttg_kernel.h): C functions from shared libraries the
 * program built, registered with `ttg.device.kernels.load` and enqueued like the built-in ones.
 * Each declares its buffer operands (read `in`, written `out`, both `inout`) and its number of
 * scalars; a call is checked against that (and against the stream's residency rules) before it is
 * enqueued, and the buffers it writes are marked written as for built-in kernels.
 */
import { isAbsolute, resolve } from 'node:path';

import { loadNative, nativeLoadError } from '../native/addon.js';
import { Buffer, type AnyBuffer } from './buffer.js';
import { DeviceErrors } from './errors.js';
import { requireRuntime } from './runtime.js';
import { place } from './kernels.js';
import { noteOp, noteWrite } from './steps.js';
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

/** A loaded kernel: call it with the task's stream and its operands. */
export type KernelFn = (stream: Stream, operands: KernelOperands) => void;

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
  const out: Record<string, KernelFn> = {};
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
    out[name] = (stream, operands) => call(name, stream, operands);
  }
  return out as { [N in keyof S]: KernelFn };
}

/** Enqueues kernel `name` on `stream` (the task's, from `input()`); returns at once. */
export function call(name: string, stream: Stream, operands: KernelOperands): void {
  const k = loaded.get(name);
  const what = `kernels.call('${String(name)}')`;
  if (k === undefined) throw DeviceErrors.invalid(what, 'names no loaded kernel: load it with ttg.device.kernels.load(library, { ... })');
  const r = requireRuntime();
  if (!(stream instanceof Stream)) throw DeviceErrors.invalid(what, 'needs the stream from `ttg.device.input(...)`');
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
  const fn = r.backend.name === 'cuda' ? k.cuda : k.host;
  if (fn === undefined) throw DeviceErrors.invalid(what, 'has no CUDA function (give cuda: in kernels.load) and the backend is cuda');
  const places: Array<number | ArrayBufferView> = [];
  const lengths = new Float64Array(bufs.length);
  bufs.forEach((b, i) => {
    if (!(b instanceof Buffer)) throw DeviceErrors.invalid(what, `buffer ${i} is not a ttg.Buffer`);
    places.push(place(r, `call('${name}')`, `buffer ${i}`, b, stream));
    lengths[i] = b.length;
  });
  r.streams.call(stream, name, fn, places, lengths, Float64Array.from(scalars));
  noteOp();
  bufs.forEach((b, i) => {
    if (access[i] === 'in') return;
    r.memory.markWritten(b, stream);
    noteWrite(b);
  });
  r.memory.counters[stream.device]!.kernels++;
  stream.kernels++;
}
