// One operation queued on a device stream: a copy, a BLAS-like kernel or a marker. Plain C so
// that the CUDA translation units (built by nvcc, without napi.h) share it with the C++ glue.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Values are part of the JS <-> native contract (src/device/native-device.ts: OpKind).
enum TtgOpKind {
  TTG_OP_MARKER = 0,  // no work; only its notification (all earlier ops on the stream are done)
  TTG_OP_COPY = 1,    // bytes from p[1] to p[0]; p[2] (host, may be null) gets the bytes' hash_bytes
  TTG_OP_DGEMM = 2,   // C = alpha op(A) op(B) + beta C          f: transA transB
  TTG_OP_DSYRK = 3,   // C = alpha A A^T + beta C (uplo, trans)  f: uplo trans
  TTG_OP_DTRSM = 4,   // B = alpha op(A)^-1 B (side...)           f: side uplo transA diag
  TTG_OP_DPOTRF = 5,  // A = L L^T, info -> *(int32*)p[3]          f: uplo
  TTG_OP_DAXPY = 6,   // Y += alpha X                              n
  TTG_OP_DSCAL = 7,   // X *= alpha                                n
  TTG_OP_STAMP = 8,   // *(double*)p[0] = steady-clock ms when the stream reaches it (p[0]: host)
  TTG_OP_USER = 9,    // a program's own kernel: p[0] its call (user_kernels.h), run and freed once
  TTG_OP_KINDS = 10
};

// Operands: p[0] A (or X, or copy dst), p[1] B (or Y, or copy src), p[2] C, p[3] info.
typedef struct TtgOp {
  int32_t kind;
  char f[4];
  int32_t m, n, k;
  int32_t lda, ldb, ldc;
  double alpha, beta;
  void* p[4];
  size_t bytes;
  uint64_t notify;  // 0: no completion report; else reported to JS once the op has run
  uint32_t stream;  // global stream index
} TtgOp;

#ifdef __cplusplus
}
#endif
