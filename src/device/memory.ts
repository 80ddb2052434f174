/**
 * Memory manager: which buffers have copies on which device, how much of each device is used,
 * and what to evict. A task pins its buffers on its device from `input()` until the task ends
 * (after everything it enqueued has run); unpinned copies are evicted least-recently-used first, dirty ones (the only
 * current copy) copied back to the host before their memory is freed. Read-only buffers may have
 * valid copies on several devices at once; a write on one device invalidates the others.
 *
 * Residency changes on a device happen under a per-device lock, one acquisition at a time, and
 * nothing waits for another task while holding it: an acquisition that finds too little room
 * (counting what it could evict) takes nothing, leaves the lock and waits for a pin to drop, then
 * tries again. So a running task can always list buffers again or add some, and a task whose own
 * pinned set exceeds the device fails at once with E_DEVICE_MEMORY instead of waiting forever.
 * Every queued copy pins the copy it reads or fills until it has run, so eviction never frees
 * memory a copy still uses; every write bumps the buffer's version, so a copy that was overtaken
 * by a later write never marks its side current. A copy's memory is a block of the device memory
 * pool (pool.ts): eviction gives it back for the next copy that fits, without a native free or
 * allocation.
 */
import type { TtgError, TtgErrorContext } from '../base/errors.js';
import type { Backend } from './backend.js';
import { judging, type AnyBuffer, type DeviceCopy } from './buffer.js';
import { DeviceErrors } from './errors.js';
import { OFF_THREAD_BYTES } from './off-thread.js';
import { DevicePool } from './pool.js';
import type { Stream, StreamManager } from './streams.js';

/** What an acquisition needs of the task it pins for. */
export interface Acquirer {
  /** Set to the stream's op count when a copy is enqueued for the task (its queued work). */
  lastOp: number;
  /** The task was given up (a hang report): a wait for room ends with an error. */
  readonly abandoned: boolean;
  /** A copy enqueued for the task failed where it ran: its next wait, or its end, fails with this. */
  failure: TtgError | undefined;
}

/** Per-device counters. */
export interface DeviceCounters {
  /** Copies dropped to make room (dirty ones were copied back first). */
  evictions: number;
  /** Bytes copied host to device. */
  h2d_bytes: number;
  /** Bytes copied device to host. */
  d2h_bytes: number;
  /** Kernels enqueued. */
  kernels: number;
  /** Device tasks that ended here. */
  tasks: number;
  /** Milliseconds those tasks worked (see placement.ts). */
  busy_ms: number;
}

/** Residency and eviction for all devices of one backend. */
export class MemoryManager {
  /** Bytes allocated per device. */
  readonly used: number[];
  /** Counters per device. */
  readonly counters: DeviceCounters[];
  /** Buffers whose host copy is stale; 0 lets host tasks skip the scan of their inputs. */
  offHost = 0;
  /** Device copies allocated on all devices; 0 lets host tasks that may write skip the scan too. */
  copies = 0;
  /** Phases ended (fences): a buffer's first acquisition in a phase checks for host writes the program made outside tasks. */
  phase = 0;
  /** Host bytes hashed on the JS thread (read-only guards, host writes between fences). */
  hashedBytes = 0;
  /** Where the copies' device memory comes from: blocks of slabs, reused after eviction (pool.ts). */
  readonly pool: DevicePool;
  /** Copies per device in least-recently-used order (Map keeps insertion order). */
  private readonly lru: Array<Map<AnyBuffer, true>>;
  private readonly locks: Array<Promise<void>>;
  private readonly unpinWaiters: Array<Array<() => void>>;

  constructor(private readonly backend: Backend, private readonly streams: StreamManager) {
    const n = backend.places;
    this.used = Array(n).fill(0);
    this.counters = Array.from({ length: n }, () => ({ evictions: 0, h2d_bytes: 0, d2h_bytes: 0, kernels: 0, tasks: 0, busy_ms: 0 }));
    this.lru = Array.from({ length: n }, () => new Map());
    this.locks = Array.from({ length: n }, () => Promise.resolve());
    this.unpinWaiters = Array.from({ length: n }, () => []);
    this.pool = new DevicePool(backend.native, backend.capacity);
  }

  /** Native device allocations made (slabs: pool.ts). */
  get allocations(): number {
    return this.pool.counters.allocations;
  }

  /** Copies placed in device memory the pool already held: no native allocation. */
  get reused(): number {
    return this.pool.counters.reused;
  }

  /** Bytes of the copies on `device` that something pins. */
  pinnedBytes(device: number): number {
    let n = 0;
    for (const b of this.lru[device]!.keys()) if (b.copies[device]!.pins !== 0) n += b.bytes;
    return n;
  }

  /** Buffers with a copy on `device`, least recently used first. */
  resident(device: number): AnyBuffer[] {
    return [...this.lru[device]!.keys()];
  }

  /**
   * Makes `bufs` valid on `stream`'s device and pins them (adding them to `pinned`). Resolves
   * when ops enqueued on `stream` may use them: copies this call enqueues on `stream` need no
   * wait (the stream is in order); copies still running on other streams are awaited. While the
   * device has no room it waits without the lock; `owner.abandoned` ends that wait with an error.
   */
  async acquire(bufs: readonly AnyBuffer[], stream: Stream, pinned: AnyBuffer[], ctx: TtgErrorContext, owner: Acquirer): Promise<void> {
    const dev = stream.device;
    if (dev === this.backend.hostPlace) {
      // The host place works on the host copies: bring home what is current only on a device.
      for (const b of bufs) if (!pinned.includes(b)) pinned.push(b);
      const home = bufs.map((b) => (b.scratch ? undefined : this.toHost(b))).filter((p) => p !== undefined);
      if (home.length !== 0) await Promise.all(home);
      return;
    }
    this.checkPinnedSet(bufs, dev, pinned, ctx);
    const checks = this.checksBeforeAcquiring(bufs);
    if (checks !== undefined) await checks;
    for (;;) {
      const waits: Array<Promise<void>> = [];
      const full = await this.locked(dev, () => this.tryAcquire(bufs, stream, pinned, ctx, owner, waits));
      if (full === undefined) {
        if (waits.length !== 0) await Promise.all(waits);
        return;
      }
      await full.room;
      if (owner.abandoned) throw DeviceErrors.abandoned(ctx);
    }
  }

  /** Throws E_DEVICE_MEMORY when what the task pins plus `bufs` cannot fit on `dev` at all. */
  private checkPinnedSet(bufs: readonly AnyBuffer[], dev: number, pinned: readonly AnyBuffer[], ctx: TtgErrorContext): void {
    const cap = this.backend.capacity[dev]!;
    let need = 0;
    for (const b of new Set([...pinned, ...bufs])) need += b.bytes;
    if (need > cap) throw DeviceErrors.pinnedSetTooLarge(dev, need, cap, ctx);
  }

  /**
   * One attempt of {@link acquire} under the device lock: pins all of `bufs`, or none of them
   * and returns the promise of the next unpin (registered before the lock is left, so no wake-up
   * is lost; wrapped, since an async function would wait for a promise it returns).
   */
  private async tryAcquire(bufs: readonly AnyBuffer[], stream: Stream, pinned: AnyBuffer[], ctx: TtgErrorContext,
    owner: Acquirer, waits: Array<Promise<void>>): Promise<{ room: Promise<void> } | undefined> {
    const dev = stream.device;
    if (!this.fits(bufs, dev, pinned)) {
      // another input() of the task (an async body's, in flight) may have pinned more since this
      // one began: waiting for room that only the task itself could give back would never end
      this.checkPinnedSet(bufs, dev, pinned, ctx);
      return { room: this.nextUnpin(dev) };
    }
    const took: AnyBuffer[] = [];
    for (const b of bufs) {
      if (pinned.includes(b)) continue;
      if (b.checkedPhase !== this.phase) this.checkProgramWrites(b);
      let c = b.copies[dev];
      if (c !== undefined && c.valid) {
        c.pins++;
        pinned.push(b);
        took.push(b);
        this.touch(dev, b);
        if (c.ready !== undefined && c.lastStream !== stream.id) waits.push(c.ready);
        continue;
      }
      // Valid only on another device: bring it home first (device -> host -> device).
      if (!b.hostValid && !b.scratch) await this.toHost(b);
      if (c === undefined) {
        c = await this.allocate(b, dev, ctx);
        if (c === undefined) {
          // what looked evictable was pinned meanwhile: give back what this attempt took
          for (const t of took) {
            t.copies[dev]!.pins--;
            pinned.splice(pinned.indexOf(t), 1);
          }
          this.wakeUnpinned(dev);
          return { room: this.nextUnpin(dev) };
        }
      }
      c.pins++;
      pinned.push(b);
      took.push(b);
      c.lastStream = stream.id;
      if (!b.scratch && b.bytes > 0) this.copyIn(b, c, stream, owner);
      c.valid = true;
    }
    return undefined;
  }

  /**
   * Whether the copies `bufs` still need on `dev` fit in its free memory plus what could be
   * evicted; a buffer listed more than once counts once, as the acquisition pins it once.
   */
  private fits(bufs: readonly AnyBuffer[], dev: number, pinned: readonly AnyBuffer[]): boolean {
    let need = 0;
    for (let i = 0; i < bufs.length; i++) {
      const b = bufs[i]!;
      if (b.copies[dev] === undefined && !pinned.includes(b) && bufs.indexOf(b) === i) need += b.bytes;
    }
    if (need === 0) return true;
    let room = this.backend.capacity[dev]! - this.used[dev]!;
    if (room >= need) return true;
    for (const [b] of this.lru[dev]!) {
      if (b.copies[dev]!.pins !== 0 || bufs.includes(b)) continue;
      room += b.bytes;
      if (room >= need) return true;
    }
    return false;
  }

  /** Enqueues `b`'s host data into `c` on `stream`; the copy pins `c` until it has run. */
  private copyIn(b: AnyBuffer, c: DeviceCopy, stream: Stream, owner: Acquirer): void {
    const dev = stream.device;
    const hash = this.copyHash(b);
    const version = b.version;
    // a failed copy fails the task at its next wait: told from the completion batch, before that wait fires
    const ready = this.streams.copy(stream, 'H', c.handle, b.host, b.bytes, true, (e) => {
      owner.failure ??= e;
      c.valid = false;
      this.lostCopy(b);
    }, hash)!;
    c.pins++;
    owner.lastOp = stream.ops;
    this.counters[dev]!.h2d_bytes += b.bytes;
    c.ready = ready;
    ready.then(() => {
      if (c.ready === ready) c.ready = undefined;
      // unwritten since it was enqueued, the host array still equals the copy the op made
      if (hash !== undefined && b.version === version && b.hostValid) this.setRef(b, hash[0]!);
      this.unpin(c, dev);
    }, () => {
      if (c.ready === ready) c.ready = undefined;
      this.unpin(c, dev);
    });
  }

  /** Unpins `bufs` on `device` (the task that pinned them ended). */
  release(bufs: Iterable<AnyBuffer>, device: number): void {
    if (device === this.backend.hostPlace) return;
    let freed = false;
    for (const b of bufs) {
      const c = b.copies[device];
      if (c !== undefined && --c.pins === 0) freed = true;
    }
    if (freed) this.wakeUnpinned(device);
  }

  /** Wakes every acquisition waiting for room on `device` (an abandoned one then gives up). */
  wakeWaiters(device: number): void {
    if (device !== this.backend.hostPlace) this.wakeUnpinned(device);
  }

  /** Records that a kernel on `stream` writes `b`: the device copy becomes the only current one. */
  markWritten(b: AnyBuffer, stream: Stream): void {
    const dev = stream.device;
    b.version++;
    if (this.backend.inPlace) {
      b.lastWriter = dev;
      b.lastWriterStream = stream.id;
      return;
    }
    if (dev === this.backend.hostPlace) {
      // the host copy is the only current one now
      this.hostWrites(b);
      b.lastWriter = dev;
      b.lastWriterStream = stream.id;
      return;
    }
    b.lastWriter = dev;
    b.lastWriterStream = stream.id;
    const c = b.copies[dev]!;
    c.lastStream = stream.id;
    c.valid = true;
    if (b.hostValid) {
      b.hostValid = false;
      this.offHost++;
    }
    b.copies.forEach((o, d) => { if (o !== undefined && d !== dev) o.valid = false; });
  }

  /** XXH64 of `b`'s host bytes, read in place: how the runtime notices host writes it must not miss. */
  hashHost(b: AnyBuffer): bigint {
    this.hashedBytes += b.host.byteLength;
    return this.backend.native.hash64(b.host);
  }

  /**
   * A host task may write `b` (it holds it through a consumable input): from now on the host copy
   * is the only current one, and the next device task copies it in again.
   */
  hostWrites(b: AnyBuffer): void {
    b.version++;
    for (const c of b.copies) if (c !== undefined) c.valid = false;
    b.lastWriter = -1;
    b.lastWriterStream = -1;
  }

  /**
   * A fence ended: the program may now write host arrays outside tasks. Records the hash of every
   * host copy that equals a device copy and has none at its version, so that the next phase's
   * first acquisition of the buffer can tell ({@link checkProgramWrites}).
   */
  phaseEnded(): void {
    this.phase++;
    if (this.copies === 0) return;
    for (const m of this.lru) {
      for (const b of m.keys()) if (b.refVersion !== b.version && this.coherent(b)) this.setRef(b, this.hashHost(b));
    }
  }

  /** `b`'s host copy is current and equals a device copy that is valid too. */
  coherent(b: AnyBuffer): boolean {
    return b.hostValid && !b.scratch && b.toHostPending === undefined && b.copies.some((c) => c !== undefined && c.valid);
  }

  /**
   * A copy of `b` was freed or found invalid: with no valid copy left, its host copy may change
   * (the program's writes bump no version) before a copy is made from it again, so the hash taken
   * earlier no longer says what a device holds.
   */
  private lostCopy(b: AnyBuffer): void {
    if (!b.copies.some((c) => c !== undefined && c.valid)) b.refVersion = -1;
  }

  /** `h` is the hash of `b.host`, which equals its valid device copies now. */
  setRef(b: AnyBuffer, h: bigint): void {
    b.refHash = h;
    b.refVersion = b.version;
  }

  /**
   * The hash of `b.host` as it is now, where known without hashing: the host copy is current and
   * unwritten since the hash was taken, and the program's writes since the last fence were checked
   * for (or a copy home this phase wrote over them). A body's writes after a wait are not counted
   * until they are settled; a watch that compares with this hash then sees the version move.
   */
  knownHash(b: AnyBuffer): bigint | undefined {
    return b.refVersion === b.version && b.checkedPhase === this.phase && b.hostValid && !b.scratch ? b.refHash : undefined;
  }

  /** Where a copy of `b` should hash the bytes it moves: a slot for large arrays, else none. */
  copyHash(b: AnyBuffer): BigUint64Array | undefined {
    return b.bytes >= OFF_THREAD_BYTES ? new BigUint64Array(1) : undefined;
  }

  /** {@link hashHost}, off the JS thread for large arrays: the caller keeps `b.host` unwritten until it settles, or checks `b.version`. */
  hashSoon(b: AnyBuffer): Promise<bigint> {
    if (b.host.byteLength < OFF_THREAD_BYTES) return Promise.resolve(this.hashHost(b));
    return this.backend.native.hash64Async(b.host);
  }

  /**
   * The first acquisition of `b` in this phase: a host array that changed since the hash taken
   * when it last equalled the device copies (the program wrote it between fences, in place or
   * through a typed array of the same memory) makes the host copy the only current one.
   */
  private checkProgramWrites(b: AnyBuffer): void {
    if (this.hasRef(b)) this.programWritesJudged(b, this.hashHost(b));
    else b.checkedPhase = this.phase;
  }

  /** `b` has a hash of its host array that still stands for its device copies (what the program may have written since is told by hashing again). */
  private hasRef(b: AnyBuffer): boolean {
    return b.refVersion === b.version && this.coherent(b);
  }

  /** `b`'s host array hashes to `h` at the phase's first acquisition: changed since its reference, the host copy is the current one. */
  private programWritesJudged(b: AnyBuffer, h: bigint): void {
    b.checkedPhase = this.phase;
    if (h !== b.refHash) this.hostWrites(b);
  }

  /**
   * What an acquisition of `bufs` waits for before it takes the device lock: judgements of a
   * body's host writes still running (host-writes.ts), and {@link checkProgramWrites} of the large
   * arrays, hashed off the JS thread; undefined when there is nothing to wait for.
   */
  private checksBeforeAcquiring(bufs: readonly AnyBuffer[]): Promise<unknown> | undefined {
    let later: Array<Promise<unknown>> | undefined;
    for (const b of bufs) {
      const pending = judging(b);
      if (pending !== undefined) {
        (later ??= []).push(pending);
        continue;
      }
      if (b.checkedPhase === this.phase || b.bytes < OFF_THREAD_BYTES || !this.hasRef(b)) continue;
      const version = b.version;
      (later ??= []).push(this.hashSoon(b).then((h) => {
        // checked by another acquisition meanwhile, or written (then the host copy is current anyway)
        if (b.checkedPhase !== this.phase && b.version === version) this.programWritesJudged(b, h);
      }));
    }
    return later === undefined ? undefined : Promise.all(later);
  }

  /** `toHost()` called by the program: once the host copy is current, its hash is taken while a device copy stays valid. */
  toHostForProgram(b: AnyBuffer): Promise<void> | undefined {
    const p = this.toHost(b);
    if (p === undefined) return undefined;
    return p.then(() => {
      if (b.refVersion !== b.version && this.coherent(b)) this.setRef(b, this.hashHost(b));
    });
  }

  /** The host copy is current again. */
  setHostValid(b: AnyBuffer): void {
    if (b.hostValid) return;
    b.hostValid = true;
    this.offHost--;
  }

  /** Starts copying `b` back to the host if its host copy is stale; undefined when it is current. */
  toHost(b: AnyBuffer): Promise<void> | undefined {
    if (b.hostValid) return undefined;
    // a copy overtaken by a later write leaves the host stale: then copy again
    if (b.toHostPending !== undefined) return b.toHostPending.then(() => this.toHost(b));
    const dev = b.copies.findIndex((c) => c !== undefined && c.valid);
    if (dev < 0) {
      this.setHostValid(b);  // nothing valid anywhere (e.g. scratch): the host copy is as good as any
      return undefined;
    }
    const p = this.copyToHost(b, dev, b.copies[dev]!).finally(() => { b.toHostPending = undefined; });
    b.toHostPending = p;
    return p;
  }

  /**
   * Enqueues a device-to-host copy of `b` on `stream` (no wait), pinning the copy it reads; the
   * caller reports its end with {@link copiedBack} and the version returned here (-1: nothing
   * enqueued, the host copy is current or `b` is not valid on this device); with `hash` (from
   * {@link copyHash}), the copy hashes the bytes it writes there.
   */
  enqueueCopyBack(b: AnyBuffer, stream: Stream, hash?: BigUint64Array): number {
    const c = b.copies[stream.device];
    if (this.backend.inPlace || stream.device === this.backend.hostPlace || b.hostValid || b.scratch || c === undefined || !c.valid) return -1;
    this.streams.copy(stream, 'D', b.host, c.handle, b.bytes, false, undefined, hash);
    c.pins++;
    this.counters[stream.device]!.d2h_bytes += b.bytes;
    return b.version;
  }

  /**
   * A copy back from {@link enqueueCopyBack} has run: unpins, and the host is current unless `b`
   * was written since (then the hash the copy took, if any, is the host's reference).
   */
  copiedBack(b: AnyBuffer, device: number, version: number, hash?: BigUint64Array): void {
    const c = b.copies[device];
    if (c !== undefined) this.unpin(c, device);
    if (b.version !== version) return;
    if (hash !== undefined && !b.hostValid) this.cameHome(b, hash[0]!);
    this.setHostValid(b);
  }

  /** A copy home that hashed what it wrote (`h`) made the stale host array current. */
  private cameHome(b: AnyBuffer, h: bigint): void {
    this.setRef(b, h);
    b.checkedPhase = this.phase;  // it wrote over whatever the program had written to the stale array
  }

  /**
   * The host copy of `b` is current and `b` is pinned by the task on `stream`: copies it into the
   * device copy on `stream`, ahead of the ops enqueued after it (a task on another stream waits for
   * it through `ready`, as for any copy in).
   */
  refill(b: AnyBuffer, stream: Stream, owner: Acquirer): void {
    const c = b.copies[stream.device]!;
    c.lastStream = stream.id;
    this.copyIn(b, c, stream, owner);
    c.valid = true;
  }

  /** Copies every stale host copy back (before finalize or a backend switch). */
  async drainAll(): Promise<void> {
    const ps: Array<Promise<void>> = [];
    for (const m of this.lru) for (const b of m.keys()) { const p = this.toHost(b); if (p !== undefined) ps.push(p); }
    await Promise.all(ps);
  }

  /** Forgets every device copy and the pool's slabs (their memory is freed by the native stop). */
  forgetAll(): void {
    for (const m of this.lru) for (const b of m.keys()) { b.copies = []; b.hostValid = true; b.refVersion = -1; }
    for (const m of this.lru) m.clear();
    this.pool.clear();
    this.offHost = 0;
    this.copies = 0;
  }

  private async copyToHost(b: AnyBuffer, dev: number, c: DeviceCopy): Promise<void> {
    for (;;) {
      // On the stream that last wrote the copy, so the copy is ordered after that write.
      const s = this.streams.all[c.lastStream] ?? this.streams.pick(dev);
      const version = b.version;
      const hash = this.copyHash(b);
      c.pins++;
      this.counters[dev]!.d2h_bytes += b.bytes;
      try {
        await this.streams.copy(s, 'D', b.host, c.handle, b.bytes, true, undefined, hash);
      } finally {
        this.unpin(c, dev);
      }
      if (b.version === version && !b.hostValid && hash !== undefined) this.cameHome(b, hash[0]!);
      if (b.version === version || b.hostValid) break;
      // written again while the copy ran: copy what is current now
      dev = b.copies.findIndex((o) => o !== undefined && o.valid);
      if (dev < 0) break;
      c = b.copies[dev]!;
    }
    this.setHostValid(b);
  }

  private unpin(c: DeviceCopy, dev: number): void {
    if (--c.pins === 0) this.wakeUnpinned(dev);
  }

  /** A new copy of `b` on `dev`, evicting unpinned copies for room; undefined when none is left to evict. */
  private async allocate(b: AnyBuffer, dev: number, ctx: TtgErrorContext): Promise<DeviceCopy | undefined> {
    const cap = this.backend.capacity[dev]!;
    for (;;) {
      if (this.used[dev]! + b.bytes <= cap) {
        const h = this.pool.take(dev, b.bytes);
        if (h !== null) {
          const c: DeviceCopy = { handle: h, valid: false, pins: 0, ready: undefined, lastStream: -1 };
          b.copies[dev] = c;
          this.used[dev]! += b.bytes;
          this.copies++;
          this.lru[dev]!.set(b, true);
          return c;
        }
        // The real allocator disagrees with our accounting (other processes, CUDA's own use; the
        // pool has freed its empty slabs): evict more,
        // or wait for pins to drop; with nothing pinned, waiting would never help.
        if (this.victim(dev) === undefined && !this.anyPinned(dev)) throw DeviceErrors.allocFailed(dev, b.bytes, ctx);
      }
      const v = this.victim(dev);
      if (v === undefined) return undefined;
      await this.evict(v, dev);
    }
  }

  private anyPinned(dev: number): boolean {
    for (const b of this.lru[dev]!.keys()) if (b.copies[dev]!.pins !== 0) return true;
    return false;
  }

  /** Resolves at the next unpin on `dev` (or {@link wakeWaiters}). */
  private nextUnpin(dev: number): Promise<void> {
    return new Promise<void>((resolve) => this.unpinWaiters[dev]!.push(resolve));
  }

  private victim(dev: number): AnyBuffer | undefined {
    for (const b of this.lru[dev]!.keys()) if (b.copies[dev]!.pins === 0) return b;
    return undefined;
  }

  private async evict(b: AnyBuffer, dev: number): Promise<void> {
    const c = b.copies[dev]!;
    const onlyCopy = c.valid && !b.hostValid && !b.scratch && !b.copies.some((o, d) => d !== dev && o !== undefined && o.valid);
    if (onlyCopy) await this.toHost(b);
    if (c.pins !== 0 || b.copies[dev] !== c) return;
    this.pool.give(c.handle!);
    b.copies[dev] = undefined;
    this.lostCopy(b);
    this.used[dev]! -= b.bytes;
    this.copies--;
    this.lru[dev]!.delete(b);
    this.counters[dev]!.evictions++;
  }

  private touch(dev: number, b: AnyBuffer): void {
    const m = this.lru[dev]!;
    m.delete(b);
    m.set(b, true);
  }

  private wakeUnpinned(dev: number): void {
    const w = this.unpinWaiters[dev]!;
    if (w.length === 0) return;
    this.unpinWaiters[dev] = [];
    for (const f of w) f();
  }

  private async locked<T>(dev: number, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks[dev]!;
    let unlock!: () => void;
    this.locks[dev] = new Promise<void>((r) => { unlock = r; });
    await prev;
    try {
      return await fn();
    } finally {
      unlock();
    }
  }
}
