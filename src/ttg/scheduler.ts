/**
 * Runs ready tasks. Sends only enqueue, and one drain loop runs bodies one after the other, so
 * bodies never recurse into each other and a million-task chain keeps a flat stack. The loop gives
 * the event loop a turn every few milliseconds so that messages and timers are not starved.
 */
import { BodyKind, callBody, isThenable } from './body.js';
import { Errors, TtgError } from './errors.js';
import { hooks } from './hooks.js';
import { ReadyQueue } from './ready-queue.js';
import { rt } from './runtime.js';
import { Task } from './task.js';
import type { Tracer } from './trace.js';

/**
 * Turns a yielded non-promise value (a device step) into a promise, or returns undefined when the
 * value is not a step it knows; installed by the device layer.
 */
export type StepResolver = (step: unknown, task: Task) => PromiseLike<unknown> | undefined;

type AnyBody = (...a: unknown[]) => unknown;

/**
 * What a step resolver returns for a step that completed synchronously: the generator resumes at
 * once with `value`, without a promise turn.
 */
export class Ready implements PromiseLike<unknown> {
  constructor(readonly value: unknown) {}

  /** Callers that treat it as a promise (async generators) get the value a turn later. */
  then<A = unknown, B = never>(onF?: ((v: unknown) => A | PromiseLike<A>) | null, onR?: ((e: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
    return Promise.resolve(this.value).then(onF, onR);
  }
}

/**
 * A step that completes by calling back itself, with no promise: a `function*` body that yields
 * one is parked on it and resumed right from the completion (the device layer's kernel waits, one
 * per device task), without the closures and promise jobs of a `then`. Async generators still
 * use `then`, which subclasses implement.
 */
export abstract class Parked implements PromiseLike<unknown> {
  private task: Task | undefined = undefined;
  private it: Iterator<unknown> | undefined = undefined;
  private sched: Scheduler | undefined = undefined;

  /** @internal Called by the scheduler instead of `then`. */
  park(sched: Scheduler, t: Task, it: Iterator<unknown>): void {
    this.sched = sched;
    this.task = t;
    this.it = it;
  }

  abstract then<A = unknown, B = never>(onF?: ((value: unknown) => A | PromiseLike<A>) | null): PromiseLike<A | B>;

  /** Resumes the parked body, if one is parked. */
  protected resumeParked(): void {
    const sched = this.sched;
    if (sched === undefined) return;
    this.sched = undefined;
    sched.resumeParked(this.task!, this.it!);
  }
}

/** How async bodies keep their task across awaits (installed by src/device; see Scheduler.taskContext). */
export interface TaskContext {
  /** Runs `f` with `t` as the task of its code and of everything it awaits. */
  run<R>(t: Task, f: () => R): R;
  /** Runs `f` outside any task. */
  outside<R>(f: () => R): R;
  /** Leaves the task that the synchronous code running now was made part of. */
  leave(): void;
}

/** The task scheduler of this process. */
export class Scheduler {
  private readonly queue = new ReadyQueue<Task>();
  /** Tasks queued or started but not finished. */
  private outstanding = 0;
  private executing = false;
  private draining = false;
  private scheduled = false;
  /** Inside {@link deliver}: tasks made ready wait for its end instead of a microtask. */
  private delivering = false;
  private idleWaiters: Array<() => void> = [];
  /** First error of the current run; cleared by the fence that reports it. */
  error: TtgError | undefined = undefined;
  /** Tasks dropped because the run had failed. */
  discarded = 0;
  /** Tasks that ran to completion since start (for tests and benchmarks). */
  completed = 0;
  /** Told the first error of each run (the MPI transport announces it to the other ranks). */
  onFirstError: ((err: TtgError) => void) | undefined = undefined;
  /**
   * Resumes the body of a task that has device state inside that state (set by src/device), so
   * that `current_stream()` and kernel calls see their task after any kind of step.
   */
  stepNext: (<R>(context: unknown, it: { next(v?: unknown): R; throw?(e?: unknown): R }, input: unknown, isThrow: boolean) => R) | undefined = undefined;
  /** Device-step handler installed by src/device. */
  stepResolver: StepResolver | undefined = undefined;
  /**
   * Ends the device use of a task whose body returned or threw (installed by src/device); true
   * when it must first wait for work the task enqueued, and calls `then` once that has run.
   * Throws when the task broke a device rule (a host task wrote a read-only input's buffer).
   */
  deviceEnd: ((t: Task, then: (t: Task) => void) => boolean) | undefined = undefined;
  /**
   * The task whose async body (or async generator step) is being called right now, before its
   * first await: what a device step made there belongs to (see {@link taskContext}).
   */
  calling: Task | undefined = undefined;
  /**
   * Set by src/device once an async body made a device step: runs async bodies and async
   * generator steps inside their task's context, which follows them across every await (so a
   * device step made after an await knows its task), and runs the drain loop outside any.
   */
  taskContext: TaskContext | undefined = undefined;
  /**
   * Set by src/device: called once per TT with an async body before its first task, so that the
   * task context can go on before a body makes device steps after an await (see src/device).
   */
  checkAsyncBody: ((body: Function) => void) | undefined = undefined;
  /** Longest stretch the drain loop runs before yielding to the event loop, in ms. */
  sliceMs = 5;
  /** The tracer when TTG_TRACE is set (the only tracing test on the hot path). */
  tracer: Tracer | undefined = undefined;
  /** Resumptions of suspended bodies (progress the hang watchdog can see). */
  resumed = 0;
  /** Head of the list of suspended tasks (a sentinel; see Task.nextSuspended). */
  private readonly suspendedHead = new Task(undefined as never, undefined, []);
  /** Start times of traced tasks that suspended, for their async spans. */
  private readonly spanStart = new Map<Task, number>();

  private readonly drainFn = () => this.drain();

  /** Queues a ready task. */
  enqueue(t: Task): void {
    if (this.error !== undefined) {
      this.drop(t);
      return;
    }
    this.outstanding++;
    this.queue.push(t);
    if (this.executing && !this.draining && !this.scheduled && !this.delivering) this.schedule();
  }

  /**
   * Runs `fn` (a transport handing over a batch of messages), then at once the tasks it made
   * ready. The batch comes from a native callback at the top of the stack, so draining here is
   * what the microtask would do a moment later, minus queueMicrotask's cost (an AsyncResource and
   * a scope per call): ~1.5 us on a hop whose caches a large receive has just flushed.
   */
  deliver(fn: () => void): void {
    if (this.delivering || this.draining) {
      fn();
      return;
    }
    this.delivering = true;
    let delivered = false;
    try {
      fn();
      delivered = true;
    } finally {
      this.delivering = false;
      if (this.executing && !this.scheduled && this.queue.size !== 0) {
        if (delivered) this.drain();
        else this.schedule();
      }
    }
  }

  /** Starts running queued tasks (idempotent). */
  execute(): void {
    this.executing = true;
    if (!this.draining && !this.scheduled && this.queue.size !== 0) this.schedule();
  }

  /** True when nothing is queued or running here. */
  isIdle(): boolean {
    return this.outstanding === 0 && !this.draining;
  }

  /** Resolves when this process has nothing queued or running. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Takes the pending error (if any) and makes the scheduler usable for the next graph. */
  takeError(): TtgError | undefined {
    const e = this.error;
    this.error = undefined;
    return e;
  }

  private schedule(): void {
    this.scheduled = true;
    // the microtask would inherit the context of an async body that sent: keep tasks out of it
    if (this.taskContext === undefined) queueMicrotask(this.drainFn);
    else this.taskContext.outside(this.queueDrainFn);
  }

  private readonly queueDrainFn = () => queueMicrotask(this.drainFn);

  /** {@link inTask} for an async body, without a closure until the task context is on. */
  private callAsync(t: Task, body: AnyBody): unknown {
    this.checkContext(t);
    const ctx = this.taskContext;
    if (ctx !== undefined) return ctx.run(t, () => callBody(body, t.key, t.args, t));
    this.calling = t;
    try {
      return callBody(body, t.key, t.args, t);
    } finally {
      this.calling = undefined;
      this.taskContext?.leave();
    }
  }

  /** Lets src/device see the body of `t`'s TT before its first task, while the task context is off. */
  private checkContext(t: Task): void {
    const tt = t.tt;
    if (this.taskContext !== undefined || tt.contextChecked) return;
    tt.contextChecked = true;
    this.checkAsyncBody?.(tt.body as Function);
  }

  /** Calls `f` (an async body, or a step of an async generator) as the code of task `t`. */
  private inTask<R>(t: Task, f: () => R): R {
    this.checkContext(t);
    const ctx = this.taskContext;
    if (ctx !== undefined) return ctx.run(t, f);
    this.calling = t;
    try {
      return f();
    } finally {
      this.calling = undefined;
      // a device step made by `f` has just set up the context, and entered it for `t`: leave it
      this.taskContext?.leave();
    }
  }

  private drain(): void {
    this.scheduled = false;
    if (this.draining) return;
    this.draining = true;
    const q = this.queue;
    const start = performance.now();
    let n = 0;
    let t: Task | undefined;
    while ((t = q.shift()) !== undefined) {
      this.run(t);
      if ((++n & 1023) === 0 && performance.now() - start > this.sliceMs) {
        if (q.size !== 0) {
          this.scheduled = true;
          setImmediate(this.drainFn);
        }
        break;
      }
    }
    this.draining = false;
    this.checkIdle();
  }

  private run(t: Task): void {
    const tt = t.tt;
    const hostBody = tt.kind <= BodyKind.Async && !tt.deviceBodies;
    if (hooks.toHost !== undefined && (hostBody || tt.consumeMask !== 0)) {
      let p: PromiseLike<void> | undefined;
      try {
        p = hostBody ? hooks.toHost(t.args, tt.consumeMask, t) : toHostForCopies(t);
      } catch (e) {
        this.fail(t, e);
        return;
      }
      if (p !== undefined) {
        p.then(() => this.runBody(t), (e: unknown) => this.fail(t, e));
        return;
      }
    }
    this.runBody(t);
  }

  private runBody(t: Task): void {
    const tr = this.tracer;
    if (tr === undefined) {
      this.callBody(t);
      return;
    }
    const t0 = tr.now();
    this.callBody(t);
    tr.slice(t.tt.name, t.key, t0);
    if (t.nextSuspended !== undefined) this.spanStart.set(t, t0);
  }

  private callBody(t: Task): void {
    const tt = t.tt;
    const body = tt.body as AnyBody;
    let r: unknown;
    try {
      if (tt.consumeMask !== 0) tt.privatize(t);
      r = tt.kind === BodyKind.Async ? this.callAsync(t, body) : callBody(body, t.key, t.args, t);
    } catch (e) {
      this.fail(t, e);
      return;
    }
    switch (tt.kind) {
      case BodyKind.Plain:
        if (r !== undefined && isThenable(r)) this.settleWith(t, r);
        else this.finish(t);
        return;
      case BodyKind.Async:
        this.settleWith(t, r as PromiseLike<unknown>);
        return;
      case BodyKind.Generator:
        this.stepSync(t, r as Iterator<unknown>, undefined, false);
        return;
      case BodyKind.AsyncGenerator:
        this.stepAsync(t, r as AsyncIterator<unknown>, undefined, false);
        return;
    }
  }

  private settleWith(t: Task, p: PromiseLike<unknown>): void {
    this.suspend(t);
    p.then(() => this.finish(t), (e: unknown) => this.fail(t, e));
  }

  /** Lists `t` among the suspended tasks (once). */
  private suspend(t: Task): void {
    if (t.nextSuspended !== undefined) return;
    const h = this.suspendedHead;
    const first = h.nextSuspended ?? h;
    t.prevSuspended = h;
    t.nextSuspended = first;
    h.nextSuspended = t;
    first.prevSuspended = t;
  }

  private unsuspend(t: Task): void {
    const p = t.prevSuspended!;
    const n = t.nextSuspended!;
    p.nextSuspended = n === this.suspendedHead && p === this.suspendedHead ? undefined : n;
    n.prevSuspended = p;
    t.prevSuspended = t.nextSuspended = undefined;
    if (this.tracer !== undefined) {
      const t0 = this.spanStart.get(t);
      if (t0 !== undefined) {
        this.spanStart.delete(t);
        this.tracer.span(t.tt.name, t.key, t0, false);
      }
    }
  }

  /** Tasks whose bodies await a promise or a device step. */
  suspendedTasks(): Task[] {
    const out: Task[] = [];
    const h = this.suspendedHead;
    for (let t = h.nextSuspended; t !== undefined && t !== h; t = t.nextSuspended) out.push(t);
    return out;
  }

  /** Tasks queued or started but not finished. */
  get pending(): number {
    return this.outstanding;
  }

  /**
   * Gives up the suspended tasks (after a hang report): they no longer count as outstanding, and
   * whatever they do when (if ever) their promises settle is ignored, so the next graph can run.
   */
  abandonSuspended(): void {
    for (const t of this.suspendedTasks()) {
      this.unsuspend(t);
      t.abandoned = true;
      this.outstanding--;
      t.tt.taskDone(t);
    }
    this.checkIdle();
  }

  /** Resumes a suspended body (traced as one more slice of its task). */
  private resume(t: Task, f: () => void): void {
    if (t.abandoned) return;
    this.resumed++;
    const tr = this.tracer;
    if (tr === undefined) {
      f();
      return;
    }
    const t0 = tr.now();
    f();
    tr.slice(t.tt.name, t.key, t0);
  }

  /** @internal Resumes a body parked on a {@link Parked} step (traced as one more slice of its task). */
  resumeParked(t: Task, it: Iterator<unknown>): void {
    if (t.abandoned) return;
    this.resumed++;
    const tr = this.tracer;
    if (tr === undefined) {
      this.stepSync(t, it, undefined, false);
      return;
    }
    const t0 = tr.now();
    this.stepSync(t, it, undefined, false);
    tr.slice(t.tt.name, t.key, t0);
  }

  /** Drives a `function*` body: each yielded awaitable resumes it with its result (or throws into it). */
  private stepSync(t: Task, it: Iterator<unknown>, input: unknown, isThrow: boolean): void {
    for (;;) {
      let r: IteratorResult<unknown>;
      try {
        const ctx = t.deviceState;
        if (ctx === undefined) r = isThrow ? it.throw!(input) : it.next(input);
        else r = this.stepNext!(ctx, it, input, isThrow);
      } catch (e) {
        this.fail(t, e);
        return;
      }
      if (r.done === true) {
        this.finish(t);
        return;
      }
      const p = this.awaitable(r.value, t);
      if (p === undefined) {
        input = r.value;
        isThrow = false;
        continue;
      }
      if (p instanceof Ready) {
        // a step that is already complete (e.g. input() on the host backend): resume now, so
        // the body enqueues its kernel before the drain loop runs the next task
        input = p.value;
        isThrow = false;
        continue;
      }
      this.suspend(t);
      if (p instanceof Parked) {
        p.park(this, t, it);
        return;
      }
      p.then((x) => this.resume(t, () => this.stepSync(t, it, x, false)), (e: unknown) => this.resume(t, () => this.stepSync(t, it, e, true)));
      return;
    }
  }

  /** Drives an `async function*` body. */
  private stepAsync(t: Task, it: AsyncIterator<unknown>, input: unknown, isThrow: boolean): void {
    let p: Promise<IteratorResult<unknown>>;
    try {
      p = this.inTask(t, () => {
        const ctx = t.deviceState;
        if (ctx === undefined) return isThrow ? it.throw!(input) : it.next(input);
        return this.stepNext!(ctx, it, input, isThrow);
      });
    } catch (e) {
      this.fail(t, e);
      return;
    }
    this.suspend(t);
    p.then((r) => {
      if (r.done === true) {
        this.finish(t);
        return;
      }
      const w = this.awaitable(r.value, t);
      if (w === undefined) this.resume(t, () => this.stepAsync(t, it, r.value, false));
      else w.then((x) => this.resume(t, () => this.stepAsync(t, it, x, false)), (e: unknown) => this.resume(t, () => this.stepAsync(t, it, e, true)));
    }, (e: unknown) => this.fail(t, e));
  }

  private awaitable(v: unknown, t: Task): PromiseLike<unknown> | undefined {
    // a device step is also awaitable on its own (async bodies), but a yielded one takes the
    // resolver's path, which parks a generator without a promise
    const step = this.stepResolver === undefined ? undefined : this.stepResolver(v, t);
    if (step !== undefined) return step;
    return isThenable(v) ? v : undefined;
  }

  private readonly finishFn = (t: Task): void => this.finish(t);

  /**
   * Ends the device state of a task whose body returned (`error` undefined) or threw: true when
   * its end is deferred until its device work has run (then `then` is called) or when it turned
   * into a failure (a read-only input written).
   */
  private endDevice(t: Task, then: (t: Task) => void, error: unknown): boolean {
    try {
      if (!this.deviceEnd!(t, then)) return false;
    } catch (e) {
      if (error !== undefined) return false;  // the body's own error is the one to report
      this.fail(t, e);
      return true;
    }
    this.suspend(t);
    return true;
  }

  private finish(t: Task): void {
    if (t.deviceState !== undefined && this.endDevice(t, this.finishFn, undefined)) return;
    if (t.nextSuspended !== undefined) this.unsuspend(t);
    else if (t.abandoned) return;
    this.outstanding--;
    this.completed++;
    t.tt.taskDone(t);
    if (this.outstanding === 0) this.checkIdle();
  }

  private fail(t: Task, e: unknown): void {
    if (t.deviceState !== undefined && this.endDevice(t, (x) => this.fail(x, e), e)) return;
    if (t.nextSuspended !== undefined) this.unsuspend(t);
    else if (t.abandoned) return;
    this.outstanding--;
    t.tt.taskDone(t);
    this.recordError(e instanceof TtgError ? withTask(e, t) : Errors.taskFailed(t.tt.name, t.key, rt.rank, e));
  }

  /**
   * Fails the current run: keeps the first error for the fence, discards queued tasks. Errors
   * raised here (not announced by another rank) are passed to `onFirstError` once per run.
   */
  recordError(err: TtgError, fromRemote = false): void {
    if (this.error === undefined) {
      this.error = err;
      if (!fromRemote) this.onFirstError?.(err);
    }
    for (const q of this.queue.drain()) {
      this.outstanding--;
      this.drop(q);
    }
    this.checkIdle();
  }

  private drop(t: Task): void {
    this.discarded++;
    t.tt.taskDone(t);
  }

  private checkIdle(): void {
    if (this.outstanding !== 0 || this.draining || this.idleWaiters.length === 0) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }
}

/**
 * A runtime error raised inside a body without a TT of its own (e.g. a kernel's bad argument)
 * gets the failing task's TT, key and rank, so the message says where it happened.
 */
function withTask(e: TtgError, t: Task): TtgError {
  if (e.tt !== undefined) return e;
  return new TtgError(e.code, e.detail, { tt: t.tt.name, terminal: e.terminal, key: t.key, rank: rt.rank, cause: e });
}

/**
 * A device task does not need its inputs on the host, except the consumable ones it must copy
 * because another task still holds them: the copy is made from the host data.
 */
function toHostForCopies(t: Task): PromiseLike<void> | undefined {
  const shared = t.tt.sharedConsumed(t);
  return shared === 0 ? undefined : hooks.toHost!(t.args.filter((_, i) => (shared & (1 << i)) !== 0), 0);
}

/** The scheduler of this process. */
export const scheduler = new Scheduler();
