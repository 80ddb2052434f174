// The driver layer of the cuda backend: streams, device memory, pinned staging for copies, the
// built-in kernels (cuBLAS/cuSOLVER when loaded, else ours), and completion reports through
// cudaLaunchHostFunc (a CUDA thread calls `done`). Every decision about what to copy, evict or
// run where is made in TypeScript (src/device).
//
// Failures. A CUDA call that refuses an op frees what the op had taken and fails a completion
// instead of losing it: the op's own notify id, or, for an op without one (a kernel), the next
// notify id of its stream. A kernel that faults leaves a sticky error: the stream never reaches
// its host functions again, so a poller thread asks the streams that owe completions
// (cudaStreamQuery) and fails those completions. Either way JS hears of every notify id it asked
// for; none is left to hang a fence.
#include <cuda_runtime.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "byte_chunks.h"
#include "bytes_hash.h"
#include "cores.h"
#include "cuda_api.h"
#include "cuda_kernels.h"
#include "cuda_vendor.h"
#include "thread_name.h"
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

// Threads that stage a large copy through pinned memory: one core copies at a fraction of the
// host's memory bandwidth.
const int kCopyThreads = std::min(ttg::usable_cores(), 4);

// How often the poller asks streams that owe completions whether CUDA failed them.
constexpr auto kPollEvery = std::chrono::milliseconds(20);

// A copy of host bytes into pinned staging that the stager thread runs (TTG_OP_COPY 'H' with
// f[1] 'w': JS only enqueues), with its hash where JS asked; the stream waits for it (wait_staged).
struct StageJob {
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  uint64_t* hash_out = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;

  void run() {
    if (hash_out != nullptr) *hash_out = ttg::copy_and_hash(dst, src, bytes, kCopyThreads);
    else ttg::copy_in_chunks(dst, src, bytes, kCopyThreads);
    std::lock_guard<std::mutex> lk(mu);
    done = true;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lk(mu);
    cv.wait(lk, [this] { return done; });
  }
};

// What a CUDA callback thread does once the stream reached it (it must not call CUDA).
struct HostStep {
  void* staging = nullptr;
  size_t bytes = 0;
  void* host_dst = nullptr;  // D2H: where the staged bytes go
  uint64_t* hash_out = nullptr;  // D2H: receives hash_bytes of them (JS asked, TTG_OP_COPY's p[2])
  // H2D staged by the stager thread: until it is done, it writes `staging` and reads (and hashes
  // into) JS memory, so neither the staging buffer nor the op's completion may be given up before
  std::shared_ptr<StageJob> staged;
  uint64_t notify = 0;
  double* stamp = nullptr;   // TTG_OP_STAMP: host double receiving the time
  uint32_t stream = 0;
  bool in_flight = false;    // a copy from or into `staging` was enqueued
  std::string error;         // an earlier op of the stream failed: report this instead of success
};

// The thread that stages large copies in, in the order they were enqueued.
struct Stager {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::shared_ptr<StageJob>> q;
  bool stopping = false;
  std::thread th;

  void start() {
    stopping = false;
    th = std::thread([this] {
      ttg::name_this_thread("ttg-cuda-stage");
      for (;;) {
        std::shared_ptr<StageJob> job;
        {
          std::unique_lock<std::mutex> lk(mu);
          cv.wait(lk, [this] { return stopping || !q.empty(); });
          if (q.empty()) return;  // stopping, and every job queued has run
          job = std::move(q.front());
          q.pop_front();
        }
        job->run();
      }
    });
  }
  void push(std::shared_ptr<StageJob> job) {
    {
      std::lock_guard<std::mutex> lk(mu);
      q.push_back(std::move(job));
    }
    cv.notify_one();
  }
  // Runs what is queued, then joins.
  void stop() {
    {
      std::lock_guard<std::mutex> lk(mu);
      stopping = true;
    }
    cv.notify_all();
    if (th.joinable()) th.join();
  }
};

struct State {
  Stager stager;
  std::vector<cudaStream_t> streams;
  std::vector<ttg::VendorStream*> vendor;  // per stream; nullptr: our kernels
  int per_device = 1;
  TtgCudaDone done = nullptr;
  void* ctx = nullptr;
  std::mutex staging_mu;
  std::multimap<size_t, void*> staging;  // free pinned buffers by size
  std::mutex mu;                         // guards what follows
  std::unordered_set<HostStep*> pending; // enqueued host steps whose callback has not run
  std::unordered_set<HostStep*> failed;  // ... of which the poller failed the completion
  std::vector<std::string> stream_error; // per stream: a failed op awaiting the next notify
  std::condition_variable cv;
  bool stopping = false;
  std::thread poller;
};
State g;

int device_of(uint32_t stream) { return static_cast<int>(stream) / g.per_device; }

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
  if (cudaMallocHost(&p, bytes) == cudaSuccess) return p;
  cudaGetLastError();  // not sticky: clear it so that it is not reported by an unrelated call
  return nullptr;
}

// Frees a host step that will never run. A copy still in flight may read or write its staging
// buffer: cudaFreeHost waits for the device, the pool would hand it to the next copy at once.
void discard(HostStep* h) {
  if (h == nullptr) return;
  if (h->staged != nullptr) h->staged->wait();  // the stager never waits for CUDA: bounded
  if (h->staging != nullptr) {
    if (h->in_flight) {
      cudaFreeHost(h->staging);
    } else {
      std::lock_guard<std::mutex> lk(g.staging_mu);
      g.staging.emplace(h->bytes, h->staging);
    }
  }
  delete h;
}
struct Discard {
  void operator()(HostStep* h) const { discard(h); }
};
using StepPtr = std::unique_ptr<HostStep, Discard>;

void report(uint64_t notify, const char* error) {
  if (notify != 0 && g.done != nullptr) g.done(notify, error, g.ctx);
}

// The stream reached a large copy in: it waits until the stager has filled the staging buffer.
// (Host functions may block; others queued meanwhile wait at most for the jobs ahead of it.)
void CUDART_CB wait_staged(void* data) {
  auto* job = static_cast<std::shared_ptr<StageJob>*>(data);
  (*job)->wait();
  delete job;
}

void CUDART_CB host_step(void* data) {
  HostStep* h = static_cast<HostStep*>(data);
  {
    std::lock_guard<std::mutex> lk(g.mu);
    if (g.failed.erase(h) != 0) {  // reported by the poller; CUDA ran it after all
      h->in_flight = false;
      discard(h);
      return;
    }
    g.pending.erase(h);
  }
  if (h->hash_out != nullptr) *h->hash_out = ttg::copy_and_hash(h->host_dst, h->staging, h->bytes, kCopyThreads);
  else if (h->host_dst != nullptr) ttg::copy_in_chunks(h->host_dst, h->staging, h->bytes, kCopyThreads);
  if (h->stamp != nullptr) {
    *h->stamp = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  report(h->notify, h->error.empty() ? nullptr : h->error.c_str());
  h->in_flight = false;
  discard(h);
}

// Fails every pending completion of `stream` (g.mu held).
void fail_pending(uint32_t stream, const std::string& why) {
  for (auto it = g.pending.begin(); it != g.pending.end();) {
    HostStep* h = *it;
    if (h->stream != stream) {
      ++it;
      continue;
    }
    it = g.pending.erase(it);
    g.failed.insert(h);
    // JS gives up the op's host memory once told: the stager must be done with it first
    if (h->staged != nullptr) h->staged->wait();
    report(h->notify, why.c_str());
  }
}

void poll_loop() {
  ttg::name_this_thread("ttg-cuda-poll");
  std::unique_lock<std::mutex> lk(g.mu);
  while (!g.stopping) {
    if (g.pending.empty()) {
      g.cv.wait(lk);
      continue;
    }
    g.cv.wait_for(lk, kPollEvery);
    if (g.stopping) break;
    std::vector<bool> owing(g.streams.size(), false);
    for (HostStep* h : g.pending) owing[h->stream] = true;
    lk.unlock();
    std::vector<std::pair<uint32_t, std::string>> broken;
    for (uint32_t i = 0; i < owing.size(); ++i) {
      if (!owing[i]) continue;
      cudaSetDevice(device_of(i));
      const cudaError_t e = cudaStreamQuery(g.streams[i]);
      if (e != cudaSuccess && e != cudaErrorNotReady) {
        broken.emplace_back(i, std::string("CUDA error on stream ") + std::to_string(i) + ": " + cudaGetErrorString(e) +
                                   " (found when polling; the device's context may be lost)");
      }
    }
    lk.lock();
    for (auto& b : broken) fail_pending(b.first, b.second);
  }
}

// Enqueues `op` and its host step; on failure frees what it made and says why in `err`.
int enqueue_op(const TtgOp& op, char* err, size_t errlen) {
  cudaStream_t s = g.streams[op.stream];
  TTG_CUDA_ERR(cudaSetDevice(device_of(op.stream)), err, errlen);
  StepPtr h;
  auto step = [&] {
    h.reset(new HostStep());
    h->notify = op.notify;
    h->stream = op.stream;
  };
  if (op.kind == TTG_OP_COPY && op.bytes != 0) {
    void* staging = take_staging(op.bytes);
    if (staging == nullptr) {
      std::snprintf(err, errlen, "cudaMallocHost(%zu) failed", op.bytes);
      return 1;
    }
    step();
    h->staging = staging;
    h->bytes = op.bytes;
    if (op.f[0] == 'H' && op.f[1] == 'w') {
      // Staged by the stager thread; the host data stays as it is until the copy's completion
      // (JS keeps it so). The stream waits for the staging, then the DMA runs from pinned memory.
      auto job = std::make_shared<StageJob>();
      job->dst = staging;
      job->src = op.p[1];
      job->bytes = op.bytes;
      job->hash_out = static_cast<uint64_t*>(op.p[2]);
      g.stager.push(job);
      // any error from here on discards `h`, which first waits for the stager (discard)
      h->staged = job;
      auto* held = new std::shared_ptr<StageJob>(job);
      const cudaError_t e = cudaLaunchHostFunc(s, wait_staged, held);
      if (e != cudaSuccess) {
        delete held;
        std::snprintf(err, errlen, "cudaLaunchHostFunc(wait_staged): %s", cudaGetErrorString(e));
        return 1;
      }
      TTG_CUDA_ERR(cudaMemcpyAsync(op.p[0], staging, op.bytes, cudaMemcpyHostToDevice, s), err, errlen);
    } else if (op.f[0] == 'H') {
      // The host data is valid now (JS checked); staging it here lets the DMA run from pinned memory.
      if (op.p[2] != nullptr) *static_cast<uint64_t*>(op.p[2]) = ttg::copy_and_hash(staging, op.p[1], op.bytes, kCopyThreads);
      else ttg::copy_in_chunks(staging, op.p[1], op.bytes, kCopyThreads);
      TTG_CUDA_ERR(cudaMemcpyAsync(op.p[0], staging, op.bytes, cudaMemcpyHostToDevice, s), err, errlen);
    } else {
      h->host_dst = op.p[0];
      h->hash_out = static_cast<uint64_t*>(op.p[2]);
      TTG_CUDA_ERR(cudaMemcpyAsync(staging, op.p[1], op.bytes, cudaMemcpyDeviceToHost, s), err, errlen);
    }
    h->in_flight = true;
  } else if (op.kind == TTG_OP_STAMP) {
    step();
    h->stamp = static_cast<double*>(op.p[0]);
  } else if (op.kind == TTG_OP_USER) {
    // the program's function launches its work on the stream; errors of its own CUDA runtime
    // come back through call->error (ttg_kernel.h)
    const int reported = ttg_run_user_op(&op, s);
    if (reported != 0) {
      std::snprintf(err, errlen, "the kernel function reported CUDA error %d (%s)", reported, cudaGetErrorString(static_cast<cudaError_t>(reported)));
      return 1;
    }
    TTG_CUDA_ERR(cudaGetLastError(), err, errlen);
  } else if (op.kind != TTG_OP_MARKER && op.kind != TTG_OP_COPY) {
    const int v = ttg::vendor_launch(g.vendor[op.stream], op, s, err, errlen);
    if (v < 0) return 1;
    if (v == 0) TTG_CUDA_ERR(ttg_cuda_launch(op, s), err, errlen);
  }
  if (h == nullptr && op.notify != 0) step();
  if (h == nullptr) return 0;
  bool wake_poller = false;
  {
    std::lock_guard<std::mutex> lk(g.mu);
    if (op.notify != 0 && !g.stream_error[op.stream].empty()) h->error.swap(g.stream_error[op.stream]);
    wake_poller = g.pending.empty();
    g.pending.insert(h.get());
  }
  const cudaError_t e = cudaLaunchHostFunc(s, host_step, h.get());
  if (e != cudaSuccess) {
    std::lock_guard<std::mutex> lk(g.mu);
    // The poller may have failed it meanwhile: then it was reported, and must not be again.
    if (g.failed.erase(h.get()) != 0) return 0;
    g.pending.erase(h.get());
    if (!h->error.empty()) g.stream_error[op.stream].swap(h->error);  // still the cause: reported with this failure
    std::snprintf(err, errlen, "cudaLaunchHostFunc: %s", cudaGetErrorString(e));
    return 1;
  }
  if (wake_poller) g.cv.notify_one();  // it sleeps while nothing is owed
  h.release();  // host_step owns it now
  return 0;
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

int ttg_cuda_start(int devices, int streams_per_device, TtgCudaDone done, void* ctx, const char* lib_dirs, char* err,
                   size_t errlen) {
  g.done = done;
  g.ctx = ctx;
  g.per_device = streams_per_device;
  g.stopping = false;
  ttg::vendor_load(lib_dirs);
  bool vendor = true;
  for (int d = 0; d < devices; ++d) {
    TTG_CUDA_ERR(cudaSetDevice(d), err, errlen);
    for (int s = 0; s < streams_per_device; ++s) {
      cudaStream_t st;
      TTG_CUDA_ERR(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), err, errlen);
      g.streams.push_back(st);
      std::string why;
      ttg::VendorStream* v = vendor ? ttg::vendor_open(st, &why) : nullptr;
      if (vendor && v == nullptr && !why.empty()) {
        std::fprintf(stderr, "ttg: cuda: %s on device %d: our tile kernels run instead\n", why.c_str(), d);
        vendor = false;
      }
      g.vendor.push_back(v);
    }
  }
  if (!vendor) {
    for (auto& v : g.vendor) ttg::vendor_close(v), v = nullptr;
  }
  g.stream_error.assign(g.streams.size(), std::string());
  g.poller = std::thread(poll_loop);
  g.stager.start();
  return 0;
}

const char* ttg_cuda_kernels(void) { return ttg::vendor_description().c_str(); }

void ttg_cuda_stop(void) {
  {
    std::lock_guard<std::mutex> lk(g.mu);
    g.stopping = true;
  }
  g.cv.notify_all();
  if (g.poller.joinable()) g.poller.join();
  for (std::size_t i = 0; i < g.streams.size(); ++i) {
    cudaSetDevice(device_of(static_cast<uint32_t>(i)));
    cudaStreamSynchronize(g.streams[i]);  // waits for its host steps too, unless CUDA failed it
    if (i < g.vendor.size()) ttg::vendor_close(g.vendor[i]);
    cudaStreamDestroy(g.streams[i]);
  }
  g.stager.stop();  // after the streams: a stream waiting for a staging needs the stager
  g.streams.clear();
  g.vendor.clear();
  {
    // What is still pending will never run: CUDA failed its stream.
    std::lock_guard<std::mutex> lk(g.mu);
    for (HostStep* h : g.pending) discard(h);
    for (HostStep* h : g.failed) discard(h);
    g.pending.clear();
    g.failed.clear();
    g.stream_error.clear();
  }
  std::lock_guard<std::mutex> lk(g.staging_mu);
  for (auto& kv : g.staging) cudaFreeHost(kv.second);
  g.staging.clear();
  g.done = nullptr;
  cudaGetLastError();
}

void* ttg_cuda_malloc(int device, size_t bytes) {
  void* p = nullptr;
  if (cudaSetDevice(device) != cudaSuccess) return nullptr;
  if (cudaMalloc(&p, bytes == 0 ? 1 : bytes) != cudaSuccess) {
    cudaGetLastError();  // clear the out-of-memory error
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
  char why[768] = {0};
  if (enqueue_op(*op, why, sizeof why) == 0) return 0;
  // CUDA refused the op: its completion (or its stream's next one) fails with the reason, after
  // the failure of an earlier op of the stream that no completion has reported yet.
  std::string msg;
  {
    std::lock_guard<std::mutex> lk(g.mu);
    std::string& earlier = g.stream_error[op->stream];
    if (op->notify == 0) {
      if (earlier.empty()) earlier = why;
      return 0;
    }
    msg = earlier.empty() ? std::string(why) : earlier + "; then " + why;
    earlier.clear();
  }
  report(op->notify, msg.c_str());
  return 0;
}

}  // extern "C"
