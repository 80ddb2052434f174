/**
 * The device-task protocol: what a generator body yields and what the runtime does with it.
 *
 *   const { stream } = yield ttg.device.input(a, b);   // pick device + stream, make a, b resident
 *   ttg.device.kernels.dgemm(stream, ...);              // enqueue (no wait)
 *   yield ttg.device.kernel(b);                          // wait for the stream; copy b back
 *
 * The scheduler passes every yielded non-promise to {@link resolveStep}. The returned thenable
 * resumes the generator with the task's stream as "current", so `current_stream()` works.
 */
import type { Task } from '../ttg/task.js';
import { rt } from '../ttg/runtime.js';
import { Parked, Ready } from '../ttg/scheduler.js';
import { Buffer, type AnyBuffer } from './buffer.js';
import { DeviceErrors } from './errors.js';
import { requireRuntime, type DeviceRuntime } from './runtime.js';
import type { Stream } from './streams.js';

/** What `yield ttg.device.input(...)` resumes with. */
export interface InputResult {
  /** The stream to enqueue kernels on. */
  stream: Stream;
  /** The device it belongs to. */
  device: number;
}

/** A yielded device step (internal; made by `input`/`kernel`). */
export class DeviceStep {
  /** @internal */
  constructor(readonly kind: 'input' | 'kernel', readonly bufs: readonly AnyBuffer[]) {}
}

/**
 * Device state of one running task. It is also the {@link Ready} result of its `input()` steps
 * when the buffers are usable at once (the host backend): the step resumes with the stream's
 * `{ stream, device }` inside this context, with no object made per step.
 */
class TaskState extends Ready {
  /** Between an input() and the kernel() wait that ends it: pins held, stream load counted. */
  active = false;

  constructor(
    readonly stream: Stream,
    /** Buffers pinned on the device (backends with their own memory; the host backend pins none). */
    readonly pinned: Set<AnyBuffer> | undefined,
  ) {
    super(stream.inputResult);
    this.context = this;
  }
}

let currentState: TaskState | undefined;

/** The stream of the device task whose body is running, if any. */
export function currentStream(): Stream | undefined {
  return currentState?.stream;
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

/** Runs `fn` with `st` as the current device task (what `current_stream()` reports). */
export function inStepContext<R>(st: unknown, fn: () => R): R {
  const prev = currentState;
  currentState = st as TaskState | undefined;
  try {
    return fn();
  } finally {
    currentState = prev;
  }
}

/** The scheduler's `stepNext`: resumes `it` with `st` as the current device task. */
export function nextInStepContext(st: unknown, it: Iterator<unknown>, input: unknown, isThrow: boolean): IteratorResult<unknown> {
  const prev = currentState;
  currentState = st as TaskState | undefined;
  try {
    return isThrow ? it.throw!(input) : it.next(input);
  } finally {
    currentState = prev;
  }
}

/** Resumes the generator inside its task's device context. */
class InContext implements PromiseLike<unknown> {
  constructor(private readonly p: Promise<unknown>, private readonly st: TaskState | undefined) {}

  then<A = unknown, B = never>(
    onF?: ((value: unknown) => A | PromiseLike<A>) | null,
    onR?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): PromiseLike<A | B> {
    const st = this.st;
    const wrap = <X, Y>(f: ((x: X) => Y) | null | undefined) => (f == null ? undefined : (x: X): Y => {
      const prev = currentState;
      currentState = st;
      try {
        return f(x);
      } finally {
        currentState = prev;
      }
    });
    return this.p.then(wrap(onF), wrap(onR));
  }
}

/**
 * The wait of `yield ttg.device.kernel()`: the stream's completion batch calls {@link fire}, which
 * ends the task's device use and resumes the body right there, in its task's device context, with
 * no promise, closure or microtask in between: fewer allocations and jobs per device task on the
 * JS thread, which shares the cores with the kernels. Async generators wait through `then`.
 */
class KernelWait extends Parked {
  private next: ((value: unknown) => unknown) | undefined;
  private settled = false;

  constructor(
    private readonly r: DeviceRuntime,
    protected readonly context: TaskState,
    /** Buffers copied back to the host by this wait. */
    private readonly back: readonly AnyBuffer[],
  ) {
    super();
  }

  then<A = unknown, B = never>(onF?: ((value: unknown) => A | PromiseLike<A>) | null): PromiseLike<A | B> {
    if (onF != null) {
      if (this.settled) queueMicrotask(() => inStepContext(this.context, () => onF(undefined)));
      else if (this.next === undefined) this.next = onF;
      else {
        const first = this.next;
        this.next = (v) => (first(v), onF(v));
      }
    }
    return this as PromiseLike<A | B>;
  }

  /** Completion of the task's last op on its stream. */
  fire(): void {
    const { r, context: st, back } = this;
    const s = st.stream;
    for (const b of back) r.memory.setHostValid(b);
    if (st.pinned !== undefined) {
      r.memory.release(st.pinned, s.device);
      st.pinned.clear();
    }
    st.active = false;
    s.load--;
    this.settled = true;
    this.resumeParked(st);
    const f = this.next;
    this.next = undefined;
    if (f !== undefined) inStepContext(st, () => f(undefined));
  }
}

/** The scheduler's step resolver: undefined for values that are not device steps. */
export function resolveStep(step: unknown, task: Task): PromiseLike<unknown> | undefined {
  if (!(step instanceof DeviceStep)) return undefined;
  let p: Promise<unknown> | TaskState | KernelWait;
  try {
    const r = requireRuntime();
    p = step.kind === 'input' ? input(r, step.bufs, task) : kernelWait(r, step.bufs, task);
  } catch (e) {
    p = Promise.reject(e);  // thrown into the generator, so the task fails with this error
  }
  if (p instanceof KernelWait || p instanceof TaskState) return p;  // TaskState: resident already, resume now
  return new InContext(p, task.deviceState as TaskState | undefined);
}

function chooseDevice(r: DeviceRuntime, task: Task): number {
  const n = r.backend.devices;
  const hint = task.tt.devicehint(task.key);
  if (typeof hint === 'number' && Number.isInteger(hint)) return ((hint % n) + n) % n;
  let best = 0;
  let bestLoad = r.streams.deviceLoad(0);
  for (let d = 1; d < n; d++) {
    const l = r.streams.deviceLoad(d);
    if (l < bestLoad) { best = d; bestLoad = l; }
  }
  return best;
}

function input(r: DeviceRuntime, bufs: readonly AnyBuffer[], task: Task): Promise<InputResult> | TaskState {
  let st = task.deviceState as TaskState | undefined;
  if (st === undefined) {
    st = new TaskState(r.streams.pick(chooseDevice(r, task), bufs), r.backend.inPlace ? undefined : new Set());
    task.deviceState = st;
  }
  if (!st.active) {
    st.active = true;
    st.stream.load++;
  }
  if (st.pinned === undefined) return st;
  const result = st.stream.inputResult;
  return r.memory.acquire(bufs, st.stream, st.pinned, { tt: task.tt.name, key: task.key, rank: rt.rank }).then(() => result);
}

function kernelWait(r: DeviceRuntime, bufs: readonly AnyBuffer[], task: Task): Promise<void> | KernelWait {
  const st = task.deviceState as TaskState | undefined;
  if (st === undefined || !st.active) {
    // No input() before: nothing is enqueued for this task; just make the listed buffers current.
    const ps = bufs.map((b) => r.memory.toHost(b)).filter((p) => p !== undefined);
    return Promise.all(ps).then(() => undefined);
  }
  const s = st.stream;
  const back = bufs.length === 0 ? bufs : bufs.filter((b) => r.memory.enqueueCopyBack(b, s));
  const wait = new KernelWait(r, st, back);
  r.streams.notifyWhenDone(s, wait);
  if (back.length > 0) {
    const done = new Promise<void>((resolve) => wait.then(() => resolve()));
    for (const b of back) {
      b.toHostPending = done;
      void done.then(() => { if (b.toHostPending === done) b.toHostPending = undefined; });
    }
  }
  return wait;
}
