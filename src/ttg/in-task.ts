/**
 * Collectives, fences and splits of a world called from one of its own tasks: each would wait for
 * the world's fence, which waits for that task, so they are refused at once. A task is known for
 * the synchronous part of a body (the scheduler's `inBody`) and, after awaits, through the task
 * context, which goes on for async bodies whose text names a collective (device/task-context.ts).
 */
import { Errors, type TtgError } from '../base/errors.js';
import type { Runtime } from './runtime.js';

/** The error for `what` called from a task of `rt`'s world, or undefined when no such task is running. */
export function calledInTask(rt: Runtime, what: string): TtgError | undefined {
  const t = rt.scheduler.inBody ?? rt.device?.taskContext?.current();
  if (t === undefined || t.tt.rt !== rt) return undefined;
  return Errors.invalidArgument(what, 'was called from a task body of its own world; it would wait for the world\'s fence, which waits for that task to end ' +
    '(call it from the main program between fences; inside a graph, reduce with make_allreduce)', { tt: t.tt.name, key: t.key, rank: rt.rank });
}
