/**
 * How the mpirun scripts report a fence (not a script itself): `NOT-REJECTED <rank>`, or
 * `REJECTED <json>` with the error's code, message and origin rank, for the test to parse.
 */
import * as ttg from 'ttg';

/** Awaits `ttg.fence(options)` and prints its outcome; a rejection is rethrown when `rethrow`. */
export async function fenceOutcome(rank: number, rethrow: boolean, options: ttg.FenceOptions = {}): Promise<void> {
  try {
    await ttg.fence(options);
    console.log(`NOT-REJECTED ${rank}`);
  } catch (e) {
    const err = e as ttg.TtgError;
    console.log(`REJECTED ${JSON.stringify({ rank, code: err.code, message: err.message, origin: err.rank })}`);
    if (rethrow) throw e;
  }
}
