/**
 * `TTG_CHECK_SERIALIZE=1`: in a run where sends stay on this rank (one rank, or keys a rank owns),
 * every key and value delivered to another TT is encoded and decoded as if it went to another
 * rank, so what could not travel fails with E_SERIALIZE at one rank too, not first under mpirun:
 * a value must arrive the same (same-value.ts), a key as one naming the same task.
 * Off by default: the check copies every value.
 */
import { decode, encode } from '../serialize/codec.js';
import { canonicalKey, isHashableKey } from '../serialize/key-codec.js';
import { firstDifference } from '../serialize/same-value.js';
import { decodeInput, encodeInput } from './input-header.js';
import { serializeError } from './serialize-error.js';
import type { TransportHost } from '../ttg/common/transport.js';
import { Wire, type Target, type WireMessage } from '../ttg/common/wire.js';

/** Encodes and decodes the delivery of `value` to input `terminal` of TT `ttId` for `key`; throws E_SERIALIZE. */
export function rehearse(host: TransportHost, target: Target, value: unknown, rank: number): void {
  const msg: WireMessage = [Wire.Input, [target], value];
  try {
    const { bytes, parts } = encodeInput(msg) ?? encode(msg, 2);
    const decoded = decodeInput(bytes, undefined) ?? decode<WireMessage>(bytes);
    // the receiver's arrays get the payload, as a transport would write it
    if (decoded.parts.length !== parts.length) throw new Error(`${parts.length} payload parts were sent, ${decoded.parts.length} expected`);
    parts.forEach((p, i) => bytesOf(decoded.parts[i]!).set(bytesOf(p)));
    // what the encoder let through must arrive equal, or the check has found a gap in it
    const changed = firstDifference(value, decoded.msg[2]);
    if (changed !== undefined) throw new Error(`it would arrive changed: ${changed}`);
    const keys = (decoded.msg as [Wire.Input, Target[], unknown])[1][0]![2];
    target[2].forEach((k, i) => {
      if (!sameKey(k, keys[i])) throw new Error(`its key would arrive as another task's: ${firstDifference(k, keys[i], 'key') ?? 'equals() says so'}`);
    });
  } catch (e) {
    throw serializeError(host, msg, rank, e);
  }
}

/** Whether `got` names the same task as `sent` (the key map's notion: canonical forms, or `equals`). */
function sameKey(sent: unknown, got: unknown): boolean {
  if (isHashableKey(sent)) return sent.equals(got);
  try {
    return canonicalKey(sent) === canonicalKey(got);
  } catch {
    return false;
  }
}

function bytesOf(v: ArrayBufferView): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}
