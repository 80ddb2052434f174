/* The ABI of a kernel a program compiles itself and registers with ttg
 * (`ttg.device.kernels.load(library, { name: { host, cuda, buffers, scalars } })`).
 *
 * A kernel is a C function `void name(const TtgKernelCall* call)` exported from a shared
 * library. ttg calls it once per `ttg.device.kernels.call(name, stream, ...)`, in stream order:
 *   - host and emulated backends: on the stream's worker thread; it computes and returns;
 *     `call->stream` is NULL;
 *   - cuda backend: on the thread that enqueues, with `call->stream` the task's cudaStream_t;
 *     it launches its work on that stream and returns without waiting.
 * `buffers[i]` points at the data of the i-th buffer operand where the stream's device holds it
 * (host memory on the host backend), `lengths[i]` is its number of elements (of the buffer's
 * typed-array type); `scalars` are the numbers passed, as doubles. A kernel must not keep any of
 * these pointers after it returns (or, on CUDA, after its work on the stream has run).
 * A CUDA function built with its own CUDA runtime (nvcc links one statically by default) should
 * store what its runtime's `cudaGetLastError()` says after its launches in `*call->error`: a
 * nonzero value fails the op's completion, so the task that waits for it fails with the reason.
 */
#ifndef TTG_KERNEL_H
#define TTG_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TtgKernelCall {
  void* const* buffers;
  const size_t* lengths;
  int nbuffers;
  const double* scalars;
  int nscalars;
  void* stream;
  int* error;
} TtgKernelCall;

typedef void (*TtgKernelFn)(const TtgKernelCall* call);

#ifdef __cplusplus
}
#endif

#endif
