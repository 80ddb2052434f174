/** Failures announced by other ranks. */
import { describeKey, Errors, TtgError, type TtgErrorCode } from '../base/errors.js';
import { encode } from '../serialize/codec.js';
import { Wire, type WireMessage } from '../ttg/wire.js';
import { causeFromTravel, causeToTravel, type TravellingCause } from './error-cause.js';

/** How long a rank waits for the announcement of a failure that the wave reported elsewhere. */
const FAILURE_NOTICE_MS = 10_000;

/** The `Failure` message that announces `err` of rank `rank` to the other ranks (its header bytes). */
export function encodeFailure(err: TtgError, rank: number): Uint8Array {
  const head = [Wire.Failure, err.code, err.detail, err.tt ?? null, err.terminal ?? null, rank, causeToTravel(err.cause)] as const;
  try {
    return encode(err.key === undefined ? [...head] : [...head, err.key]).bytes;
  } catch {
    return encode([...head, describeKey(err.key)]).bytes; // a key that cannot travel goes as text
  }
}

/** The error a `Failure` message announces, marked as announced by its rank, with what the task threw as its cause. */
export function announcedError(msg: WireMessage): TtgError {
  const [, code, detail, tt, terminal, rank, cause] = msg as [Wire.Failure, string, string, string | null, number | null, number, TravellingCause | null];
  return new TtgError(code as TtgErrorCode, `${detail} [announced by rank ${rank}]`, {
    tt: tt ?? undefined, terminal: terminal ?? undefined, rank, ...(msg.length > 7 ? { key: msg[7] } : {}), cause: causeFromTravel(cause),
  });
}

/** Waits for the announcement of a failure that a termination wave counted on another rank. */
export class FailureNotice {
  private arrived: (() => void) | undefined;

  /** A failure was recorded here (announced or not): the wait is over. */
  notice(): void {
    this.arrived?.();
  }

  /** Resolves once {@link notice} is called, or when `failed()` already holds; `giveUp` after the timeout. */
  wait(failed: () => boolean, giveUp: () => void): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        giveUp();
        resolve();
      }, FAILURE_NOTICE_MS);
      this.arrived = () => {
        clearTimeout(timer);
        this.arrived = undefined;
        resolve();
      };
      if (failed()) this.arrived();
    });
  }
}

/** The error of a run whose failure another rank counted but never announced. */
export const unannounced = (rank: number): TtgError => Errors.transport('another rank failed, but its error did not arrive', rank);
