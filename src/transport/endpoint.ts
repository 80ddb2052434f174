/**
 * This process's MPI endpoint: the addon's comm thread, shared by every world of the process.
 * It reads the batches of arrivals and hands each message to the transport of its world. A
 * message of a split world carries the receiver's id of the world in a byte after its header,
 * flagged by bit 7 of the header's second byte (phase.ts uses bit 6; neither header kind sets
 * either); the default world's messages carry nothing extra. Point-to-point traffic of every world uses the job's
 * communicators with job ranks; a split world's collectives use its own communicator.
 */
import { Errors, type TtgError } from '../base/errors.js';
import { jsPollUs } from '../base/settings.js';
import { abortJobOnFailedExit } from './exit-on-error.js';
import { ArrivalField, ArrivalKind, lentBuffers, PayloadMode, type ArrivalExtra, type NativeAddon } from '../native/addon.js';
import { InFlight } from './in-flight.js';

const NO_BYTES: Uint8Array = new Uint8Array(0);
const NO_SIZES = new Float64Array(0);

/** Polls after batches of messages in a row without a turn of the event loop (see `chainFn`). */
const CHAINED_POLLS = 16;

/** Bit of a header's second byte: the header ends with a world id byte. */
export const WORLD_BIT = 0x80;
/** Highest world id (one byte). */
export const MAX_WORLD_ID = 255;

/** `bytes` followed by the id of the (split) world they belong to, flagged in the second byte. */
export function withWorld(bytes: Uint8Array, id: number): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  out[1] = out[1]! | WORLD_BIT;
  out[bytes.length] = id;
  return out;
}

/** One arriving message, as the endpoint hands it to its world's transport. */
export interface Arrival {
  /** Sender's job rank. */
  src: number;
  /** Header bytes (valid during the call only; without the world byte). */
  header: Uint8Array;
  sizes: Float64Array;
  /** Native message id, for `recv`. */
  id: number;
  buffers: ArrayBuffer[] | undefined;
  eager: Uint8Array | undefined;
}

/** What the endpoint needs of a world's transport. */
export interface WorldReceiver {
  /** A message of this world arrived. */
  onMessage(a: Arrival): void;
  /**
   * Handles `bytes[at, end)`, the header of a message of this world from `src` with no payload,
   * at once if it is a small one that nothing makes wait (no arrival object, no view of the
   * header); false: it is not, and comes again through {@link onMessage}.
   */
  takeSmall(src: number, bytes: Uint8Array, at: number, end: number): boolean;
  /** The payload of a message whose header said it would be received later is in. */
  onPayload(id: number): void;
  /** An error of the comm thread, or one thrown while handling an arrival. */
  onError(e: unknown): void;
  /** Runs `fn` (handling a batch) and then the tasks it made ready. */
  batch(fn: () => void): void;
}

/** The comm thread and the worlds that use it. */
export class MpiEndpoint {
  readonly rank: number;
  readonly size: number;
  private readonly worlds = new Map<number, WorldReceiver>();
  /** Messages for world ids not made here yet, copied (a peer finished its split first). */
  private readonly early = new Map<number, Arrival[]>();
  /** Which world receives the payload of message id. */
  private readonly receiving = new Map<number, WorldReceiver>();
  private holds = 0;
  /** Values that sends in flight still read (they count as holders for copy-on-write). */
  readonly inFlight = new InFlight();
  /** Resolves once the last split called here entered MPI_Comm_split. */
  private lastSplit: Promise<void> = Promise.resolve();
  /** World ids in use here, and those reserved by a split in progress. */
  private readonly worldIds = new Set<number>([0]);
  finalized = false;
  /** Set when a world gave up on a hang: the job must end with an abort. */
  broken: TtgError | undefined = undefined;
  private readonly pollUs = jsPollUs();
  private pollQueued = false;
  /** The last batch brought messages: a reply to what they made this rank send may follow. */
  private afterMessages = false;
  private readonly onBatchFn = (meta: Float64Array, bytes: Uint8Array, extra: ArrivalExtra, length: number): boolean => this.onBatch(meta, bytes, extra, length);
  /**
   * Polls for the next batch after the event loop's other callbacks (and the microtasks of this
   * batch's tasks) have run: a message expected in a few microseconds is then handled without
   * the wake-up of a sleeping event loop, which costs more than the message itself. A poll that
   * found a batch without arrivals (a fence wave's completion, sends done) polls again, since no
   * onBatch will: the next message of an exchange is still on its way. It polls while a world
   * waits (a fence, a collective) and after a batch of messages, also outside fences: a program
   * awaiting its own promise exchanges messages as fast.
   */
  private readonly pollFn = () => {
    this.chained = 0;
    this.pollNow();
  };
  /**
   * After a batch of messages the next poll skips the event loop's turn (~0.8 µs, as much as the
   * rest of a hop's JS): a microtask queued last runs after this batch's microtasks, and the tick
   * it queues after every microtask they queue in turn (Node drains the microtask queue before the
   * next tick), so an async body's steps still run before this thread waits in the poll. At most
   * {@link CHAINED_POLLS} in a row: then a turn lets timers and I/O in.
   */
  private chained = 0;
  private readonly chainFn = () => process.nextTick(this.pollNowFn);
  private readonly pollNowFn = () => this.pollNow();

  private pollNow(): void {
    this.pollQueued = false;
    if (this.finalized) return;
    // A poll of 0 µs (nothing expected any more) takes what is ready and tells the comm thread
    // that this thread stops looking at MPI: it no longer leaves the polling to this thread.
    const us = this.holds > 0 || this.afterMessages ? this.pollUs : 0;
    this.afterMessages = false;
    if (this.native.poll(us, this.onBatchFn) && us > 0 && !this.pollQueued) {
      this.pollQueued = true;
      setImmediate(this.pollFn);
    }
  };

  constructor(readonly native: NativeAddon) {
    const w = native.start(this.onBatchFn, (pins) => this.inFlight.done(pins));
    this.rank = w.rank;
    this.size = w.size;
    native.keepAlive(false);
    // A rank leaving on an error must take the job down, not wait in MPI_Finalize for the others.
    // After a hang a collective may be pending forever, so MPI_Finalize could block: abort too.
    // So does any rank of several that leaves before finalize(): the others would wait for it in
    // a fence (it never votes) or in MPI_Finalize.
    abortJobOnFailedExit({
      rank: this.rank,
      mustAbort: (code) => !this.finalized && (code !== 0 || this.broken !== undefined || this.size > 1),
      leftEarly: (code) => code === 0 && this.broken === undefined,
      abort: (code) => native.abort(code),
    });
  }

  /**
   * The lowest world id neither used here nor reserved by a split in progress; it stays reserved
   * until {@link addWorld} or {@link unreserve}. Ids are this process's own: a sender marks a
   * message with the id its receiver chose for the world (world-split.ts). It may exceed
   * {@link MAX_WORLD_ID}; the split then fails on every member.
   */
  reserveWorldId(): number {
    let id = 1;
    while (this.worldIds.has(id)) id++;
    this.worldIds.add(id);
    return id;
  }

  /**
   * A split's turn to enter the blocking MPI_Comm_split: `prior` resolves once the splits called
   * before it in this process have entered theirs; call `entered` once this one has (also on
   * failure). Ranks then enter concurrent splits of different worlds in the order they called them.
   */
  splitTurn(): { prior: Promise<void>; entered: () => void } {
    const prior = this.lastSplit;
    let entered!: () => void;
    this.lastSplit = new Promise<void>((resolve) => (entered = resolve));
    return { prior, entered };
  }

  /** Gives back an id that {@link reserveWorldId} reserved and that no world took. */
  unreserve(id: number): void {
    if (!this.worlds.has(id)) this.worldIds.delete(id);
  }

  /**
   * Routes world `id`'s messages to `w`, including those that arrived before it was made here.
   * An id already routed is a bug of the split protocol: it throws rather than replace a world.
   */
  addWorld(id: number, w: WorldReceiver): void {
    if (this.worlds.has(id)) throw Errors.transport(`world id ${id} is already in use on this rank`, this.rank);
    this.worldIds.add(id);
    this.worlds.set(id, w);
    const early = this.early.get(id);
    if (early === undefined) return;
    this.early.delete(id);
    w.batch(() => {
      for (const a of early) this.hand(w, a);
    });
  }

  /** Keeps the process alive while some world waits for messages (counted over the worlds). */
  hold(on: boolean): void {
    this.holds += on ? 1 : -1;
    if (!this.finalized) this.native.keepAlive(this.holds > 0);
  }

  /**
   * A collective of the main program was started: its completion is polled for (as after a batch)
   * rather than waited for through a wake-up of the event loop.
   */
  pollSoon(): void {
    if (this.pollUs > 0 && this.holds > 0 && !this.pollQueued) {
      this.pollQueued = true;
      setImmediate(this.pollFn);
    }
  }

  /** Message `id`'s payload will be received later into views of `w`. */
  expectPayload(id: number, w: WorldReceiver): void {
    this.receiving.set(id, w);
  }

  private takeSmall(w: WorldReceiver, src: number, bytes: Uint8Array, at: number, end: number): boolean {
    try {
      return w.takeSmall(src, bytes, at, end);
    } catch (e) {
      w.onError(e);
      return true;
    }
  }

  private hand(w: WorldReceiver, a: Arrival): void {
    try {
      w.onMessage(a);
    } catch (e) {
      w.onError(e);
    }
  }

  /**
   * A batch from the addon, read in place (layout: {@link ArrivalField}). True when a poll for the
   * next one is queued: the comm thread then leaves MPI to this thread.
   */
  private onBatch(meta: Float64Array, bytes: Uint8Array, extra: ArrivalExtra, length: number): boolean {
    const main = this.worlds.get(0)!;
    main.batch(() => {
      let off = 0;
      for (let m = 0, e = 0; m < length; e++) {
        const row = m;
        const nparts = meta[row + ArrivalField.Parts]!;
        m += ArrivalField.Sizes + nparts;
        const kind = meta[row + ArrivalField.Kind];
        if (kind === ArrivalKind.Recvd) {
          const id = meta[row + ArrivalField.Id]!;
          const w = this.receiving.get(id);
          this.receiving.delete(id);
          if (w === undefined) main.onError(Errors.transport(`payload for unknown message ${id}`, this.rank));
          else this.payload(w, id);
          continue;
        }
        if (kind !== ArrivalKind.Msg) {
          main.onError(Errors.transport(`comm thread: ${String((extra as unknown[])[e])}`, this.rank));
          continue;
        }
        const headerBytes = meta[row + ArrivalField.HeaderBytes]!;
        // the commonest arrival, a number or small array for the default world, without objects
        if (nparts === 0 && headerBytes > 1 && (bytes[off + 1]! & WORLD_BIT) === 0 && this.takeSmall(main, meta[row + ArrivalField.Src]!, bytes, off, off + headerBytes)) {
          off += headerBytes;
          continue;
        }
        let header = bytes.subarray(off, (off += headerBytes));
        let eager: Uint8Array | undefined;
        const mode = meta[row + ArrivalField.Mode];
        if (mode === PayloadMode.Eager) {
          off = (off + 7) & ~7;
          let n = 0;
          for (let i = row + ArrivalField.Sizes; i < m; i++) n += meta[i]!;
          eager = bytes.subarray(off, (off += n));
        }
        const sizes = nparts === 0 ? NO_SIZES : meta.subarray(row + ArrivalField.Sizes, m);
        const buffers = mode === PayloadMode.Lent ? lentBuffers(extra, e) : undefined;
        let world = 0;
        if (header.length > 1 && (header[1]! & WORLD_BIT) !== 0) {
          world = header[header.length - 1]!;
          header = header.subarray(0, header.length - 1);
          header[1] = header[1]! ^ WORLD_BIT;
        }
        const a: Arrival = { src: meta[row + ArrivalField.Src]!, header: header.length === 0 ? NO_BYTES : header, sizes, id: meta[row + ArrivalField.Id]!, buffers, eager };
        const w = this.worlds.get(world);
        if (w === undefined) this.keepEarly(world, a);
        else if (w === main) this.hand(w, a);
        else w.batch(() => this.hand(w, a));
      }
    });
    if (length > 0) this.afterMessages = true;
    if (this.pollUs > 0 && (this.holds > 0 || this.afterMessages) && !this.pollQueued) {
      this.pollQueued = true;
      if (length > 0 && this.chained < CHAINED_POLLS) {
        this.chained++;
        queueMicrotask(this.chainFn);
      } else {
        setImmediate(this.pollFn);
      }
    }
    return this.pollQueued;
  }

  private payload(w: WorldReceiver, id: number): void {
    try {
      w.onPayload(id);
    } catch (e) {
      w.onError(e);
    }
  }

  /** Copies an arrival for a world not made here yet (the batch's memory is reused). */
  private keepEarly(world: number, a: Arrival): void {
    let list = this.early.get(world);
    if (list === undefined) this.early.set(world, (list = []));
    list.push({ ...a, header: a.header.slice(), sizes: a.sizes.slice(), eager: a.eager?.slice() });
  }
}
