/**
 * Active messages between ranks. A header is a msgpackr array whose first element says what it
 * is; values inside it may carry typed arrays, which travel as raw payload parts (see codec.ts).
 * That element is a positive fixint in the header's second byte, whose bit 6 the transport uses
 * for the phase bit (phase.ts): kinds stay below 64.
 */

/** Message kinds. */
export const enum Wire {
  /** `[Input, targets, value]`: deliver `value` to every (TT, terminal, keys) target. */
  Input = 0,
  /** `[StreamSize, ttId, terminal, key, n]` */
  StreamSize = 1,
  /** `[Finalize, ttId, terminal, key]` */
  Finalize = 2,
  /** `[Invoke, ttId, key]`: run a TT that has no inputs. */
  Invoke = 3,
  /** `[Failure, code, detail, tt, terminal, rank, cause, key?]`: a rank's run failed (`cause`: what its task threw, as it travels). */
  Failure = 4,
  /** `[Stall, fence, stalled, rank]`: hang watchdog vote (not counted by termination detection). */
  Stall = 5,
  /** `[Trace, rank, json]`: a rank's trace events, sent to rank 0 at finalize (not counted). */
  Trace = 6,
  /** `[Summary, rank, json]`: a rank's live summary for the dashboard on rank 0 (not counted). */
  Summary = 7,
  /** Small messages to one rank that travel together: not a msgpack header (transport/batches.ts). */
  Batch = 8,
}

/** One destination of an input message: input `terminal` of TT `ttId`, for each of `keys`. */
export type Target = [ttId: number, terminal: number, keys: unknown[]];

/** A decoded header. */
export type WireMessage =
  | [Wire.Input, Target[], unknown]
  | [Wire.StreamSize, number, number, unknown, number]
  | [Wire.Finalize, number, number, unknown]
  | [Wire.Invoke, number, unknown]
  | [Wire.Failure, string, string, string | null, number | null, number, unknown, unknown?]
  | [Wire.Stall, number, number, number]
  | [Wire.Trace, number, Uint8Array]
  | [Wire.Summary, number, string];
