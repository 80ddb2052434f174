/**
 * The tasks whose bodies await a promise or a device step, as an intrusive list through the tasks
 * themselves (no allocation per suspension), for hang reports and for giving them up after a hang.
 */
import type { Task } from '../common/model.js';
import { TaskInstance } from './task.js';
import type { TraceSink } from '../common/trace-sink.js';

/** The suspended tasks of one scheduler. */
export class SuspendedTasks {
  /** Head of the list (a sentinel; see Task.nextSuspended). */
  private readonly head = new TaskInstance(undefined as never, undefined, []);

  /** Lists `t` (once). */
  add(t: Task): void {
    if (t.nextSuspended !== undefined) return;
    const h = this.head;
    const first = h.nextSuspended ?? h;
    t.prevSuspended = h;
    t.nextSuspended = first;
    h.nextSuspended = t;
    first.prevSuspended = t;
  }

  /** Takes `t` off the list; with `tracer`, its execution ends there (an async span in a trace). */
  remove(t: Task, tracer: TraceSink | undefined): void {
    const p = t.prevSuspended!;
    const n = t.nextSuspended!;
    p.nextSuspended = n === this.head && p === this.head ? undefined : n;
    n.prevSuspended = p;
    t.prevSuspended = t.nextSuspended = undefined;
    tracer?.ended(t);
  }

  /** The listed tasks. */
  list(): Task[] {
    const out: Task[] = [];
    const h = this.head;
    for (let t = h.nextSuspended; t !== undefined && t !== h; t = t.nextSuspended) out.push(t);
    return out;
  }
}
