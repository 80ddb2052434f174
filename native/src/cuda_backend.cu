// The CUDA driver layer: streams, device memory, pinned staging for copies, and completion
// reports through cudaLaunchHostFunc (a CUDA thread calls `done`; nothing polls). Every decision
// about what to copy, evict or run where is made in TypeScript (src/device).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "cuda_api.h"
#include "cuda_kernels.h"
#include "user_kernels.h"

#define TTG_CUDA_ERR(call, err, errlen)                                                            \
  do {                                                                                             \
    const cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                       \
      std::snprintf(err, errlen, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

namespace {

struct State {
  std::vector<cudaStream_t> streams;
  int per_device = 1;
  TtgCudaDone done = nullptr;
  void* ctx = nullptr;
  std::mutex staging_mu;
  std::multimap<size_t, void*> staging;  // free pinned buffers by size
};
State g;

void* take_staging(size_t bytes) {
  {
    std::lock_guard<std::mutex> lk(g.staging_mu);
    auto it = g.staging.lower_bound(bytes);
    if (it != g.staging.end() && it->first < 2 * bytes + 4096) {
      void* p = it->second;
      g.staging.erase(it);
      return p;
    }
  }
  void* p = nullptr;
  return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;
}

// Runs on a CUDA callback thread once the stream reached it: must not call CUDA.
struct HostStep {
  void* staging;
  size_t bytes;
  void* host_dst;  // D2H: where the staged bytes go
  uint64_t notify;
  double* stamp;   // TTG_OP_STAMP: host double receiving the time
};

void CUDART_CB host_step(void* data) {
  HostStep* h = static_cast<HostStep*>(data);
  if (h->host_dst != nullptr) std::memcpy(h->host_dst, h->staging, h->bytes);
  if (h->stamp != nullptr) {
    *h->stamp = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  if (h->staging != nullptr) {
    std::lock_guard<std::mutex> lk(g.staging_mu);
    g.staging.emplace(h->bytes, h->staging);
  }
  if (h->notify != 0 && g.done != nullptr) g.done(h->notify, g.ctx);
  delete h;
}

}  // namespace

extern "C" {

int ttg_cuda_compiled(void) { return 1; }

int ttg_cuda_device_count(char* err, size_t errlen) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    std::snprintf(err, errlen, "cudaGetDeviceCount: %s (error %d)", cudaGetErrorString(e), static_cast<int>(e));
    return 0;
  }
  return n;
}

int ttg_cuda_start(int devices, int streams_per_device, TtgCudaDone done, void* ctx, char* err, size_t errlen) {
  g.done = done;
  g.ctx = ctx;
  g.per_device = streams_per_device;
  for (int d = 0; d < devices; ++d) {
    TTG_CUDA_ERR(cudaSetDevice(d), err, errlen);
    for (int s = 0; s < streams_per_device; ++s) {
      cudaStream_t st;
      TTG_CUDA_ERR(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), err, errlen);
      g.streams.push_back(st);
    }
  }
  return 0;
}

void ttg_cuda_stop(void) {
  for (std::size_t i = 0; i < g.streams.size(); ++i) {
    cudaSetDevice(static_cast<int>(i) / g.per_device);
    cudaStreamSynchronize(g.streams[i]);
    cudaStreamDestroy(g.streams[i]);
  }
  g.streams.clear();
  std::lock_guard<std::mutex> lk(g.staging_mu);
  for (auto& kv : g.staging) cudaFreeHost(kv.second);
  g.staging.clear();
  g.done = nullptr;
}

void* ttg_cuda_malloc(int device, size_t bytes) {
  void* p = nullptr;
  if (cudaSetDevice(device) != cudaSuccess) return nullptr;
  if (cudaMalloc(&p, bytes == 0 ? 1 : bytes) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky out-of-memory error
    return nullptr;
  }
  return p;
}

void ttg_cuda_free(int device, void* p) {
  cudaSetDevice(device);
  cudaFree(p);
}

int ttg_cuda_mem_info(int device, size_t* free_bytes, size_t* total_bytes) {
  if (cudaSetDevice(device) != cudaSuccess) return 1;
  return cudaMemGetInfo(free_bytes, total_bytes) == cudaSuccess ? 0 : 1;
}

int ttg_cuda_enqueue(const TtgOp* op, char* err, size_t errlen) {
  if (op->stream >= g.streams.size()) {
    std::snprintf(err, errlen, "no CUDA stream %u", op->stream);
    return 1;
  }
  cudaStream_t s = g.streams[op->stream];
  TTG_CUDA_ERR(cudaSetDevice(static_cast<int>(op->stream) / g.per_device), err, errlen);
  HostStep* h = nullptr;
  if (op->kind == TTG_OP_COPY && op->bytes != 0) {
    void* staging = take_staging(op->bytes);
    if (staging == nullptr) {
      std::snprintf(err, errlen, "cudaMallocHost(%zu) failed", op->bytes);
      return 1;
    }
    h = new HostStep{staging, op->bytes, nullptr, op->notify, nullptr};
    if (op->f[0] == 'H') {
      // The host data is valid now (JS checked); staging it here lets the DMA run from pinned memory.
      std::memcpy(staging, op->p[1], op->bytes);
      TTG_CUDA_ERR(cudaMemcpyAsync(op->p[0], staging, op->bytes, cudaMemcpyHostToDevice, s), err, errlen);
    } else {
      h->host_dst = op->p[0];
      TTG_CUDA_ERR(cudaMemcpyAsync(staging, op->p[1], op->bytes, cudaMemcpyDeviceToHost, s), err, errlen);
    }
  } else if (op->kind == TTG_OP_STAMP) {
    h = new HostStep{nullptr, 0, nullptr, op->notify, static_cast<double*>(op->p[0])};
  } else if (op->kind == TTG_OP_USER) {
    ttg_run_user_op(op, s);  // the program's function launches its work on the stream
    TTG_CUDA_ERR(cudaGetLastError(), err, errlen);
  } else if (op->kind != TTG_OP_MARKER && op->kind != TTG_OP_COPY) {
    TTG_CUDA_ERR(ttg_cuda_launch(*op, s), err, errlen);
  }
  if (h == nullptr && op->notify != 0) h = new HostStep{nullptr, 0, nullptr, op->notify, nullptr};
  if (h != nullptr) TTG_CUDA_ERR(cudaLaunchHostFunc(s, host_step, h), err, errlen);
  return 0;
}

}  // extern "C"
