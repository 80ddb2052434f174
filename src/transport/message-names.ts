/** Names of messages for traces and errors. */
import { Errors, type TtgError } from '../base/errors.js';
import type { TransportHost } from '../ttg/common/transport.js';
import { Wire, type WireMessage } from '../ttg/common/wire.js';

/** Trace names of the counted message kinds. */
export const KIND_NAMES: Record<number, string> = {
  [Wire.Input]: 'input', [Wire.StreamSize]: 'stream size', [Wire.Finalize]: 'finalize', [Wire.Invoke]: 'invoke', [Wire.Trace]: 'trace',
};

/** E_CORRUPT naming the edge, TT, terminal and key of `msg` as far as this rank knows them. */
export function corruptError(host: TransportHost, msg: WireMessage, src: number, rank: number): TtgError {
  if (msg[0] === Wire.Input) {
    const [ttId, terminal, keys] = msg[1][0]!;
    const n = host.names(ttId, terminal);
    return Errors.corrupt(n.edge, n.tt, terminal, keys[0], src, rank);
  }
  const ttId = msg[1];
  return Errors.corrupt(undefined, typeof ttId === 'number' ? host.names(ttId, undefined).tt : undefined, undefined, undefined, src, rank);
}
