/**
 * World collectives for the main program: barrier, allreduce and broadcast, as C++ TTG's
 * `ttg_sum` and `ttg_broadcast`, but non-blocking (the comm thread runs the MPI collectives).
 *
 * Each one starts with an agreement (agreement.ts): one allreduce of the call's signature, of the
 * same shape as every other collective-shaped call on the world's communicator (fence waves
 * included), so every rank learns whether all called the same collective with the same operation,
 * length, type and root; a sum of a few values rides in it, with no reduction of its own. MPI leaves a mismatch undefined (a hang, garbage, or an abort); here every
 * rank gets an `E_COLLECTIVE` naming what each rank called. The agreement also tells the ranks the
 * byte length of a broadcast value, so that any serializable value can be broadcast.
 */
import { causeText, Errors } from '../../base/errors.js';
import { decode, encode, UnserializableError } from '../../serialize/codec.js';
import { firstDifference } from '../../serialize/same-value.js';
import { copyPartsFrom } from '../../serialize/small-parts.js';
import { calledInTask } from './in-task.js';
import { showFenceFailure } from '../runtime/shown-errors.js';
import type { Runtime } from '../runtime/runtime.js';
import type { ReduceOp } from '../common/transport.js';
import { CallKind, PAYLOAD_LENGTH, REDUCE_OPS, REDUCIBLE_TYPES, type CallSignature } from '../common/agreement.js';

export type { ReduceOp };

/** What `World.allreduce` reduces: a number or a typed array of numbers. */
export type Reducible = number | Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array | Uint8ClampedArray;

/** Type codes of reducible values (index + 1; 0 is a number). */
const TYPES = REDUCIBLE_TYPES;
const OPS: readonly ReduceOp[] = REDUCE_OPS;
const INVALID = -2;

/** Slots of the agreement's payload this file uses before the sums it may carry. */
const OWN_SLOTS = 3;
/**
 * Sums of up to this many values ride in the agreement's own reduction: one collective instead of
 * two. (Every rank takes the same path: the op and the length are part of what is agreed.)
 */
const SUMS_IN_AGREEMENT = PAYLOAD_LENGTH - OWN_SLOTS;

/**
 * The agreement round: every rank's call against the others'. Resolves to the root's
 * [header bytes, total bytes] of a broadcast, whether any rank raised `flag`, and the sums of
 * `sums` (at most {@link SUMS_IN_AGREEMENT}); rejects on every rank alike when the calls differ.
 */
async function agree(rt: Runtime, sig: CallSignature, rootLengths: [number, number] = [0, 0], flag = false,
  sums?: Float64Array): Promise<[number, number, boolean, Float64Array]> {
  let p: Float64Array;
  const payload = [rootLengths[0], rootLengths[1], flag ? 1 : 0];
  if (sums !== undefined) payload.push(...sums);
  try {
    p = await rt.transport!.agree(sig, payload);
  } catch (e) {
    // E_COLLECTIVE (or the world's hang): the report and the dashboard show it, as a fence's
    showFenceFailure(rt, e);
    throw e;
  }
  return [p[0]!, p[1]!, p[2]! > 0, p.slice(OWN_SLOTS, OWN_SLOTS + (sums?.length ?? 0))];
}

/** Throws when a task of `rt`'s world calls a collective: the call would wait for the fence that waits for the task. */
export function refuseInTask(rt: Runtime, what: string): void {
  const e = calledInTask(rt, what);
  if (e !== undefined) throw e;
}

/** Resolves once every rank of the world has called it. */
export function barrier(rt: Runtime): Promise<void> {
  rt.check('World.barrier()');
  refuseInTask(rt, 'World.barrier()');
  return rt.lane.run(async () => {
    await agree(rt, [CallKind.Barrier, -1, -1, -1, -1]);
  }, 'World.barrier()');
}

/** `x` reduced with `op` over the world's ranks, in double precision, returned in `x`'s type. */
export function allreduce<T extends Reducible>(rt: Runtime, x: T, op: ReduceOp): Promise<T> {
  rt.check('World.allreduce()');
  refuseInTask(rt, 'World.allreduce()');
  const type = typeof x === 'number' ? 0 : TYPES.findIndex((C) => x instanceof C) + 1 || INVALID;
  const opIndex = OPS.indexOf(op);
  const length = typeof x === 'number' ? 1 : type === INVALID ? INVALID : (x as ArrayLike<number>).length;
  // read now, as a number argument is: later changes to the array do not count
  const values = type === INVALID ? undefined : typeof x === 'number' ? Float64Array.of(x) : Float64Array.from(x as ArrayLike<number>);
  // MPI's min and max may drop a NaN; Math.min and Math.max keep it, and so does this
  const nan = (op === 'min' || op === 'max') && values !== undefined && values.some(Number.isNaN);
  const inAgreement = op === 'sum' && values !== undefined && values.length <= SUMS_IN_AGREEMENT;
  return rt.lane.run(async () => {
    const [, , anyNaN, summed] = await agree(rt, [CallKind.Allreduce, opIndex < 0 ? INVALID : opIndex, length, type, -1], undefined, nan,
      inAgreement ? values : undefined);
    if (values === undefined) throw Errors.invalidArgument('World.allreduce(x)', `needs a number or a typed array of numbers, got ${describeValue(x)}`, { rank: rt.rank });
    if (opIndex < 0) throw Errors.invalidArgument('World.allreduce(x, op)', `needs op 'sum', 'min', 'max' or 'prod', got ${String(op)}`, { rank: rt.rank });
    const r = inAgreement ? summed : await rt.transport!.reduce(values, op);
    if (anyNaN) {
      const where = await rt.transport!.reduce(values.map((v) => (Number.isNaN(v) ? 1 : 0)), 'sum');
      for (let i = 0; i < r.length; i++) if (where[i]! > 0) r[i] = NaN;
    }
    if (typeof x === 'number') return r[0] as T;
    return new (x.constructor as new (a: ArrayLike<number>) => T)(r);
  }, 'World.allreduce()');
}

/**
 * Root's `x` on every rank (a copy, decoded from its serialized form; the root gets `x` itself).
 * `x` follows the rules of a sent value (docs/design/values.md); when the root refuses it, every
 * rank rejects with the root's reason, which travels in place of the value.
 */
export function broadcast<T>(rt: Runtime, x: T, root: number): Promise<T> {
  rt.check('World.broadcast()');
  refuseInTask(rt, 'World.broadcast()');
  const rootOk = Number.isInteger(root) && root >= 0 && root < rt.size;
  // The root serializes `x` now, so that changes the program makes to it later are not broadcast.
  let packed: { bytes: Uint8Array; headerBytes: number } | undefined;
  let encodeError: unknown;
  if (rootOk && rt.rank === root) {
    try {
      packed = pack(x, rt.checkTravel);
    } catch (err) {
      encodeError = err;
      // a negative header length says the bytes are the reason, in UTF-8
      packed = { bytes: new TextEncoder().encode(causeText(err)), headerBytes: -1 };
    }
  }
  return rt.lane.run(async () => {
    const lengths: [number, number] | undefined = packed !== undefined ? [packed.headerBytes, packed.bytes.length] : undefined;
    const [headerBytes, total] = await agree(rt, [CallKind.Broadcast, -1, -1, -1, rootOk ? root : INVALID], lengths);
    if (!rootOk) throw Errors.invalidArgument('World.broadcast(x, root)', `needs a rank of this world in [0, ${rt.size}), got ${String(root)}`, { rank: rt.rank });
    const bytes = packed?.bytes ?? new Uint8Array(total);
    await rt.transport!.bcast(bytes, root);
    if (headerBytes < 0) {
      throw Errors.serialize(`the value broadcast by rank ${root}`, undefined, undefined, undefined, rt.rank, encodeError ?? new UnserializableError(new TextDecoder().decode(bytes)));
    }
    if (rt.rank === root) return x;
    return unpack<T>(bytes, headerBytes);
  }, 'World.broadcast()');
}

const align8 = (n: number): number => (n + 7) & ~7;

/** The value in {@link pack}'s buffer. */
function unpack<T>(bytes: Uint8Array, headerBytes: number): T {
  const decoded = decode<[T]>(bytes.subarray(0, headerBytes));
  copyPartsFrom(bytes.subarray(align8(headerBytes)), decoded.parts);
  return decoded.msg[0];
}

/**
 * `x` serialized into one buffer: the header, then (from an 8-byte boundary) its arrays' bytes.
 * As a sent value, `x` is checked by the strict rules; with `rehearse` (TTG_CHECK_SERIALIZE) it
 * is also decoded and compared with `x`, as a local delivery is.
 */
function pack(x: unknown, rehearse: boolean): { bytes: Uint8Array; headerBytes: number } {
  const { bytes: header, parts } = encode([x], 0);
  let total = align8(header.length);
  for (const p of parts) total += p.byteLength;
  const bytes = new Uint8Array(total);
  bytes.set(header);
  let o = align8(header.length);
  for (const p of parts) {
    bytes.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), o);
    o += p.byteLength;
  }
  if (rehearse) {
    const changed = firstDifference(x, unpack(bytes, header.length));
    if (changed !== undefined) throw new UnserializableError(`it would arrive changed: ${changed}`);
  }
  return { bytes, headerBytes: header.length };
}

function describeValue(x: unknown): string {
  if (x === null) return 'null';
  if (typeof x === 'object') return (x as object).constructor?.name ?? 'an object';
  return typeof x;
}
