/**
 * The typed-array classes that travel as raw payload parts, numbered for the wire, and the
 * arrays a receiver allocates or wraps for them.
 */
import { extraOwnKeys } from './own-properties.js';

/** A typed-array class: allocates `length` elements, or views part of a buffer. */
export type TypedCtor = (new (length: number) => ArrayBufferView) & (new (buffer: ArrayBuffer, byteOffset: number, length: number) => ArrayBufferView) & { BYTES_PER_ELEMENT: number };

/** Wire code → class (the code is the index; never reorder). */
export const TYPED: readonly TypedCtor[] = [
  Float64Array, Float32Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array,
  Int32Array, Uint32Array, BigInt64Array, BigUint64Array,
];

/**
 * The wire code of `v` when it travels as it is: an instance of one of the classes of
 * {@link TYPED} itself (not a subclass, nor a Buffer), with no own property besides its elements
 * (those the value check refuses); -1 otherwise.
 */
export function plainTypedCode(v: unknown): number {
  if (typeof v !== 'object' || v === null || !ArrayBuffer.isView(v)) return -1;
  const code = TYPED.indexOf(Object.getPrototypeOf(v)?.constructor as TypedCtor);
  if (code < 0 || Object.getPrototypeOf(v) !== TYPED[code]!.prototype || extraOwnKeys(v).length !== 0) return -1;
  return code;
}

/** Below this many bytes a zero-filled allocation is as cheap as an uninitialized one. */
const UNINIT_MIN = 1024;

/**
 * A receive array: the transport overwrites all of it, so large ones skip the zero fill (and get
 * their own ArrayBuffer, never a slice of Node's shared pool).
 */
export function allocTyped(code: number, n: number): ArrayBufferView {
  const ctor = TYPED[code]!;
  const bytes = n * ctor.BYTES_PER_ELEMENT;
  if (bytes < UNINIT_MIN) return new ctor(n);
  return new ctor(Buffer.allocUnsafeSlow(bytes).buffer as ArrayBuffer, 0, n);
}

/** Payload part `index`, already received into `buf`, as the `n`-element array of class `code`. */
export function viewReceived(code: number, n: number, buf: ArrayBuffer | undefined, index: number): ArrayBufferView {
  const ctor = TYPED[code]!;
  if (buf === undefined || buf.byteLength !== n * ctor.BYTES_PER_ELEMENT) {
    throw new Error(`received payload part ${index} does not fit a ${ctor.name}(${n})`);
  }
  return new ctor(buf, 0, n);
}

/** Whether `v`'s memory was transferred to another rank (a moved array; only a zero-length view can be). */
export function detached(v: ArrayBufferView): boolean {
  if (v.byteLength !== 0) return false;
  try {
    new Uint8Array(v.buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}
