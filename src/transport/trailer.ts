/**
 * With TTG_CHECKSUM or TTG_TRACE (not TTG_REPORT alone) every header ends with a trailer: xxhash32
 * of the header (u32), xxhash32 of the payload parts (u32), trace flow id (f64), flags (u8). Both
 * settings must be the same on every rank (mpirun passes the environment to all of them).
 */
import { hashBytes, hashParts } from '../serialize/checksum.js';
import { Errors } from '../base/errors.js';
import type { TraceSink } from '../ttg/common/trace-sink.js';

/** Bytes of a trailer. */
export const TRAILER = 17;

/** Trailer flags. */
export const enum Trail {
  Checksum = 1,
  Trace = 2,
  /** The message counts for termination detection. */
  Counted = 4,
}

/** What a received trailer said. */
export interface Tail {
  hdr: number;
  parts: number;
  flow: number;
  flags: number;
}

/** `bytes` followed by a trailer (`trail`: Trail.Checksum | Trail.Trace). */
export function addTrailer(trail: number, tracer: TraceSink | undefined, dest: number, bytes: Uint8Array, parts: readonly ArrayBufferView[], counted: boolean): Uint8Array {
  const out = new Uint8Array(bytes.length + TRAILER);
  out.set(bytes);
  const dv = new DataView(out.buffer, bytes.length, TRAILER);
  if ((trail & Trail.Checksum) !== 0) {
    dv.setUint32(0, hashBytes(bytes));
    dv.setUint32(4, hashParts(parts));
  }
  if (counted && tracer !== undefined && (trail & Trail.Trace) !== 0) {
    let n = bytes.length;
    for (const p of parts) n += p.byteLength;
    dv.setFloat64(8, tracer.sendFlow(dest, n));
  }
  dv.setUint8(16, trail | (counted ? Trail.Counted : 0));
  return out;
}

/**
 * Splits the trailer off `raw`: the header, and what the trailer said. Throws E_TRANSPORT when
 * the sender's settings differ from `trail`.
 */
export function takeTrailer(trail: number, raw: Uint8Array, src: number, rank: number): { header: Uint8Array; tail: Tail } {
  const n = raw.length - TRAILER;
  const dv = n >= 0 ? new DataView(raw.buffer, raw.byteOffset + n, TRAILER) : undefined;
  const flags = dv === undefined ? -1 : dv.getUint8(16);
  if (dv === undefined || (flags & ~Trail.Counted) !== trail) {
    throw Errors.transport(`a message from rank ${src} does not carry the trailer this rank expects: set TTG_CHECKSUM and TTG_TRACE the same on every rank`, rank);
  }
  return { header: raw.subarray(0, n), tail: { hdr: dv.getUint32(0), parts: dv.getUint32(4), flow: dv.getFloat64(8), flags } };
}
