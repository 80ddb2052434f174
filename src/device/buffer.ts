/**
 * `ttg.Buffer`: a block of host memory (a TypedArray) plus the bookkeeping the device layer needs
 * to keep copies of it on devices: where a valid copy lives, who wrote it last, and how many
 * running tasks pin each copy. Decisions about copies are made by the memory manager; the buffer
 * only records state.
 */
import { DeviceErrors } from './errors.js';

/** TypedArrays a Buffer may hold (kernels need Float64Array; dpotrf's info an Int32Array). */
export type BufferArray =
  | Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array
  | BigInt64Array | BigUint64Array;

/** One device's copy of a buffer (internal). */
export interface DeviceCopy {
  /** Native allocation handle; null when the backend uses host memory in place. */
  handle: number | null;
  /** The copy holds the buffer's current contents (or will, once `ready` settles). */
  valid: boolean;
  /** Running tasks (and in-flight copies) that need this copy to stay allocated. */
  pins: number;
  /** Pending host-to-device copy and the global stream it runs on. */
  ready: Promise<void> | undefined;
  /** Global stream of the last op that wrote or filled this copy (later copies queue behind it). */
  lastStream: number;
}

/** What a use of `b`'s copies waits for: judgements of host writes to it still running on workers; undefined when none. */
export function judging(b: AnyBuffer): Promise<unknown> | undefined {
  const w = b.hostCheck?.done;
  const r = b.readOnlyCheck;
  return w === undefined ? r : r === undefined ? w : Promise.all([w, r]);
}

/** A pending judgement of whether a body wrote a buffer's host array since it was hashed as `hash` at `version`. */
export interface HostCheck {
  readonly hash: bigint;
  readonly version: number;
  /** Settles once judged (never rejects). */
  readonly done: Promise<void>;
}

/** Memory shared between the host and any devices, tracked for validity and residency. */
export class Buffer<T extends BufferArray = Float64Array> {
  /** The host TypedArray. Valid on the host after `yield ttg.device.kernel(buf)`, in host tasks, or after `await buf.toHost()`. */
  readonly host: T;
  /** True when the buffer allocated `host` itself; false when it wraps memory the caller passed. */
  readonly owning: boolean;
  /** Scratch buffers live only on devices: never copied in or out. */
  readonly scratch: boolean;
  /** @internal the host copy is current. */
  hostValid = true;
  /** @internal per-device copies, indexed by device (not enumerable, like `toHostPending`: `structuredClone` of a value holding the buffer skips their promises). */
  declare copies: Array<DeviceCopy | undefined>;
  /** @internal device that wrote last (-1: the host). */
  lastWriter = -1;
  /** @internal global id of the stream whose kernel wrote last (-1: none); its worker's cache holds the data. */
  lastWriterStream = -1;
  /** @internal bumped by every write (a kernel's or the host's): a copy started before a write does not make its side current. */
  version = 0;
  /** @internal tasks whose queued work still reads this buffer after they sent it on (queued-reads.ts). */
  queuedReaders = 0;
  /** @internal hash of the host array when it last equalled a device copy, at version `refVersion` (host-writes.ts). */
  refHash = 0n;
  /** @internal the version `refHash` was taken at (-1: none). */
  refVersion = -1;
  /** @internal the phase (fence) whose first acquisition of this buffer checked for the program's host writes. */
  checkedPhase = -1;
  /** @internal a device-to-host copy in flight. */
  declare toHostPending: Promise<void> | undefined;
  /** @internal a body's host writes to this buffer being judged on a worker (host-writes.ts). */
  declare hostCheck: HostCheck | undefined;
  /** @internal a read-only host task's check of this buffer running on a worker (read-only.ts); settles, never rejects. */
  declare readOnlyCheck: Promise<void> | undefined;

  /**
   * `new Buffer(n)` owns a zeroed `Float64Array(n)`; `new Buffer(array)` wraps the caller's
   * TypedArray without copying (non-owning: the caller must not replace it, only its contents).
   */
  constructor(length: number, options?: { scratch?: boolean });
  constructor(data: T, options?: { scratch?: boolean });
  constructor(data: T | number, options: { scratch?: boolean } = {}) {
    if (typeof data === 'number') {
      if (!Number.isInteger(data) || data < 0) throw DeviceErrors.invalid('new ttg.Buffer(length)', `needs a non-negative integer length, got ${String(data)}`);
      this.host = new Float64Array(data) as unknown as T;
      this.owning = true;
    } else if (ArrayBuffer.isView(data) && !(data instanceof DataView)) {
      this.host = data;
      this.owning = false;
    } else {
      throw DeviceErrors.invalid('new ttg.Buffer(data)', 'takes a TypedArray or a length');
    }
    this.scratch = options.scratch === true;
    Object.defineProperties(this, {
      copies: { value: [], writable: true }, toHostPending: { value: undefined, writable: true }, hostCheck: { value: undefined, writable: true },
      readOnlyCheck: { value: undefined, writable: true },
    });
  }

  /** Number of elements. */
  get length(): number {
    return this.host.length;
  }

  /** Size in bytes. */
  get bytes(): number {
    return this.host.byteLength;
  }

  /** Devices holding a valid copy (the host is not listed; see {@link Buffer.validOnHost}). */
  get devices(): number[] {
    const out: number[] = [];
    this.copies.forEach((c, d) => { if (c !== undefined && c.valid) out.push(d); });
    return out;
  }

  /** True when `host` holds the current contents. */
  get validOnHost(): boolean {
    return this.hostValid;
  }

  /** Device that wrote the buffer last, or -1 for the host. */
  get last_writer(): number {
    return this.lastWriter;
  }

  /** Makes the host copy current (copies back from a device if needed). */
  toHost(): Promise<void> {
    return toHostImpl(this) ?? Promise.resolve();
  }
}

/** Installed by the memory manager; keeps buffer.ts free of an import cycle. */
let toHostImpl: (b: Buffer<BufferArray>) => Promise<void> | undefined = () => undefined;

/** @internal wires {@link Buffer.toHost} to the memory manager. */
export function setToHostImpl(fn: (b: Buffer<BufferArray>) => Promise<void> | undefined): void {
  toHostImpl = fn;
}

/** Any buffer, whatever its element type. */
export type AnyBuffer = Buffer<BufferArray>;
