/**
 * Runs ready tasks. Sends only enqueue, and one drain loop runs bodies one after the other, so
 * bodies never recurse into each other and a million-task chain keeps a flat stack. The loop gives
 * the event loop a turn every few milliseconds so that messages and timers are not starved.
 */
import { BodyKind, callBody, isThenable } from '../common/body.js';
import type { DevicePort, ParkableStep, ReadyStep } from '../common/device-port.js';
import { Errors, isTtgError, TtgError, withTask } from '../../base/errors.js';
import { CountedReadyTasks } from './counted-ready-tasks.js';
import { ReadyTasks } from './ready-tasks.js';
import { SuspendedTasks } from './suspended.js';
import { callAsyncBody, inTask } from './task-calls.js';
import type { Task } from '../common/model.js';
import type { TaskSampling } from '../common/sampler.js';
import type { TraceSink } from '../common/trace-sink.js';

type AnyBody = (...a: unknown[]) => unknown;

/** {@link Scheduler.untilSample} with no sampler: a count no run reaches (a small integer for V8). */
const NO_SAMPLE = 2 ** 30;

/** What the scheduler needs of its world's runtime. */
export interface SchedulerOwner {
  readonly rank: number;
}

/** The task scheduler of one world. */
export class Scheduler {
  private readonly deviceOf = () => this.device;
  /** A {@link CountedReadyTasks} while the live dashboard watches (see {@link watch}). */
  private queue: ReadyTasks = new ReadyTasks(this.deviceOf);
  /** {@link watch} was called during a drain: the queue is swapped when the drain loop lets go of it. */
  private recount = false;
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
  /** The tracer when TTG_TRACE is set (the only tracing test on the hot path). */
  tracer: TraceSink | undefined = undefined;
  /** Times a sample of tasks for the live dashboard (TTG_DASHBOARD), else undefined (see {@link watch}). */
  private watcher: TaskSampling | undefined = undefined;
  /** Tasks to run before the next one is timed for {@link sampler}: one counter on the hot path. */
  private untilSample = NO_SAMPLE;
  /**
   * Longest stretch the drain loop runs before yielding to the event loop, in ms (looked at every
   * 64 tasks: tasks of a few ms each still let timers and arrivals in several times a second).
   */
  sliceMs = 5;
  /** Resumptions of suspended bodies (progress the hang watchdog can see). */
  resumed = 0;
  private readonly suspended = new SuspendedTasks();
  /** The task whose body code runs now (synchronously, from this scheduler), if any. */
  inBody: Task | undefined = undefined;
  /**
   * Called after each task the drain loop runs with the TTs of that task and of the next ready one
   * (the MPI transport decides whether the small messages waiting leave now).
   */
  afterTask: ((ran: object, next: object | undefined) => void) | undefined = undefined;

  private readonly drainFn = () => this.drain();
  /** The device layer (set when the world starts). */
  device: DevicePort | undefined = undefined;

  constructor(private readonly owner: SchedulerOwner) {}

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
    const ctx = this.device?.taskContext;
    if (ctx === undefined) queueMicrotask(this.drainFn);
    else ctx.outside(this.queueDrainFn);
  }

  private readonly queueDrainFn = () => queueMicrotask(this.drainFn);

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
      this.afterTask?.(t.tt, q.peek()?.tt);
      if ((++n & 63) === 0 && performance.now() - start > this.sliceMs) {
        if (q.size !== 0) {
          this.scheduled = true;
          setImmediate(this.drainFn);
        }
        break;
      }
    }
    this.draining = false;
    if (this.recount) this.countQueued();
    this.checkIdle();
  }

  private run(t: Task): void {
    const tt = t.tt;
    const hostBody = tt.kind <= BodyKind.Async && !tt.deviceBodies;
    const dev = this.device;
    if (dev !== undefined && (hostBody || tt.consumeMask !== 0)) {
      let p: PromiseLike<void> | undefined;
      try {
        p = hostBody ? dev.toHost(t.args, tt.consumeMask, t) : t.tt.assembly.sharedToHost(dev, t);
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
      if (--this.untilSample !== 0) this.callBody(t);
      else this.sampled(t);
      return;
    }
    const t0 = tr.now();
    if (--this.untilSample !== 0) this.callBody(t);
    else this.sampled(t);
    tr.ran(t, t0);
  }

  /** Runs `t`'s body timed for the sampler (or untimed, counting down anew, when there is none). */
  private sampled(t: Task): void {
    const s = this.watcher;
    if (s === undefined) {
      this.untilSample = NO_SAMPLE;
      this.callBody(t);
      return;
    }
    this.untilSample = s.every;
    const t0 = performance.now();
    this.callBody(t);
    s.record(t.tt.name, t0, performance.now());
  }

  /** Times the next task within `n` (the sampler's rate changed, or it was just attached). */
  sampleWithin(n: number): void {
    if (this.untilSample > n) this.untilSample = n;
  }

  /** The live dashboard's sampler, if one watches this scheduler. */
  get sampler(): TaskSampling | undefined {
    return this.watcher;
  }

  /**
   * Attaches the live dashboard's sampler (undefined: detaches it). While one is attached, each
   * TT's `queued` counts its tasks in this queue: the queue becomes a {@link CountedReadyTasks},
   * which keeps it where tasks enter and leave, so that a summary reads it instead of walking the
   * queue, and detached, the queue is a plain one again (off, the hot paths do not count at all).
   * The tasks queued at the switch are counted in (or out) once, so the counts are exact whenever
   * the dashboard starts, and a detached count goes back to 0. During a drain the loop holds the
   * queue: the switch waits for its end (a summary taken in a body meanwhile is behind).
   */
  watch(sampler: TaskSampling | undefined): void {
    this.watcher = sampler;
    if (sampler !== undefined) this.sampleWithin(1);
    if (this.draining) this.recount = true;
    else this.countQueued();
  }

  /** Makes the queue count (or not) as {@link watch} last asked, counting its tasks in or out. */
  private countQueued(): void {
    this.recount = false;
    const on = this.watcher !== undefined;
    if (on === this.queue instanceof CountedReadyTasks) return;
    for (const t of this.queuedTasks()) t.tt.queued += on ? 1 : -1;
    this.queue = on ? new CountedReadyTasks(this.deviceOf, this.queue) : new ReadyTasks(this.deviceOf, this.queue);
  }

  private callBody(t: Task): void {
    const tt = t.tt;
    const body = tt.body as AnyBody;
    let r: unknown;
    this.inBody = t;
    try {
      if (tt.consumeMask !== 0) tt.assembly.privatize(t);
      r = tt.kind === BodyKind.Async ? callAsyncBody(this.device, t, body) : callBody(body, t.key, t.args, t);
    } catch (e) {
      this.inBody = undefined;
      this.fail(t, e);
      return;
    }
    this.inBody = undefined;
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
    this.suspended.add(t);
    trusted(p).then(() => this.finish(t), (e: unknown) => this.fail(t, e));
  }

  /** Tasks whose bodies await a promise or a device step. */
  suspendedTasks(): Task[] {
    return this.suspended.list();
  }

  /** Tasks queued or started but not finished. */
  get pending(): number {
    return this.outstanding;
  }

  /** Tasks queued, ready to run. */
  get queued(): number {
    return this.queue.size;
  }

  /** The queued tasks, in no particular order. */
  queuedTasks(): IterableIterator<Task> {
    return this.queue.items(Infinity);
  }

  /**
   * Gives up the suspended tasks (after a hang report): they no longer count as outstanding, and
   * whatever they do when (if ever) their promises settle is ignored, so the next graph can run.
   */
  abandonSuspended(): void {
    for (const t of this.suspendedTasks()) {
      this.suspended.remove(t, this.tracer);
      t.abandoned = true;
      if (t.deviceState !== undefined) this.device?.abandonTask(t);
      this.outstanding--;
      t.tt.assembly.taskDone(t);
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
    const t0 = tr.resuming(t);
    f();
    tr.resumed(t, t0);
  }

  /** Resumes a body parked on a {@link ParkableStep} (traced as one more slice of its task); `error` is thrown into it. */
  resumeParked(t: Task, error?: unknown): void {
    const it = t.parkedOn!;
    t.parkedOn = undefined;
    if (t.abandoned) return;
    this.resumed++;
    const tr = this.tracer;
    if (tr === undefined) {
      this.stepSync(t, it, error, error !== undefined);
      return;
    }
    const t0 = tr.resuming(t);
    this.stepSync(t, it, error, error !== undefined);
    tr.resumed(t, t0);
  }

  /** Drives a `function*` body: each yielded awaitable resumes it with its result (or throws into it). */
  private stepSync(t: Task, it: Iterator<unknown>, input: unknown, isThrow: boolean): void {
    for (;;) {
      let r: IteratorResult<unknown>;
      this.inBody = t;
      try {
        const ctx = t.deviceState;
        if (ctx === undefined) r = isThrow ? it.throw!(input) : it.next(input);
        else r = this.device!.stepNext(ctx, it, input, isThrow);
      } catch (e) {
        this.inBody = undefined;
        this.fail(t, e);
        return;
      }
      this.inBody = undefined;
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
      const kind = (p as Partial<ReadyStep | ParkableStep>).step;
      if (kind === 'ready') {
        // a step that is already complete (e.g. input() on the host backend): resume now, so
        // the body enqueues its kernel before the drain loop runs the next task
        input = (p as ReadyStep).value;
        isThrow = false;
        continue;
      }
      this.suspended.add(t);
      if (kind === 'parkable') {
        t.parkedOn = it;
        (p as ParkableStep).park(t);
        return;
      }
      p.then((x) => this.resume(t, () => this.stepSync(t, it, x, false)), (e: unknown) => this.resume(t, () => this.stepSync(t, it, e, true)));
      return;
    }
  }

  /** Drives an `async function*` body. */
  private stepAsync(t: Task, it: AsyncIterator<unknown>, input: unknown, isThrow: boolean): void {
    let p: Promise<IteratorResult<unknown>>;
    this.inBody = t;
    try {
      p = inTask(this.device, t, () => {
        const ctx = t.deviceState;
        if (ctx === undefined) return isThrow ? it.throw!(input) : it.next(input);
        return this.device!.stepNext(ctx, it, input, isThrow);
      });
    } catch (e) {
      this.inBody = undefined;
      this.fail(t, e);
      return;
    }
    this.inBody = undefined;
    this.suspended.add(t);
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
    const step = this.device === undefined ? undefined : this.device.resolveStep(v, t);
    if (step !== undefined) return step;
    return isThenable(v) ? trusted(v) : undefined;
  }

  private readonly finishFn = (t: Task, error?: unknown): void => (error === undefined ? this.finish(t) : this.fail(t, error));

  /**
   * Ends the device state of a task whose body returned (`error` undefined) or threw: true when
   * its end is deferred until its device work has run (then `then` is called) or when it turned
   * into a failure (a read-only input written).
   */
  private endDevice(t: Task, then: (t: Task, error?: unknown) => void, error: unknown): boolean {
    try {
      if (!this.device!.endTask(t, then)) return false;
    } catch (e) {
      if (error !== undefined) return false;  // the body's own error is the one to report
      this.fail(t, e);
      return true;
    }
    this.suspended.add(t);
    return true;
  }

  private finish(t: Task): void {
    if (t.deviceState !== undefined && this.endDevice(t, this.finishFn, undefined)) return;
    if (t.nextSuspended !== undefined) this.suspended.remove(t, this.tracer);
    else if (t.abandoned) return;
    this.outstanding--;
    this.completed++;
    t.tt.runs++;
    t.tt.assembly.taskDone(t);
    if (this.outstanding === 0) this.checkIdle();
  }

  /**
   * `t` never ran (its constraint mapper or priomap threw): fails the run with `e`, and what `t`
   * holds (inputs, the constraints it passed) is given back.
   */
  reject(t: Task, e: unknown): void {
    t.tt.assembly.taskDone(t);
    this.recordError(this.errorOf(t, e));
  }

  private fail(t: Task, e: unknown): void {
    if (t.deviceState !== undefined && this.endDevice(t, (x) => this.fail(x, e), e)) return;
    if (t.nextSuspended !== undefined) this.suspended.remove(t, this.tracer);
    else if (t.abandoned) return;
    this.outstanding--;
    t.tt.assembly.taskDone(t);
    this.recordError(this.errorOf(t, e));
  }

  /** `e`, thrown by task `t`'s code, as the run's error naming `t`. */
  private errorOf(t: Task, e: unknown): TtgError {
    return isTtgError(e) ? withTask(e, t.tt.name, t.key, this.owner.rank) : Errors.taskFailed(t.tt.name, t.key, this.owner.rank, e);
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
    t.tt.assembly.taskDone(t);
  }

  private checkIdle(): void {
    if (this.outstanding !== 0 || this.draining || this.idleWaiters.length === 0) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }
}

/**
 * `p` when it is a native promise; any other thenable adopted by one. A thenable's `then` may call
 * back twice, call both callbacks, or throw: `Promise.resolve` settles once whatever it does, and
 * a throw becomes a rejection (so the task fails instead of the drain loop).
 */
function trusted(p: PromiseLike<unknown>): PromiseLike<unknown> {
  return p instanceof Promise && p.constructor === Promise ? p : Promise.resolve(p);
}
