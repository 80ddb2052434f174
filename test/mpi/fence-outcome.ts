/**
 * How the mpirun scripts report a fence (not a script itself): `NOT-REJECTED <rank>`, or
 * `REJECTED <json>` with the error's code, message, origin rank and cause (its class, name,
 * message, stack, own properties and its own cause's message), for the test to parse.
 */
import * as ttg from 'ttg';

/** Awaits `ttg.fence(options)` and prints its outcome; a rejection is rethrown when `rethrow`. */
export async function fenceOutcome(rank: number, rethrow: boolean, options: ttg.FenceOptions = {}): Promise<void> {
  try {
    await ttg.fence(options);
    console.log(`NOT-REJECTED ${rank}`);
  } catch (e) {
    const err = e as ttg.TtgError;
    const c = err.cause as (Error & Record<string, unknown>) | undefined;
    const cause = c instanceof Error ? { ctor: c.constructor.name, name: c.name, message: c.message, stack: c.stack, own: Object.fromEntries(Object.entries(c)), inner: c.cause instanceof Error ? c.cause.message : null } : c ?? null;
    console.log(`REJECTED ${JSON.stringify({ rank, code: err.code, message: err.message, origin: err.rank, cause })}`);
    if (rethrow) throw e;
  }
}
