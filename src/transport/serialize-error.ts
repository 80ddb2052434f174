/**
 * The E_SERIALIZE error of a message that could not be encoded: whether the key or the value
 * cannot travel, which task's body sent it, and where it was going.
 */
import { encode, MovedArrayError } from '../serialize/codec.js';
import { Errors, type TtgError } from '../base/errors.js';
import type { TransportHost } from '../ttg/common/transport.js';
import { Wire, type WireMessage } from '../ttg/common/wire.js';

/** E_SERIALIZE for `msg`: the first key in it that cannot travel, else its value; and who sent it. */
export function serializeError(host: TransportHost, msg: WireMessage, rank: number, cause: unknown): TtgError {
  const from = host.describeSender();
  if (msg[0] === Wire.Input) {
    for (const [ttId, terminal, keys] of msg[1]) {
      for (const key of keys) {
        const why = travelError(key);
        if (why !== undefined) return Errors.serializeSend('key', from, host.names(ttId, terminal).tt, terminal, key, rank, why);
      }
    }
    const [ttId, terminal, keys] = msg[1][0]!;
    if (cause instanceof MovedArrayError) {
      // named like a top-level re-send: by the task that sent it
      const e = Errors.moved(from?.tt ?? host.names(ttId, terminal).tt ?? String(ttId), terminal, from === undefined ? keys[0] : from.key, rank);
      e.message += ` (${cause.message})`;
      return e;
    }
    return Errors.serializeSend('value', from, host.names(ttId, terminal).tt, terminal, keys[0], rank, cause);
  }
  const ttId = msg[1];
  return Errors.serializeSend('message', from, typeof ttId === 'number' ? host.names(ttId, undefined).tt : undefined, undefined, undefined, rank, cause);
}

/** Why `v` alone cannot be encoded, or undefined if it can. */
function travelError(v: unknown): unknown {
  try {
    encode(v);
    return undefined;
  } catch (e) {
    return e;
  }
}
