/**
 * The ready tasks while the live dashboard watches the scheduler: each TT's `queued` follows its
 * tasks into and out of the queue, so a summary reads it instead of walking the queue. A subclass
 * the scheduler swaps in (Scheduler.watch) rather than a test in ReadyTasks: without the dashboard
 * the queue's call sites see one class, and the drain loop runs as if counting did not exist.
 */
import { ReadyTasks } from './ready-tasks.js';
import type { Task } from '../common/model.js';

/** {@link ReadyTasks} keeping `TT.queued`. */
export class CountedReadyTasks extends ReadyTasks {
  override push(t: Task): void {
    super.push(t);
    t.tt.queued++;
  }

  override shift(): Task | undefined {
    const t = super.shift();
    if (t !== undefined) t.tt.queued--;
    return t;
  }

  override drain(): Task[] {
    const out = super.drain();
    for (const t of out) t.tt.queued--;
    return out;
  }
}
