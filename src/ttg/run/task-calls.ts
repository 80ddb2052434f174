/**
 * Calls into async task code. An async body (or a step of an async generator) that makes a
 * device step must let the device layer know its task: before the task context is on, the port's
 * `calling` names the task for the synchronous part of the call; once it is on (the device layer
 * turns it on at the first device step of an async body), the call runs inside the task's context,
 * which follows it across every await.
 */
import { callBody } from '../common/body.js';
import type { DevicePort } from '../common/device-port.js';
import type { Task } from '../common/model.js';

type AnyBody = (...a: unknown[]) => unknown;

/** Lets the device layer see the body of `t`'s TT before its first task, while the task context is off. */
function checkContext(t: Task, dev: DevicePort): void {
  const tt = t.tt;
  if (dev.taskContext !== undefined || tt.contextChecked) return;
  tt.contextChecked = true;
  dev.checkAsyncBody(tt.body as Function);
}

/** {@link inTask} for an async body, without a closure until the task context is on. */
export function callAsyncBody(dev: DevicePort | undefined, t: Task, body: AnyBody): unknown {
  if (dev === undefined) return callBody(body, t.key, t.args, t);
  checkContext(t, dev);
  const ctx = dev.taskContext;
  if (ctx !== undefined) return ctx.run(t, () => callBody(body, t.key, t.args, t));
  dev.calling = t;
  try {
    return callBody(body, t.key, t.args, t);
  } finally {
    dev.calling = undefined;
    dev.taskContext?.leave();
  }
}

/** Calls `f` (an async body, or a step of an async generator) as the code of task `t`. */
export function inTask<R>(dev: DevicePort | undefined, t: Task, f: () => R): R {
  if (dev === undefined) return f();
  checkContext(t, dev);
  const ctx = dev.taskContext;
  if (ctx !== undefined) return ctx.run(t, f);
  dev.calling = t;
  try {
    return f();
  } finally {
    dev.calling = undefined;
    // a device step made by `f` has just set up the context, and entered it for `t`: leave it
    dev.taskContext?.leave();
  }
}
