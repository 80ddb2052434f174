/**
 * Stream manager: the streams of every device, the ids that native completions report, and the
 * load of each stream (device tasks currently using it) for placement. Ops are enqueued without
 * waiting; only ops that carry a notify id come back, in batches, through `onDone`.
 *
 * Kernels and stamps that a generator body enqueues in one step are packed and handed to the
 * addon together with the next op that must be queued at once (a copy, a marker, a program's
 * kernel), or when the step ends, in one `devOps` call (docs/design/op-packing.md).
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

/** Numbers per op in the pack handed to `devOps` (native/src/device_addon.cc: kOpSlots). */
const OP_SLOTS = 17;
/**
 * Ops the pack holds: a full pack is handed over before the next op is packed, so a long run of
 * kernels starts running while the body still enqueues.
 */
const PACK_OPS = 32;

/**
 * The task a packed op belongs to: when the addon refuses the op, which happens only once the
 * body has gone on, the task fails with the refusal (E_DEVICE) at its next wait or its end.
 */
export interface OpOwner {
  failure: TtgError | undefined;
  failureSeen: boolean;
}

/** Flags letters as the addon reads them: one char code per byte, from the lowest. */
function flagCode(f: string): number {
  let c = 0;
  for (let i = 0; i < f.length && i < 4; i++) c += f.charCodeAt(i) * 2 ** (8 * i);
  return c;
}

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
  /** Ops packed for the addon and not yet handed over: OP_SLOTS numbers each (see `devOps`). */
  private readonly pack = new Float64Array(OP_SLOTS * PACK_OPS);
  /** Host views the packed ops name (their operand slots hold -index - 1); `viewCount` of them in use. */
  private readonly views: Array<ArrayBufferView | undefined> = new Array<ArrayBufferView | undefined>(4 * PACK_OPS).fill(undefined);
  private viewCount = 0;
  /** Per packed op, the task its refusal fails; undefined for a trace stamp (its event only is lost). */
  private readonly owners: Array<OpOwner | undefined> = new Array<OpOwner | undefined>(PACK_OPS).fill(undefined);
  private packed = 0;
  /**
   * Steps of generator bodies running (steps.ts): only then are kernels and stamps packed; the
   * step's end hands them over. Elsewhere (an async body, which may await anything next) they go
   * at once, so nothing packed waits on code the runtime does not drive.
   */
  packing = 0;
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

  /**
   * Enqueues an op of the running task `owner`: inside a generator body's step it is packed and
   * reaches the addon with the next op queued at once or when the step ends. Refused there, it
   * fails `owner` (E_DEVICE) at its next wait or its end, whose markers come after it.
   */
  op(s: Stream, kind: OpKind, flags: string, m: number, n: number, k: number, alpha: number, beta: number,
    p0: Operand, lda: number, p1: Operand, ldb: number, p2: Operand, ldc: number, p3: Operand, bytes: number, owner: OpOwner): void {
    const tr = tracer;
    const stamps = tr === undefined || kind === OpKind.Stamp ? undefined : this.traceBefore(tr, s, OP_NAMES[kind] ?? `op ${kind}`, { m, n, k });
    this.put(s.id, kind, flags, m, n, k, alpha, beta, p0, lda, p1, ldb, p2, ldc, p3, bytes, 0, owner);
    s.ops++;
    this.enqueued++;
    if (stamps !== undefined) this.stampAt(s, stamps, 1);
    if (this.packing === 0) this.flush(-1);
  }

  /** Hands every packed op to the addon now (before something that must see them queued). */
  flushOps(): void {
    if (this.packed !== 0) this.flush(-1);
  }

  /** Packs one op (its slots as `devOps` reads them); returns its index in the pack. */
  private put(stream: number, kind: OpKind, flags: string, m: number, n: number, k: number, alpha: number, beta: number,
    p0: Operand, lda: number, p1: Operand, ldb: number, p2: Operand, ldc: number, p3: Operand, bytes: number, notify: number,
    owner: OpOwner | undefined): number {
    if (this.packed === PACK_OPS) this.flush(-1);
    const i = this.packed++;
    const a = this.pack, o = i * OP_SLOTS;
    a[o] = stream;
    a[o + 1] = kind;
    a[o + 2] = flags === '' ? 0 : flagCode(flags);
    a[o + 3] = m;
    a[o + 4] = n;
    a[o + 5] = k;
    a[o + 6] = alpha;
    a[o + 7] = beta;
    a[o + 8] = lda;
    a[o + 9] = ldb;
    a[o + 10] = ldc;
    a[o + 11] = bytes;
    a[o + 12] = notify;
    // no call for an absent operand: a cold task runs this in the interpreter, where calls cost most
    a[o + 13] = p0 === null ? 0 : this.operand(p0);
    a[o + 14] = p1 === null ? 0 : this.operand(p1);
    a[o + 15] = p2 === null ? 0 : this.operand(p2);
    a[o + 16] = p3 === null ? 0 : this.operand(p3);
    this.owners[i] = owner;
    return i;
  }

  private operand(p: Operand | undefined): number {
    if (p === null || p === undefined) return 0;
    if (typeof p === 'number') return p;
    this.views[this.viewCount] = p;
    return -++this.viewCount;
  }

  /**
   * Hands the packed ops to the addon, in order, in one call unless one is refused: the refusal of
   * op `mine` (an op the caller must know queued) is returned; another refused op fails its owner,
   * or, a trace stamp, loses its event (marked -1); the ops after a refused one are handed on.
   */
  private flush(mine: number): unknown {
    const n = this.packed;
    let from = 0;
    let refused: unknown;
    while (from < n) {
      try {
        this.backend.native.devOps(this.pack, this.views, from, n);
        break;
      } catch (e) {
        // without an index the call failed before any op (no runtime): so does each op in turn
        const at = (e as { index?: unknown } | null)?.index;
        const i = typeof at === 'number' && at >= from && at < n ? at : from;
        if (i === mine) refused = e;
        else this.refusedOp(i, e);
        from = i + 1;
      }
    }
    this.packed = 0;
    // the pack holds no view or task past its hand-over (no length change: that is a runtime call)
    for (let j = 0; j < this.viewCount; j++) this.views[j] = undefined;
    this.viewCount = 0;
    for (let j = 0; j < n; j++) this.owners[j] = undefined;
    return refused;
  }

  private refusedOp(i: number, e: unknown): void {
    const owner = this.owners[i];
    if (owner === undefined) {
      // a trace stamp: its op's event is lost, never the run
      const v = this.pack[i * OP_SLOTS + 13]!;
      if (v < 0) (this.views[-v - 1] as Float64Array)[0] = -1;
      return;
    }
    this.enqueued--;
    // also after a failure the body has seen: this one must still fail the task
    if (owner.failure === undefined || owner.failureSeen) {
      owner.failure = DeviceErrors.enqueueFailed(e);
      owner.failureSeen = false;
    }
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
   * marker; only when that is refused too is the enqueue an error (E_DEVICE). Without `notify` the
   * stamp is packed like a kernel.
   */
  private stampAt(s: Stream, stamps: Float64Array, i: number, notify = 0): void {
    const at = stamps.subarray(i, i + 1);
    if (notify === 0) {
      this.put(s.id, OpKind.Stamp, '', 0, 0, 0, 0, 0, at, 0, null, 0, null, 0, null, 0, 0, undefined);
      if (this.packing === 0) this.flush(-1);
      return;
    }
    const e = this.flush(this.put(s.id, OpKind.Stamp, '', 0, 0, 0, 0, 0, at, 0, null, 0, null, 0, null, 0, notify, undefined));
    if (e === undefined) return;
    stamps[i] = -1;
    if (this.flush(this.put(s.id, OpKind.Marker, '', 0, 0, 0, 0, 0, null, 0, null, 0, null, 0, null, 0, notify, undefined)) !== undefined) {
      throw DeviceErrors.enqueueFailed(e);
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
    // packed ops come before it on their streams
    if (this.packed !== 0) this.flush(-1);
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
      const refused = this.flush(this.put(s.id, OpKind.Copy, worker ? 'Hw' : dir, 0, 0, 0, 0, 0, dst, 0, src, 0, hash ?? null, 0, null, bytes, stamps === undefined ? id : 0, undefined));
      if (refused !== undefined) throw refused;
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
    const refused = this.flush(this.put(s.id, OpKind.Marker, '', 0, 0, 0, 0, 0, null, 0, null, 0, null, 0, null, 0, id, undefined));
    if (refused !== undefined) {
      this.waiting.delete(id);
      throw DeviceErrors.enqueueFailed(refused);
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
