/**
 * Which task a device step made in an async body belongs to. A generator body yields its steps to
 * the scheduler, which knows the task; an async body awaits them itself, so the step must know its
 * task when it is made, also after earlier awaits. Node's AsyncLocalStorage follows a task across
 * its awaits. Once it is on, every promise of the process pays for its bookkeeping, so it goes on
 * only for a program with async device bodies: before the first task of an async body whose text
 * names the device API, or at the first device step an async body makes before its first await
 * (the scheduler names the task whose async body it is calling), or before the first task of an
 * async body that names a world collective.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

import type { DevicePort } from '../ttg/common/device-port.js';
import type { Task } from '../ttg/common/model.js';

let storage: AsyncLocalStorage<Task | undefined> | undefined;

/** The task whose async code is running, if any (the context follows it across awaits). */
export function contextTask(): Task | undefined {
  return storage?.getStore();
}

/** The task a device step made now belongs to; undefined outside async bodies (generators need none). */
export function stepTask(port: DevicePort): Task | undefined {
  const inContext = storage?.getStore();
  if (inContext !== undefined) return inContext;
  const t = port.calling;
  if (t !== undefined && storage === undefined) start(port, t);
  return t;
}

/**
 * The scheduler's `checkAsyncBody`: an async body whose text names the device API may make its
 * first device step after an ordinary await, when only the context could tell its task; the
 * context goes on before its first task runs. (A body that only calls helpers making the steps
 * is found at its first step made before any await.) So does one that names a collective, which
 * its world refuses from its own tasks (ttg/in-task.ts), also after an await.
 */
export function checkAsyncBody(port: DevicePort, body: Function): void {
  if (storage === undefined && /\bdevice\b|\b(allreduce|broadcast|barrier|fence|split)\s*\(/.test(String(body))) start(port, undefined);
}

function start(port: DevicePort, t: Task | undefined): void {
  const s = new AsyncLocalStorage<Task | undefined>();
  storage = s;
  port.taskContext = {
    run: (task, f) => s.run(task, f),
    outside: (f) => s.run(undefined, f),
    leave: () => s.enterWith(undefined),
    current: () => s.getStore(),
  };
  // the body being called continues after its awaits as this task's code
  if (t !== undefined) s.enterWith(t);
}
