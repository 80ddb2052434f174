/**
 * The MPI transport: active messages through the addon's comm thread, and termination detection
 * for `fence()`. Every rank counts the messages it sent and fully received; a fence repeats
 * non-blocking allreduce waves, each entered only when this rank is idle, until two consecutive
 * waves see the same totals with sent == received (the four-counter method): then no rank is
 * working and nothing is in flight, cycles and data-dependent sends included.
 */
import { decode, encode, type DecodedMessage } from '../serialize/codec.js';
import { describeKey, Errors, TtgError, type TtgErrorCode } from './errors.js';
import { hooks } from './hooks.js';
import type { NativeAddon, NativeEvent } from './native.js';
import { ttById, ttIsFuture, whenExecutable } from './registry.js';
import { scheduler } from './scheduler.js';
import type { Transport } from './transport.js';
import { Wire, type Target, type WireMessage } from './wire.js';

/** How long a rank waits for the announcement of a failure that the wave reported elsewhere. */
const FAILURE_NOTICE_MS = 10_000;

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
  private readonly receiving = new Map<number, { src: number; decoded: DecodedMessage<WireMessage> }>();
  private failureNotice: (() => void) | undefined;
  private finalized = false;

  constructor(private readonly native: NativeAddon) {
    const w = native.start((events) => this.onArrivals(events));
    this.rank = w.rank;
    this.size = w.size;
    native.keepAlive(false);
    scheduler.onFirstError = (err) => this.announceFailure(err);
    // A rank leaving on an error must take the job down, not wait in MPI_Finalize for the others.
    process.on('exit', (code) => {
      if (code === 0 || this.finalized) return;
      // give mpirun a moment to forward what this rank printed about its error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      native.abort(code);
    });
  }

  sendInput(dest: number, targets: Target[], value: unknown): void {
    const wait = hooks.toHost?.([value]);
    const msg: WireMessage = [Wire.Input, targets, value];
    if (wait === undefined) {
      this.ship(dest, msg);
      return;
    }
    // counted now so that no fence can end before the deferred send has left
    this.sent++;
    wait.then(() => {
      this.sent--;
      this.ship(dest, msg);
    }, (e: unknown) => {
      this.sent--;
      scheduler.recordError(e instanceof TtgError ? e : Errors.transport(`moving data to host before a send failed: ${String(e)}`, this.rank, e));
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
    for (let r = 0; r < this.size; r++) if (r !== this.rank) this.native.send(r, bytes, []);
  }

  hold(): void {
    if (!this.finalized) this.native.keepAlive(true);
  }

  async quiesce(settleLocal: () => Promise<void>): Promise<void> {
    this.hold();
    try {
      let prevSent = -1;
      let prevRecv = -1;
      for (;;) {
        await settleLocal();
        const failed = scheduler.error === undefined ? 0 : 1;
        const [s, r, f] = await this.native.allreduce(Float64Array.of(this.sent, this.received, failed));
        if (s === r && s === prevSent && r === prevRecv) {
          if (f! > 0 && scheduler.error === undefined) await this.awaitFailureNotice();
          return;
        }
        prevSent = s!;
        prevRecv = r!;
      }
    } finally {
      this.native.keepAlive(false);
    }
  }

  async finalize(): Promise<void> {
    if (this.finalized) return;
    this.native.keepAlive(true); // the barrier below must keep this process alive
    await this.native.barrier();
    this.finalized = true;
    this.native.finalize();
  }

  /** Message counters, for tests and benchmarks. */
  counters(): { sent: number; received: number } {
    return { sent: this.sent, received: this.received };
  }

  private ship(dest: number, msg: WireMessage): void {
    let bytes: Uint8Array;
    let parts: ArrayBufferView[];
    let plain: boolean;
    try {
      ({ bytes, parts, plain } = encode(msg));
    } catch (e) {
      throw serializeError(msg, this.rank, e);
    }
    payloadProbe.onSend?.(parts);
    this.native.send(dest, bytes, parts, plain);
    this.sent++;
  }

  private onArrivals(events: NativeEvent[]): void {
    for (const ev of events) {
      try {
        if (ev.kind === 'msg') this.onHeader(ev.src, ev.header, ev.sizes, ev.id, ev.buffers);
        else if (ev.kind === 'recvd') this.onPayload(ev.id);
        else scheduler.recordError(Errors.transport(`comm thread: ${ev.message}`, this.rank));
      } catch (e) {
        scheduler.recordError(e instanceof TtgError ? e : Errors.transport(`handling a message failed: ${String(e)}`, this.rank, e));
      }
    }
  }

  private onHeader(src: number, header: Uint8Array, sizes: number[], id: number, buffers: ArrayBuffer[] | undefined): void {
    let decoded: DecodedMessage<WireMessage>;
    try {
      decoded = decode<WireMessage>(header, buffers);
    } catch (e) {
      this.received++;
      throw Errors.serialize(`a message from rank ${src}`, undefined, undefined, undefined, this.rank, e);
    }
    if (decoded.msg[0] === Wire.Failure) {
      this.onFailure(decoded.msg);
      return;
    }
    if (sizes.length === 0 && decoded.parts.length === 0) {
      this.handle(decoded.msg);
      return;
    }
    if (buffers !== undefined) {
      // plain typed arrays, already received by the comm thread: the arrays are views of them
      payloadProbe.onRecv?.(decoded.parts);
      this.handle(decoded.msg);
      return;
    }
    const ok = sizes.length === decoded.parts.length && sizes.every((n, i) => n === decoded.parts[i]!.byteLength);
    if (!ok) {
      this.received++;
      throw Errors.serialize(`a message from rank ${src}`, undefined, undefined, undefined, this.rank,
        new Error(`payload sizes [${sizes.join(', ')}] do not match the decoded arrays [${decoded.parts.map((p) => p.byteLength).join(', ')}]`));
    }
    payloadProbe.onRecv?.(decoded.parts);
    // Small payloads ride in the header message and are copied into the arrays right here.
    if (this.native.recv(id, decoded.parts, true)) this.handle(decoded.msg);
    else this.receiving.set(id, { src, decoded });
  }

  private onPayload(id: number): void {
    const r = this.receiving.get(id);
    if (r === undefined) throw Errors.transport(`payload for unknown message ${id}`, this.rank);
    this.receiving.delete(id);
    this.handle(r.decoded.msg);
  }

  /**
   * Delivers a complete message; counted as received once delivered (even when delivery throws).
   * A message for a TT this rank has not made executable yet waits for it.
   */
  private handle(msg: WireMessage): void {
    const waitFor = this.notReady(msg);
    if (waitFor >= 0) {
      whenExecutable(waitFor, () => {
        try {
          this.handle(msg);
        } catch (e) {
          scheduler.recordError(e instanceof TtgError ? e : Errors.transport(`handling a message failed: ${String(e)}`, this.rank, e));
        }
      });
      return;
    }
    try {
      switch (msg[0]) {
        case Wire.Input: {
          const value = msg[2];
          for (const [ttId, terminal, keys] of msg[1]) {
            const tt = lookup(ttId, this.rank);
            for (const key of keys) tt.receive(terminal, key, value);
          }
          return;
        }
        case Wire.StreamSize:
          lookup(msg[1], this.rank).setStreamSize(msg[2], msg[3], msg[4]);
          return;
        case Wire.Finalize:
          lookup(msg[1], this.rank).finalizeStream(msg[2], msg[3]);
          return;
        case Wire.Invoke:
          lookup(msg[1], this.rank).invokeLocal(msg[2]);
          return;
        default:
          throw Errors.transport(`unknown message kind ${String(msg[0])}`, this.rank);
      }
    } finally {
      this.received++;
    }
  }

  /** The id of a TT named by `msg` that is not executable here yet, or -1. */
  private notReady(msg: WireMessage): number {
    if (msg[0] === Wire.Input) {
      for (const [ttId] of msg[1]) if (!isExecutable(ttId)) return ttId;
      return -1;
    }
    return isExecutable(msg[1] as number) ? -1 : msg[1] as number;
  }

  private onFailure(msg: WireMessage): void {
    const [, code, detail, tt, terminal, rank] = msg as [Wire.Failure, string, string, string | null, number | null, number];
    const err = new TtgError(code as TtgErrorCode, `${detail} [announced by rank ${rank}]`, {
      tt: tt ?? undefined, terminal: terminal ?? undefined, rank, ...(msg.length > 6 ? { key: msg[6] } : {}),
    });
    scheduler.recordError(err, true);
    this.failureNotice?.();
  }

  private awaitFailureNotice(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        scheduler.recordError(Errors.transport('another rank failed, but its error did not arrive', this.rank), true);
        resolve();
      }, FAILURE_NOTICE_MS);
      this.failureNotice = () => {
        clearTimeout(timer);
        this.failureNotice = undefined;
        resolve();
      };
      if (scheduler.error !== undefined) this.failureNotice();
    });
  }
}

function isExecutable(ttId: number): boolean {
  const tt = ttById(ttId);
  return tt === undefined ? !ttIsFuture(ttId) : tt.executable;
}

function lookup(ttId: number, rank: number) {
  const tt = ttById(ttId);
  if (tt === undefined) {
    throw Errors.transport(`a message names TT #${ttId}, which does not exist on this rank (build the same graphs in the same order on every rank)`, rank);
  }
  return tt;
}

function serializeError(msg: WireMessage, rank: number, cause: unknown): TtgError {
  if (msg[0] === Wire.Input) {
    const [ttId, terminal, keys] = msg[1][0]!;
    return Errors.serialize('the value', ttById(ttId)?.name, terminal, keys[0], rank, cause);
  }
  const ttId = msg[1];
  return Errors.serialize('a message', typeof ttId === 'number' ? ttById(ttId)?.name : undefined, undefined, undefined, rank, cause);
}
