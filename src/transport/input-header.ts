/**
 * A fixed 24-byte header for the commonest messages between ranks: one typed array, or one
 * number, sent to one task with an integer key, `[Input, [[tt, terminal, [key]]], value]`. It
 * replaces msgpack for those shapes on both sides; every other message keeps the msgpack header of
 * codec.ts. A 1 MiB ping-pong hop spends its JS time on a cold cache (the payload copy just went
 * through it), and msgpackr's generic pack and unpack are most of that path's code; a number sent
 * to a counter on another rank spent most of its time there and in the value check.
 *
 * Layout (little-endian): u8 MARK, u8 typed-array code or {@link NUMBER} (its bit 6 is the phase
 * bit, phase.ts), u16 terminal, u32 TT id, f64 key, f64 element count or the number itself. MARK is 0xc1, the one byte the msgpack
 * format never uses, so the two kinds of header cannot be confused; a msgpack header of ours
 * always starts with a fixarray byte.
 */
import type { DecodedMessage, EncodedMessage } from '../serialize/codec.js';
import { allocTyped, TYPED, viewReceived } from '../serialize/typed-arrays.js';
import { Wire, type Target, type WireMessage } from '../ttg/wire.js';
import { PHASE_BIT } from './phase.js';

const MARK = 0xc1;
const BYTES = 24;
/** The code of a header whose value is a number (above every typed-array code, below the phase bit). */
const NUMBER = 0x3f;

// Scratch for unaligned reads and writes: a header inside a batch sits at any byte offset.
const scratch = new ArrayBuffer(BYTES);
const u8 = new Uint8Array(scratch);
const u16 = new Uint16Array(scratch);
const u32 = new Uint32Array(scratch);
const f64 = new Float64Array(scratch);

/** Wire code of `v`'s class when `v` is a plain typed array of one of the classes in TYPED. */
function typedCode(v: unknown): number {
  if (typeof v !== 'object' || v === null || !ArrayBuffer.isView(v)) return -1;
  return TYPED.indexOf(v.constructor as (typeof TYPED)[number]);
}

/**
 * `msg` in the fixed layout, or undefined when it has another shape (then msgpack it). `fresh`
 * false: the bytes are this module's scratch, valid until the next call (the caller copies them).
 */
export function encodeInput(msg: WireMessage, fresh = true): EncodedMessage | undefined {
  if (msg[0] !== Wire.Input || msg[1].length !== 1) return undefined;
  const [ttId, terminal, keys] = msg[1][0]!;
  if (keys.length !== 1) return undefined;
  const key = keys[0];
  // integers only: every one of them survives the f64 unchanged (and -0 stays msgpack's business)
  if (typeof key !== 'number' || !Number.isSafeInteger(key) || Object.is(key, -0)) return undefined;
  if (!(ttId >= 0 && ttId <= 0xffffffff && terminal >= 0 && terminal <= 0xffff)) return undefined;
  const value = msg[2];
  if (typeof value === 'number') return header(NUMBER, terminal, ttId, key, value, [], fresh);
  const code = typedCode(value);
  // a moved (detached) array goes the codec's way, which refuses it with E_MOVED
  if (code < 0 || (value as ArrayBufferView).byteLength === 0) return undefined;
  return header(code, terminal, ttId, key, (value as Float64Array).length, [value as ArrayBufferView], fresh);
}

function header(code: number, terminal: number, ttId: number, key: number, last: number, parts: ArrayBufferView[], fresh: boolean): EncodedMessage {
  u8[0] = MARK;
  u8[1] = code;
  u16[1] = terminal;
  u32[1] = ttId;
  f64[1] = key;
  f64[2] = last;
  return { bytes: fresh ? u8.slice() : u8, parts, plain: true };
}

/** A number for one task, as {@link readNumberInput} reads it (one object, reused). */
export interface NumberInput { ttId: number; terminal: number; key: number; value: number; phase: number }

/**
 * Reads a fixed header that carries a number into `into` (its phase bit apart, the header left as
 * it is); false when `bytes` is another kind of header. No allocation: the hot path of a batch.
 */
export function readNumberInput(bytes: Uint8Array, into: NumberInput): boolean {
  if (bytes.length !== BYTES || bytes[0] !== MARK || (bytes[1]! & ~PHASE_BIT) !== NUMBER) return false;
  u8.set(bytes);
  into.phase = u8[1]! & PHASE_BIT;
  into.terminal = u16[1]!;
  into.ttId = u32[1]!;
  into.key = f64[1]!;
  into.value = f64[2]!;
  return true;
}

/**
 * Decodes a fixed-layout header, or returns undefined when `bytes` is a msgpack header. With
 * `buffers` (the payload already received), the array is a view of `buffers[0]`.
 */
export function decodeInput(bytes: Uint8Array, buffers: ArrayBuffer[] | undefined): DecodedMessage<WireMessage> | undefined {
  if (bytes[0] !== MARK) return undefined;
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
