/**
 * The only module that loads the native addon (`build/Release/ttg_native.node`).
 *
 * The addon is thin: it owns the MPI comm thread and marshals buffers; every decision
 * (routing, termination detection, retries) is made by the TypeScript that calls it.
 * @module
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { nativeSettings, type NativeSettings } from '../base/settings.js';

/** What the addon was compiled with (not what the current run uses). */
export interface NativeInfo {
  /** Built with the MPI transport. */
  mpi: boolean;
  /** Linked with OpenBLAS and LAPACKE. */
  blas: boolean;
  /** Built with CUDA kernels. */
  cuda: boolean;
  /** Addon version (the npm package version it was built from). */
  version: string;
  /** Human-readable library versions, e.g. `MPI: Open MPI v4.1.4; BLAS: OpenBLAS 0.3.21 ...`. */
  details: string;
}

/** Reduction of {@link NativeAddon.allreduce}: sum, min, max, prod (native/src/messages.h ReduceOp). */
export const enum ReduceOpCode {
  Sum = 0,
  Min = 1,
  Max = 2,
  Prod = 3,
}

/** Result of {@link NativeAddon.start}. */
export interface NativeWorld {
  /** This process's rank. */
  rank: number;
  /** Number of ranks (1 without mpirun or without MPI). */
  size: number;
  /** True when MPI was initialised (launched by mpirun and built with MPI). */
  mpi: boolean;
}

/**
 * An active message's header has arrived. When `eager` is present, the payload came inside the
 * header message: its parts follow each other in `eager`. When `buffers` is present, the payload
 * is already in them (one ArrayBuffer of `sizes[i]` bytes per part; messages sent with `plain`).
 * Otherwise, when `sizes` is not empty, allocate one view per part with exactly `sizes[i]` bytes
 * and call {@link NativeAddon.recv} with `id`; the payload then lands directly in those views (and
 * a {@link NativeRecvdEvent} follows unless `recv` returned true).
 */
export interface NativeMsgEvent {
  /** Discriminant. */
  kind: 'msg';
  /** Sending rank. */
  src: number;
  /** The header bytes as sent (a private copy). */
  header: Uint8Array;
  /** Byte length of each payload part, in send order. */
  sizes: readonly number[] | Float64Array;
  /** Receiver-local message id, for {@link NativeAddon.recv}. */
  id: number;
  /** The payload, for small messages that carried it inside the header message (no recv). */
  eager?: Uint8Array;
  /** The received payload parts, for messages sent with `plain` (then no recv is needed). */
  buffers?: ArrayBuffer[];
}

/** The payload of message `id` is now in the views given to {@link NativeAddon.recv}. */
export interface NativeRecvdEvent {
  /** Discriminant. */
  kind: 'recvd';
  /** The id from the matching {@link NativeMsgEvent}. */
  id: number;
}

/** The comm thread hit an error it could not attribute to a promise (e.g. an MPI failure). */
export interface NativeErrorEvent {
  /** Discriminant. */
  kind: 'error';
  /** Names the file:line and the MPI error string when MPI failed. */
  message: string;
}

/** One arrival, as {@link arrivalEvents} spells out a batch. */
export type NativeEvent = NativeMsgEvent | NativeRecvdEvent | NativeErrorEvent;

/**
 * Columns of one arrival's row in a batch's `meta` (native/src/addon.cc, Flatten); the row ends
 * with `Parts` byte sizes. Rows and byte ranges follow each other in arrival order: a message's
 * header bytes are the next bytes of the batch's `bytes`; then (mode `Eager`) its payload parts,
 * one after the other, from the next multiple of 8.
 */
export const enum ArrivalField { Kind, Src, Id, HeaderBytes, Mode, Parts, Sizes }
/** `meta[ArrivalField.Kind]`. */
export const enum ArrivalKind { Msg, Recvd, Error }
/** `meta[ArrivalField.Mode]` of a message: where its payload is. */
export const enum PayloadMode {
  /** Received by {@link NativeAddon.recv} (or there are no parts). */
  Recv,
  /** In the batch's bytes, after the header. */
  Eager,
  /** In pool buffers the addon lends: see {@link lentBuffers}. */
  Lent,
}

/**
 * Receives one batch of arrivals: a row of numbers per arrival in the first `length` numbers of
 * `meta` (see {@link ArrivalField}), the header (and eager payload) bytes in `bytes`, and per
 * arrival index the lent buffers of a message or the text of an error in `extra` (undefined when
 * none has any; a batch of one message lent one buffer has that ArrayBuffer as `extra` itself).
 * `meta` and `bytes` are reused by the next batch: read them during the call. Returning true says
 * the JS thread polls (`poll`) again shortly, so the comm thread need not poll beside it.
 */
export type ArrivalsCallback = (meta: Float64Array, bytes: Uint8Array, extra: ArrivalExtra, length: number) => boolean | void;

/** Called on the JS thread with the pins of tracked sends whose memory the comm thread no longer reads. */
export type SentCallback = (pins: Float64Array) => void;

/** The `extra` argument of an {@link ArrivalsCallback}. */
export type ArrivalExtra = unknown[] | ArrayBuffer | undefined;

/** The buffers lent to arrival `e` of a batch, whose mode is {@link PayloadMode.Lent}. */
export function lentBuffers(extra: ArrivalExtra, e: number): ArrayBuffer[] {
  return extra instanceof ArrayBuffer ? [extra] : (extra![e] as ArrayBuffer[]);
}

/**
 * Spells a batch out as one object per arrival, with copies of its bytes (tests and tools; the
 * transport reads it flat and in place).
 */
export function arrivalEvents(meta: Float64Array, bytes: Uint8Array, extra: ArrivalExtra, length: number): NativeEvent[] {
  const events: NativeEvent[] = [];
  let off = 0;
  for (let m = 0, e = 0; m < length; e++) {
    const parts = meta[m + ArrivalField.Parts]!;
    const sizes = [...meta.subarray(m + ArrivalField.Sizes, m + ArrivalField.Sizes + parts)];
    const kind = meta[m + ArrivalField.Kind]!;
    const id = meta[m + ArrivalField.Id]!;
    if (kind === ArrivalKind.Recvd) events.push({ kind: 'recvd', id });
    else if (kind === ArrivalKind.Error) events.push({ kind: 'error', message: String((extra as unknown[])[e]) });
    else {
      const header = bytes.slice(off, (off += meta[m + ArrivalField.HeaderBytes]!));
      const ev: NativeMsgEvent = { kind: 'msg', src: meta[m + ArrivalField.Src]!, header, sizes, id };
      const mode = meta[m + ArrivalField.Mode];
      if (mode === PayloadMode.Eager) {
        off = (off + 7) & ~7;
        ev.eager = bytes.slice(off, (off += sizes.reduce((a, b) => a + b, 0)));
      }
      else if (mode === PayloadMode.Lent) ev.buffers = lentBuffers(extra, e);
      events.push(ev);
    }
    m += ArrivalField.Sizes + parts;
  }
  return events;
}

/** Counters of the comm thread since the last {@link NativeAddon.start}. */
export interface NativeStats {
  /** Messages sent (headers). */
  sent_msgs: number;
  /** Messages whose header arrived. */
  recv_msgs: number;
  /** Header plus payload bytes sent. */
  sent_bytes: number;
  /** Header bytes arrived plus payload bytes received. */
  recv_bytes: number;
  /** Messages whose payload is being received now (MPI reports no partial progress of one). */
  receiving: number;
  /** Large plain payloads received into a buffer from the addon's pool (given back or transferred)... */
  pool_reused: number;
  /** ... or into a newly allocated one. */
  pool_allocated: number;
  /** Received pool buffers lent to JS through an ArrayBuffer prepared when their last send left. */
  pool_prepared: number;
}

/** What the device part of the addon can do on this machine (`ttg.device.info()`). */
export interface NativeDeviceInfo {
  /** Host kernels call OpenBLAS/LAPACKE (false: plain C++ loops). */
  blas: boolean;
  /** Threads OpenBLAS uses per call (1 once the kernel pool set it). */
  blas_threads: number;
  /** Which host kernels run, e.g. `OpenBLAS/LAPACKE (...), 1 thread(s) per call`. */
  kernels: string;
  /** The addon contains CUDA code (nvcc was found at build time). */
  cuda_compiled: boolean;
  /** CUDA devices usable now (0 without a GPU or driver). */
  cuda_devices: number;
  /** Why `cuda_devices` is 0, when CUDA said so. */
  cuda_error: string;
  /**
   * Which kernels the cuda backend runs: cuBLAS/cuSOLVER with their versions and paths, or our
   * tile kernels and why (empty until the cuda backend first started).
   */
  cuda_kernels: string;
  /** Device allocations alive now (devAlloc'd, not yet devFree'd nor freed by devStop). */
  allocations: number;
}

/**
 * A batch of completed notify ids. On CUDA, `errors` is present when CUDA failed some of them
 * (an op it refused, or a stream that faulted): `errors[i]` then says why `ids[i]` failed, and is
 * undefined for those that ran.
 */
export type DeviceDoneCallback = (ids: Float64Array, errors?: ReadonlyArray<string | undefined>) => void;

/** The addon's API; see native/src/addon.cc (device functions: native/src/device_addon.cc). Synchronous methods throw, async ones reject. */
export interface NativeAddon {
  /** Compile-time capabilities. */
  info(): NativeInfo;
  /**
   * Starts the comm thread, and MPI when the process was launched by mpirun. `onArrivals` is
   * called on the JS thread with batches of events, only when something arrived. The comm
   * thread keeps the event loop alive until {@link NativeAddon.finalize} or
   * {@link NativeAddon.keepAlive}(false).
   */
  start(onArrivals: ArrivalsCallback, onSent?: SentCallback): NativeWorld;
  /**
   * Enqueues an active message to `dest`. The header is copied; the `parts` are sent from
   * their own memory, so they must not be modified until the receiver has them (the addon
   * keeps them alive until then). A part of 2 GiB or more travels in chunks of 1 GiB. `plain`: every part is a
   * plain typed array that the receiver may receive into memory of its own choosing, before its JS
   * has seen the header (its event then carries `buffers`). `transfer`: the caller gives the parts
   * up; those that lie in receive buffers the addon lent (an arrival's `buffers`) are detached at
   * once and their memory receives later messages after this send (ignored without MPI).
   * `copy`: the parts (at most 1 MiB in all) are copied before this returns, so their memory may
   * be reused at once; nothing is pinned (`transfer` is then ignored). Memory that a live pin
   * still covers (an earlier send or receive) is never transferred, only pinned.
   * Returns the pin that keeps the parts until the comm thread no longer reads them (0: nothing
   * pinned); with `track`, its id reaches {@link start}'s `onSent` once that is so.
   */
  send(dest: number, header: ArrayBufferView, parts: ArrayBufferView[], plain?: boolean, transfer?: boolean, copy?: boolean, track?: boolean): number;
  /**
   * Receives the payload of message `id` directly into `views` (byte lengths must match `sizes`).
   * With `inline` true, a payload that is already in this process (small messages travel inside
   * the header message; loopback) is copied into `views` before this returns, which then returns
   * true and no {@link NativeRecvdEvent} follows. Otherwise returns false and the event follows.
   */
  recv(id: number, views: ArrayBufferView[], inline?: boolean): boolean;
  /**
   * Element-wise reduction (`op`, default sum) over the ranks of communicator `comm` (0, the
   * default: the whole job; else one made by {@link split}); non-blocking MPI_Iallreduce progressed
   * by the comm thread.
   * `delayUs`: the comm thread starts it that long after this call (collectives still start in
   * the order they were called); the JS thread needs no timer for the pause. `quietUs`: it starts
   * sooner, once the comm thread has seen no traffic for that long.
   */
  allreduce(values: Float64Array, delayUs?: number, comm?: number, op?: ReduceOpCode, quietUs?: number): Promise<Float64Array>;
  /**
   * MPI_Ibcast of `view`'s bytes from rank `root` of communicator `comm` (default 0) into `view` on
   * every other rank; every rank passes a view of the same byte length. `view` is pinned meanwhile.
   */
  bcast(view: ArrayBufferView, root: number, comm?: number): Promise<void>;
  /** Resolves when every rank of communicator `comm` (default 0) has entered the barrier. */
  barrier(comm?: number): Promise<void>;
  /**
   * MPI_Comm_split of communicator `comm`: resolves `[comm, rank, size]` of the new communicator,
   * or `[-1, -1, 0]` for a negative `color`. Collective over `comm`; enter it only when every rank
   * of `comm` is entering it (it blocks the comm thread until they have).
   */
  split(comm: number, color: number, key: number): Promise<Float64Array>;
  /** Sets the addon's tuning (read from the environment by src/base/settings.ts); call before `start`. */
  configure(settings: Partial<NativeSettings>): void;
  /**
   * How many own properties (strings and symbols, enumerable or not) `value` has that are not
   * array indices, without listing the indices; -1 for a value that is not an object.
   */
  ownNonIndexKeys(value: unknown): number;
  /**
   * Runs a native job another addon made (a `TtgCommJob`, native/include/ttg_seams.h, as an
   * External) on the comm thread, the one thread that calls MPI, with communicator `comm` (0 the
   * whole job, as for {@link NativeAddon.allreduce}). Resolves to the job's results; rejects with
   * its message, or when there is no MPI.
   */
  commJob(job: unknown, comm?: number): Promise<Float64Array>;
  /**
   * The C entry points other addons may call (`TtgSeams`, native/include/ttg_seams.h), as an
   * External to hand to them.
   */
  seams(): unknown;
  /** Message and byte counters. */
  stats(): NativeStats;
  /** MPI_Abort(code) under MPI, else exits the process with `code`. Never returns. */
  abort(code: number): never;
  /**
   * Whether the started comm thread keeps Node's event loop alive (default true, like a
   * listening socket, so a rank waiting for messages does not exit). Pass false when nothing
   * is expected (e.g. after a fence) so a program that never calls finalize still exits; MPI is
   * then finalized by the addon's exit hooks.
   */
  keepAlive(on: boolean): void;
  /**
   * Waits up to `us` microseconds on the JS thread (progressing MPI itself between looks) for the
   * comm thread's next batch; if one comes, hands it to `onArrivals` (the function given to
   * {@link start}) before returning true, as a wake-up of the event loop would have. While this
   * thread polls, and after a batch found with `us > 0` (the caller then polls again shortly),
   * the comm thread sleeps instead of polling beside it; a poll that finds nothing, or one of
   * 0 µs, hands MPI back to the comm thread.
   */
  poll(us: number, onArrivals: ArrivalsCallback): boolean;
  /** Stops the comm thread and calls MPI_Finalize once. Idempotent. */
  finalize(): void;
  /** Device capabilities: BLAS, CUDA compiled, CUDA device count. */
  devInfo(): NativeDeviceInfo;
  /**
   * Starts the device runtime: `kind` `pool` (one native thread per stream; host and emulated
   * backends) or `cuda` (`streams / devices` CUDA streams per device). `onDone` receives batches of
   * completed notify ids, every id exactly once (see {@link DeviceDoneCallback} for failed ones). `slowdown`: per pool stream, a factor >= 1 that stretches its ops by
   * sleeping after each (emulated devices made slower). `host` (cuda): pool threads of a host place
   * beside the CUDA devices, numbered after the CUDA streams. Throws when already started or when CUDA fails.
   */
  devStart(kind: 'pool' | 'cuda', streams: number, devices: number, onDone: DeviceDoneCallback, slowdown?: Float64Array, host?: number): void;
  /** Waits for every stream to drain, stops them and frees all device memory. Idempotent. */
  devStop(): void;
  /**
   * Allocates `bytes` on `device`; returns its address, or null when the device is out of memory.
   * An address is `handle·2^32`; `address + offset` (offset < bytes, < 2^32) is an operand too, so a
   * device memory pool carves one allocation into blocks (src/device/pool.ts).
   */
  devAlloc(device: number, bytes: number): number | null;
  /** Frees an allocation by the address {@link NativeAddon.devAlloc} returned (an address inside it frees nothing). */
  devFree(handle: number): void;
  /**
   * Enqueues one op (native/src/device_op.h) on global stream `stream`. Memory operands are
   * handles, host TypedArrays, or null. `notify` 0 means no report; otherwise the id is passed to
   * `onDone` once the op (and so every earlier op of the stream) has run. A copy's `p2`, when a
   * host BigUint64Array, receives the {@link NativeAddon.hash64} of the bytes it copied, computed
   * where the copy runs (before its completion is reported).
   */
  devOp(stream: number, kind: number, flags: string, m: number, n: number, k: number, alpha: number, beta: number,
    p0: number | ArrayBufferView | null, lda: number, p1: number | ArrayBufferView | null, ldb: number,
    p2: number | ArrayBufferView | null, ldc: number, p3: number | ArrayBufferView | null, bytes: number, notify: number): void;
  /**
   * Enqueues ops `[from, to)` of `pack` in order, each as {@link NativeAddon.devOp} would: 17
   * numbers per op (stream, kind, flags as char codes, one per byte from the lowest, m, n, k,
   * alpha, beta, lda, ldb, ldc, bytes, notify, then the operands p0..p3: 0 none, > 0 a handle,
   * < 0 the host view `views[-v - 1]`). An op refused throws an Error whose numeric `index` is that
   * op's: the ops before it are enqueued, none after it.
   */
  devOps(pack: Float64Array, views: ReadonlyArray<ArrayBufferView | undefined>, from: number, to: number): void;
  /**
   * Waits up to `us` microseconds, yielding the core, for completions of notify ids and hands them
   * to `onDone` right here (no wake-up of the event loop); false when none came.
   */
  devPoll(us: number): boolean;
  /** Free and total bytes of CUDA device `device`, or null. */
  devMemInfo(device: number): { free: number; total: number } | null;
  /** Loads function `symbol` of the shared library at `path` (native/include/ttg_kernel.h); returns its kernel id. */
  devLoadKernel(path: string, symbol: string): number;
  /**
   * Enqueues one call of kernel `kernel` on global stream `stream`: its buffer operands (handles
   * or host views) with their element counts, and its scalars; `notify` as for {@link NativeAddon.devOp}.
   */
  devCall(stream: number, kernel: number, buffers: Array<number | ArrayBufferView>, lengths: Float64Array, scalars: Float64Array, notify: number): void;
  devCallHere(kernel: number, views: ArrayBufferView[], scalars: Float64Array): number;
  /**
   * A 64-bit hash of the view's bytes, read in place, for change detection: XXH64 (seed 0, the
   * value xxhash-wasm's `h64Raw` gives) up to 1 MiB; beyond, XXH64 of the XXH64s of its 1 MiB
   * chunks, hashed on up to 8 of the process's cores.
   */
  hash64(view: ArrayBufferView): bigint;
  /** {@link NativeAddon.hash64} on a worker thread; the caller keeps the view unwritten until it settles. */
  hash64Async(view: ArrayBufferView): Promise<bigint>;
}

const REQUIRED: readonly (keyof NativeAddon)[] = [
  'info', 'configure', 'ownNonIndexKeys', 'start', 'send', 'recv', 'allreduce', 'barrier', 'bcast', 'split', 'commJob', 'seams', 'stats', 'abort', 'keepAlive', 'poll', 'finalize',
  'devInfo', 'devStart', 'devStop', 'devAlloc', 'devFree', 'devOp', 'devOps', 'devPoll', 'devMemInfo', 'devLoadKernel', 'devCall', 'devCallHere', 'hash64', 'hash64Async',
];

let cached: NativeAddon | null | undefined;
let reason: string | null = null;

/** Directory holding the package.json nearest above this file (works from src/ and dist/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

/** Path the addon is loaded from: `<package root>/build/Release/ttg_native.node`. */
export function nativeAddonPath(): string {
  return builtAddonPath('ttg_native');
}

/** Path of an addon built by `npm run build:native`: `<package root>/build/Release/<name>.node`. */
export function builtAddonPath(name: string): string {
  return join(packageRoot(), 'build', 'Release', `${name}.node`);
}

/**
 * Loads the addon once. Returns null when it is missing or fails to load; the one-line reason
 * is then available from {@link nativeLoadError}.
 */
export function loadNative(): NativeAddon | null {
  if (cached !== undefined) return cached;
  try {
    const path = nativeAddonPath();
    if (!existsSync(path)) throw new Error(`${path} does not exist`);
    const addon = createRequire(import.meta.url)(path) as Partial<NativeAddon>;
    const missing = REQUIRED.filter((k) => typeof addon[k] !== 'function');
    if (missing.length > 0) throw new Error(`${path} lacks ${missing.join(', ')} (stale build?)`);
    cached = addon as NativeAddon;
    cached.configure(nativeSettings());
  } catch (e) {
    reason = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? 'unknown error';
    cached = null;
  }
  return cached;
}

/** Why {@link loadNative} returned null, or null if it loaded (or was not tried yet). */
export function nativeLoadError(): string | null {
  return reason;
}

/**
 * The addon, for callers that cannot work without it.
 * @throws Error naming the load failure and telling the user to run `npm run build:native`.
 */
export function requireNative(): NativeAddon {
  const addon = loadNative();
  if (addon === null) {
    throw new Error(`ttg native addon unavailable (${reason}); build it with \`npm run build:native\``);
  }
  return addon;
}
