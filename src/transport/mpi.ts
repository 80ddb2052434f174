/**
 * The MPI transport: active messages through the addon's comm thread, and termination detection
 * for `fence()`. Every rank counts the messages it sent and fully received; a fence repeats
 * non-blocking allreduce waves, each entered only when this rank is idle, until two consecutive
 * waves see the same totals with sent == received (the four-counter method): then no rank is
 * working and nothing is in flight, cycles and data-dependent sends included. Messages of the
 * phase after a fence wait for the receiver's fence to end (phase.ts).
 */
import { decode, encode, type DecodedMessage } from '../serialize/codec.js';
import { copyPartsFrom, packedBytes, unpackParts } from '../serialize/small-parts.js';
import { aggregateBytes, checksumRequested, traceFile } from '../base/settings.js';
import { Batches, forEachInBatch, isBatch, SMALL_MESSAGE_BYTES } from './batches.js';
import { FlushTiming } from './flush-timing.js';
import { hashBytes, hashParts } from '../serialize/checksum.js';
import { retireDetachAssumption } from './detach-protector.js';
import { Errors, TtgError } from '../base/errors.js';
import { decodeInput, encodeInlineInput, encodeInput, encodeSmallInput, INLINE_MAX_BYTES, readSmallInput, type SmallInput } from './input-header.js';
import { withWorld, type Arrival, type MpiEndpoint, type WorldReceiver } from './endpoint.js';
import { handOff } from './hand-off.js';
import { corruptError, KIND_NAMES } from './message-names.js';
import { untilQuiet, WaveCounts } from './waves.js';
import { splitPlace, type WorldPlace } from './world-split.js';
import { ReduceOpCode, type NativeAddon } from '../native/addon.js';
import { PHASE_BIT, PhaseGate, stampPhase, takePhase } from './phase.js';
import { tracer } from '../ttg/common/trace-sink.js';
import { addTrailer, takeTrailer, Trail, type Tail } from './trailer.js';
import type { LocalWork, Quiet, ReduceOp, Traffic, Transport, TransportHost } from '../ttg/common/transport.js';
import { agree, callsDiffered, CallKind, type CallSignature } from '../ttg/common/agreement.js';
import { PhaseErrors } from './phase-errors.js';
import { serializeError } from './serialize-error.js';
import { announcedError, encodeFailure } from './failures.js';
import { TraceChunks } from './trace-chunks.js';
import { rehearse } from './travel-check.js';
import { Wire, type Target, type WireMessage } from '../ttg/common/wire.js';
import { InOrder, type Step } from './in-order.js';
import { release, retain } from '../ttg/run/cow.js';

/**
 * Test probe: sees the payload views handed to the addon, so a test can prove that payloads are
 * sent from and received into the application's own arrays (no copy in JS).
 */
export const payloadProbe: {
  onSend?: (parts: readonly ArrayBufferView[]) => void;
  onRecv?: (views: readonly ArrayBufferView[]) => void;
} = {};

const FENCE: CallSignature = [CallKind.Fence, -1, -1, -1, -1];
const FINALIZE: CallSignature = [CallKind.Finalize, -1, -1, -1, -1];

const REDUCE_CODES: Record<ReduceOp, ReduceOpCode> = { sum: ReduceOpCode.Sum, min: ReduceOpCode.Min, max: ReduceOpCode.Max, prod: ReduceOpCode.Prod };

/** No payload parts. */
const NO_PARTS: ArrayBufferView[] = [];

/** Transport of one world over the process's MPI endpoint. */
export class MpiTransport implements Transport, WorldReceiver {
  readonly kind = 'mpi';
  readonly rank: number;
  readonly size: number;
  /** Messages sent (counted when handed to the addon or to a pending host migration). */
  private sent = 0;
  /** Messages received and fully handled. */
  private received = 0;
  /** The program's messages (counted ones: not summaries, votes or notices) and their bytes sent to each rank so far, by rank of the whole job. */
  readonly traffic: Traffic;
  /** Deliveries of messages whose payload is still being received, by native message id. */
  private readonly receiving = new Map<number, Step>();
  /** Each sender's messages, delivered in the order it sent them (lanes: world ranks). */
  private readonly arrivals = new InOrder((e) => this.onError(e));
  /** Sends to each rank, handed to the addon in the order the program made them (lanes: world ranks). */
  private readonly departures = new InOrder((e) => this.host.fail(Errors.handling(e, this.rank)));
  /**
   * Messages of this phase that wait until the code after the fence that opened it has run (the
   * held messages of the next phase come first); undefined when none wait.
   */
  private opening: Array<() => void> | undefined = undefined;
  /** This rank's phase; holds messages of the next one while a fence ends. */
  private readonly phase = new PhaseGate();
  /** The errors ranks raised in this phase (the fence agrees on one). */
  private readonly raised = new PhaseErrors();
  /** Trail.Checksum | Trail.Trace, or 0 when headers carry no trailer. */
  private readonly trail: number;
  /** Fence number each other rank last voted stalled (-1: moving). */
  private readonly votes = new Map<number, number>();
  /** Set when a fence gave up on a hang: the world cannot fence again. */
  private broken: TtgError | undefined;
  private readonly traceChunks: TraceChunks;
  onVote: (() => void) | undefined = undefined;
  hangNotice: TtgError | undefined = undefined;
  private host!: TransportHost;
  private readonly native: NativeAddon;
  /** Job rank of world rank r, or undefined in the default world (the same). */
  private readonly toJob: Int32Array | undefined;
  /** World rank of job rank r (-1: not in this world), or undefined in the default world. */
  private readonly toWorld: Int32Array | undefined;
  /** Whether this world keeps the process alive (a fence waiting for other ranks). */
  private holding = false;
  /** Small messages waiting to travel together, per destination (undefined: each travels alone). */
  private readonly batches: Batches | undefined;

  /** The default world's transport over `endpoint`, or (with `place`) a split world's. */
  constructor(private readonly endpoint: MpiEndpoint, private readonly place: WorldPlace = { id: 0, comm: 0, members: [], ids: [] }) {
    this.native = endpoint.native;
    this.traceChunks = new TraceChunks(place.id === 0 ? endpoint.size : place.members.length);
    // the report (TTG_REPORT alone) draws no message flows: its messages travel as untraced ones do
    this.trail = (checksumRequested() ? Trail.Checksum : 0) | (traceFile() !== undefined ? Trail.Trace : 0);
    if (place.id === 0) {
      this.rank = endpoint.rank;
      this.size = endpoint.size;
      this.toJob = undefined;
      this.toWorld = undefined;
      // Sends detach moved arrays: settle V8's assumption before any hot code is compiled.
      retireDetachAssumption();
    } else {
      this.size = place.members.length;
      this.rank = place.members.indexOf(endpoint.rank);
      this.toJob = Int32Array.from(place.members);
      this.toWorld = new Int32Array(endpoint.size).fill(-1);
      place.members.forEach((job, r) => (this.toWorld![job] = r));
    }
    this.traffic = { messages: new Float64Array(endpoint.size), bytes: new Float64Array(endpoint.size) };
    // a trailer (checksum, trace) covers one message's header: those runs send each alone
    const limit = aggregateBytes();
    this.batches = limit > 0 && this.trail === 0 ? new Batches(this.size, limit, (dest, header, count) => this.sendBatch(dest, header, count)) : undefined;
  }

  /** This world's id (0: the default world). */
  get worldId(): number {
    return this.place.id;
  }

  /** Communicator of this world's collectives. */
  get comm(): number {
    return this.place.comm;
  }

  attach(host: TransportHost): void {
    this.host = host;
    // a long task must not hold what an earlier one sent: the receiver may be waiting for it
    const batches = this.batches;
    if (batches !== undefined) host.afterEachTask(new FlushTiming(batches).afterTask);
    this.endpoint.addWorld(this.place.id, this);
  }

  batch(fn: () => void): void {
    try {
      this.host.batch(fn);
    } finally {
      // the tasks these arrivals made ready have run: what they sent leaves now. (Inside the
      // addon's callback a microtask would wait until the addon returns to the event loop.)
      this.batches?.flushAll();
    }
  }

  onError(e: unknown): void {
    this.host.fail(Errors.handling(e, this.rank));
  }

  rehearse(target: Target, value: unknown): void {
    rehearse(this.host, target, value, this.rank);
  }

  sendValue(dest: number, ttId: number, terminal: number, key: unknown, value: unknown, transfer: boolean): void {
    const batches = this.batches;
    // a number, nothing or a small typed array for a small key goes into the batch as it is
    // written: no message, no targets (what ship does for it, minus the allocations)
    if (batches !== undefined && !this.departures.busy(dest)) {
      let bytes: Uint8Array | undefined;
      if (typeof value === 'number' || value === undefined) bytes = encodeSmallInput(ttId, terminal, key, value);
      else if (ArrayBuffer.isView(value) && value.byteLength <= INLINE_MAX_BYTES) {
        // an array a device still writes leaves once it is home
        const wait = this.host.toHost(value);
        if (wait !== undefined) {
          this.sendWhenHome(dest, [Wire.Input, [[ttId, terminal, [key]]], value], wait);
          return;
        }
        bytes = encodeInlineInput(ttId, terminal, key, value);
        if (bytes === undefined) {
          this.ship(dest, [Wire.Input, [[ttId, terminal, [key]]], value], transfer);
          return;
        }
      }
      if (bytes !== undefined) {
        stampPhase(bytes, this.phase.bit);
        this.sent++;
        this.count(dest, bytes, NO_PARTS, 1);
        batches.add(dest, bytes);
        return;
      }
    }
    this.sendInput(dest, [[ttId, terminal, [key]]], value, transfer);
  }

  sendInput(dest: number, targets: Target[], value: unknown, transfer: boolean): void {
    const wait = this.host.toHost(value);
    const msg: WireMessage = [Wire.Input, targets, value];
    if (wait === undefined) this.ship(dest, msg, transfer);
    else this.sendWhenHome(dest, msg, wait);
  }

  /** Sends `msg` once `wait` (the value's data coming back from a device) settles. */
  private sendWhenHome(dest: number, msg: WireMessage, wait: PromiseLike<void>): void {
    const host = this.host;
    const value = msg[2];
    // counted now so that no fence can end before the deferred send has left; later sends to
    // `dest` wait behind it (a stream's end must not overtake its values). The value is held
    // meanwhile, so a local consumer that writes its buffers gets its own copy.
    this.batches?.flush(dest);
    this.sent++;
    retain(value);
    const sender = host.sender();
    const step = this.departures.wait(dest, () => {});
    wait.then(() => {
      this.sent--;
      // the send's errors name the task that made it, and fail the run like a send made at once
      step.run = () => {
        try {
          host.withSender(sender, () => this.ship(dest, msg, false, step));
        } finally {
          release(value);
        }
      };
      this.departures.ready(step);
    }, (e: unknown) => {
      this.sent--;
      release(value);
      host.fail(e instanceof TtgError ? e : Errors.transport(`moving data to host before a send failed: ${String(e)}`, this.rank, e));
      this.departures.ready(step);
    });
  }

  sendControl(dest: number, msg: WireMessage): void {
    this.ship(dest, msg);
  }

  announceFailure(err: TtgError): void {
    if (this.endpoint.finalized) return;
    if (err.code !== 'E_HANG') this.raised.add(this.rank, err);
    const bytes = encodeFailure(err, this.rank);
    stampPhase(bytes, this.phase.bit);
    for (let r = 0; r < this.size; r++) if (r !== this.rank) this.post(r, bytes, [], false);
  }

  onSummary: ((rank: number, json: string) => void) | undefined = undefined;

  sendSummary(json: string): void {
    if (this.rank === 0) {
      this.onSummary?.(0, json);
      return;
    }
    if (this.endpoint.finalized || this.broken !== undefined) return;
    const { bytes } = encode([Wire.Summary, this.rank, json]);
    stampPhase(bytes, this.phase.bit);
    this.post(0, bytes, [], false);
  }

  vote(fence: number, stalled: boolean): void {
    if (this.endpoint.finalized) return;
    const { bytes } = encode([Wire.Stall, fence, stalled ? 1 : 0, this.rank]);
    for (let r = 0; r < this.size; r++) if (r !== this.rank) this.post(r, bytes, [], false);
  }

  othersStalled(fence: number): boolean {
    for (let r = 0; r < this.size; r++) if (r !== this.rank && this.votes.get(r) !== fence) return false;
    return true;
  }

  progress(): number {
    return this.sent + this.received;
  }

  payloadArriving(): boolean {
    return !this.endpoint.finalized && this.native.stats().receiving > 0;
  }

  abandon(err: TtgError): void {
    this.broken ??= err;
    this.endpoint.broken ??= err;
    this.hold(false);
  }

  async gatherTrace(chunk: string): Promise<string[] | undefined> {
    if (this.broken !== undefined) return this.rank === 0 ? [chunk] : undefined;
    if (this.rank !== 0) {
      const { bytes, parts, plain } = encode([Wire.Trace, this.rank, new TextEncoder().encode(chunk)]);
      stampPhase(bytes, this.phase.bit);
      this.post(0, bytes, parts, plain);
      return undefined;
    }
    this.hold(true);
    try {
      return await this.traceChunks.all(chunk);
    } finally {
      this.hold(false);
    }
  }

  hold(on = true): void {
    if (this.holding === on) return;
    this.holding = on;
    this.endpoint.hold(on);
  }

  async quiesce(local: LocalWork): Promise<Quiet> {
    if (this.broken !== undefined) throw this.broken;
    this.hold(true);
    try {
      const sums = await untilQuiet({
        settleLocal: () => local.settle(),
        counts: () => this.flushed([this.sent, this.received, this.raised.raised(this.rank) ? 1 : 0, local.openStreams().reduce((a, n) => a + n, 0), local.done(),
          local.waiting(), local.strict ? 1 : 0]),
        seen: (done) => local.seen(done),
        closeStreams: () => this.closeFenceStreams(local),
        allreduce: (values, pauseUs, quietUs) => agree(this.sumAll, this.rank, this.size, FENCE, values, pauseUs, quietUs),
        stopped: () => this.broken !== undefined, // the fence already rejected (hang)
      });
      if (sums === undefined) return { error: undefined, waitingByRank: undefined };
      const raised = sums[WaveCounts.Raised]!;
      if (raised > 0) return { error: await this.raised.agreed(raised, this.rank), waitingByRank: undefined };
      if (sums[WaveCounts.Strict] === 0 || sums[WaveCounts.Waiting] === 0) return { error: undefined, waitingByRank: undefined };
      // every rank saw the same sums, so every rank takes this round: where the work waits
      const mine = new Float64Array(this.size);
      mine[this.rank] = local.waiting();
      return { error: undefined, waitingByRank: Array.from(await this.sumAll(mine)) };
    } finally {
      this.hold(false);
    }
  }

  /** Sums `values` over this world's ranks (one MPI_Iallreduce, after `pauseUs` or `quietUs` without traffic). */
  private readonly sumAll = (values: Float64Array, pauseUs = 0, quietUs?: number): Promise<Float64Array> =>
    this.native.allreduce(values, pauseUs, this.place.comm, undefined, quietUs);

  agree(sig: CallSignature, payload?: ArrayLike<number>): Promise<Float64Array> {
    if (this.broken !== undefined) return Promise.reject(this.broken);
    this.batches?.flushAll();
    return this.whileHeld(agree(this.sumAll, this.rank, this.size, sig, payload));
  }

  /**
   * Ends the streams that end at the fence, given every rank's open ones per TT. The per-TT sums
   * need the same such TTs on every rank (a program builds the same graphs everywhere): the
   * agreement names the numbers each rank built rather than summing unrelated counts.
   */
  private async closeFenceStreams(local: LocalWork): Promise<void> {
    const mine = local.openStreams();
    await agree(this.sumAll, this.rank, this.size, [CallKind.FenceStreams, -1, mine.length, -1, -1]);
    local.closeStreams(Array.from(await this.sumAll(Float64Array.from(mine))));
  }

  /**
   * The next phase starts: its messages that arrived during the fence are handed over, then the
   * ones that come meanwhile, after the code that follows the fence has run up to its next await
   * (a macrotask later: the fence's promise and its continuation settle first).
   */
  endFence(): void {
    this.raised.clear();
    const held = this.phase.next();
    // one push per message: push(...held) overflows the stack past ~100k held messages
    if (this.opening !== undefined) for (const h of held) this.opening.push(h);
    if (held.length === 0 || this.opening !== undefined) return;
    this.opening = held;
    setImmediate(() => {
      const list = this.opening!;
      this.opening = undefined;
      this.batch(() => {
        for (const deliver of list) {
          try {
            deliver();
          } catch (e) {
            this.host.fail(Errors.handling(e, this.rank));
          }
        }
      });
    });
  }

  /** MPI_Comm_split of this world (collective over it); see world-split.ts. */
  async split(color: number, key: number): Promise<MpiTransport | undefined> {
    // a fence that gave up may have left a wave pending on this world's communicator
    if (this.broken !== undefined) throw this.broken;
    const place = await splitPlace(this.endpoint, this.place, this.rank, this.size, this.toJob, color, key);
    return place === undefined ? undefined : new MpiTransport(this.endpoint, place);
  }

  reduce(values: Float64Array, op: ReduceOp): Promise<Float64Array> {
    if (this.broken !== undefined) return Promise.reject(this.broken);
    return this.whileHeld(this.native.allreduce(values, 0, this.place.comm, REDUCE_CODES[op]));
  }

  bcast(bytes: Uint8Array, root: number): Promise<void> {
    if (this.broken !== undefined) return Promise.reject(this.broken);
    return this.whileHeld(this.native.bcast(bytes, root, this.place.comm));
  }

  /** Keeps the process alive while `p` (a collective of the addon) is pending. */
  private async whileHeld<T>(p: Promise<T>): Promise<T> {
    this.hold(true);
    this.endpoint.pollSoon();
    try {
      return await p;
    } finally {
      this.hold(false);
    }
  }

  /** The default world ends MPI (after a barrier of every rank); a split world has nothing to release. */
  async finalize(): Promise<void> {
    const ep = this.endpoint;
    if (ep.finalized || this.place.id !== 0) return;
    if (ep.broken !== undefined) {
      // A collective of the abandoned fence may be pending: no barrier, no MPI_Finalize; the exit
      // hook aborts the job (non-zero) when the process ends.
      this.native.keepAlive(false);
      return;
    }
    this.batches?.flushAll();
    this.native.keepAlive(true); // the agreement below must keep this process alive
    // every rank waits for all to finalize: a rank still making other collective calls gets
    // E_COLLECTIVE for each, and this one waits on for its finalize
    for (;;) {
      try {
        await agree(this.sumAll, this.rank, this.size, FINALIZE);
        break;
      } catch (e) {
        if (!callsDiffered(e)) throw e;
      }
    }
    ep.finalized = true;
    this.native.finalize();
  }

  /** Message counters, for tests and benchmarks (`deferred`: messages held for a next phase so far). */
  counters(): { sent: number; received: number; deferred: number } {
    return { sent: this.sent, received: this.received, deferred: this.phase.deferred };
  }

  /**
   * Encodes and sends a counted message; it waits behind an earlier send to `dest` that is not
   * out yet (`step`: it is that send). `transfer`: the message carries a moved value whose
   * received memory the addon may reuse. The value of an Input stays held while it is sent.
   */
  private ship(dest: number, msg: WireMessage, transfer = false, step?: Step): void {
    let bytes: Uint8Array;
    let parts: ArrayBufferView[];
    let plain: boolean;
    const batches = this.batches;
    // a fixed header may stay in encodeInput's scratch when it is copied into a batch at once
    let scratch = false;
    try {
      const fixed = encodeInput(msg, batches === undefined);
      scratch = fixed !== undefined && batches !== undefined;
      ({ bytes, parts, plain } = fixed ?? encode(msg, msg[0] === Wire.Input ? 2 : -1));
    } catch (e) {
      throw serializeError(this.host, msg, this.rank, e);
    }
    stampPhase(bytes, this.phase.bit);
    if (batches !== undefined) {
      if (parts.length === 0 && bytes.length <= SMALL_MESSAGE_BYTES && step === undefined && !this.departures.busy(dest)) {
        this.sent++;
        this.count(dest, bytes, parts, 1);
        batches.add(dest, bytes);
        return;
      }
      if (scratch) bytes = bytes.slice();
      batches.flush(dest); // the small messages sent before this one go first
    }
    if (this.trail !== 0) bytes = addTrailer(this.trail, tracer, dest, bytes, parts, true);
    payloadProbe.onSend?.(parts);
    const held = msg[0] === Wire.Input ? msg[2] : undefined;
    this.sent++;
    this.count(dest, bytes, parts, 1);
    if (step === undefined && this.departures.busy(dest)) {
      // encoded now, its parts read later: the value is held meanwhile
      retain(held);
      this.departures.now(dest, () => {
        try {
          this.handCounted(dest, msg, bytes, parts, plain, transfer, held);
        } finally {
          release(held);
        }
      });
    } else {
      this.handCounted(dest, msg, bytes, parts, plain, transfer, held);
    }
  }

  /**
   * {@link hand} for a counted message: one the addon refuses (a header over its limit...) is no
   * longer counted, so the fence does not wait for it; the send fails like one that cannot be encoded.
   */
  private handCounted(dest: number, msg: WireMessage, bytes: Uint8Array, parts: ArrayBufferView[], plain: boolean, transfer: boolean, held: unknown): void {
    try {
      this.hand(dest, bytes, parts, plain, transfer, held);
    } catch (e) {
      this.sent--;
      this.count(dest, bytes, parts, -1);
      throw e instanceof TtgError ? e : serializeError(this.host, msg, this.rank, e);
    }
  }

  /** `counts`, once the small messages waiting for their batch are on their way (a wave must see them leave). */
  private flushed(counts: number[]): number[] {
    this.batches?.flushAll();
    return counts;
  }

  /**
   * Hands a batch of `count` counted messages to the addon; one the addon refuses is no longer
   * counted (as {@link handCounted}), and fails the run.
   */
  private sendBatch(dest: number, header: Uint8Array, count: number): void {
    try {
      this.hand(dest, header, [], false, false);
    } catch (e) {
      this.sent -= count;
      this.host.fail(Errors.transport(`sending ${count} small message(s) to rank ${dest} failed: ${String(e)}`, this.rank, e));
    }
  }

  /** Sends a message that termination detection does not count (failure, vote, trace). */
  private post(dest: number, bytes: Uint8Array, parts: ArrayBufferView[], plain: boolean): void {
    if (this.trail !== 0) bytes = addTrailer(this.trail, tracer, dest, bytes, parts, false);
    this.hand(dest, bytes, parts, plain, false);
  }

  /** Counts a counted message to world rank `dest` in {@link traffic} (by job rank); `n` -1 takes it back. */
  private count(dest: number, bytes: Uint8Array, parts: ArrayBufferView[], n: number): void {
    let size = bytes.byteLength;
    for (let i = 0; i < parts.length; i++) size += parts[i]!.byteLength;
    const job = this.toJob === undefined ? dest : this.toJob[dest]!;
    this.traffic.messages[job]! += n;
    this.traffic.bytes[job]! += n * size;
    tracer?.sent(job, size, n);
  }

  /**
   * Gives a message to the addon, addressed in the job's ranks and marked with the receiver's id
   * of this world. `held`: a value that counts as held while the addon reads its memory.
   */
  private hand(dest: number, bytes: Uint8Array, parts: ArrayBufferView[], plain: boolean, transfer: boolean, held?: unknown): void {
    const toJob = this.toJob;
    if (toJob !== undefined) {
      bytes = withWorld(bytes, this.place.ids[dest]!);
      dest = toJob[dest]!;
    }
    const pin = handOff(this.native, dest, bytes, parts, plain, transfer, held !== undefined);
    if (held !== undefined) this.endpoint.inFlight.hold(pin, held);
  }

  takeSmall(src: number, bytes: Uint8Array, at: number, end: number): boolean {
    return this.trail === 0 && this.smallNow(this.toWorld === undefined ? src : this.toWorld[src]!, bytes, at, end);
  }

  /** A message of this world from the endpoint. */
  onMessage(a: Arrival): void {
    const src = this.toWorld === undefined ? a.src : this.toWorld[a.src]!;
    if (this.trail !== 0) this.onTrailed(src, a.header, a.sizes, a.id, a.buffers, a.eager);
    // the default world's small messages were offered to takeSmall already
    else if (a.sizes.length !== 0 || this.place.id === 0 || !this.smallNow(src, a.header, 0, a.header.length)) this.onHeader(src, a.header, a.sizes, a.id, a.buffers, a.eager, undefined);
  }

  /** Splits and checks the trailer, then handles the header. */
  private onTrailed(src: number, raw: Uint8Array, sizes: Float64Array, id: number, buffers: ArrayBuffer[] | undefined, eager: Uint8Array | undefined): void {
    const { header, tail } = takeTrailer(this.trail, raw, src, this.rank);
    if ((this.trail & Trail.Checksum) !== 0 && hashBytes(header) !== tail.hdr) {
      if ((tail.flags & Trail.Counted) !== 0) this.received++;
      throw Errors.corrupt(undefined, undefined, undefined, undefined, src, this.rank);
    }
    this.onHeader(src, header, sizes, id, buffers, eager, tail);
  }

  private onHeader(src: number, header: Uint8Array, sizes: Float64Array, id: number, buffers: ArrayBuffer[] | undefined,
    eager: Uint8Array | undefined, tail: Tail | undefined): void {
    const phase = takePhase(header);
    if (isBatch(header)) {
      this.onBatch(src, header, sizes, id);
      return;
    }
    let decoded: DecodedMessage<WireMessage>;
    try {
      decoded = decodeInput(header, buffers) ?? decode<WireMessage>(header, buffers);
    } catch (e) {
      this.received++;
      throw Errors.serialize(`a message from rank ${src}`, undefined, undefined, undefined, this.rank, e);
    }
    const kind = decoded.msg[0];
    if (kind === Wire.Failure) {
      // a failure of the next phase must not fail the fence this rank is ending
      if (phase !== this.phase.bit) this.phase.hold(() => this.onFailure(decoded.msg));
      else this.onFailure(decoded.msg);
      return;
    }
    if (kind === Wire.Summary) {
      const [, rank, json] = decoded.msg as [Wire.Summary, number, string];
      this.onSummary?.(rank, json);
      return;
    }
    if (kind === Wire.Stall) {
      const [, fence, stalled, rank] = decoded.msg as [Wire.Stall, number, number, number];
      this.votes.set(rank, stalled === 1 ? fence : -1);
      this.onVote?.();
      return;
    }
    if (sizes.length === 0 && decoded.parts.length === 0) {
      this.inOrder(src, decoded, tail, phase);
      return;
    }
    if (buffers !== undefined) {
      // plain typed arrays, already received by the comm thread: the arrays are views of them
      payloadProbe.onRecv?.(decoded.parts);
      this.inOrder(src, decoded, tail, phase);
      return;
    }
    if (sizes.length === 1 && decoded.parts.length > 1 && sizes[0] === packedBytes(decoded.parts)) {
      this.receivePacked(src, decoded, id, eager, tail, phase, sizes[0]!);
      return;
    }
    const ok = sizes.length === decoded.parts.length && sizes.every((n, i) => n === decoded.parts[i]!.byteLength);
    if (!ok) {
      this.received++;
      throw Errors.serialize(`a message from rank ${src}`, undefined, undefined, undefined, this.rank,
        new Error(`payload sizes [${sizes.join(', ')}] do not match the decoded arrays [${decoded.parts.map((p) => p.byteLength).join(', ')}]`));
    }
    payloadProbe.onRecv?.(decoded.parts);
    if (eager !== undefined) {
      // A small payload rode in the header message: one copy, into the arrays that keep it.
      copyPartsFrom(eager, decoded.parts);
      this.inOrder(src, decoded, tail, phase);
      return;
    }
    // Loopback: the payload is in this process and is copied into the arrays right here.
    if (this.native.recv(id, decoded.parts, true)) this.inOrder(src, decoded, tail, phase);
    else {
      // later messages of this sender wait until this one is delivered
      this.receiving.set(id, this.arrivals.wait(src, () => this.deliver(src, decoded, tail, phase)));
      this.endpoint.expectPayload(id, this);
    }
  }

  /** Small messages that travelled together: each handled as if it had come alone, in order. */
  private onBatch(src: number, batch: Uint8Array, sizes: Float64Array, id: number): void {
    forEachInBatch(batch, (bytes, at, end) => {
      try {
        if (!this.smallNow(src, bytes, at, end)) this.onHeader(src, bytes.subarray(at, end), sizes, id, undefined, undefined, undefined);
      } catch (e) {
        // one bad message fails the run; the others are still counted and handled
        this.onError(e);
      }
    });
  }

  /**
   * Hands over a number or nothing for one task (a fixed header) without decoding it into a message, when
   * nothing would make it wait (another phase, the opening of this one, an earlier message of
   * `src` still receiving its payload, a trace file); false when it must take the general path.
   */
  private smallNow(src: number, batch: Uint8Array, at: number, end: number): boolean {
    // what would make it wait first: a refused message is decoded again by the general path
    if ((batch[at + 1]! & PHASE_BIT) !== this.phase.bit || this.opening !== undefined || this.arrivals.busy(src) || tracer?.full === true) return false;
    const n = this.small;
    if (!readSmallInput(batch, n, at, end)) return false;
    const value = n.value;
    n.value = undefined; // not kept alive until the next message
    try {
      this.host.acceptValue(n.ttId, n.terminal, n.key, value);
    } finally {
      this.received++;
    }
    return true;
  }

  private readonly small: SmallInput = { ttId: 0, terminal: 0, key: 0, value: 0, phase: 0 };

  /** A payload of many small parts the sender packed into one (hand-off.ts): received whole, then unpacked. */
  private receivePacked(src: number, decoded: DecodedMessage<WireMessage>, id: number, eager: Uint8Array | undefined, tail: Tail | undefined,
    phase: number, bytes: number): void {
    payloadProbe.onRecv?.(decoded.parts);
    if (eager !== undefined) {
      unpackParts(eager, decoded.parts);
      this.inOrder(src, decoded, tail, phase);
      return;
    }
    const packed = new Uint8Array(bytes);
    if (this.native.recv(id, [packed], true)) {
      unpackParts(packed, decoded.parts);
      this.inOrder(src, decoded, tail, phase);
      return;
    }
    this.receiving.set(id, this.arrivals.wait(src, () => {
      unpackParts(packed, decoded.parts);
      this.deliver(src, decoded, tail, phase);
    }));
    this.endpoint.expectPayload(id, this);
  }

  /** Delivers now, or after the messages of `src` that wait for their payload (no closure unless one waits). */
  private inOrder(src: number, decoded: DecodedMessage<WireMessage>, tail: Tail | undefined, phase: number): void {
    if (this.arrivals.busy(src)) this.arrivals.now(src, () => this.deliver(src, decoded, tail, phase));
    else this.deliver(src, decoded, tail, phase);
  }

  onPayload(id: number): void {
    const step = this.receiving.get(id);
    if (step === undefined) throw Errors.transport(`payload for unknown message ${id}`, this.rank);
    this.receiving.delete(id);
    this.arrivals.ready(step);
  }

  /**
   * Holds a message of the next phase; else checks the payload checksum (TTG_CHECKSUM), then
   * handles the message (traced with TTG_TRACE).
   */
  private deliver(src: number, decoded: DecodedMessage<WireMessage>, tail: Tail | undefined, phase: number): void {
    if (phase !== this.phase.bit) {
      this.phase.hold(() => this.deliver(src, decoded, tail, phase));
      return;
    }
    if (this.opening !== undefined) {
      this.opening.push(() => this.deliver(src, decoded, tail, phase));
      return;
    }
    const msg = decoded.msg;
    if (tail !== undefined && (tail.flags & Trail.Checksum) !== 0 && hashParts(decoded.parts) !== tail.parts) {
      if ((tail.flags & Trail.Counted) !== 0) this.received++;
      throw corruptError(this.host, msg, src, this.rank);
    }
    const tr = tracer;
    if (tr === undefined) {
      this.handle(msg);
      return;
    }
    const t0 = tr.now();
    try {
      this.handle(msg);
    } finally {
      tr.recvSlice(src, tail?.flow ?? 0, t0, KIND_NAMES[msg[0]] ?? 'message');
    }
  }

  /** Hands a complete message to the core; counted as received once handed over (even when that throws). */
  private handle(msg: WireMessage): void {
    if (msg[0] === Wire.Trace) {
      this.traceChunks.add(msg[1], msg[2]);
      return;
    }
    try {
      this.host.accept(msg);
    } finally {
      this.received++;
    }
  }

  private onFailure(msg: WireMessage): void {
    const err = announcedError(msg);
    if (err.code === 'E_HANG') {
      // every rank reports its own hang (the fence's watchdog picks this up)
      if (this.broken === undefined) this.hangNotice ??= err;
      this.onVote?.();
      return;
    }
    this.host.fail(err, true);
    this.raised.add(err.rank!, err);
  }
}

