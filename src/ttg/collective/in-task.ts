/**
 * Collectives, fences and splits called from a task: each would wait for every rank of its world
 * to call it from the main program, and a task's own world's fence waits for that task, so they are
 * refused at once. A task of another world (a split world's task calling its parent's collective,
 * or the reverse) is refused too: its ranks would reach the call in task order, not program order,
 * and meet the other ranks' fences and collectives in any order. A task is known for the
 * synchronous part of a body (each scheduler's `inBody`) and, after awaits, through the task
 * context, which goes on for async bodies whose text names a collective (device/task-context.ts).
 */
import { Errors, type TtgError } from '../../base/errors.js';
import { defaultRuntime, type Runtime } from '../runtime/runtime.js';
import type { Task } from '../common/model.js';

/** The task running now, of any world of this process, if any. */
function runningTask(rt: Runtime): Task | undefined {
  return rt.scheduler.inBody ?? rt.device?.taskContext?.current() ?? defaultRuntime().bodyRunning();
}

/** The error for `what` (a call of `rt`'s world) made from a task, or undefined when no task is running. */
export function calledInTask(rt: Runtime, what: string): TtgError | undefined {
  const t = runningTask(rt);
  if (t === undefined) return undefined;
  const why = t.tt.rt === rt
    ? 'was called from a task body of its own world; it would wait for the world\'s fence, which waits for that task to end'
    : 'was called from a task body of another world; the ranks would reach it in task order, not in the order of the world\'s fences and collectives';
  return Errors.invalidArgument(what, `${why} (call it from the main program between fences; inside a graph, reduce with make_allreduce)`,
    { tt: t.tt.name, key: t.key, rank: rt.rank });
}
