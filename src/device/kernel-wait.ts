import type { TtgError } from '../base/errors.js';
import type { ParkableStep } from '../ttg/common/device-port.js';
import type { Task } from '../ttg/common/model.js';
import type { AnyBuffer } from './buffer.js';
import { watchHostCopies } from './host-writes.js';
import { unmarkQueuedRead } from './queued-reads.js';
import type { DeviceRuntime } from './runtime.js';
import type { TaskState } from './task-state.js';

/**
 * The wait of `yield ttg.device.kernel()`: the stream's completion batch calls {@link fire}, which
 * marks the copied-back buffers valid on the host and resumes the body right there, with no
 * promise, closure or microtask in between: fewer allocations and jobs per device task on the JS
 * thread, which shares the cores with the kernels. Async generators wait through `then`.
 */
export class KernelWait implements ParkableStep {
  readonly step = 'parkable';
  private next: ((e: TtgError | undefined) => void) | undefined;
  private settled = false;
  private error: TtgError | undefined = undefined;
  private parked: Task | undefined = undefined;

  constructor(
    private readonly r: DeviceRuntime,
    private readonly st: TaskState,
    /** Buffers the wait names: the body may write their host arrays after it. */
    private readonly named: readonly AnyBuffer[],
    /** Those it copies back to the host, their versions when the copies were enqueued, and where the copies hash them (large ones). */
    private readonly back: readonly AnyBuffer[],
    private readonly versions: readonly number[] | undefined,
    private readonly hashes: ReadonlyArray<BigUint64Array | undefined> | undefined,
    /** Buffers the task sent before this wait (see {@link checkSend}): its queued work no longer reads them. */
    private readonly marked: AnyBuffer[] | undefined,
  ) {}

  park(task: Task): void {
    this.parked = task;
  }

  then<A = unknown, B = never>(onF?: ((value: unknown) => A | PromiseLike<A>) | null,
    onR?: ((reason: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
    const f = (e: TtgError | undefined): void => {
      if (e === undefined) onF?.(undefined);
      else onR?.(e);
    };
    if (this.settled) queueMicrotask(() => f(this.error));
    else if (this.next === undefined) this.next = f;
    else {
      const first = this.next;
      this.next = (e) => (first(e), f(e));
    }
    return this as PromiseLike<A | B>;
  }

  /** Completion of everything the task had enqueued when it waited. */
  fire(): void {
    const failed = this.st.failure;
    if (failed !== undefined) {
      this.fail(failed);
      return;
    }
    const dev = this.st.stream.device;
    for (let i = 0; i < this.back.length; i++) this.r.memory.copiedBack(this.back[i]!, dev, this.versions![i]!, this.hashes?.[i]);
    // the body may now write the host arrays while device copies stay valid: watch for that
    watchHostCopies(this.r.memory, this.st, this.named);
    this.settle(undefined);
  }

  /** Something the task enqueued failed where it ran: the body gets the error at its wait. */
  fail(e: TtgError): void {
    this.st.failure ??= e;
    this.st.failureSeen = true;
    // the copies home did not make the host current: unpin them only
    for (let i = 0; i < this.back.length; i++) this.r.memory.copiedBack(this.back[i]!, this.st.stream.device, -1);
    this.settle(e);
  }

  private settle(e: TtgError | undefined): void {
    if (this.marked !== undefined) for (const b of this.marked) unmarkQueuedRead(b);
    this.error = e;
    this.settled = true;
    const t = this.parked;
    if (t !== undefined) {
      this.parked = undefined;
      t.resumeParked(e);
    }
    const f = this.next;
    this.next = undefined;
    if (f !== undefined) f(e);
  }
}
