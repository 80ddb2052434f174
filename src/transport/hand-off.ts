/** How a message is given to the addon. */
import type { NativeAddon } from '../native/addon.js';
import { STAGE_MAX_BYTES, stageParts } from '../serialize/small-parts.js';

/**
 * Gives one message to the addon. A small payload is staged and copied there, so nothing stays
 * pinned; a larger one is pinned until sent or, when `transfer` (a moved value), handed over.
 */
export function handOff(native: NativeAddon, dest: number, bytes: Uint8Array, parts: ArrayBufferView[], plain: boolean, transfer: boolean): void {
  if (parts.length === 0) {
    native.send(dest, bytes, parts, plain);
    return;
  }
  let n = 0;
  for (const p of parts) n += p.byteLength;
  if (n <= STAGE_MAX_BYTES) native.send(dest, bytes, stageParts(parts), plain, false, true);
  else native.send(dest, bytes, parts, plain, transfer);
}
