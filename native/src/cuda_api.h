// C entry points of the CUDA backend (cuda_backend.cu, built by nvcc; cuda_stub.cc when nvcc is
// absent). No napi.h here: the .cu files stay plain CUDA C++, the glue (device_addon.cc) is C++.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "device_op.h"

#ifdef __cplusplus
extern "C" {
#endif

// Called on a CUDA or poller thread once op `notify` has run (`error` NULL) or CUDA failed it
// (`error` says why); every notify id enqueued is reported exactly once.
typedef void (*TtgCudaDone)(uint64_t notify, const char* error, void* ctx);

// 1 when this binary contains CUDA code.
int ttg_cuda_compiled(void);
// Number of usable devices; 0 (with the CUDA error string in `err`) when there is no GPU/driver.
int ttg_cuda_device_count(char* err, size_t errlen);
// Creates `streams_per_device` streams on each of devices [0, devices), with cuBLAS/cuSOLVER
// handles when those libraries load from `lib_dirs` (':'-separated directories searched first;
// "off": never; loaded once per process). 0 on success.
int ttg_cuda_start(int devices, int streams_per_device, TtgCudaDone done, void* ctx, const char* lib_dirs, char* err,
                   size_t errlen);
// Which kernels the cuda backend runs (cuBLAS/cuSOLVER and where from, or ours and why); empty
// before the first ttg_cuda_start.
const char* ttg_cuda_kernels(void);
// Synchronizes and destroys the streams and the staging buffers. Idempotent.
void ttg_cuda_stop(void);
// cudaMalloc on `device`; NULL when out of memory.
void* ttg_cuda_malloc(int device, size_t bytes);
void ttg_cuda_free(int device, void* p);
// Free and total bytes of `device`; 0 on success.
int ttg_cuda_mem_info(int device, size_t* free_bytes, size_t* total_bytes);
// Enqueues `op` on stream op->stream. Copies: f[0] = 'H' host->device (p[1] host), 'D'
// device->host (p[0] host), staged through pinned memory. Nonzero (`err` says why) only for a
// stream that does not exist; when CUDA refuses the op, its notify id (or, without one, the
// stream's next) is reported failed through `done`.
int ttg_cuda_enqueue(const TtgOp* op, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif
