// C entry points of the CUDA backend (cuda_backend.cu, built by nvcc; cuda_stub.cc when nvcc is
// absent). No napi.h here: the .cu files stay plain CUDA C++, the glue (device_addon.cc) is C++.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "device_op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*TtgCudaDone)(uint64_t notify, void* ctx);

// 1 when this binary contains CUDA code.
int ttg_cuda_compiled(void);
// Number of usable devices; 0 (with the CUDA error string in `err`) when there is no GPU/driver.
int ttg_cuda_device_count(char* err, size_t errlen);
// Creates `streams_per_device` streams on each of devices [0, devices). 0 on success.
int ttg_cuda_start(int devices, int streams_per_device, TtgCudaDone done, void* ctx, char* err, size_t errlen);
// Synchronizes and destroys the streams and the staging buffers. Idempotent.
void ttg_cuda_stop(void);
// cudaMalloc on `device`; NULL when out of memory.
void* ttg_cuda_malloc(int device, size_t bytes);
void ttg_cuda_free(int device, void* p);
// Free and total bytes of `device`; 0 on success.
int ttg_cuda_mem_info(int device, size_t* free_bytes, size_t* total_bytes);
// Enqueues `op` on stream op->stream. Copies: f[0] = 'H' host->device (p[1] host), 'D'
// device->host (p[0] host), staged through pinned memory. 0 on success, else `err` says why.
int ttg_cuda_enqueue(const TtgOp* op, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif
