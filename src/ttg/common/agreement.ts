/**
 * One shape for the first reduction of every collective-shaped call on a world's communicator:
 * fence waves, the sums of streams that end at a fence, world collectives, splits and finalize.
 * MPI matches collectives by order alone, so a rank in a fence's wave and another in
 * `world.allreduce` would pass buffers of different lengths (MPI_ERR_TRUNCATE aborts the job) or
 * read each other's values. Each such call is (or starts with) a sum of {@link AGREEMENT_LENGTH}
 * doubles: the call's signature, each field next to its square, then the call's own sums. Equal
 * fields on every rank are exactly those whose sum squared is size times the sum of squares; any
 * other outcome is a mismatch that every rank sees at once, so every rank takes one more round (a
 * sum of each rank's signature in its own slot) and rejects with `E_COLLECTIVE` naming each call.
 */
import { Errors, type TtgError } from '../../base/errors.js';

/** What a rank called: a fence, a world collective, a split... */
export const enum CallKind { Barrier = 1, Allreduce = 2, Broadcast = 3, Fence = 4, FenceStreams = 5, Split = 6, Finalize = 7 }

/** A call: kind, op, length, type, root (-1: not part of this kind of call; -2: invalid). */
export type CallSignature = readonly [kind: CallKind, op: number, length: number, type: number, root: number];

/** Signature fields, each of at most {@link FIELD_BITS} bits, so that sums of squares are exact. */
const FIELD_BITS = 12;
const FIELD = 2 ** FIELD_BITS;
/** Fields per signature: kind, op and type in one; the root in two; the length in five (up to 2^60). */
const SIGNATURE_FIELDS = 8;
/** Sums a call may carry beside its signature (a fence wave's counts). */
export const PAYLOAD_LENGTH = 7;
/** Doubles of every agreement reduction. */
export const AGREEMENT_LENGTH = 2 * SIGNATURE_FIELDS + PAYLOAD_LENGTH;
/**
 * Ranks up to which the agreement is exact: a field sum squared stays below 2^53.
 * (Beyond, two different calls could pass for one.)
 */
export const AGREEMENT_MAX_RANKS = 2 ** (26 - FIELD_BITS);

/** Names of ops and typed-array types, as the world collectives number them. */
export const REDUCE_OPS = ['sum', 'min', 'max', 'prod'] as const;
export const REDUCIBLE_TYPES = [Float64Array, Float32Array, Int32Array, Uint32Array, Int16Array, Uint16Array, Int8Array, Uint8Array, Uint8ClampedArray] as const;

/** Puts field `i` (an integer of at most {@link FIELD_BITS} bits) and its square into `v`. */
function put(v: Float64Array, i: number, f: number): void {
  v[2 * i] = f;
  v[2 * i + 1] = f * f;
}

/** Puts `x` (an integer >= -2) into `v` as `n` fields from field `i` on. */
function putChunks(v: Float64Array, i: number, x: number, n: number): void {
  let rest = Math.max(0, x + 2);
  for (let j = 0; j < n; j++) {
    put(v, i + j, rest % FIELD);
    rest = Math.floor(rest / FIELD);
  }
}

/** The agreement vector of this rank's call `sig`, carrying `payload` (at most {@link PAYLOAD_LENGTH} values). */
export function agreementVector(sig: CallSignature, payload: ArrayLike<number> = []): Float64Array {
  const v = new Float64Array(AGREEMENT_LENGTH);
  const [kind, op, length, type, root] = sig;
  put(v, 0, kind * 256 + (op + 2) * 16 + (type + 2));
  putChunks(v, 1, root, 2);
  putChunks(v, 3, length, 5);
  for (let i = 0; i < payload.length; i++) v[2 * SIGNATURE_FIELDS + i] = payload[i]!;
  return v;
}

/** Whether the summed agreement vectors of `size` ranks come from one call. */
export function sameCall(sums: Float64Array, size: number): boolean {
  for (let i = 0; i < SIGNATURE_FIELDS; i++) if (sums[2 * i]! * sums[2 * i]! !== size * sums[2 * i + 1]!) return false;
  return true;
}

/** The sums the call carried beside its signature. */
export function payloadOf(sums: Float64Array): Float64Array {
  return sums.subarray(2 * SIGNATURE_FIELDS);
}

/** A call for humans, as the program made it. */
export function describeCall(sig: ArrayLike<number>): string {
  const [kind, op, length, type, root] = Array.from(sig) as [number, number, number, number, number];
  switch (kind) {
    case CallKind.Barrier: return 'barrier()';
    case CallKind.Broadcast: return `broadcast(value, ${root === -2 ? 'an invalid root' : `root ${root}`})`;
    case CallKind.Fence: return 'fence()';
    case CallKind.FenceStreams: return `fence() ending the streams of ${length} TT(s) with reducing inputs that end at the fence`;
    case CallKind.Split: return 'split()';
    case CallKind.Finalize: return 'finalize()';
    case CallKind.Allreduce: {
      const what = type === -2 ? 'a value that is not a number or a typed array' : type === 0 ? 'a number' : `${REDUCIBLE_TYPES[type - 1]?.name ?? 'an array'} of ${length}`;
      return `allreduce(${what}, ${op === -2 ? 'an unknown op' : `'${REDUCE_OPS[op] ?? op}'`})`;
    }
    default: return `an unknown call (${kind})`;
  }
}

/** Sums `values` over the world's ranks (an allreduce that starts after `pauseUs`, or after `quietUs` without traffic). */
export type SumAll = (values: Float64Array, pauseUs?: number, quietUs?: number) => Promise<Float64Array>;

/**
 * Agrees on `sig` with the other ranks of a world of `size` (this is `rank`) and sums `payload`
 * over them in the same reduction; rejects on every rank alike, with `E_COLLECTIVE` naming each
 * rank's call, when the calls differ.
 */
export async function agree(sum: SumAll, rank: number, size: number, sig: CallSignature, payload?: ArrayLike<number>,
  pauseUs = 0, quietUs?: number): Promise<Float64Array> {
  const sums = await sum(agreementVector(sig, payload), pauseUs, quietUs);
  if (sameCall(sums, size)) return payloadOf(sums);
  // every rank saw the mismatch, so every rank takes this round
  const all = new Float64Array(size * sig.length);
  all.set(sig, rank * sig.length);
  const calls = await sum(all);
  throw mismatch(calls, sig.length, size, rank);
}

function mismatch(calls: Float64Array, n: number, size: number, rank: number): TtgError {
  const each = Array.from({ length: size }, (_, r) => `rank ${r} called ${describeCall(calls.subarray(r * n, (r + 1) * n))}`);
  const e = Errors.collective(`the ranks of this world called different collectives: ${each.join(', ')}`, rank);
  Object.defineProperty(e, KINDS, { value: Array.from({ length: size }, (_, r) => calls[r * n]!) });
  return e;
}

/** On the error of calls that differed: the kind of call each rank made. */
const KINDS = Symbol('kinds');

const kindsOf = (e: unknown): CallKind[] | undefined =>
  (typeof e === 'object' && e !== null ? (e as Record<symbol, CallKind[] | undefined>)[KINDS] : undefined);

/** Whether `e` is the error of calls that differed (none of them took place). */
export function callsDiffered(e: unknown): boolean {
  return kindsOf(e) !== undefined;
}

/** Whether `e` is the error of calls that differed, one of them a call of `kind` by some rank. */
export function someRankCalled(e: unknown, kind: CallKind): boolean {
  return kindsOf(e)?.includes(kind) === true;
}
