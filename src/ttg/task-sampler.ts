/**
 * The live dashboard's view of task times without the tracer: one task in `every` is timed, and
 * `every` follows the rate, so a summary period keeps about {@link SAMPLES_PER_PERIOD} slices
 * whether tasks take 100 ns or 100 ms. The scheduler counts down to the next timed task (one
 * decrement per task, there whether a sampler is attached or not); a TT's count is `TT.runs`.
 */

/** Timed tasks a summary period aims for (the page draws a few seconds of them). */
export const SAMPLES_PER_PERIOD = 400;

/** A timed task: TT name, start (`performance.now()` ms), duration (ms). */
export type TaskSlice = [string, number, number];

/** Times a sample of the tasks a scheduler runs. */
export class TaskSampler {
  /** One task in this many is timed. */
  every = 1;
  private slices: TaskSlice[] = [];

  /** A timed task ended. */
  record(tt: string, t0: number, t1: number): void {
    if (this.slices.length < 4 * SAMPLES_PER_PERIOD) this.slices.push([tt, t0, t1 - t0]);
  }

  /** The slices since the last take; `tasks` ran meanwhile, which sets how many to time next. */
  take(tasks: number): { slices: TaskSlice[]; every: number } {
    const out = { slices: this.slices, every: this.every };
    this.slices = [];
    this.every = Math.max(1, Math.ceil(tasks / SAMPLES_PER_PERIOD));
    return out;
  }
}
