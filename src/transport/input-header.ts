/**
 * Fixed headers for the commonest messages between ranks, `[Input, [[tt, terminal, [key]]], value]`
 * sent to one task: one typed array or one number for an integer key (24 bytes), and a number or
 * nothing (`sendk`) for a key that is an integer or a tuple of up to four integers (a small
 * header). They replace msgpack for those shapes on both sides; every other message keeps the
 * msgpack header of codec.ts. A 1 MiB ping-pong hop spends its JS time on a cold cache (the payload
 * copy just went through it), and msgpackr's generic pack and unpack are most of that path's code;
 * a number sent to a counter, or a request sent to `[i, rank, j]`, on another rank spent most of its
 * time there, in the value check and in collecting what they allocate.
 *
 * Layout (little-endian): u8 MARK, u8 typed-array code, {@link NUMBER} or {@link SMALL} (its bit 6
 * is the phase bit, phase.ts), u16 terminal, u32 TT id; then for NUMBER and typed arrays f64 key,
 * f64 element count or the number itself; for SMALL u8 shape (bits 0-2: key length, 0 for a
 * plain integer; bit 3: a number follows), 7 bytes of zeros, the key's integers as f64 and the
 * number. MARK is 0xc1, the one byte the msgpack format never uses, so the two kinds of header
 * cannot be confused; a msgpack header of ours always starts with a fixarray byte.
 */
import type { DecodedMessage, EncodedMessage } from '../serialize/codec.js';
import { allocTyped, plainTypedCode, TYPED, viewReceived } from '../serialize/typed-arrays.js';
import { Wire, type Target, type WireMessage } from '../ttg/common/wire.js';
import { PHASE_BIT } from './phase.js';

const MARK = 0xc1;
const BYTES = 24;
/** The code of a header whose value is a number (above every typed-array code, below the phase bit). */
const NUMBER = 0x3f;
/** The code of a small header: a number or nothing for an integer or a short tuple of them. */
const SMALL = 0x3e;
/** The longest tuple key a small header carries. */
const SMALL_TUPLE = 4;
const HAS_NUMBER = 8;
/** The largest header of this file. */
const MAX_BYTES = 16 + 8 * SMALL_TUPLE + 8;

// Scratch for unaligned reads and writes: a header inside a batch sits at any byte offset.
const scratch = new ArrayBuffer(MAX_BYTES);
const u8 = new Uint8Array(scratch);
const u16 = new Uint16Array(scratch);
const u32 = new Uint32Array(scratch);
const f64 = new Float64Array(scratch);
/** Views of the scratch's first 8 * i bytes: a header handed out as scratch costs no allocation. */
const heads = Array.from({ length: MAX_BYTES / 8 + 1 }, (_, i) => new Uint8Array(scratch, 0, 8 * i));

/**
 * `msg` in the fixed layout, or undefined when it has another shape (then msgpack it). `fresh`
 * false: the bytes are this module's scratch, valid until the next call (the caller copies them).
 */
export function encodeInput(msg: WireMessage, fresh = true): EncodedMessage | undefined {
  if (msg[0] !== Wire.Input || msg[1].length !== 1) return undefined;
  const [ttId, terminal, keys] = msg[1][0]!;
  if (keys.length !== 1) return undefined;
  const key = keys[0];
  const value = msg[2];
  if (typeof value === 'number' || value === undefined) {
    const bytes = encodeSmallInput(ttId, terminal, key, value);
    return bytes === undefined ? undefined : { bytes: fresh ? bytes.slice() : bytes, parts: [], plain: true };
  }
  if (!isIntegerKey(key) || !fitsTarget(ttId, terminal)) return undefined;
  // anything else goes the codec's way: a moved (detached) array is refused with E_MOVED, an own property or a subclass with E_SERIALIZE
  const code = plainTypedCode(value);
  if (code < 0 || (value as ArrayBufferView).byteLength === 0) return undefined;
  head(code, terminal, ttId, key, (value as Float64Array).length);
  const bytes = heads[BYTES / 8]!;
  return { bytes: fresh ? bytes.slice() : bytes, parts: [value as ArrayBufferView], plain: true };
}

/**
 * The fixed header of `[Input, [[ttId, terminal, [key]]], value]` for a number or nothing, in
 * this module's scratch (valid until the next call), or undefined when it does not fit one.
 */
export function encodeSmallInput(ttId: number, terminal: number, key: unknown, value: number | undefined): Uint8Array | undefined {
  if (!fitsTarget(ttId, terminal)) return undefined;
  if (typeof key === 'number') {
    if (!isIntegerKey(key)) return undefined;
    if (value !== undefined) {
      head(NUMBER, terminal, ttId, key, value);
      return heads[BYTES / 8];
    }
  } else if (!Array.isArray(key)) {
    return undefined;
  }
  return small(terminal, ttId, key, value);
}

function fitsTarget(ttId: number, terminal: number): boolean {
  return ttId >= 0 && ttId <= 0xffffffff && terminal >= 0 && terminal <= 0xffff;
}

/** Integers only: every one of them survives the f64 unchanged (and -0 stays msgpack's business). */
function isIntegerKey(k: unknown): k is number {
  return typeof k === 'number' && Number.isSafeInteger(k) && !Object.is(k, -0);
}

/** A small header for `key` (an integer or an array) and `value`, in the scratch, or undefined when they do not fit one. */
function small(terminal: number, ttId: number, key: number | unknown[], value: number | undefined): Uint8Array | undefined {
  const hasNumber = value !== undefined;
  let n = 0;
  if (typeof key === 'number') {
    f64[2] = key;
  } else {
    n = key.length;
    if (n === 0 || n > SMALL_TUPLE) return undefined;
    for (let i = 0; i < n; i++) {
      const e: unknown = key[i];
      if (!isIntegerKey(e)) return undefined;
      f64[2 + i] = e;
    }
  }
  const end = 16 + 8 * Math.max(n, 1);
  if (hasNumber) f64[end / 8] = value;
  u8[0] = MARK;
  u8[1] = SMALL;
  u16[1] = terminal;
  u32[1] = ttId;
  f64[1] = 0;
  u8[8] = n | (hasNumber ? HAS_NUMBER : 0);
  return heads[(end + (hasNumber ? 8 : 0)) / 8]!;
}

function head(code: number, terminal: number, ttId: number, key: number, last: number): void {
  u8[0] = MARK;
  u8[1] = code;
  u16[1] = terminal;
  u32[1] = ttId;
  f64[1] = key;
  f64[2] = last;
}

/** A number or nothing for one task, as {@link readSmallInput} reads it (one object, reused). */
export interface SmallInput { ttId: number; terminal: number; key: unknown; value: number | undefined; phase: number }

/**
 * Reads a fixed header that carries a number or nothing (no payload), `bytes[at, end)`, into
 * `into` (its phase bit apart, the header left as it is); false when it is another kind of
 * header, or a damaged one (the general path names what is wrong). Allocates only a tuple key:
 * the hot path of a batch.
 */
export function readSmallInput(bytes: Uint8Array, into: SmallInput, at = 0, end = bytes.length): boolean {
  if (bytes[at] !== MARK) return false;
  const length = end - at;
  const code = bytes[at + 1]! & ~PHASE_BIT;
  if (code === NUMBER) {
    if (length !== BYTES) return false;
    copyIn(bytes, at, length);
    into.key = f64[1]!;
    into.value = f64[2]!;
  } else if (code === SMALL) {
    if (length < 24 || length !== smallBytes(bytes[at + 8]!)) return false;
    copyIn(bytes, at, length);
    readSmall(into);
  } else {
    return false;
  }
  into.phase = u8[1]! & PHASE_BIT;
  into.terminal = u16[1]!;
  into.ttId = u32[1]!;
  return true;
}

/** Copies `length` bytes of `bytes` from `at` into the scratch (a loop: a subarray would allocate). */
function copyIn(bytes: Uint8Array, at: number, length: number): void {
  for (let i = 0; i < length; i++) u8[i] = bytes[at + i]!;
}

/** The length of a small header of `shape`, or -1 for a shape no small header has. */
function smallBytes(shape: number): number {
  const n = shape & 7;
  if ((shape & ~(7 | HAS_NUMBER)) !== 0 || n > SMALL_TUPLE) return -1;
  return 16 + 8 * Math.max(n, 1) + ((shape & HAS_NUMBER) !== 0 ? 8 : 0);
}

/** Key and value of the small header in the scratch. */
function readSmall(into: { key: unknown; value: number | undefined }): void {
  const shape = u8[8]!;
  const n = shape & 7;
  if (n === 0) {
    into.key = f64[2]!;
  } else {
    const key = new Array<number>(n);
    for (let i = 0; i < n; i++) key[i] = f64[2 + i]!;
    into.key = key;
  }
  into.value = (shape & HAS_NUMBER) !== 0 ? f64[2 + Math.max(n, 1)]! : undefined;
}

/**
 * Decodes a fixed-layout header, or returns undefined when `bytes` is a msgpack header. With
 * `buffers` (the payload already received), the array is a view of `buffers[0]`.
 */
export function decodeInput(bytes: Uint8Array, buffers: ArrayBuffer[] | undefined): DecodedMessage<WireMessage> | undefined {
  if (bytes[0] !== MARK) return undefined;
  if ((bytes[1]! & ~PHASE_BIT) === SMALL) return decodeSmall(bytes, buffers);
  if (bytes.length !== BYTES) throw new Error(`a fixed input header has ${BYTES} bytes, this one ${bytes.length}`);
  u8.set(bytes);
  const code = u8[1]!;
  const target: Target = [u32[1]!, u16[1]!, [f64[1]!]];
  if (code === NUMBER) {
    if (buffers !== undefined && buffers.length !== 0) throw new Error(`the message has ${buffers.length} payload parts but carries a number`);
    return { msg: [Wire.Input, [target], f64[2]!], parts: [] };
  }
  if (code >= TYPED.length) throw new Error(`unknown typed-array code ${code} in a fixed input header`);
  const n = f64[2]!;
  if (buffers !== undefined && buffers.length !== 1) throw new Error(`the message has ${buffers.length} payload parts but its header names 1`);
  const array = buffers === undefined ? allocTyped(code, n) : viewReceived(code, n, buffers[0], 0);
  return { msg: [Wire.Input, [target], array], parts: [array] };
}

function decodeSmall(bytes: Uint8Array, buffers: ArrayBuffer[] | undefined): DecodedMessage<WireMessage> {
  const want = bytes.length >= 9 ? smallBytes(bytes[8]!) : -1;
  if (want < 0) throw new Error(`a small input header of ${bytes.length} bytes has no valid shape`);
  if (bytes.length !== want) throw new Error(`a small input header of shape ${bytes[8]} has ${want} bytes, this one ${bytes.length}`);
  if (buffers !== undefined && buffers.length !== 0) throw new Error(`the message has ${buffers.length} payload parts but its header names none`);
  u8.set(bytes);
  const kv = { key: undefined as unknown, value: undefined as number | undefined };
  readSmall(kv);
  return { msg: [Wire.Input, [[u32[1]!, u16[1]!, [kv.key]]], kv.value], parts: [] };
}
