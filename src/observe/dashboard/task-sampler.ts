/**
 * The live dashboard's view of task times without the tracer: one task in `every` is timed, and
 * `every` follows the rate from one timed task to the next, so timed tasks stay about
 * {@link SAMPLE_GAP_MS} apart whether tasks take 100 ns or 100 ms. Each summary also caps `every`
 * by the tasks its period ran, so that tasks slower than the last rate (or after a pause) are
 * timed again within a period. The scheduler counts down to the next timed task (one decrement per
 * task, there whether a sampler is attached or not); a TT's count is `TT.runs`.
 */
import type { TaskSampling } from '../../ttg/common/sampler.js';

/** Milliseconds between summaries (dashboard.ts sends one per period). */
export const SUMMARY_MS = 250;
/**
 * Milliseconds between timed tasks: about 100 per summary per rank, enough for the page's 5 s of
 * stream. Closer samples cost tasks of a millisecond a few percent at 2 ranks (docs/performance.md).
 */
export const SAMPLE_GAP_MS = 2.5;
/** Timed tasks a summary keeps at most (a burst of slow tasks cannot grow a summary further). */
const MAX_SLICES = 1600;

/** A timed task: TT name, start (`performance.now()` ms), duration (ms). */
export type TaskSlice = [string, number, number];

/** Times a sample of the tasks a scheduler runs. */
export class TaskSampler implements TaskSampling {
  /** One task in this many is timed. */
  every = 1;
  private lastAt = 0;
  private slices: TaskSlice[] = [];

  /** A timed task ran from `t0` to `t1`: keep it, and space the next one by the rate since the last. */
  record(tt: string, t0: number, t1: number): void {
    if (this.slices.length < MAX_SLICES) this.slices.push([tt, t0, t1 - t0]);
    const gap = Math.max(t1 - this.lastAt, 1e-4);
    this.lastAt = t1;
    // grows at most 4x a step: one light task right after another must not stop the sampling
    this.every = Math.max(1, Math.min(4 * this.every, 2 ** 24, Math.round((this.every * SAMPLE_GAP_MS) / gap)));
  }

  /** The slices since the last take and the rate they were taken at; `tasks` ran meanwhile. */
  take(tasks: number): { slices: TaskSlice[]; every: number } {
    const out = { slices: this.slices, every: this.every };
    this.slices = [];
    this.every = Math.min(this.every, Math.max(1, Math.ceil((tasks * SAMPLE_GAP_MS) / SUMMARY_MS)));
    return out;
  }
}
