/**
 * What the scheduler asks of the live dashboard's sampler (src/observe/dashboard/task-sampler.ts):
 * it times one task in {@link TaskSampling.every} and reports the slice, so the dashboard sees task
 * times without the tracer. The scheduler counts down to the next timed task whether one is
 * attached or not.
 */

/** A sampler of the tasks one scheduler runs. */
export interface TaskSampling {
  /** One task in this many is timed. */
  readonly every: number;
  /** A timed task of TT `tt` ran from `t0` to `t1` (`performance.now()` ms). */
  record(tt: string, t0: number, t1: number): void;
}
