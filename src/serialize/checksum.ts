/**
 * `TTG_CHECKSUM=1`: every message carries xxhash32 digests of its header and of its payload parts,
 * computed on send and checked on receipt; a mismatch is an `E_CORRUPT` error naming edge, key and
 * source rank. Off by default (one test per message when off).
 */
import xxhash, { type XXHashAPI } from 'xxhash-wasm';

let api: XXHashAPI | undefined;

/** Loads xxhash-wasm; call before hashing. */
export async function initChecksum(): Promise<void> {
  if (api === undefined) api = await xxhash();
}

function bytesOf(v: ArrayBufferView): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** xxhash32 of `bytes`. */
export function hashBytes(bytes: Uint8Array): number {
  return api!.h32Raw(bytes);
}

/** xxhash32 of the concatenated bytes of `parts` (0 parts: the hash of nothing). */
export function hashParts(parts: readonly ArrayBufferView[]): number {
  if (parts.length === 1) return api!.h32Raw(bytesOf(parts[0]!));
  const h = api!.create32();
  for (const p of parts) h.update(bytesOf(p));
  return h.digest();
}
