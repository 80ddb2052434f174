/** How a message is given to the addon. */
import type { NativeAddon } from '../native/addon.js';
import { packable, packParts, STAGE_MAX_BYTES, stageParts } from '../serialize/small-parts.js';

/**
 * Gives one message to the addon. A small payload is staged and copied there, so nothing stays
 * pinned; a larger one is pinned until sent or, when `transfer` (a moved value), handed over.
 * Returns the pin (0: none); with `track`, the addon reports when the send no longer reads it.
 */
export function handOff(native: NativeAddon, dest: number, bytes: Uint8Array, parts: ArrayBufferView[], plain: boolean, transfer: boolean,
  track = false): number {
  if (parts.length === 0) {
    native.send(dest, bytes, parts, plain);
    return 0;
  }
  let n = 0;
  for (const p of parts) n += p.byteLength;
  if (packable(parts, n)) {
    // one part of our own (not plain: the receiver unpacks it into the arrays it decodes)
    const packed = packParts(parts);
    native.send(dest, bytes, [packed], false, false, packed.byteLength <= STAGE_MAX_BYTES);
    return 0;
  }
  if (n <= STAGE_MAX_BYTES) {
    native.send(dest, bytes, stageParts(parts), plain, false, true);
    return 0;
  }
  return native.send(dest, bytes, parts, plain, transfer, false, track);
}
