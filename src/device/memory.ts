/**
 * Memory manager: which buffers have copies on which device, how much of each device is used,
 * and what to evict. A task pins its buffers on its device from `input()` until the task ends
 * (after everything it enqueued has run); unpinned copies are evicted least-recently-used first, dirty ones (the only
 * current copy) copied back to the host before their memory is freed. Read-only buffers may have
 * valid copies on several devices at once; a write on one device invalidates the others.
 *
 * Residency changes on a device happen under a per-device lock, one task at a time, so a task
 * that waits for memory holds no lock another running task needs: it waits only for pins to drop,
 * which running tasks do without the lock. Hence no deadlock, and a task whose own pinned set
 * exceeds the device fails at once with E_DEVICE_MEMORY instead of waiting forever.
 */
import type { TtgErrorContext } from '../base/errors.js';
import type { Backend } from './backend.js';
import type { AnyBuffer, DeviceCopy } from './buffer.js';
import { DeviceErrors } from './errors.js';
import type { Stream, StreamManager } from './streams.js';

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
  }

  /** Buffers with a copy on `device`, least recently used first. */
  resident(device: number): AnyBuffer[] {
    return [...this.lru[device]!.keys()];
  }

  /**
   * Makes `bufs` valid on `stream`'s device and pins them (adding them to `pinned`). Resolves
   * when ops enqueued on `stream` may use them: copies this call enqueues on `stream` need no
   * wait (the stream is in order); copies still running on other streams are awaited.
   */
  async acquire(bufs: readonly AnyBuffer[], stream: Stream, pinned: AnyBuffer[], ctx: TtgErrorContext): Promise<void> {
    const dev = stream.device;
    if (dev === this.backend.hostPlace) {
      // The host place works on the host copies: bring home what is current only on a device.
      for (const b of bufs) if (!pinned.includes(b)) pinned.push(b);
      const home = bufs.map((b) => (b.scratch ? undefined : this.toHost(b))).filter((p) => p !== undefined);
      if (home.length !== 0) await Promise.all(home);
      return;
    }
    const cap = this.backend.capacity[dev]!;
    let need = 0;
    for (const b of new Set([...pinned, ...bufs])) need += b.bytes;
    if (need > cap) throw DeviceErrors.pinnedSetTooLarge(dev, need, cap, ctx);
    const waits: Array<Promise<void>> = [];
    await this.locked(dev, async () => {
      for (const b of bufs) {
        if (pinned.includes(b)) continue;
        let c = b.copies[dev];
        if (c !== undefined && c.valid) {
          c.pins++;
          pinned.push(b);
          this.touch(dev, b);
          if (c.ready !== undefined && c.lastStream !== stream.id) waits.push(c.ready);
          continue;
        }
        // Valid only on another device: bring it home first (device -> host -> device).
        if (!b.hostValid && !b.scratch) await this.toHost(b);
        if (c === undefined) c = await this.allocate(b, dev, ctx);
        c.pins++;
        pinned.push(b);
        c.lastStream = stream.id;
        if (!b.scratch && b.bytes > 0) {
          const ready = this.streams.copy(stream, 'H', c.handle, b.host, b.bytes, true)!;
          this.counters[dev]!.h2d_bytes += b.bytes;
          const copy = c;
          copy.ready = ready;
          void ready.then(() => { if (copy.ready === ready) copy.ready = undefined; });
        }
        c.valid = true;
      }
    });
    if (waits.length !== 0) await Promise.all(waits);
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

  /** Records that a kernel on `stream` writes `b`: the device copy becomes the only current one. */
  markWritten(b: AnyBuffer, stream: Stream): void {
    const dev = stream.device;
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

  /**
   * A host task may write `b` (it holds it through a consumable input): from now on the host copy
   * is the only current one, and the next device task copies it in again.
   */
  hostWrites(b: AnyBuffer): void {
    for (const c of b.copies) if (c !== undefined) c.valid = false;
    b.lastWriter = -1;
    b.lastWriterStream = -1;
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
    if (b.toHostPending !== undefined) return b.toHostPending;
    const dev = b.copies.findIndex((c) => c !== undefined && c.valid);
    if (dev < 0) {
      this.setHostValid(b);  // nothing valid anywhere (e.g. scratch): the host copy is as good as any
      return undefined;
    }
    const p = this.copyToHost(b, dev, b.copies[dev]!).finally(() => { b.toHostPending = undefined; });
    b.toHostPending = p;
    return p;
  }

  /** Enqueues a device-to-host copy of `b` on `stream` (no wait); the caller marks it valid later. */
  enqueueCopyBack(b: AnyBuffer, stream: Stream): boolean {
    const c = b.copies[stream.device];
    if (this.backend.inPlace || stream.device === this.backend.hostPlace || b.hostValid || b.scratch || c === undefined || !c.valid) return false;
    this.streams.copy(stream, 'D', b.host, c.handle, b.bytes, false);
    this.counters[stream.device]!.d2h_bytes += b.bytes;
    return true;
  }

  /** Copies every stale host copy back (before finalize or a backend switch). */
  async drainAll(): Promise<void> {
    const ps: Array<Promise<void>> = [];
    for (const m of this.lru) for (const b of m.keys()) { const p = this.toHost(b); if (p !== undefined) ps.push(p); }
    await Promise.all(ps);
  }

  /** Forgets every device copy (their memory is freed by the native stop). */
  forgetAll(): void {
    for (const m of this.lru) for (const b of m.keys()) { b.copies = []; b.hostValid = true; }
    for (const m of this.lru) m.clear();
    this.offHost = 0;
    this.copies = 0;
  }

  private async copyToHost(b: AnyBuffer, dev: number, c: DeviceCopy): Promise<void> {
    // On the stream that last wrote the copy, so the copy is ordered after that write.
    const s = this.streams.all[c.lastStream] ?? this.streams.pick(dev);
    c.pins++;
    this.counters[dev]!.d2h_bytes += b.bytes;
    await this.streams.copy(s, 'D', b.host, c.handle, b.bytes, true);
    if (--c.pins === 0) this.wakeUnpinned(dev);
    this.setHostValid(b);
  }

  private async allocate(b: AnyBuffer, dev: number, ctx: TtgErrorContext): Promise<DeviceCopy> {
    const cap = this.backend.capacity[dev]!;
    for (;;) {
      if (this.used[dev]! + b.bytes <= cap) {
        const h = this.backend.native.devAlloc(dev, b.bytes);
        if (h !== null) {
          const c: DeviceCopy = { handle: h, valid: false, pins: 0, ready: undefined, lastStream: -1 };
          b.copies[dev] = c;
          this.used[dev]! += b.bytes;
          this.copies++;
          this.lru[dev]!.set(b, true);
          return c;
        }
        // The real allocator disagrees with our accounting (CUDA fragmentation): evict more.
        if (this.victim(dev) === undefined) throw DeviceErrors.allocFailed(dev, b.bytes, ctx);
      }
      const v = this.victim(dev);
      if (v !== undefined) await this.evict(v, dev);
      else await new Promise<void>((resolve) => this.unpinWaiters[dev]!.push(resolve));
    }
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
    this.backend.native.devFree(c.handle!);
    b.copies[dev] = undefined;
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
