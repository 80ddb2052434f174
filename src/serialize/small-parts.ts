/**
 * Copies of small payload parts that never touch `.buffer` of the application's arrays: V8 keeps
 * typed arrays of up to 64 bytes inside its heap, and asking for their ArrayBuffer (in JS, or
 * through Node-API to read their memory) moves them out first, which costs more than the whole
 * copy (~0.7 us against ~0.05 us for a same-typed `set`, measured with Node 20).
 */

type Viewable = ArrayBufferView & { length?: number; BYTES_PER_ELEMENT?: number };
type ViewCtor = new (buffer: ArrayBuffer, byteOffset: number, length: number) => ArrayBufferView & { set(a: ArrayLike<number> | ArrayLike<bigint>): void };

/** Payloads up to this many bytes are staged and copied by the addon when sent. */
export const STAGE_MAX_BYTES = 4096;

let stage = new ArrayBuffer(STAGE_MAX_BYTES + 8 * 64);
const stageViews: ArrayBufferView[] = [];

/** A same-typed view of `n` elements at `byteOffset` of `buffer`, or undefined when misaligned. */
function sameTyped(like: Viewable, buffer: ArrayBuffer, byteOffset: number): (ArrayBufferView & { set(a: unknown): void }) | undefined {
  const per = like.BYTES_PER_ELEMENT;
  if (per === undefined || byteOffset % per !== 0) return undefined;
  return new (like.constructor as ViewCtor)(buffer, byteOffset, like.length!) as ArrayBufferView & { set(a: unknown): void };
}

/** Fills `parts`, in order, from `bytes` (whose offset in its buffer is a multiple of 8). */
export function copyPartsFrom(bytes: Uint8Array, parts: readonly ArrayBufferView[]): void {
  let o = 0;
  for (const p of parts) {
    const n = p.byteLength;
    const src = sameTyped(p as Viewable, bytes.buffer as ArrayBuffer, bytes.byteOffset + o);
    if (src !== undefined) (p as unknown as { set(a: unknown): void }).set(src);
    else new Uint8Array(p.buffer, p.byteOffset, n).set(bytes.subarray(o, o + n));
    o += n;
  }
}

/**
 * Copies `parts` (at most {@link STAGE_MAX_BYTES} in all) into a scratch buffer and returns views
 * of the copies, valid until the next call: for a send that the addon copies before returning.
 */
export function stageParts(parts: readonly ArrayBufferView[]): ArrayBufferView[] {
  stageViews.length = 0;
  let o = 0;
  for (const p of parts) {
    o = (o + 7) & ~7;
    if (o + p.byteLength > stage.byteLength) stage = new ArrayBuffer(2 * (o + p.byteLength));
    const dst = sameTyped(p as Viewable, stage, o);
    if (dst !== undefined) dst.set(p);
    else new Uint8Array(stage, o, p.byteLength).set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
    stageViews.push(dst ?? new Uint8Array(stage, o, p.byteLength));
    o += p.byteLength;
  }
  return stageViews;
}

/**
 * Many small parts travel packed into one: one MPI message instead of one per part (a value of
 * 10^5 small arrays made as many requests, each tested on every pass of the comm thread). Packed
 * when there are more than this many parts ...
 */
export const PACK_MIN_PARTS = 16;
/** ... and they average at most this many bytes (larger ones are worth their own zero-copy send). */
export const PACK_MAX_AVERAGE_BYTES = 4096;

/** Whether `parts` (of `bytes` in all) go packed ({@link packParts}). */
export function packable(parts: readonly ArrayBufferView[], bytes: number): boolean {
  return parts.length > PACK_MIN_PARTS && bytes <= parts.length * PACK_MAX_AVERAGE_BYTES;
}

/**
 * Where each part starts in a packed payload: at a multiple of 8, whatever its element type. The
 * sender and the receiver compute the layout apart, and a split-metadata class may receive into
 * arrays of other types than it sent (of the same byte lengths), so the layout may depend on byte
 * lengths only; 8 is a multiple of every element size, so same-typed copies still apply.
 */
const at = (o: number): number => (o + 7) & ~7;

/** The length of {@link packParts}'s payload for `parts`. */
export function packedBytes(parts: readonly ArrayBufferView[]): number {
  let o = 0;
  for (const p of parts) o = at(o) + p.byteLength;
  return o;
}

/**
 * `parts` in one new array, each at a multiple of 8 bytes so that it is copied through a
 * same-typed view (what {@link unpackParts} reads).
 */
export function packParts(parts: readonly ArrayBufferView[]): Uint8Array {
  const out = new Uint8Array(packedBytes(parts));
  let o = 0;
  for (const p of parts) {
    o = at(o);
    const dst = sameTyped(p as Viewable, out.buffer, o);
    if (dst !== undefined) dst.set(p);
    else out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), o);
    o += p.byteLength;
  }
  return out;
}

/** Fills `parts`, in order, from a payload {@link packParts} made (its offset a multiple of 8). */
export function unpackParts(packed: Uint8Array, parts: readonly ArrayBufferView[]): void {
  let o = 0;
  for (const p of parts) {
    o = at(o);
    const src = sameTyped(p as Viewable, packed.buffer as ArrayBuffer, packed.byteOffset + o);
    if (src !== undefined) (p as unknown as { set(a: unknown): void }).set(src);
    else new Uint8Array(p.buffer, p.byteOffset, p.byteLength).set(packed.subarray(o, o + p.byteLength));
    o += p.byteLength;
  }
}
