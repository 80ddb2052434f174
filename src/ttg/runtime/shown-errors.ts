/**
 * Where a run's failures reach the people watching: the HTML report (through the tracer) and the
 * live dashboard (`Runtime.watchErrors`). A task's error is shown when the scheduler records it;
 * a fence's own failures (E_HANG, E_INCOMPLETE, E_COLLECTIVE, a transport's error) never pass the
 * scheduler, so a failed fence shows what it rejects with too. Each error shows once, and only on
 * the rank that raised it: the other ranks' fences reject with the same error, told by that rank.
 */
import { isTtgError, type TtgError } from '../../base/errors.js';
import type { TraceSink } from '../common/trace-sink.js';

/** Where a world's errors are shown (its runtime, runtime.ts's Runtime, which shows its first errors here). */
export interface ErrorAudience {
  /** This process's rank in the world. */
  readonly rank: number;
  /** The report's side: the tracer, when one records. */
  readonly scheduler: { readonly tracer: TraceSink | undefined };
  /** The live dashboard's side. */
  readonly watchErrors: ((err: TtgError) => void) | undefined;
}

/** Errors shown by this process (an error object is shown once, whichever path meets it first). */
const shown = new WeakSet<TtgError>();

/** Shows `err`, raised on this rank of `rt`'s world, in the report and on the dashboard (once). */
export function showError(rt: ErrorAudience, err: TtgError): void {
  if (shown.has(err)) return;
  shown.add(err);
  rt.scheduler.tracer?.error(err);
  rt.watchErrors?.(err);
}

/** A fence of `rt` rejected with `e`: shown, unless another rank raised it (that rank showed it). */
export function showFenceFailure(rt: ErrorAudience, e: unknown): void {
  if (!isTtgError(e) || (e.rank !== undefined && e.rank !== rt.rank)) return;
  showError(rt, e);
}
