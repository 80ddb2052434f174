/**
 * Small messages to one rank travel together. Each MPI message costs both ranks a native call,
 * a trip through the comm thread and an arrival event; a send of one small value to a key on
 * another rank paid all of it alone. Messages with a header and no payload parts (keys, numbers,
 * small objects) of at most {@link SMALL_MESSAGE_BYTES} now wait in one buffer per destination and
 * leave as one message: when the buffer reaches its limit, when the task that sent them ends (the
 * next task may be long, and the receiver may be waiting), when other code that sent them has run
 * to its end (a batch of arrivals handled, or a microtask later: the main program's turn, an async
 * body's step), before a termination wave, a collective or finalize, and before any other message
 * to the same rank, so per-sender order holds. A task that sends many small values (a histogram's
 * updates, a gather's requests) sends one message per destination and buffer.
 *
 * A batch is a header of its own: the bytes [0x92, Wire.Batch], then each message as a u32
 * (little-endian) length and its header as it would have travelled alone (phase bit included).
 * Termination counting is per message inside: the sender counted each when it was shipped, the
 * receiver counts each when it is handled.
 */
import { Wire } from '../ttg/common/wire.js';

/** The first two bytes of a batch's header (a msgpack fixarray of 2, then the kind). */
const BATCH_HEAD = [0x92, Wire.Batch] as const;
/** Messages whose header is longer travel alone. */
export const SMALL_MESSAGE_BYTES = 1024;

/** Whether `header` (its phase bit taken out) is a batch. */
export function isBatch(header: Uint8Array): boolean {
  return header[0] === BATCH_HEAD[0] && header[1] === BATCH_HEAD[1];
}

/**
 * Calls `each` with every message header of `batch`, `batch[at, end)`, in the order they were sent
 * (the bounds, not a subarray: most small messages are read in place).
 */
export function forEachInBatch(batch: Uint8Array, each: (batch: Uint8Array, at: number, end: number) => void): void {
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  let o = BATCH_HEAD.length;
  while (o < batch.length) {
    if (o + 4 > batch.length) throw new Error(`a batch of ${batch.length} bytes ends inside the length at ${o}`);
    const n = view.getUint32(o, true);
    o += 4;
    if (o + n > batch.length) throw new Error(`a batch of ${batch.length} bytes holds a message of ${n} bytes at ${o}`);
    each(batch, o, o + n);
    o += n;
  }
}

/** The buffers of small messages waiting for their destination, one per rank. */
export class Batches {
  /** Per destination: its buffer (reused: the addon copies a header when it is sent), or undefined. */
  private readonly buffers: Array<Uint8Array | undefined>;
  /** Per destination: bytes used in its buffer, its two head bytes included. */
  private readonly used: Int32Array;
  /** Per destination: messages waiting. */
  private readonly counts: Int32Array;
  private readonly views: Array<DataView | undefined>;
  private flushQueued = false;
  /** Messages waiting, over all destinations. */
  private pending = 0;
  /** Messages ever added. */
  private adds = 0;
  private readonly flushLater = (): void => {
    this.flushQueued = false;
    this.flushAll();
  };

  constructor(
    size: number,
    /** A destination's buffer leaves once it holds this many bytes. */
    private readonly limit: number,
    /** Sends one header to `dest`: a batch of `count` messages, or one message alone (`count` 1). */
    private readonly send: (dest: number, header: Uint8Array, count: number) => void,
  ) {
    this.buffers = new Array<Uint8Array | undefined>(size).fill(undefined);
    this.views = new Array<DataView | undefined>(size).fill(undefined);
    this.used = new Int32Array(size);
    this.counts = new Int32Array(size);
  }

  /** Messages waiting, over all destinations. */
  get waiting(): number {
    return this.pending;
  }

  /** Messages ever added (a count that only grows). */
  get added(): number {
    return this.adds;
  }

  /** Whether messages for `dest` wait. */
  has(dest: number): boolean {
    return this.counts[dest] !== 0;
  }

  /** Adds a message's header (phase bit stamped; at most {@link SMALL_MESSAGE_BYTES}) for `dest`. */
  add(dest: number, header: Uint8Array): void {
    let buf = this.buffers[dest];
    if (buf === undefined) {
      buf = this.buffers[dest] = new Uint8Array(this.limit + SMALL_MESSAGE_BYTES + 4 + BATCH_HEAD.length);
      buf.set(BATCH_HEAD);
      this.views[dest] = new DataView(buf.buffer);
      this.used[dest] = BATCH_HEAD.length;
    }
    const o = this.used[dest]!;
    this.views[dest]!.setUint32(o, header.length, true);
    buf.set(header, o + 4);
    this.used[dest] = o + 4 + header.length;
    this.counts[dest]++;
    this.pending++;
    this.adds++;
    if (this.used[dest]! >= this.limit) this.flush(dest);
    else if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(this.flushLater);
    }
  }

  /** Sends what waits for `dest`, if anything. */
  flush(dest: number): void {
    const count = this.counts[dest]!;
    if (count === 0) return;
    const used = this.used[dest]!;
    this.pending -= count;
    this.counts[dest] = 0;
    this.used[dest] = BATCH_HEAD.length;
    const buf = this.buffers[dest]!;
    // alone, a message travels as it always did
    this.send(dest, count === 1 ? buf.subarray(BATCH_HEAD.length + 4, used) : buf.subarray(0, used), count);
  }

  /** Sends what waits for every rank. */
  flushAll(): void {
    for (let d = 0; d < this.counts.length; d++) if (this.counts[d] !== 0) this.flush(d);
  }
}
