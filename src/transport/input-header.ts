/**
 * Fixed headers for the commonest messages between ranks, `[Input, [[tt, terminal, [key]]], value]`
 * sent to one task: one typed array or one number for an integer key (24 bytes), and a number,
 * nothing (`sendk`) or a small typed array for a key that is an integer or a tuple of up to four
 * integers (a small header). They replace msgpack for those shapes on both sides; every other
 * message keeps the msgpack header of codec.ts. A 1 MiB ping-pong hop spends its JS time on a cold
 * cache (the payload copy just went through it), and msgpackr's generic pack and unpack are most of
 * that path's code; a number sent to a counter, or a request sent to `[i, rank, j]`, on another
 * rank spent most of its time there, in the value check and in collecting what they allocate.
 *
 * Layout (little-endian): u8 MARK, u8 typed-array code, {@link NUMBER} or {@link SMALL} (its bit 6
 * is the phase bit, phase.ts), u16 terminal, u32 TT id; then for NUMBER and typed arrays f64 key,
 * f64 element count or the number itself; for SMALL u8 shape (bits 0-2: key length, 0 for a
 * plain integer; bit 3: a number follows; bit 4: an array follows), u8 the array's typed-array
 * code, 2 bytes of zeros, u32 its element count, the key's integers as f64, then the number or
 * the array's elements zero-padded to a multiple of 8. MARK is 0xc1, the one byte the msgpack
 * format never uses, so the two kinds of header cannot be confused; a msgpack header of ours
 * always starts with a fixarray byte.
 *
 * A typed array of at most {@link INLINE_MAX_BYTES} thus travels inside its header, and the
 * message has no payload part. It is a small message like a number (batches.ts): it travels with
 * the others to its rank in one MPI message, and neither side stages, pins or receives a part for
 * it (for an 8-byte array, that part cost more than the rest of the hop). Larger arrays travel as
 * a payload part behind a 24-byte header. The receiver always gets a new array.
 */
import type { DecodedMessage, EncodedMessage } from '../serialize/codec.js';
import { allocTyped, plainTypedCode, TYPED, viewReceived } from '../serialize/typed-arrays.js';
import { Wire, type Target, type WireMessage } from '../ttg/common/wire.js';
import { SMALL_MESSAGE_BYTES } from './batches.js';
import { PHASE_BIT } from './phase.js';

const MARK = 0xc1;
const BYTES = 24;
/** The code of a header whose value is a number (above every typed-array code, below the phase bit). */
const NUMBER = 0x3f;
/** The code of a small header: a number, nothing or an inline array for an integer or a short tuple of them. */
const SMALL = 0x3e;
/** The longest tuple key a small header carries. */
const SMALL_TUPLE = 4;
const HAS_NUMBER = 8;
const HAS_ARRAY = 16;
/** Where a small header's key starts. */
const KEY_AT = 16;
/** The largest small header's bytes besides an inline array's elements. */
const SMALL_FIXED = KEY_AT + 8 * SMALL_TUPLE;
/**
 * The largest typed array (in bytes) that travels inside its header: with the longest key its
 * header is still a small message that waits in a batch ({@link SMALL_MESSAGE_BYTES}).
 */
export const INLINE_MAX_BYTES = 960;
/** The largest header of this file. */
const MAX_BYTES = SMALL_FIXED + INLINE_MAX_BYTES;
if (MAX_BYTES > SMALL_MESSAGE_BYTES) throw new Error('input-header: an inline array must fit a small message');

// Scratch for unaligned reads and writes: a header inside a batch sits at any byte offset.
const scratch = new ArrayBuffer(MAX_BYTES);
const u8 = new Uint8Array(scratch);
const u16 = new Uint16Array(scratch);
const u32 = new Uint32Array(scratch);
const f64 = new Float64Array(scratch);
/** Views of the scratch's first 8 * i bytes: a header handed out as scratch costs no allocation. */
const heads = Array.from({ length: MAX_BYTES / 8 + 1 }, (_, i) => new Uint8Array(scratch, 0, 8 * i));
type InlineView = ArrayBufferView & { set(a: ArrayBufferView): void; slice(from: number, to: number): ArrayBufferView };
/**
 * Per key length (1 to 4, a plain integer as 1) and typed-array code, a view of the scratch where
 * an inline array's elements go: they are copied through a view of their own type, since `.buffer`
 * of a small array is costly (small-parts.ts).
 */
const inlineViews: InlineView[][] = Array.from({ length: SMALL_TUPLE + 1 }, (_, n) =>
  TYPED.map((ctor) => new ctor(scratch, KEY_AT + 8 * Math.max(n, 1), INLINE_MAX_BYTES / ctor.BYTES_PER_ELEMENT) as InlineView));
const padded = (n: number): number => (n + 7) & ~7;

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
  const small = typeof value === 'number' || value === undefined ? encodeSmallInput(ttId, terminal, key, value) : encodeInlineInput(ttId, terminal, key, value);
  if (small !== undefined) return { bytes: fresh ? small.slice() : small, parts: [], plain: true };
  if (!isIntegerKey(key) || !fitsTarget(ttId, terminal)) return undefined;
  // anything else goes the codec's way: a moved (detached) array is refused with E_MOVED, an own property or a subclass with E_SERIALIZE
  const code = plainTypedCode(value);
  if (code < 0 || (value as ArrayBufferView).byteLength <= INLINE_MAX_BYTES) return undefined;
  head(code, terminal, ttId, key, (value as Float64Array).length);
  const bytes = heads[BYTES / 8]!;
  return { bytes: fresh ? bytes.slice() : bytes, parts: [value as ArrayBufferView], plain: true };
}

/**
 * The small header of `[Input, [[ttId, terminal, [key]]], value]` with the typed array `value`
 * inside, in this module's scratch (valid until the next call), or undefined when `value` is not
 * a plain typed array of 1 to {@link INLINE_MAX_BYTES} bytes or the key or target do not fit.
 */
export function encodeInlineInput(ttId: number, terminal: number, key: unknown, value: unknown): Uint8Array | undefined {
  if (!ArrayBuffer.isView(value)) return undefined;
  const n = value.byteLength;
  if (n === 0 || n > INLINE_MAX_BYTES || !fitsTarget(ttId, terminal) || !(isIntegerKey(key) || Array.isArray(key))) return undefined;
  const code = plainTypedCode(value);
  return code < 0 ? undefined : small(terminal, ttId, key, undefined, code, value);
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

/**
 * A small header for `key` (an integer or an array) and `value`, or the typed array `array` of
 * class `code`, in the scratch, or undefined when they do not fit one.
 */
function small(terminal: number, ttId: number, key: number | unknown[], value: number | undefined, code = 0, array?: ArrayBufferView): Uint8Array | undefined {
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
  let end = KEY_AT + 8 * Math.max(n, 1);
  u8[0] = MARK;
  u8[1] = SMALL;
  u16[1] = terminal;
  u32[1] = ttId;
  f64[1] = 0;
  if (array !== undefined) {
    const bytes = array.byteLength;
    inlineViews[n]![code]!.set(array);
    u8.fill(0, end + bytes, end + padded(bytes));
    u8[8] = n | HAS_ARRAY;
    u8[9] = code;
    u32[3] = (array as Float64Array).length;
    return heads[(end + padded(bytes)) / 8]!;
  }
  if (value !== undefined) {
    f64[end / 8] = value;
    end += 8;
  }
  u8[8] = n | (value !== undefined ? HAS_NUMBER : 0);
  return heads[end / 8]!;
}

function head(code: number, terminal: number, ttId: number, key: number, last: number): void {
  u8[0] = MARK;
  u8[1] = code;
  u16[1] = terminal;
  u32[1] = ttId;
  f64[1] = key;
  f64[2] = last;
}

/** A number, nothing or an inline typed array for one task, as {@link readSmallInput} reads it (one object, reused). */
export interface SmallInput { ttId: number; terminal: number; key: unknown; value: unknown; phase: number }

/**
 * Reads a fixed header that carries a number, nothing or an inline typed array (no payload part),
 * `bytes[at, end)`, into `into` (its phase bit apart, the header left as it is); false when it is
 * another kind of header, or a damaged one (the general path names what is wrong). Allocates only
 * a tuple key or the array: the hot path of a batch.
 */
export function readSmallInput(bytes: Uint8Array, into: SmallInput, at = 0, end = bytes.length): boolean {
  if (bytes[at] !== MARK) return false;
  const length = end - at;
  const code = bytes[at + 1]! & ~PHASE_BIT;
  if (code === NUMBER) {
    if (length !== BYTES) return false;
    copyIn(bytes, at, 0, length);
    into.key = f64[1]!;
    into.value = f64[2]!;
  } else if (code === SMALL) {
    if (length < BYTES || length > MAX_BYTES) return false;
    copyIn(bytes, at, 0, KEY_AT);
    if (length !== smallBytes(u8[8]!, u8[9]!, u32[3]!)) return false;
    // an array's elements in one copy; the rest (at most 40 bytes) in a loop, since a subarray would allocate
    if (length > SMALL_FIXED + 8) u8.set(bytes.subarray(at + KEY_AT, end), KEY_AT);
    else copyIn(bytes, at, KEY_AT, length);
    readSmall(into);
  } else {
    return false;
  }
  into.phase = u8[1]! & PHASE_BIT;
  into.terminal = u16[1]!;
  into.ttId = u32[1]!;
  return true;
}

/** Copies `bytes[at + from, at + to)` into the scratch at `from`. */
function copyIn(bytes: Uint8Array, at: number, from: number, to: number): void {
  for (let i = from; i < to; i++) u8[i] = bytes[at + i]!;
}

/**
 * The length of a small header of `shape` (with an array: of class `code` and `count` elements),
 * or -1 for a shape, class or count no small header has.
 */
function smallBytes(shape: number, code: number, count: number): number {
  const n = shape & 7;
  if ((shape & ~(7 | HAS_NUMBER | HAS_ARRAY)) !== 0 || n > SMALL_TUPLE || (shape & (HAS_NUMBER | HAS_ARRAY)) === (HAS_NUMBER | HAS_ARRAY)) return -1;
  const fixed = KEY_AT + 8 * Math.max(n, 1);
  if ((shape & HAS_ARRAY) === 0) return fixed + ((shape & HAS_NUMBER) !== 0 ? 8 : 0);
  if (code >= TYPED.length || count === 0) return -1;
  const bytes = count * TYPED[code]!.BYTES_PER_ELEMENT;
  return bytes > INLINE_MAX_BYTES ? -1 : fixed + padded(bytes);
}

/** Key and value of the small header in the scratch. */
function readSmall(into: { key: unknown; value: unknown }): void {
  const shape = u8[8]!;
  const n = shape & 7;
  if (n === 0) {
    into.key = f64[2]!;
  } else {
    const key = new Array<number>(n);
    for (let i = 0; i < n; i++) key[i] = f64[2 + i]!;
    into.key = key;
  }
  if ((shape & HAS_ARRAY) !== 0) into.value = inlineViews[n]![u8[9]!]!.slice(0, u32[3]!);
  else into.value = (shape & HAS_NUMBER) !== 0 ? f64[2 + Math.max(n, 1)]! : undefined;
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
  if (bytes.length < KEY_AT || bytes.length > MAX_BYTES) throw new Error(`a small input header has ${KEY_AT} to ${MAX_BYTES} bytes, this one ${bytes.length}`);
  u8.set(bytes.subarray(0, KEY_AT));
  const want = smallBytes(u8[8]!, u8[9]!, u32[3]!);
  if (want < 0) throw new Error(`a small input header of ${bytes.length} bytes has no valid shape (shape ${u8[8]}, class ${u8[9]}, count ${u32[3]})`);
  if (bytes.length !== want) throw new Error(`a small input header of shape ${bytes[8]} has ${want} bytes, this one ${bytes.length}`);
  if (buffers !== undefined && buffers.length !== 0) throw new Error(`the message has ${buffers.length} payload parts but its header names none`);
  u8.set(bytes);
  const kv = { key: undefined as unknown, value: undefined as unknown };
  readSmall(kv);
  return { msg: [Wire.Input, [[u32[1]!, u16[1]!, [kv.key]]], kv.value], parts: [] };
}
