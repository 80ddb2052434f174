/**
 * When the small messages a task left waiting leave. Sent at the end of every task, the replies
 * of a gather (each from its own tiny task) went one MPI message each; held until the rank runs
 * out of ready tasks, a message would wait behind tasks that may be long while its receiver has
 * nothing to do. Between the two: after a task, what waits stays only while tasks keep adding to
 * it (this one and the one before both sent small messages: a run of senders, not a stencil's one
 * boundary task among many, whose neighbour waits for it), the next ready task is of a kind seen to
 * run short, and the oldest message has waited less than a bound; otherwise it leaves. A kind's
 * duration is only measured while something waits: one clock read per task then, none otherwise.
 * A kind never measured counts as long.
 */
import type { Batches } from './batches.js';

/** A kind of task (a TT) whose last measured run took less than this, in ms, counts as short. */
export const SHORT_TASK_MS = 0.01;
/** The longest a small message waits for short tasks to run after the one that sent it, in ms. */
export const HOLD_MS = 0.05;

/** Decides, after each task, whether the waiting small messages leave now. */
export class FlushTiming {
  /** Per kind of task: how long its last run measured took, in ms. */
  private readonly lastRun = new WeakMap<object, number>();
  /** When the previous task ended, if it was timed (else -1). */
  private lastEnd = -1;
  /** When something was first seen waiting since the last time nothing did (else -1). */
  private since = -1;
  /** {@link Batches.added} after the previous task. */
  private lastAdded = 0;
  /** Tasks in a row, up to this one, that added small messages. */
  private senders = 0;

  constructor(
    private readonly batches: Pick<Batches, 'waiting' | 'added' | 'flushAll'>,
    /** The clock, in ms (a test's own). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** After a task of kind `ran`, with `next` the kind of the next ready task (undefined: none). */
  readonly afterTask = (ran: object, next: object | undefined): void => {
    const b = this.batches;
    const added = b.added;
    this.senders = added !== this.lastAdded ? this.senders + 1 : 0;
    this.lastAdded = added;
    if (b.waiting === 0) {
      this.lastEnd = this.since = -1;
      return;
    }
    const now = this.now();
    if (this.lastEnd >= 0) this.lastRun.set(ran, now - this.lastEnd);
    this.lastEnd = now;
    if (this.since < 0) this.since = now;
    if (this.senders >= 2 && next !== undefined && now - this.since < HOLD_MS && (this.lastRun.get(next) ?? SHORT_TASK_MS) < SHORT_TASK_MS) return;
    this.since = -1;
    b.flushAll();
  };
}
