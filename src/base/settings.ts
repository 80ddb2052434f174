/**
 * Every `TTG_*` environment variable is read here and nowhere else (the README's "Tuning
 * variables" table lists them). Read when asked, so a variable set before `initialize` counts.
 * The addon's tuning goes to it through `configure` (src/native/addon.ts).
 */
import { cudaLibDirs } from './cuda-libs.js';
import { Errors } from './errors.js';

/** Default of TTG_HANG_TIMEOUT, in seconds. */
export const DEFAULT_HANG_TIMEOUT_S = 30;

const env = (name: string): string | undefined => process.env[name];

/** `1`, `true`, `on` or `yes` (any case). */
function flag(name: string): boolean {
  const v = env(name);
  return v !== undefined && /^(1|true|on|yes)$/i.test(v);
}

/** On unless the variable is `0`. */
function unlessZero(name: string): boolean {
  return env(name) !== '0';
}

/** A number of microseconds in (0, 1e6), else `fallback`. */
function micros(name: string, fallback: number): number {
  const n = Number(env(name));
  return Number.isInteger(n) && n > 0 && n < 1e6 ? n : fallback;
}

/** A non-negative integer (negative: 0), else `fallback`. */
function count(name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = env(name);
  const n = v === undefined || v === '' ? NaN : Math.trunc(Number(v));
  return Number.isNaN(n) ? fallback : Math.min(Math.max(n, 0), max);
}

/** TTG_TRACE: the trace file, or undefined. */
export function traceFile(): string | undefined {
  const f = env('TTG_TRACE');
  return f === undefined || f === '' ? undefined : f;
}

/** TTG_REPORT: the HTML report's file, or undefined. */
export function reportFile(): string | undefined {
  const f = env('TTG_REPORT');
  return f === undefined || f === '' ? undefined : f;
}

/**
 * TTG_DASHBOARD=[host:]port: where rank 0 serves the live dashboard (127.0.0.1 unless a host is
 * given; port 0: any free port), or undefined. An IPv6 host comes in brackets, as in the URL
 * printed (`[::1]:8080`); the host is returned without them, as `listen` takes it.
 */
export function dashboardAddress(): { host: string; port: number } | undefined {
  const v = env('TTG_DASHBOARD');
  if (v === undefined || v === '') return undefined;
  const m = /^(?:\[([^[\]]+)\]:|([^[\]]+):)?(\d+)$/.exec(v);
  if (m === null || Number(m[3]) > 65535) {
    throw Errors.invalidArgument('TTG_DASHBOARD', `must be [host:]port (an IPv6 host in brackets) with a port in 0..65535, got '${v}'`);
  }
  return { host: m[1] ?? m[2] ?? '127.0.0.1', port: Number(m[3]) };
}

/** Events are traced: for TTG_TRACE's file or TTG_REPORT's page. */
export const tracingRequested = (): boolean => traceFile() !== undefined || reportFile() !== undefined;

/** TTG_CHECKSUM: every message carries checksums. */
export const checksumRequested = (): boolean => flag('TTG_CHECKSUM');

/** TTG_CHECK_SERIALIZE: deliveries within a rank are encoded and decoded too. */
export const travelCheckRequested = (): boolean => flag('TTG_CHECK_SERIALIZE');

/**
 * TTG_PROGRESS: seconds a fence lasts before its progress line appears on a terminal (default 2);
 * `0` turns the line off.
 */
export function progressDelayS(): number {
  const v = env('TTG_PROGRESS');
  const n = Number(v);
  return v === undefined || v === '' || !Number.isFinite(n) || n < 0 ? 2 : n;
}

/** TTG_HANG_TIMEOUT: seconds without progress before a fence reports a hang. */
export function hangTimeout(): number {
  const v = Number(env('TTG_HANG_TIMEOUT'));
  return Number.isFinite(v) && v > 0 ? v : DEFAULT_HANG_TIMEOUT_S;
}

/**
 * TTG_JS_POLL_US: after handling a batch of arrivals while a fence waits, the JS thread polls
 * this long for the next one before it sleeps in the event loop (0: never).
 */
export function jsPollUs(): number {
  return env('TTG_JS_POLL_US') === '0' ? 0 : micros('TTG_JS_POLL_US', 50);
}

/**
 * TTG_DEVICE_POLL_US: while device work with a completion to come is queued, the JS thread polls
 * this long for completions, after each enqueue and each batch, before it sleeps (0: never).
 */
export function devicePollUs(): number {
  return env('TTG_DEVICE_POLL_US') === '0' ? 0 : micros('TTG_DEVICE_POLL_US', 20);
}

/**
 * TTG_AGGREGATE_BYTES: small messages to one rank wait in one buffer of up to this many bytes and
 * travel as one (transport/batches.ts); 0 turns it off. Default 16 KiB, at most 1 MiB (a buffer per
 * destination rank).
 */
export const aggregateBytes = (): number => count('TTG_AGGREGATE_BYTES', 16 * 1024, 2 ** 20);

/** TTG_DEVICE: `backend[:devices[:memory]]`, or undefined. */
export const deviceSpec = (): string | undefined => env('TTG_DEVICE');

/** The addon's tuning (field names as its `configure` takes them). */
export interface NativeSettings {
  eagerBytes: number;
  prerecv: boolean;
  recvPoolBytes: number;
  commIdleUs: number;
  commDeepIdleUs: number;
  commComputeIdleUs: number;
  commSpinUs: number;
  commSpinBusyUs: number;
  yieldOnSend: boolean;
  /** The JS thread makes sends and polls MPI itself when the comm thread is between passes (MPI_THREAD_SERIALIZED). */
  direct: boolean;
  deviceWakeDepth: number;
  poolSpinUs: number;
  /** Tests of error paths only: the nth MPI send of this process fails (0: none). */
  faultSend: number;
  /** Largest MPI request of a part (1 GiB; a part of 2 GiB or more travels in chunks): smaller in tests of the chunking. */
  mpiChunkBytes: number;
  /** Tests only (a slow network): a payload counts as received no sooner than this many ms after its receives were posted. */
  faultRecvDelayMs: number;
  /** Tests only: a kernel-pool worker that decided to wake the JS thread waits this many µs first (a late wake-up). */
  faultWakeDelayUs: number;
  /** Tests only: the nth helper thread of chunked hashes and copies fails to start (0: none). */
  faultChunkThread: number;
  /** Tests of error paths only: the nth device enqueue (kernel, copy, marker) fails (0: none); counted from when it is configured. */
  faultDevOp: number;
  /** Tests of error paths only: the completion of the nth device op that reports one fails, as a faulted CUDA stream's would (0: none). */
  faultDevDone: number;
  /** Where the cuda backend looks for cuBLAS/cuSOLVER first (':'-separated), or `off`: TTG_CUDA_LIBS (cuda-libs.ts). */
  cudaLibs: string;
}

/** The addon's tuning from TTG_EAGER_BYTES, TTG_PRERECV, TTG_RECV_POOL_MB, TTG_COMM_*, TTG_DIRECT, TTG_DEVICE_WAKE_DEPTH, TTG_POOL_SPIN_US, TTG_FAULT_SEND, TTG_FAULT_RECV_DELAY_MS, TTG_FAULT_WAKE_DELAY_US, TTG_FAULT_CHUNK_THREAD, TTG_MPI_CHUNK_BYTES, TTG_FAULT_DEVOP, TTG_FAULT_DEVDONE and TTG_CUDA_LIBS. */
export function nativeSettings(): NativeSettings {
  const idle = micros('TTG_COMM_IDLE_US', 50);
  // "0" turns spinning off
  const spin = Number(env('TTG_COMM_SPIN_US')) === 0 && env('TTG_COMM_SPIN_US') !== undefined ? 0 : micros('TTG_COMM_SPIN_US', 1000);
  return {
    eagerBytes: count('TTG_EAGER_BYTES', 64 * 1024, 2 ** 28),
    prerecv: unlessZero('TTG_PRERECV'),
    recvPoolBytes: count('TTG_RECV_POOL_MB', 256) * 2 ** 20,
    commIdleUs: idle,
    commDeepIdleUs: Math.max(idle, micros('TTG_COMM_DEEP_IDLE_US', 500)),
    commComputeIdleUs: Math.max(idle, micros('TTG_COMM_COMPUTE_IDLE_US', 2000)),
    commSpinUs: spin,
    commSpinBusyUs: spin === 0 ? 0 : Math.max(spin, micros('TTG_COMM_SPIN_BUSY_US', 20000)),
    yieldOnSend: unlessZero('TTG_YIELD_ON_SEND'),
    direct: unlessZero('TTG_DIRECT'),
    deviceWakeDepth: count('TTG_DEVICE_WAKE_DEPTH', 1),
    poolSpinUs: env('TTG_POOL_SPIN_US') === '0' ? 0 : micros('TTG_POOL_SPIN_US', 20),
    faultSend: count('TTG_FAULT_SEND', 0, 2 ** 31),
    faultRecvDelayMs: count('TTG_FAULT_RECV_DELAY_MS', 0, 2 ** 31),
    faultWakeDelayUs: count('TTG_FAULT_WAKE_DELAY_US', 0, 10 ** 6),
    faultChunkThread: count('TTG_FAULT_CHUNK_THREAD', 0, 64),
    mpiChunkBytes: Math.max(1, count('TTG_MPI_CHUNK_BYTES', 2 ** 30, 2 ** 30)),
    faultDevOp: count('TTG_FAULT_DEVOP', 0, 2 ** 31),
    faultDevDone: count('TTG_FAULT_DEVDONE', 0, 2 ** 31),
    cudaLibs: cudaLibDirs({
      libs: env('TTG_CUDA_LIBS'), CUDA_HOME: env('CUDA_HOME'), CUDA_PATH: env('CUDA_PATH'), VIRTUAL_ENV: env('VIRTUAL_ENV'),
      CONDA_PREFIX: env('CONDA_PREFIX'), HOME: env('HOME'),
    }),
  };
}
