/**
 * The seam between the core and the device layer. The core owns these interfaces and never imports
 * the device layer; `initialize` hands the device layer's port to every world's runtime. Device
 * steps follow the step protocol below instead of subclassing the scheduler's classes.
 */
import type { DeviceChecks, Task } from './model.js';

/**
 * A step that completed synchronously (e.g. `input()` on the host backend): the body resumes at
 * once with `value`, without a promise turn. Awaiting it (async generators) gives the value a turn later.
 */
export interface ReadyStep extends PromiseLike<unknown> {
  readonly step: 'ready';
  readonly value: unknown;
}

/**
 * A step that completes by calling back: a `function*` body that yields one is parked on it and
 * resumed from the completion by `task.resumeParked()`, without the closures and promise jobs of
 * a `then`. Async generators still use `then`.
 */
export interface ParkableStep extends PromiseLike<unknown> {
  readonly step: 'parkable';
  /** Parks the body of `task`; the step calls `task.resumeParked(error?)` once when it completes (with the error it failed with). */
  park(task: Task): void;
}

/** What a device step resolves to: a ready or parkable step, or any promise. */
export type StepResult = ReadyStep | ParkableStep | PromiseLike<unknown>;

/** How async bodies keep their task across awaits (see {@link DevicePort.taskContext}). */
export interface TaskContext {
  /** Runs `f` with `t` as the task of its code and of everything it awaits. */
  run<R>(t: Task, f: () => R): R;
  /** Runs `f` outside any task. */
  outside<R>(f: () => R): R;
  /** Leaves the task that the synchronous code running now was made part of. */
  leave(): void;
  /** The task whose code is running now (also after its awaits), if any. */
  current(): Task | undefined;
}

/** A body's iterator, as the scheduler drives it. */
export interface StepIterator<R> {
  next(v?: unknown): R;
  throw?(e?: unknown): R;
}

/** What the device layer provides to the core. One per process, shared by its worlds. */
export interface DevicePort extends DeviceChecks {
  /** True while device work is queued or running: the hang watchdog counts that as progress. */
  busy(): boolean;
  /** True while some stream carries fewer than two device tasks: tasks that feed a device should run first. */
  hungry(): boolean;
  /** Turns a yielded non-promise value (a device step) into a step result; undefined when it is none. */
  resolveStep(step: unknown, task: Task): StepResult | undefined;
  /** Resumes the body of a task that has device state inside that state (`current_stream()`...). */
  stepNext<R>(context: unknown, it: StepIterator<R>, input: unknown, isThrow: boolean): R;
  /**
   * Ends the device use of a task whose body returned or threw; true when it must first wait for
   * work the task enqueued, and calls `then` once that has run (with an error when it failed). Throws when the task broke a
   * device rule (a host task wrote a read-only input's buffer).
   */
  endTask(t: Task, then: (t: Task, error?: unknown) => void): boolean;
  /** A task given up by a hang report: what it holds on devices is given back once its queued work has run. */
  abandonTask(t: Task): void;
  /** A fence ended: host arrays the program writes from now on, outside tasks, are checked at their next device use. */
  phaseEnded(): void;
  /** Called once per TT with an async body before its first task (the task context may go on: for a body naming the device API or a collective). */
  checkAsyncBody(body: Function): void;
  /**
   * Set by the device layer once an async body made a device step: async bodies and async
   * generator steps then run inside their task's context, which follows them across awaits.
   */
  taskContext: TaskContext | undefined;
  /**
   * Written by the scheduler: the task whose async body (or async generator step) is being called
   * right now, before its first await; what a device step made there belongs to.
   */
  calling: Task | undefined;
}
