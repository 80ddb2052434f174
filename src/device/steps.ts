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
import { Ready } from '../ttg/scheduler.js';
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

/** Device state of one running task. */
interface TaskState {
  stream: Stream;
  /** Buffers pinned on the device (backends with their own memory; the host backend pins none). */
  pinned: Set<AnyBuffer> | undefined;
  /** Between an input() and the kernel() wait that ends it: pins held, stream load counted. */
  active: boolean;
}

let currentState: TaskState | undefined;

/** The stream of the device task whose body is running, if any. */
export function currentStream(): Stream | undefined {
  return currentState?.stream;
}

/** Flattens `input(a, [b, c])` into buffers, rejecting anything else with a clear message. */
export function collectBuffers(what: string, args: readonly unknown[]): AnyBuffer[] {
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
 * The wait of `yield ttg.device.kernel()`, settled by the stream's completion callback itself: it
 * resumes the body right there, in its task's device context, with no promise or microtask in
 * between: fewer allocations and jobs per device task on the JS thread, which shares the cores
 * with the kernels. Made for the scheduler's single `then`; later `then`s are called too, but
 * nothing chains off the returned value.
 */
class KernelWait implements PromiseLike<unknown> {
  private next: ((value: unknown) => unknown) | undefined;
  private settled = false;

  constructor(private readonly st: TaskState) {}

  then<A = unknown, B = never>(onF?: ((value: unknown) => A | PromiseLike<A>) | null): PromiseLike<A | B> {
    if (onF != null) {
      if (this.settled) queueMicrotask(() => inStepContext(this.st, () => onF(undefined)));
      else if (this.next === undefined) this.next = onF;
      else {
        const first = this.next;
        this.next = (v) => (first(v), onF(v));
      }
    }
    return this as PromiseLike<A | B>;
  }

  settle(): void {
    this.settled = true;
    const f = this.next;
    this.next = undefined;
    if (f !== undefined) inStepContext(this.st, () => f(undefined));
  }
}

/** The scheduler's step resolver: undefined for values that are not device steps. */
export function resolveStep(step: unknown, task: Task): PromiseLike<unknown> | undefined {
  if (!(step instanceof DeviceStep)) return undefined;
  let p: Promise<unknown> | InputResult | KernelWait;
  try {
    const r = requireRuntime();
    p = step.kind === 'input' ? input(r, step.bufs, task) : kernelWait(r, step.bufs, task);
  } catch (e) {
    p = Promise.reject(e);  // thrown into the generator, so the task fails with this error
  }
  if (p instanceof KernelWait) return p;
  const st = task.deviceState as TaskState | undefined;
  if (!(p instanceof Promise)) return new Ready(p, st);  // resident already: resume now
  return new InContext(p, st);
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

function input(r: DeviceRuntime, bufs: readonly AnyBuffer[], task: Task): Promise<InputResult> | InputResult {
  let st = task.deviceState as TaskState | undefined;
  if (st === undefined) {
    st = { stream: r.streams.pick(chooseDevice(r, task), bufs), pinned: r.backend.inPlace ? undefined : new Set(), active: false };
    task.deviceState = st;
  }
  if (!st.active) {
    st.active = true;
    st.stream.load++;
  }
  const stream = st.stream;
  const result = stream.inputResult;
  if (st.pinned === undefined) return result;
  return r.memory.acquire(bufs, stream, st.pinned, { tt: task.tt.name, key: task.key, rank: rt.rank }).then(() => result);
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
  const wait = new KernelWait(st);
  r.streams.marker(s, () => {
    for (const b of back) r.memory.setHostValid(b);
    if (st.pinned !== undefined) {
      r.memory.release(st.pinned, s.device);
      st.pinned.clear();
    }
    st.active = false;
    s.load--;
    wait.settle();
  });
  if (back.length > 0) {
    const done = new Promise<void>((resolve) => wait.then(() => resolve()));
    for (const b of back) {
      b.toHostPending = done;
      void done.then(() => { if (b.toHostPending === done) b.toHostPending = undefined; });
    }
  }
  return wait;
}
