/**
 * The MPI transport: active messages through the addon's comm thread, and termination detection
 * for `fence()`. Every rank counts the messages it sent and fully received; a fence repeats
 * non-blocking allreduce waves, each entered only when this rank is idle, until two consecutive
 * waves see the same totals with sent == received (the four-counter method): then no rank is
 * working and nothing is in flight, cycles and data-dependent sends included. Messages of the
 * phase after a fence wait for the receiver's fence to end (phase.ts).
 */
import { decode, encode, type DecodedMessage } from '../serialize/codec.js';
import { copyPartsFrom, STAGE_MAX_BYTES, stageParts } from '../serialize/small-parts.js';
import { checksumRequested, hashBytes, hashParts } from './checksum.js';
import { retireDetachAssumption } from './detach-protector.js';
import { describeKey, Errors, TtgError, type TtgErrorCode } from './errors.js';
import { abortJobOnFailedExit } from './exit-on-error.js';
import { decodeInput, encodeInput } from './input-header.js';
import { ArrivalField, ArrivalKind, lentBuffers, PayloadMode, type ArrivalExtra, type NativeAddon } from './native.js';
import { PhaseGate, stampPhase, takePhase } from './phase.js';
import { traceFileFromEnv, tracer } from './trace.js';
import type { Transport, TransportHost } from './transport.js';
import { serializeError } from './serialize-error.js';
import { rehearse } from './travel-check.js';
import { Wire, type Target, type WireMessage } from './wire.js';

const NO_BYTES: Uint8Array = new Uint8Array(0);
const NO_SIZES = new Float64Array(0);

/** How long a rank waits for the announcement of a failure that the wave reported elsewhere. */
const FAILURE_NOTICE_MS = 10_000;
/**
 * A wave that follows one which saw traffic starts after a pause of 1/WAVE_PAUSE_SHARE of the
 * time fenced so far (at most WAVE_PAUSE_MAX_US). Back-to-back waves during a long run wake every
 * rank's JS and comm threads for each one and cost a cross-rank hop ~2 us; the pause delays the
 * end of a fence by at most that share of its length. The comm thread times the pause: a
 * millisecond timer pending on the JS thread makes each of its wake-ups slower (~9 us measured on
 * a 2-vCPU VM).
 */
const WAVE_PAUSE_SHARE = 32;
const WAVE_PAUSE_MAX_US = 10_000;

/** Pause in microseconds before the next wave of a fence that started `elapsedMs` ago. */
export function wavePauseUs(elapsedMs: number): number {
  return Math.min(WAVE_PAUSE_MAX_US, Math.floor((elapsedMs * 1000) / WAVE_PAUSE_SHARE));
}

/** How long rank 0 waits at finalize for the other ranks' trace events. */
const TRACE_GATHER_MS = 30_000;

/**
 * With TTG_CHECKSUM or TTG_TRACE every header ends with a trailer: xxhash32 of the header (u32),
 * xxhash32 of the payload parts (u32), trace flow id (f64), flags (u8). Both settings must be the
 * same on every rank (mpirun passes the environment to all of them).
 */
const TRAILER = 17;
const enum Trail {
  Checksum = 1,
  Trace = 2,
  /** The message counts for termination detection. */
  Counted = 4,
}

/** What a received trailer said. */
interface Tail {
  hdr: number;
  parts: number;
  flow: number;
  flags: number;
}

/**
 * Test probe: sees the payload views handed to the addon, so a test can prove that payloads are
 * sent from and received into the application's own arrays (no copy in JS).
 */
export const payloadProbe: {
  onSend?: (parts: readonly ArrayBufferView[]) => void;
  onRecv?: (views: readonly ArrayBufferView[]) => void;
} = {};

/** Transport over the native MPI comm thread. */
export class MpiTransport implements Transport {
  readonly kind = 'mpi';
  readonly rank: number;
  readonly size: number;
  /** Messages sent (counted when handed to the addon or to a pending host migration). */
  private sent = 0;
  /** Messages received and fully handled. */
  private received = 0;
  /** Headers whose payload is still being received, by native message id. */
  private readonly receiving = new Map<number, { src: number; decoded: DecodedMessage<WireMessage>; tail: Tail | undefined; phase: number }>();
  /** This rank's phase; holds messages of the next one while a fence ends. */
  private readonly phase = new PhaseGate();
  private failureNotice: (() => void) | undefined;
  private finalized = false;
  /** Trail.Checksum | Trail.Trace, or 0 when headers carry no trailer. */
  private readonly trail: number;
  /** Fence number each other rank last voted stalled (-1: moving). */
  private readonly votes = new Map<number, number>();
  /** Set when a fence gave up on a hang: the world cannot fence again. */
  private broken: TtgError | undefined;
  private readonly traceChunks = new Map<number, string>();
  private traceArrived: (() => void) | undefined;
  onVote: (() => void) | undefined = undefined;
  hangNotice: TtgError | undefined = undefined;
  private host!: TransportHost;

  constructor(private readonly native: NativeAddon) {
    this.trail = (checksumRequested() ? Trail.Checksum : 0) | (traceFileFromEnv() !== undefined ? Trail.Trace : 0);
    // Sends detach moved arrays: settle V8's assumption before any hot code is compiled.
    retireDetachAssumption();
    const w = native.start((meta, bytes, extra, length) => this.host.batch(() => this.onArrivals(meta, bytes, extra, length)));
    this.rank = w.rank;
    this.size = w.size;
    native.keepAlive(false);
    // A rank leaving on an error must take the job down, not wait in MPI_Finalize for the others.
    // After a hang a collective may be pending forever, so MPI_Finalize could block: abort too.
    abortJobOnFailedExit({
      rank: this.rank,
      mustAbort: (code) => !this.finalized && (code !== 0 || this.broken !== undefined),
      abort: (code) => native.abort(code),
    });
  }

  attach(host: TransportHost): void {
    this.host = host;
  }

  rehearse(target: Target, value: unknown): void {
    rehearse(this.host, target, value, this.rank);
  }

  sendInput(dest: number, targets: Target[], value: unknown, transfer: boolean): void {
    const host = this.host;
    const wait = host.toHost(value);
    const msg: WireMessage = [Wire.Input, targets, value];
    if (wait === undefined) {
      this.ship(dest, msg, transfer);
      return;
    }
    // counted now so that no fence can end before the deferred send has left
    this.sent++;
    const sender = host.sender();
    wait.then(() => {
      this.sent--;
      // the send's errors name the task that made it, and fail the run like a send made at once
      try {
        host.withSender(sender, () => this.ship(dest, msg));
      } catch (e) {
        host.fail(Errors.handling(e, this.rank));
      }
    }, (e: unknown) => {
      this.sent--;
      host.fail(e instanceof TtgError ? e : Errors.transport(`moving data to host before a send failed: ${String(e)}`, this.rank, e));
    });
  }

  sendControl(dest: number, msg: WireMessage): void {
    this.ship(dest, msg);
  }

  announceFailure(err: TtgError): void {
    if (this.finalized) return;
    const head = [Wire.Failure, err.code, err.detail, err.tt ?? null, err.terminal ?? null, this.rank] as const;
    let bytes: Uint8Array;
    try {
      bytes = encode(err.key === undefined ? [...head] : [...head, err.key]).bytes;
    } catch {
      bytes = encode([...head, describeKey(err.key)]).bytes; // a key that cannot travel goes as text
    }
    stampPhase(bytes, this.phase.bit);
    for (let r = 0; r < this.size; r++) if (r !== this.rank) this.post(r, bytes, [], false);
  }

  vote(fence: number, stalled: boolean): void {
    if (this.finalized) return;
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

  abandon(err: TtgError): void {
    this.broken ??= err;
    this.native.keepAlive(false);
  }

  async gatherTrace(chunk: string): Promise<string[] | undefined> {
    if (this.broken !== undefined) return this.rank === 0 ? [chunk] : undefined;
    if (this.rank !== 0) {
      const { bytes, parts, plain } = encode([Wire.Trace, this.rank, new TextEncoder().encode(chunk)]);
      stampPhase(bytes, this.phase.bit);
      this.post(0, bytes, parts, plain);
      return undefined;
    }
    this.native.keepAlive(true);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        console.warn(`ttg: rank 0: trace events of ${this.size - 1 - this.traceChunks.size} rank(s) did not arrive; writing the others`);
        resolve();
      }, TRACE_GATHER_MS);
      this.traceArrived = () => {
        if (this.traceChunks.size < this.size - 1) return;
        clearTimeout(timer);
        resolve();
      };
      this.traceArrived();
    });
    this.traceArrived = undefined;
    const out = [chunk];
    for (let r = 1; r < this.size; r++) out.push(this.traceChunks.get(r) ?? '');
    return out;
  }

  hold(): void {
    if (!this.finalized) this.native.keepAlive(true);
  }

  async quiesce(settleLocal: () => Promise<void>): Promise<void> {
    if (this.broken !== undefined) throw this.broken;
    this.hold();
    try {
      let prevSent = -1;
      let prevRecv = -1;
      const start = performance.now();
      for (let wave = 0; ; wave++) {
        await settleLocal();
        if (this.broken !== undefined) return; // the fence already rejected (hang)
        const failed = this.host.failed ? 1 : 0;
        const pause = wave === 0 ? 0 : wavePauseUs(performance.now() - start);
        const [s, r, f] = await this.native.allreduce(Float64Array.of(this.sent, this.received, failed), pause);
        if (this.broken !== undefined) return;
        if (s === r && s === prevSent && r === prevRecv) {
          if (f! > 0 && !this.host.failed) await this.awaitFailureNotice();
          return;
        }
        prevSent = s!;
        prevRecv = r!;
      }
    } finally {
      this.native.keepAlive(false);
    }
  }

  endFence(): void {
    for (const deliver of this.phase.next()) {
      try {
        deliver();
      } catch (e) {
        this.host.fail(Errors.handling(e, this.rank));
      }
    }
  }

  async finalize(): Promise<void> {
    if (this.finalized) return;
    if (this.broken !== undefined) {
      // A collective of the abandoned fence may be pending: no barrier, no MPI_Finalize; the exit
      // hook aborts the job (non-zero) when the process ends.
      this.native.keepAlive(false);
      return;
    }
    this.native.keepAlive(true); // the barrier below must keep this process alive
    await this.native.barrier();
    this.finalized = true;
    this.native.finalize();
  }

  /** Message counters, for tests and benchmarks (`deferred`: messages held for a next phase so far). */
  counters(): { sent: number; received: number; deferred: number } {
    return { sent: this.sent, received: this.received, deferred: this.phase.deferred };
  }

  /** `transfer`: the message carries a moved value whose received memory the addon may reuse. */
  private ship(dest: number, msg: WireMessage, transfer = false): void {
    let bytes: Uint8Array;
    let parts: ArrayBufferView[];
    let plain: boolean;
    try {
      ({ bytes, parts, plain } = encodeInput(msg) ?? encode(msg));
    } catch (e) {
      throw serializeError(this.host, msg, this.rank, e);
    }
    stampPhase(bytes, this.phase.bit);
    if (this.trail !== 0) bytes = this.withTrailer(dest, bytes, parts, true);
    payloadProbe.onSend?.(parts);
    this.hand(dest, bytes, parts, plain, transfer);
    this.sent++;
  }

  /** Sends a message that termination detection does not count (failure, vote, trace). */
  private post(dest: number, bytes: Uint8Array, parts: ArrayBufferView[], plain: boolean): void {
    if (this.trail !== 0) bytes = this.withTrailer(dest, bytes, parts, false);
    this.hand(dest, bytes, parts, plain, false);
  }

  /** Gives a message to the addon; a small payload is staged and copied there (nothing pinned). */
  private hand(dest: number, bytes: Uint8Array, parts: ArrayBufferView[], plain: boolean, transfer: boolean): void {
    if (parts.length === 0) {
      this.native.send(dest, bytes, parts, plain);
      return;
    }
    let n = 0;
    for (const p of parts) n += p.byteLength;
    if (n <= STAGE_MAX_BYTES) this.native.send(dest, bytes, stageParts(parts), plain, false, true);
    else this.native.send(dest, bytes, parts, plain, transfer);
  }

  private withTrailer(dest: number, bytes: Uint8Array, parts: readonly ArrayBufferView[], counted: boolean): Uint8Array {
    const out = new Uint8Array(bytes.length + TRAILER);
    out.set(bytes);
    const dv = new DataView(out.buffer, bytes.length, TRAILER);
    if ((this.trail & Trail.Checksum) !== 0) {
      dv.setUint32(0, hashBytes(bytes));
      dv.setUint32(4, hashParts(parts));
    }
    const tr = tracer;
    if (counted && tr !== undefined) {
      let n = bytes.length;
      for (const p of parts) n += p.byteLength;
      dv.setFloat64(8, tr.sendFlow(dest, n));
    }
    dv.setUint8(16, this.trail | (counted ? Trail.Counted : 0));
    return out;
  }

  /** A batch from the addon, read in place (layout: {@link ArrivalField}). */
  private onArrivals(meta: Float64Array, bytes: Uint8Array, extra: ArrivalExtra, length: number): void {
    let off = 0;
    for (let m = 0, e = 0; m < length; e++) {
      const row = m;
      const nparts = meta[row + ArrivalField.Parts]!;
      m += ArrivalField.Sizes + nparts;
      const kind = meta[row + ArrivalField.Kind];
      let header = NO_BYTES;
      let eager: Uint8Array | undefined;
      if (kind === ArrivalKind.Msg) {
        header = bytes.subarray(off, (off += meta[row + ArrivalField.HeaderBytes]!));
        if (meta[row + ArrivalField.Mode] === PayloadMode.Eager) {
          off = (off + 7) & ~7;
          let n = 0;
          for (let i = row + ArrivalField.Sizes; i < m; i++) n += meta[i]!;
          eager = bytes.subarray(off, (off += n));
        }
      }
      try {
        if (kind === ArrivalKind.Msg) {
          const src = meta[row + ArrivalField.Src]!;
          const id = meta[row + ArrivalField.Id]!;
          const sizes = nparts === 0 ? NO_SIZES : meta.subarray(row + ArrivalField.Sizes, m);
          const buffers = meta[row + ArrivalField.Mode] === PayloadMode.Lent ? lentBuffers(extra, e) : undefined;
          if (this.trail === 0) this.onHeader(src, header, sizes, id, buffers, eager, undefined);
          else this.onTrailed(src, header, sizes, id, buffers, eager);
        }
        else if (kind === ArrivalKind.Recvd) this.onPayload(meta[row + ArrivalField.Id]!);
        else this.host.fail(Errors.transport(`comm thread: ${String((extra as unknown[])[e])}`, this.rank));
      } catch (err) {
        this.host.fail(Errors.handling(err, this.rank));
      }
    }
  }

  /** Splits and checks the trailer, then handles the header. */
  private onTrailed(src: number, raw: Uint8Array, sizes: Float64Array, id: number, buffers: ArrayBuffer[] | undefined, eager: Uint8Array | undefined): void {
    const n = raw.length - TRAILER;
    const dv = n >= 0 ? new DataView(raw.buffer, raw.byteOffset + n, TRAILER) : undefined;
    const flags = dv === undefined ? -1 : dv.getUint8(16);
    if (dv === undefined || (flags & ~Trail.Counted) !== this.trail) {
      throw Errors.transport(`a message from rank ${src} does not carry the trailer this rank expects: set TTG_CHECKSUM and TTG_TRACE the same on every rank`, this.rank);
    }
    const tail: Tail = { hdr: dv.getUint32(0), parts: dv.getUint32(4), flow: dv.getFloat64(8), flags };
    const header = raw.subarray(0, n);
    if ((this.trail & Trail.Checksum) !== 0 && hashBytes(header) !== tail.hdr) {
      if ((flags & Trail.Counted) !== 0) this.received++;
      throw Errors.corrupt(undefined, undefined, undefined, undefined, src, this.rank);
    }
    this.onHeader(src, header, sizes, id, buffers, eager, tail);
  }

  private onHeader(src: number, header: Uint8Array, sizes: Float64Array, id: number, buffers: ArrayBuffer[] | undefined,
    eager: Uint8Array | undefined, tail: Tail | undefined): void {
    const phase = takePhase(header);
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
    if (kind === Wire.Stall) {
      const [, fence, stalled, rank] = decoded.msg as [Wire.Stall, number, number, number];
      this.votes.set(rank, stalled === 1 ? fence : -1);
      this.onVote?.();
      return;
    }
    if (sizes.length === 0 && decoded.parts.length === 0) {
      this.deliver(src, decoded, tail, phase);
      return;
    }
    if (buffers !== undefined) {
      // plain typed arrays, already received by the comm thread: the arrays are views of them
      payloadProbe.onRecv?.(decoded.parts);
      this.deliver(src, decoded, tail, phase);
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
      this.deliver(src, decoded, tail, phase);
      return;
    }
    // Loopback: the payload is in this process and is copied into the arrays right here.
    if (this.native.recv(id, decoded.parts, true)) this.deliver(src, decoded, tail, phase);
    else this.receiving.set(id, { src, decoded, tail, phase });
  }

  private onPayload(id: number): void {
    const r = this.receiving.get(id);
    if (r === undefined) throw Errors.transport(`payload for unknown message ${id}`, this.rank);
    this.receiving.delete(id);
    this.deliver(r.src, r.decoded, r.tail, r.phase);
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

  private onTrace(msg: WireMessage): void {
    const [, rank, bytes] = msg as [Wire.Trace, number, Uint8Array];
    this.traceChunks.set(rank, new TextDecoder().decode(bytes));
    this.traceArrived?.();
  }

  /** Hands a complete message to the core; counted as received once handed over (even when that throws). */
  private handle(msg: WireMessage): void {
    if (msg[0] === Wire.Trace) {
      this.onTrace(msg);
      return;
    }
    try {
      this.host.accept(msg);
    } finally {
      this.received++;
    }
  }

  private onFailure(msg: WireMessage): void {
    const [, code, detail, tt, terminal, rank] = msg as [Wire.Failure, string, string, string | null, number | null, number];
    const err = new TtgError(code as TtgErrorCode, `${detail} [announced by rank ${rank}]`, {
      tt: tt ?? undefined, terminal: terminal ?? undefined, rank, ...(msg.length > 6 ? { key: msg[6] } : {}),
    });
    if (code === 'E_HANG') {
      // every rank reports its own hang (the fence's watchdog picks this up)
      if (this.broken === undefined) this.hangNotice ??= err;
      this.onVote?.();
      return;
    }
    this.host.fail(err, true);
    this.failureNotice?.();
  }

  private awaitFailureNotice(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.host.fail(Errors.transport('another rank failed, but its error did not arrive', this.rank), true);
        resolve();
      }, FAILURE_NOTICE_MS);
      this.failureNotice = () => {
        clearTimeout(timer);
        this.failureNotice = undefined;
        resolve();
      };
      if (this.host.failed) this.failureNotice();
    });
  }
}

const KIND_NAMES: Record<number, string> = {
  [Wire.Input]: 'input', [Wire.StreamSize]: 'stream size', [Wire.Finalize]: 'finalize', [Wire.Invoke]: 'invoke', [Wire.Trace]: 'trace',
};

/** E_CORRUPT naming the edge, TT, terminal and key of `msg` as far as this rank knows them. */
function corruptError(host: TransportHost, msg: WireMessage, src: number, rank: number): TtgError {
  if (msg[0] === Wire.Input) {
    const [ttId, terminal, keys] = msg[1][0]!;
    const n = host.names(ttId, terminal);
    return Errors.corrupt(n.edge, n.tt, terminal, keys[0], src, rank);
  }
  const ttId = msg[1];
  return Errors.corrupt(undefined, typeof ttId === 'number' ? host.names(ttId, undefined).tt : undefined, undefined, undefined, src, rank);
}
