/**
 * Which task a device step made in an async body belongs to. A generator body yields its steps to
 * the scheduler, which knows the task; an async body awaits them itself, so the step must know its
 * task when it is made, also after earlier awaits. Node's AsyncLocalStorage follows a task across
 * its awaits; it is set up the first time an async body makes a device step (before that, the
 * scheduler names the task whose async body it is calling), because once it is on, every promise
 * of the process pays for its bookkeeping: programs whose async bodies make no device steps never
 * turn it on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

import { scheduler } from '../ttg/scheduler.js';
import type { Task } from '../ttg/task.js';

let storage: AsyncLocalStorage<Task | undefined> | undefined;

/** The task whose async code is running, if any (the context follows it across awaits). */
export function contextTask(): Task | undefined {
  return storage?.getStore();
}

/** The task a device step made now belongs to; undefined outside async bodies (generators need none). */
export function stepTask(): Task | undefined {
  const inContext = storage?.getStore();
  if (inContext !== undefined) return inContext;
  const t = scheduler.calling;
  if (t !== undefined && storage === undefined) start(t);
  return t;
}

function start(t: Task): void {
  const s = new AsyncLocalStorage<Task | undefined>();
  storage = s;
  scheduler.taskContext = {
    run: (task, f) => s.run(task, f),
    outside: (f) => s.run(undefined, f),
    leave: () => s.enterWith(undefined),
  };
  // the body being called continues after its awaits as this task's code
  s.enterWith(t);
}
