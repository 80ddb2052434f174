/**
 * `ttg.device.kernels`: BLAS-like, column-major kernels with the same signatures on every backend
 * (SPEC §5). Each call checks its arguments against the buffers' sizes (so native code never
 * reads out of bounds), enqueues one op on the stream and returns at once; `yield
 * ttg.device.kernel(...)` waits. Flags are BLAS letters: 'N'/'T', 'L'/'U', 'L'/'R', 'N'/'U'.
 */
import { inPlaceAt } from './backend.js';
import { Buffer, type AnyBuffer } from './buffer.js';
import { DeviceErrors } from './errors.js';
import { requireRuntime, type DeviceRuntime } from './runtime.js';
import { beforeUse, checkWrite, noteWrite, runningTask, whyNotUsable } from './steps.js';
import { OpKind, Stream } from './streams.js';

type Flag = string;

function flag(name: string, v: unknown, allowed: string): string {
  // upper case is the common spelling: take it as it is, with no new string per call
  const c = typeof v === 'string' && v.length === 1 ? (allowed.includes(v) ? v : v.toUpperCase()) : '';
  if (c === '' || !allowed.includes(c)) throw DeviceErrors.invalid(`kernels: ${name}`, `must be one of '${allowed.split('').join("', '")}', got ${JSON.stringify(v)}`);
  return c;
}

/** Both transpose letters of a dgemm as one string, made once rather than per kernel call. */
const TRANS_PAIRS: Record<string, Record<string, string>> = {};
for (const a of 'NTC') {
  TRANS_PAIRS[a] = {};
  for (const b of 'NTC') TRANS_PAIRS[a][b] = a + b;
}

function dim(name: string, v: unknown): number {
  if (!Number.isInteger(v) || (v as number) < 0) throw DeviceErrors.invalid(`kernels: ${name}`, `must be a non-negative integer, got ${String(v)}`);
  return v as number;
}

function checkStream(k: string, s: unknown): Stream {
  if (!(s instanceof Stream)) throw DeviceErrors.invalid(`kernels.${k}(stream, ...)`, 'needs the stream from `yield ttg.device.input(...)`');
  return s;
}

/** The device operand of `b` on `s` (checking it is a big enough, resident Float64 buffer). */
function mat(r: DeviceRuntime, k: string, name: string, b: unknown, s: Stream, rows: number, cols: number, ld: number): number | Float64Array {
  if (!(b instanceof Buffer) || !(b.host instanceof Float64Array)) throw DeviceErrors.invalid(`kernels.${k}: ${name}`, 'must be a ttg.Buffer of a Float64Array');
  if (!Number.isInteger(ld) || ld < Math.max(1, rows)) throw DeviceErrors.invalid(`kernels.${k}: leading dimension of ${name}`, `must be an integer >= max(1, ${rows}), got ${String(ld)}`);
  const need = rows === 0 || cols === 0 ? 0 : ld * (cols - 1) + rows;
  if (b.length < need) throw DeviceErrors.invalid(`kernels.${k}: ${name}`, `has ${b.length} elements; a ${rows}x${cols} matrix with leading dimension ${ld} needs ${need}`);
  return place(r, k, name, b, s) as number | Float64Array;
}

/** Where kernel `k`'s operand `name` is on `s`'s place (host memory or a device handle), or why it may not be used. */
export function place(r: DeviceRuntime, k: string, name: string, b: AnyBuffer, s: Stream): number | ArrayBufferView {
  const why = whyNotUsable(b, s);
  if (why !== undefined) throw DeviceErrors.invalid(`kernels.${k}: ${name}`, why);
  beforeUse(r, b, s);
  return inPlaceAt(r.backend, s.device) ? b.host : b.copies[s.device]!.handle!;
}

function vec(r: DeviceRuntime, k: string, name: string, b: unknown, s: Stream, n: number): number | ArrayBufferView {
  if (!(b instanceof Buffer) || !(b.host instanceof Float64Array)) throw DeviceErrors.invalid(`kernels.${k}: ${name}`, 'must be a ttg.Buffer of a Float64Array');
  if (b.length < n) throw DeviceErrors.invalid(`kernels.${k}: ${name}`, `has ${b.length} elements, needs ${n}`);
  return place(r, k, name, b, s);
}

function enqueue(r: DeviceRuntime, s: Stream, out: AnyBuffer, kind: OpKind, f: string, m: number, n: number, kk: number,
  alpha: number, beta: number, p0: unknown, lda: number, p1: unknown, ldb: number, p2: unknown, ldc: number, p3: unknown): void {
  type Op = number | ArrayBufferView | null;
  r.streams.op(s, kind, f, m, n, kk, alpha, beta, p0 as Op, lda, p1 as Op, ldb, p2 as Op, ldc, p3 as Op, 0, runningTask());
  r.memory.markWritten(out, s);
  noteWrite(out);
  r.memory.counters[s.device]!.kernels++;
  s.kernels++;
}

/** C = alpha op(A) op(B) + beta C, with op(A) m x k, op(B) k x n, C m x n. */
export function dgemm(stream: Stream, transA: Flag, transB: Flag, m: number, n: number, k: number, alpha: number,
  A: AnyBuffer, lda: number, B: AnyBuffer, ldb: number, beta: number, C: AnyBuffer, ldc: number): void {
  const r = requireRuntime(), s = checkStream('dgemm', stream);
  const ta = flag('transA', transA, 'NTC'), tb = flag('transB', transB, 'NTC');
  dim('m', m); dim('n', n); dim('k', k);
  const a = ta === 'N' ? mat(r, 'dgemm', 'A', A, s, m, k, lda) : mat(r, 'dgemm', 'A', A, s, k, m, lda);
  const b = tb === 'N' ? mat(r, 'dgemm', 'B', B, s, k, n, ldb) : mat(r, 'dgemm', 'B', B, s, n, k, ldb);
  const c = mat(r, 'dgemm', 'C', C, s, m, n, ldc);
  checkWrite('kernels.dgemm: C', C);
  enqueue(r, s, C, OpKind.Dgemm, TRANS_PAIRS[ta]![tb]!, m, n, k, alpha, beta, a, lda, b, ldb, c, ldc, null);
}

/** C = alpha op(A) op(A)^T + beta C on the `uplo` triangle of the n x n C; op(A) is n x k. */
export function dsyrk(stream: Stream, uplo: Flag, trans: Flag, n: number, k: number, alpha: number,
  A: AnyBuffer, lda: number, beta: number, C: AnyBuffer, ldc: number): void {
  const r = requireRuntime(), s = checkStream('dsyrk', stream);
  const u = flag('uplo', uplo, 'LU'), t = flag('trans', trans, 'NTC');
  dim('n', n); dim('k', k);
  const a = t === 'N' ? mat(r, 'dsyrk', 'A', A, s, n, k, lda) : mat(r, 'dsyrk', 'A', A, s, k, n, lda);
  const c = mat(r, 'dsyrk', 'C', C, s, n, n, ldc);
  checkWrite('kernels.dsyrk: C', C);
  enqueue(r, s, C, OpKind.Dsyrk, u + t, 0, n, k, alpha, beta, a, lda, null, 0, c, ldc, null);
}

/** B = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R'); B is m x n, A triangular. */
export function dtrsm(stream: Stream, side: Flag, uplo: Flag, transA: Flag, diag: Flag, m: number, n: number,
  alpha: number, A: AnyBuffer, lda: number, B: AnyBuffer, ldb: number): void {
  const r = requireRuntime(), s = checkStream('dtrsm', stream);
  const sd = flag('side', side, 'LR'), u = flag('uplo', uplo, 'LU'), t = flag('transA', transA, 'NTC'), d = flag('diag', diag, 'NU');
  dim('m', m); dim('n', n);
  const na = sd === 'L' ? m : n;
  const a = mat(r, 'dtrsm', 'A', A, s, na, na, lda);
  const b = mat(r, 'dtrsm', 'B', B, s, m, n, ldb);
  checkWrite('kernels.dtrsm: B', B);
  enqueue(r, s, B, OpKind.Dtrsm, sd + u + t + d, m, n, 0, alpha, 0, a, lda, b, ldb, null, 0, null);
}

/**
 * Cholesky factorization of the n x n A (`uplo` triangle) in place. `info`, when given, is a
 * Buffer of an Int32Array that receives LAPACK's info (0: success; i > 0: not positive definite
 * at column i); like any output it is current on the host after `yield ttg.device.kernel(info)`.
 */
export function dpotrf(stream: Stream, uplo: Flag, n: number, A: AnyBuffer, lda: number, info?: Buffer<Int32Array>): void {
  const r = requireRuntime(), s = checkStream('dpotrf', stream);
  const u = flag('uplo', uplo, 'LU');
  dim('n', n);
  const a = mat(r, 'dpotrf', 'A', A, s, n, n, lda);
  let p3: number | ArrayBufferView | null = null;
  if (info !== undefined) {
    if (!(info instanceof Buffer) || !(info.host instanceof Int32Array) || info.length < 1) {
      throw DeviceErrors.invalid('kernels.dpotrf: info', 'must be a ttg.Buffer of an Int32Array with at least one element');
    }
    p3 = place(r, 'dpotrf', 'info', info, s);
    checkWrite('kernels.dpotrf: info', info);
  }
  checkWrite('kernels.dpotrf: A', A);
  enqueue(r, s, A, OpKind.Dpotrf, u, 0, n, 0, 0, 0, a, lda, null, 0, null, 0, p3);
  if (info !== undefined) {
    r.memory.markWritten(info, s);
    noteWrite(info);
  }
}

/** Y += alpha X over n elements. */
export function daxpy(stream: Stream, n: number, alpha: number, X: AnyBuffer, Y: AnyBuffer): void {
  const r = requireRuntime(), s = checkStream('daxpy', stream);
  dim('n', n);
  const x = vec(r, 'daxpy', 'X', X, s, n), y = vec(r, 'daxpy', 'Y', Y, s, n);
  checkWrite('kernels.daxpy: Y', Y);
  enqueue(r, s, Y, OpKind.Daxpy, '', 0, n, 0, alpha, 0, x, 0, y, 0, null, 0, null);
}

/** X *= alpha over n elements. */
export function dscal(stream: Stream, n: number, alpha: number, X: AnyBuffer): void {
  const r = requireRuntime(), s = checkStream('dscal', stream);
  dim('n', n);
  const x = vec(r, 'dscal', 'X', X, s, n);
  checkWrite('kernels.dscal: X', X);
  enqueue(r, s, X, OpKind.Dscal, '', 0, n, 0, alpha, 0, x, 0, null, 0, null, 0, null);
}
