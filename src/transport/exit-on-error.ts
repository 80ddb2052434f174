/**
 * How a rank that fails, or leaves before `finalize()`, leaves an MPI job: it prints its error (or
 * that it left early), then aborts the whole job, so that the other ranks do not wait for it in a
 * fence or in MPI_Finalize. Node emits 'exit' before it
 * prints an uncaught error, and the abort never returns, so Node's own report would never be
 * written: this module writes it instead (docs/design/exit-on-error.md).
 */
import { writeSync } from 'node:fs';
import { inspect } from 'node:util';

import { isTtgError } from '../base/errors.js';

/**
 * How long a failing rank waits between printing its error and aborting. The abort kills every
 * rank at once; the other ranks of a failed fence reject moments later than the first, and this
 * lets them print theirs (and mpirun read what was written) before that.
 */
const ABORT_DELAY_MS = 300;

/** What {@link abortJobOnFailedExit} needs from the transport. */
export interface JobExit {
  /** This process's rank, printed before its error. */
  rank: number;
  /** Whether an exit with `code` must take the job down (the rank did not finish cleanly). */
  mustAbort(code: number): boolean;
  /** Whether the rank is leaving before `finalize()` on a clean exit (said on stderr before the abort). */
  leftEarly(code: number): boolean;
  /** Ends the whole job with `code` (MPI_Abort); never returns. */
  abort(code: number): never;
}

/**
 * Makes an exit that `job.mustAbort` accepts end the whole job: an uncaught error that caused the
 * exit is printed to stderr first, prefixed with the rank. Only a fatal error is printed: one that
 * an `uncaughtException` listener of the application receives is the application's to report.
 */
export function abortJobOnFailedExit(job: JobExit): void {
  let fatal: { error: unknown } | undefined;
  process.on('uncaughtExceptionMonitor', (error) => {
    if (process.listenerCount('uncaughtException') === 0) fatal = { error };
  });
  process.on('exit', (code) => {
    if (!job.mustAbort(code)) return;
    if (fatal !== undefined) writeAll(2, formatFatal(fatal.error, job.rank));
    else if (job.leftEarly(code)) writeAll(2, `ttg rank ${job.rank}: the process exited without ttg.finalize(); ending the job, since the other ranks would wait for this one\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ABORT_DELAY_MS);
    job.abort(code === 0 ? 1 : code);
  });
}

/**
 * The report of an uncaught error, ending with a newline: `ttg rank R: ` then, for a
 * `TtgError`, its message (code, TT, key, rank) and the error that caused it; for anything
 * else, what Node would show (the stack of an Error).
 */
export function formatFatal(error: unknown, rank: number): string {
  const head = `ttg rank ${rank}: `;
  if (!isTtgError(error)) return `${head}${inspect(error)}\n`;
  if (error.cause === undefined) return `${head}${error.message}\n`;
  return `${head}${error.message}\n  caused by: ${inspect(error.cause).replaceAll('\n', '\n  ')}\n`;
}

/** Writes all of `text` to `fd` now; a failure to print must not keep the job from ending. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  try {
    for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
  } catch {
    // stderr closed or unwritable: nothing more to do
  }
}
