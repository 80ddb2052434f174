/**
 * Stream manager: the streams of every device, the ids that native completions report, and the
 * load of each stream (device tasks currently using it) for placement. Ops are enqueued without
 * waiting; only ops that carry a notify id come back, in batches, through `onDone`.
 */
import type { TtgError } from '../base/errors.js';
import { devicePollUs } from '../base/settings.js';
import { streamTid, tracer, type TraceSink as Tracer } from '../ttg/common/trace-sink.js';
import type { Backend } from './backend.js';
import type { AnyBuffer } from './buffer.js';
import { DeviceErrors } from './errors.js';
import { OFF_THREAD_BYTES } from './off-thread.js';
import type { InputResult } from './steps.js';

/** Op kinds of native/src/device_op.h (part of the JS <-> native contract). */
export const enum OpKind {
  Marker = 0,
  Copy = 1,
  Dgemm = 2,
  Dsyrk = 3,
  Dtrsm = 4,
  Dpotrf = 5,
  Daxpy = 6,
  Dscal = 7,
  Stamp = 8,
}

/** One in-order queue of work on one device; what `ttg.device.input` hands to a task. */
export class Stream {
  /** @internal device tasks currently placed on this stream. */
  load = 0;
  /** @internal kernels enqueued on this stream. */
  kernels = 0;
  /** @internal When the last device task placed on this stream ended (performance.now()). */
  freeAt = 0;
  /** @internal kernels, copies and user stamps enqueued on this stream: what a task waits for before it ends. */
  ops = 0;
  /** @internal What `yield ttg.device.input(...)` resumes with on this stream (one frozen object). */
  readonly inputResult: InputResult;

  /** @internal */
  constructor(
    /** Global stream index (native). */
    readonly id: number,
    /** Device this stream belongs to. */
    readonly device: number,
    /** Index of the stream within its device. */
    readonly index: number,
  ) {
    this.inputResult = Object.freeze({ stream: this, device });
  }
}

/**
 * How many more device tasks than the least-loaded stream a stream may carry and still get a task
 * for its data (affinity). 1 measured best in bench:device (0.933-0.936 of the ceiling, against
 * 0.923-0.925 when affinity only breaks ties); it bounds the imbalance it causes to one task.
 */
const AFFINITY_SLACK = 1;

/**
 * Device tasks a stream should carry so that its next kernel is queued when one ends: below it,
 * ready device tasks run before host tasks of higher priority (ttg/ready-tasks.ts).
 */
const FEED_DEPTH = 2;

type Operand = number | ArrayBufferView | null;

/** What a notify id completes: {@link StreamManager.notifyWhenDone} calls `fire` from the batch, or `fail` when the op failed. */
export interface Waiter {
  fire(): void;
  /** The op (or one before it on its stream) failed where it ran: `e` (E_DEVICE) says why. */
  fail(e: TtgError): void;
}

/** Streams of all devices plus the notify-id bookkeeping. */
export class StreamManager {
  /** All streams, by global id. */
  readonly all: Stream[] = [];
  /** Ops enqueued (kernels, copies, program calls, completion markers; not trace stamps). */
  enqueued = 0;
  /** Bytes the JS thread copies into pinned staging as it enqueues a copy to a CUDA device (large ones go to the stager thread). */
  stagedBytes = 0;
  /** Streams of each device. */
  readonly byDevice: Stream[][] = [];
  private readonly waiting = new Map<number, Waiter>();
  private nextId = 1;
  private readonly pollUs = devicePollUs();
  /** Streams carrying fewer than FEED_DEPTH device tasks. */
  private short = 0;
  private pollQueued = false;
  /**
   * Polls for completions after the event loop's other callbacks have run: a short kernel's
   * completion is then taken without the wake-up of a sleeping event loop. A poll that found
   * some polls again while more are to come (onDone schedules it); one that found none ends the
   * chain, and the pool's eventfd wakes the loop as before.
   */
  private readonly pollFn = (): void => {
    this.pollQueued = false;
    if (this.waiting.size !== 0) this.backend.native.devPoll(this.pollUs);
  };

  constructor(private readonly backend: Backend) {
    for (let d = 0; d < backend.places; d++) {
      const list: Stream[] = [];
      for (let s = 0; s < backend.streamsOf[d]!; s++) {
        const st = new Stream(this.all.length, d, s);
        this.all.push(st);
        list.push(st);
        this.short++;
      }
      this.byDevice.push(list);
    }
  }

  /**
   * Native completion batch: runs the callbacks of the reported ids (`errors[i]`: why `ids[i]`
   * failed, when it did). A callback that throws does not stop the others; the first error is
   * rethrown once all have run.
   */
  readonly onDone = (ids: Float64Array, errors?: ReadonlyArray<string | undefined>): void => {
    let failed = false;
    let error: unknown;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const w = this.waiting.get(id);
      if (w === undefined) continue;
      this.waiting.delete(id);
      try {
        const why = errors?.[i];
        if (why === undefined) w.fire();
        else w.fail(DeviceErrors.opFailed(why));
      } catch (e) {
        if (!failed) error = e;
        failed = true;
      }
    }
    this.pollSoon();
    if (failed) throw error;
  };

  /** Schedules one {@link pollFn} while completions are to come. */
  private pollSoon(): void {
    if (this.pollUs > 0 && !this.pollQueued && this.waiting.size !== 0) {
      this.pollQueued = true;
      setImmediate(this.pollFn);
    }
  }

  /**
   * The stream for a device task that uses `bufs` on `device`: the least-loaded one, unless a
   * stream whose kernels last wrote some of `bufs` carries at most {@link AFFINITY_SLACK} more
   * tasks; then the one of those that wrote the most bytes. On the host backend a stream is a
   * worker thread whose cache still holds what it wrote, so a chain of tasks on one tile stays on
   * one core (bench:device: 6-17% of the tasks changed core without this, ~0.3% with it). Without
   * such a stream, the first least-loaded one, so a lone task always gets stream 0.
   */
  pick(device: number, bufs: readonly AnyBuffer[] = []): Stream {
    const list = this.byDevice[device]!;
    let best = list[0]!;
    for (let i = 1; i < list.length; i++) if (list[i]!.load < best.load) best = list[i]!;
    const limit = best.load + AFFINITY_SLACK;
    let bestBytes = 0;
    for (const b of bufs) {
      const s = this.all[b.lastWriterStream];
      if (s === undefined || s.device !== device || s.load > limit) continue;
      let bytes = 0;
      for (const o of bufs) if (o.lastWriterStream === s.id) bytes += o.bytes;
      if (bytes > bestBytes) {
        best = s;
        bestBytes = bytes;
      }
    }
    return best;
  }

  /** Device tasks placed on `s` from now until {@link vacate}. */
  occupy(s: Stream): void {
    if (++s.load === FEED_DEPTH) this.short--;
  }

  /** A device task placed on `s` ended. */
  vacate(s: Stream): void {
    if (s.load-- === FEED_DEPTH) this.short++;
  }

  /** Whether some stream carries fewer than {@link FEED_DEPTH} device tasks. */
  get hungry(): boolean {
    return this.short > 0;
  }

  /** True while some enqueued work has a completion still to come (a wait, a marker, a copy). */
  get busy(): boolean {
    return this.waiting.size !== 0;
  }

  /** Total load of a device (for placing tasks without a device hint). */
  deviceLoad(device: number): number {
    let n = 0;
    for (const s of this.byDevice[device]!) n += s.load;
    return n;
  }

  /** Enqueues an op (E_DEVICE when the addon refuses it). */
  op(s: Stream, kind: OpKind, flags: string, m: number, n: number, k: number, alpha: number, beta: number,
    p0: Operand, lda: number, p1: Operand, ldb: number, p2: Operand, ldc: number, p3: Operand, bytes: number): void {
    const tr = tracer;
    const stamps = tr === undefined || kind === OpKind.Stamp ? undefined : this.traceBefore(tr, s, OP_NAMES[kind] ?? `op ${kind}`, { m, n, k });
    try {
      this.backend.native.devOp(s.id, kind, flags, m, n, k, alpha, beta, p0, lda, p1, ldb, p2, ldc, p3, bytes, 0);
    } catch (e) {
      throw DeviceErrors.enqueueFailed(e);
    }
    s.ops++;
    this.enqueued++;
    if (stamps !== undefined) this.stampAt(s, stamps, 1);
  }

  /** Tracing: stamps the start of the next op on `s`; its end is stamped by {@link stampAt} index 1. */
  private traceBefore(tr: Tracer, s: Stream, name: string, args: Record<string, unknown>): Float64Array {
    tr.thread(streamTid(s.id), `device ${s.device} stream ${s.index}`);
    const stamps = new Float64Array(2);
    this.stampAt(s, stamps, 0);
    tr.later(() => {
      if (stamps[0]! >= 0 && stamps[1]! >= 0) tr.deviceOp(name, streamTid(s.id), stamps[0]!, stamps[1]!, args);
    });
    return stamps;
  }

  /**
   * Enqueues trace stamp `i` of `stamps` (with `notify`, reported like a marker). A stamp the addon
   * refuses costs its op's trace event only (marked -1), never the run: the op is already queued,
   * and its task must go on to note it. A refused stamp that carries a notify id leaves it to a
   * marker; only when that is refused too is the enqueue an error (E_DEVICE).
   */
  private stampAt(s: Stream, stamps: Float64Array, i: number, notify = 0): void {
    try {
      this.backend.native.devOp(s.id, OpKind.Stamp, '', 0, 0, 0, 0, 0, stamps.subarray(i, i + 1), 0, null, 0, null, 0, null, 0, notify);
      return;
    } catch (e) {
      stamps[i] = -1;
      if (notify === 0) return;
      try {
        this.backend.native.devOp(s.id, OpKind.Marker, '', 0, 0, 0, 0, 0, null, 0, null, 0, null, 0, null, 0, notify);
      } catch {
        throw DeviceErrors.enqueueFailed(e);
      }
    }
  }

  /**
   * Enqueues one call of a program's kernel `kernel` (a native kernel id) named `name` on stream
   * `s`; with `w`, the call reports its completion to it (`fail` when the kernel set its error).
   */
  call(s: Stream, name: string, kernel: number, buffers: Operand[], lengths: Float64Array, scalars: Float64Array, w?: Waiter): void {
    const tr = tracer;
    const stamps = tr === undefined ? undefined : this.traceBefore(tr, s, name, {});
    const id = w === undefined ? 0 : this.nextId++;
    if (w !== undefined) this.waiting.set(id, w);
    try {
      this.backend.native.devCall(s.id, kernel, buffers as Array<number | ArrayBufferView>, lengths, scalars, id);
    } catch (e) {
      if (w !== undefined) this.waiting.delete(id);
      throw DeviceErrors.enqueueFailed(e);
    }
    if (w !== undefined) this.pollSoon();
    s.ops++;
    this.enqueued++;
    if (stamps !== undefined) this.stampAt(s, stamps, 1);
  }

  /**
   * Copies `bytes` from `src` to `dst` on stream `s` ('H': host to device, 'D': device to host);
   * with `notify`, returns a promise settled when it has run (`onFail`: told at once if it failed).
   * With `hash`, the copy writes the hash of the bytes it moved there (native `hash64`), where it runs.
   */
  copy(s: Stream, dir: 'H' | 'D', dst: Operand, src: Operand, bytes: number, notify: boolean, onFail?: (e: TtgError) => void,
    hash?: BigUint64Array): Promise<void> | undefined {
    const id = notify ? this.nextId++ : 0;
    const p = notify ? this.promiseFor(id, onFail) : undefined;
    const tr = tracer;
    const stamps = tr === undefined ? undefined : this.traceBefore(tr, s, dir === 'H' ? 'copy H2D' : 'copy D2H', { bytes });
    try {
      // a large copy in to a CUDA device is staged by its stager thread ('w'), a small one here
      const worker = dir === 'H' && bytes >= OFF_THREAD_BYTES;
      this.backend.native.devOp(s.id, OpKind.Copy, worker ? 'Hw' : dir, 0, 0, 0, 0, 0, dst, 0, src, 0, hash ?? null, 0, null, bytes, stamps === undefined ? id : 0);
      s.ops++;
      this.enqueued++;
      if (dir === 'H' && !worker && this.backend.name === 'cuda') this.stagedBytes += bytes;
      // the end stamp carries the notify id, so the copy's waiter sees its end time recorded
      if (stamps !== undefined) this.stampAt(s, stamps, 1, id);
    } catch (e) {
      // no completion will come: a waiter left behind would count as device work forever
      this.waiting.delete(id);
      throw DeviceErrors.enqueueFailed(e);
    }
    if (notify) this.pollSoon();
    return p;
  }

  /**
   * Calls `done` (from a completion batch, no promise in between) once everything enqueued on `s`
   * so far has run; with the error when something of it failed.
   */
  marker(s: Stream, done: (e?: TtgError) => void): void {
    this.notifyWhenDone(s, { fire: () => done(), fail: done });
  }

  /** {@link marker} for an object: one allocation less per device task. */
  notifyWhenDone(s: Stream, w: Waiter): void {
    const id = this.nextId++;
    this.waiting.set(id, w);
    try {
      this.backend.native.devOp(s.id, OpKind.Marker, '', 0, 0, 0, 0, 0, null, 0, null, 0, null, 0, null, 0, id);
    } catch (e) {
      this.waiting.delete(id);
      throw DeviceErrors.enqueueFailed(e);
    }
    this.enqueued++;
    this.pollSoon();
  }

  /** `onFail` runs from the completion batch itself, before waits later in the batch fire. */
  private promiseFor(id: number, onFail?: (e: TtgError) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiting.set(id, { fire: resolve, fail: (e) => { onFail?.(e); reject(e); } }));
  }
}

const OP_NAMES: Record<number, string> = {
  [OpKind.Copy]: 'copy', [OpKind.Dgemm]: 'dgemm', [OpKind.Dsyrk]: 'dsyrk', [OpKind.Dtrsm]: 'dtrsm',
  [OpKind.Dpotrf]: 'dpotrf', [OpKind.Daxpy]: 'daxpy', [OpKind.Dscal]: 'dscal',
};
