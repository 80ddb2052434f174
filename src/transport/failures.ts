/** Failures announced by other ranks. */
import { describeKey, Errors, TtgError, type TtgErrorCode } from '../base/errors.js';
import { encode } from '../serialize/codec.js';
import { Wire, type WireMessage } from '../ttg/common/wire.js';
import { causeFromTravel, causeToTravel, type TravellingCause } from './error-cause.js';

// ES2024's String.prototype.toWellFormed (Node 20 has it; this TypeScript lib is ES2023)
const wellFormed = (s: string): string => (s as string & { toWellFormed(): string }).toWellFormed();

/**
 * The `Failure` message that announces `err` of rank `rank` to the other ranks: header bytes
 * only, with what the task threw inside them (error-cause.ts), so it needs no payload parts.
 * Never throws: a rank that cannot describe its failure must still announce it, or the others
 * would wait for it and the job would abort instead of rejecting the fence.
 */
export function encodeFailure(err: TtgError, rank: number): Uint8Array {
  const code = String(err.code);
  try {
    // the detail repeats what the task threw (a lone surrogate would make the header unencodable)
    const head = [Wire.Failure, code, wellFormed(String(err.detail)), err.tt === undefined ? null : wellFormed(String(err.tt)),
      err.terminal ?? null, rank, causeToTravel(err.cause)];
    if (err.key === undefined) return encode(head).bytes;
    try {
      const withKey = encode([...head, err.key]);
      if (withKey.parts.length === 0) return withKey.bytes; // a key with arrays would lose them: as text
    } catch {
      // a key that cannot travel goes as text
    }
    return encode([...head, wellFormed(describeKey(err.key))]).bytes;
  } catch {
    return encode([Wire.Failure, code, 'a failure that could not be described', null, null, rank, null]).bytes;
  }
}

/** The error a `Failure` message announces, marked as announced by its rank, with what the task threw as its cause. */
export function announcedError(msg: WireMessage): TtgError {
  const [, code, detail, tt, terminal, rank, cause] = msg as [Wire.Failure, string, string, string | null, number | null, number, TravellingCause | null];
  return new TtgError(code as TtgErrorCode, `${detail} [announced by rank ${rank}]`, {
    tt: tt ?? undefined, terminal: terminal ?? undefined, rank, ...(msg.length > 7 ? { key: msg[7] } : {}), cause: causeFromTravel(cause),
  });
}

/** The error of a run whose failure another rank counted but never announced. */
export const unannounced = (rank: number): TtgError => Errors.transport('another rank failed, but its error did not arrive', rank);
