/**
 * The device-task protocol: what a generator body yields and what the runtime does with it.
 *
 *   const { stream } = yield ttg.device.input(a, b);   // pick device + stream, make a, b resident
 *   ttg.device.kernels.dgemm(stream, ...);              // enqueue (no wait)
 *   yield ttg.device.kernel(b);                          // wait for the stream; copy b back
 *
 * The scheduler passes every yielded non-promise to {@link resolveStep}, and resumes the body of
 * a task that has selected a stream with that task's state as "current" (`current_stream()`,
 * and the check that kernels use only the task's own buffers).
 */
import type { Task } from '../ttg/common/model.js';
import { inPlaceAt } from './backend.js';
import { Buffer, type AnyBuffer } from './buffer.js';
import { DeviceErrors } from './errors.js';
import { hostWrittenSince, judgeNow, settleHostWrites } from './host-writes.js';
import { KernelWait } from './kernel-wait.js';
import { forEachBuffer } from './migrate.js';
import { markQueuedRead } from './queued-reads.js';
import { contextTask } from './task-context.js';
import { Placing, TaskState } from './task-state.js';
import { deviceRuntime, requireRuntime, type DeviceRuntime } from './runtime.js';
import type { Stream, Waiter } from './streams.js';

/** What `yield ttg.device.input(...)` resumes with. */
export interface InputResult {
  /** The stream to enqueue kernels on. */
  stream: Stream;
  /** The device it belongs to. */
  device: number;
}

/**
 * A device step, made by `input`/`kernel`: yielded by a generator body, or awaited by an async
 * one. `R` is what it resumes the body with.
 */
export class DeviceStep<R = unknown> implements PromiseLike<R> {
  /** @internal The task of the async body that made it (generator bodies need none). */
  readonly task: Task | undefined;

  /** @internal */
  constructor(readonly kind: 'input' | 'kernel', readonly bufs: readonly AnyBuffer[], task?: Task) {
    this.task = task;
  }

  /** Awaiting the step (an async body) takes it as its task's next step. */
  then<A = R, B = never>(onF?: ((value: R) => A | PromiseLike<A>) | null, onR?: ((reason: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
    const p = this.task === undefined
      ? Promise.reject(DeviceErrors.invalid(`ttg.device.${this.kind}(...)`, 'is awaited outside a task: await it in the async body of a task (or yield it in a generator body); ' +
        'an async body whose own text does not mention `device` must make its first device step before its first other await'))
      : resolveStep(this, this.task)!;
    return (p as PromiseLike<R>).then(onF, onR);
  }
}

let currentState: TaskState | undefined;

/** The device state of the task whose code is running: a generator resumed by the scheduler, or async code in its task's context. */
function runningState(): TaskState | undefined {
  if (currentState !== undefined) return currentState;
  const st = contextTask()?.deviceState;
  return st instanceof TaskState ? st : undefined;
}

/** The stream of the device task whose body is running, if any. */
export function currentStream(): Stream | undefined {
  return runningState()?.stream;
}

/** The running device task, which owns the ops its body enqueues (a refused one fails it). */
export function runningTask(): TaskState {
  return runningState()!;
}

/** Records that a kernel of the running task writes `b` (until its next wait, it may not be sent). */
export function noteWrite(b: AnyBuffer): void {
  const st = runningState()!;
  st.lastOp = st.stream.ops;
  st.hostWatch?.delete(b);
  if (!st.unwaited.includes(b)) st.unwaited.push(b);
}

/**
 * Before a kernel of the running task writes `b` (`what` names the operand): refused while queued
 * work of another task that sent `b` on still reads it (queued-reads.ts). A task that consumes the
 * value holding `b` gets a private copy then, so the writer holds it without consuming it: through
 * a read-only input, or from elsewhere.
 */
export function checkWrite(what: string, b: AnyBuffer): void {
  if (b.queuedReaders === 0) return;
  const own = runningState()?.marked?.includes(b) === true ? 1 : 0;
  if (b.queuedReaders > own) throw DeviceErrors.writesQueuedRead(what);
}

/** What a call of a program's kernel `name` reports to: an error it sets fails the running task at its next wait or its end. */
export function kernelFailure(name: string): Waiter {
  const st = runningState()!;
  return { fire: ignore, fail: (e) => { st.failure ??= DeviceErrors.kernelFailed(name, e); } };
}

function ignore(): void {}

/** Records that the running task enqueued an op that writes no buffer (a read-only user kernel, a stamp). */
export function noteOp(): void {
  const st = runningState()!;
  st.lastOp = st.stream.ops;
}

/**
 * Before a kernel of the running task uses `b` on stream `s`: a host write the body made after a
 * wait makes the host copy the current one, and a device copy that is not current (so written
 * over, or dropped at a wait) is filled from the host first, in stream order before the kernel.
 */
export function beforeUse(r: DeviceRuntime, b: AnyBuffer, s: Stream): void {
  const st = runningState()!;
  if (b.hostCheck !== undefined) judgeNow(r.memory, b);
  if (st.hostWatch !== undefined) hostWrittenSince(r.memory, st, b);
  if (inPlaceAt(r.backend, s.device)) return;  // the host place's kernels read the host array itself
  const c = b.copies[s.device];
  if (c === undefined || c.valid || !b.hostValid || b.scratch) return;
  r.memory.refill(b, s, st);
}

/**
 * The core's `beforeSend`: a device task must not send a buffer that its kernels are still
 * writing (no wait since): the receiver could read it mid-write, on another stream or rank.
 */
export function checkSend(task: Task, value: unknown): void {
  const st = task.deviceState;
  if (!(st instanceof TaskState) || typeof value !== 'object' || value === null) return;
  if (st.unwaited.length !== 0) {
    forEachBuffer([value], (b) => {
      if (st.unwaited.includes(b)) throw DeviceErrors.sentBeforeWait({ tt: task.tt.name, key: task.key, rank: task.tt.rt.rank });
    });
  }
  const r = deviceRuntime();
  if (st.hostWatch !== undefined && r !== undefined) {
    // what the body wrote to the host arrays leaves with the value: device copies become stale
    const sent = new Set<AnyBuffer>();
    forEachBuffer([value], (b) => sent.add(b));
    settleHostWrites(r.memory, st, (b) => sent.has(b));
  }
  if (st.lastOp > st.waitedOps && st.listed.length !== 0) {
    // Its queued copies and kernels may still read the buffers (only writes need a wait before a
    // send): until they have run, a consumer of any value holding them gets its own copy.
    forEachBuffer([value], (b) => {
      if (!st.listed.includes(b) || st.marked?.includes(b) === true) return;
      markQueuedRead(b);
      (st.marked ??= []).push(b);
    });
  }
}

/**
 * Why the running body may not enqueue work on `b` on stream `s`, or undefined when it may: the
 * body must belong to the device task that selected `s`, and `b` must be listed in one of its
 * `input()` steps (so it stays pinned there until the task ends).
 */
export function whyNotUsable(b: AnyBuffer | undefined, s: Stream): string | undefined {
  const st = runningState();
  if (st === undefined || !st.active) {
    return 'is enqueued outside a running device task: call kernels from the body of the task that selected the stream, ' +
      'after its `yield ttg.device.input(...)` (a task\'s pins are released when it ends, so a stream kept from an ended task cannot be used)';
  }
  if (st.stream !== s) return `is enqueued on stream ${s.id}, but this task selected stream ${st.stream.id}`;
  if (b === undefined || st.listed.includes(b)) return undefined;
  const c = b.copies[s.device];
  if (c !== undefined && c.pins === 0) {
    return `is pinned by no task on device ${s.device}: the pin of the task that listed it was released when that task ended; ` +
      'list it in this task\'s `yield ttg.device.input(...)`';
  }
  return 'is not listed in this task\'s `yield ttg.device.input(...)`: list it there first';
}

/**
 * Flattens `input(a, [b, c])` into buffers, rejecting anything else with a clear message. `args`
 * (a fresh rest array) is returned as it is when it holds only buffers, the usual case.
 */
export function collectBuffers(what: string, args: readonly unknown[]): AnyBuffer[] {
  let flat = 0;
  while (flat < args.length && args[flat] instanceof Buffer) flat++;
  if (flat === args.length) return args as AnyBuffer[];
  const out: AnyBuffer[] = [];
  const add = (v: unknown): void => {
    if (v instanceof Buffer) out.push(v);
    else if (Array.isArray(v)) v.forEach(add);
    else throw DeviceErrors.invalid(what, `takes ttg.Buffer objects (or arrays of them), got ${v === null ? 'null' : typeof v}`);
  };
  args.forEach(add);
  return out;
}

/**
 * The scheduler's `stepNext`: resumes `it` with `st` as the current device task. The ops its
 * kernels enqueue meanwhile are packed (streams.ts) and handed to the addon when the step ends,
 * unless it yields a kernel wait: the scheduler resolves that at once, and its marker takes them.
 */
export function nextInStepContext<R>(st: unknown, it: { next(v?: unknown): R; throw?(e?: unknown): R }, input: unknown, isThrow: boolean): R {
  const prev = currentState;
  currentState = st as TaskState | undefined;
  const streams = deviceRuntime()?.streams;
  if (streams !== undefined) streams.packing++;
  let r: R | undefined;
  try {
    r = isThrow ? it.throw!(input) : it.next(input);
    return r;
  } finally {
    currentState = prev;
    if (streams !== undefined && --streams.packing === 0 && !yieldsKernelWait(r)) streams.flushOps();
  }
}

function yieldsKernelWait(r: unknown): boolean {
  const v = (r as IteratorResult<unknown> | undefined)?.value;
  return v instanceof DeviceStep && v.kind === 'kernel' && (r as IteratorResult<unknown>).done !== true;
}

/** The scheduler's step resolver: undefined for values that are not device steps. */
export function resolveStep(step: unknown, task: Task): PromiseLike<unknown> | undefined {
  if (!(step instanceof DeviceStep)) return undefined;
  try {
    const r = requireRuntime();
    return step.kind === 'input' ? input(r, step.bufs, task) : kernelWait(r, step.bufs, task);
  } catch (e) {
    // ops the step packed for a wait that was not enqueued go now
    deviceRuntime()?.streams.flushOps();
    return Promise.reject(e);  // thrown into the generator, so the task fails with this error
  }
}

function chooseDevice(r: DeviceRuntime, task: Task, bufs: readonly AnyBuffer[]): number {
  const b = r.backend;
  const n = b.places;
  const hint = task.tt.devicehint(task.key);
  if (typeof hint === 'number' && Number.isInteger(hint)) return ((hint % n) + n) % n;
  const where = task.tt.placement;
  if (b.learned || where !== 'any') {
    if (where === 'host' && b.hostPlace < 0 && !b.inPlace) {
      throw DeviceErrors.invalid(`TT '${task.tt.name}' placement 'host'`, 'needs a host place beside the devices: initialize({ device: { backend: "emulated", host: N } })', { tt: task.tt.name, key: task.key });
    }
    if (b.inPlace) return 0;
    return r.placement.choose(task.tt, bufs, r.placement.candidates[where]);
  }
  let best = 0;
  let bestLoad = r.streams.deviceLoad(0);
  for (let d = 1; d < n; d++) {
    const l = r.streams.deviceLoad(d);
    if (l < bestLoad) { best = d; bestLoad = l; }
  }
  return best;
}

function input(r: DeviceRuntime, bufs: readonly AnyBuffer[], task: Task): Promise<InputResult> | TaskState {
  if (task.abandoned) throw DeviceErrors.abandoned({ tt: task.tt.name, key: task.key, rank: task.tt.rt.rank });
  let st: TaskState;
  if (task.deviceState instanceof TaskState) st = task.deviceState;
  else {
    // the first device step of an async body: its task ran as a host task (a read-only watch
    // then goes: a device task's inputs are not host data); later tasks of its TT run as device tasks
    task.tt.deviceBodies = true;
    const where = r.placement.candidates[task.tt.placement];
    const place = chooseDevice(r, task, bufs);
    if (place < 0) {
      // every place full: wait for a task to end there, then choose again with what it taught
      const placing = new Placing();
      task.deviceState = placing;
      return r.placement.whenRoom(where).then((freed) => {
        let took = false;
        try {
          if (placing.ended) throw DeviceErrors.abandoned({ tt: task.tt.name, key: task.key, rank: task.tt.rt.rank });
          task.deviceState = undefined;
          const next = input(r, bufs, task);
          took = task.deviceState instanceof TaskState && task.deviceState.stream.device === freed;
          return resumed(next);
        } finally {
          // placed elsewhere, failed or gone: the room it was woken for goes to the next waiter
          if (!took) r.placement.ended(freed);
        }
      });
    }
    st = new TaskState(r.streams.pick(place, bufs));
    task.deviceState = st;
  }
  if (!st.active) {
    st.active = true;
    r.holding.add(st);
    r.streams.occupy(st.stream);
    task.tt.feedsDevice = true;
  }
  if (r.backend.inPlace) {
    for (const b of bufs) if (!st.listed.includes(b)) st.listed.push(b);
    return st;
  }
  st.placedAt ??= performance.now();
  const result = st.stream.inputResult;
  const p = r.memory.acquire(bufs, st.stream, st.listed, { tt: task.tt.name, key: task.key, rank: task.tt.rt.rank }, st);
  // an async body may have several input()s in flight: the task ends after all of them
  const prev = st.acquiring;
  const all = prev === undefined ? p : Promise.allSettled([prev, p]);
  st.acquiring = all;
  const settled = (): void => { if (st.acquiring === all) st.acquiring = undefined; };
  all.then(settled, settled);
  return p.then(() => result);
}

/** What an input step resumes with, ready or not. */
function resumed(x: Promise<InputResult> | TaskState): Promise<InputResult> | InputResult {
  return x instanceof TaskState ? x.value : x;
}

function kernelWait(r: DeviceRuntime, bufs: readonly AnyBuffer[], task: Task): Promise<void> | KernelWait {
  const st = task.deviceState as TaskState | undefined;
  if (st === undefined || !st.active) {
    // No input() before: nothing is enqueued for this task; just make the listed buffers current.
    const ps = bufs.map((b) => r.memory.toHost(b)).filter((p) => p !== undefined);
    return Promise.all(ps).then(() => undefined);
  }
  const s = st.stream;
  // host writes since an earlier wait of these buffers count before they are watched again
  if (st.hostWatch !== undefined && bufs.length !== 0) settleHostWrites(r.memory, st, (b) => bufs.includes(b));
  let back: readonly AnyBuffer[] = bufs;
  let versions: number[] | undefined;
  let hashes: Array<BigUint64Array | undefined> | undefined;
  let elsewhere: Array<Promise<void>> | undefined;
  let copied: AnyBuffer[] | undefined;
  let wait: KernelWait;
  try {
    if (bufs.length !== 0) {
      copied = [];
      back = copied;
      versions = [];
      for (const b of bufs) {
        const hash = r.memory.copyHash(b);
        const v = r.memory.enqueueCopyBack(b, s, hash);
        if (v >= 0) {
          copied.push(b);
          versions.push(v);
          if (hash !== undefined) (hashes ??= [])[copied.length - 1] = hash;
        } else if (!b.hostValid && !b.scratch) {
          // current on another device only: it comes home from there
          const p = r.memory.toHost(b);
          if (p !== undefined) (elsewhere ??= []).push(p);
        }
      }
    }
    // the copies home are the task's queued work (if the wait's marker cannot be enqueued, its end waits for them)
    if (back.length > 0) st.lastOp = s.ops;
    wait = new KernelWait(r, st, bufs, back, versions, hashes, st.marked);
    r.streams.notifyWhenDone(s, wait);
  } catch (e) {
    // an enqueue was refused (E_DEVICE, thrown into the body): no wait reports the copies home
    // enqueued so far; they stay pinned until the task's end, whose marker waits for them
    if (copied !== undefined && copied.length > 0) {
      st.lastOp = s.ops;
      (st.copiesHome ??= []).push(...copied);
      // the copies queued write their hashes when they run: the slots must outlive them
      if (hashes !== undefined) (st.written ??= []).push(...hashes);
    }
    if (elsewhere !== undefined) for (const p of elsewhere) p.catch(() => {});
    throw e;
  }
  st.marked = undefined;
  st.waitedOps = s.ops;
  st.unwaited.length = 0;
  if (back.length > 0) {
    // settles however the wait ends: after a failed one, toHost() copies again from what is current
    const done = new Promise<void>((resolve) => wait.then(() => resolve(), () => resolve()));
    for (const b of back) {
      b.toHostPending = done;
      void done.then(() => { if (b.toHostPending === done) b.toHostPending = undefined; });
    }
  }
  if (elsewhere === undefined) return wait;
  // the body gets the wait's failure (E_DEVICE) as with a wait of its own buffers
  elsewhere.push(new Promise<void>((resolve, reject) => wait.then(() => resolve(), reject)));
  return Promise.all(elsewhere).then(() => undefined);
}

