// The native CPU pool behind the host and emulated backends: one thread per stream, each
// running its own FIFO of TtgOps in order, so streams run concurrently and the ops of one stream
// never reorder. Completions of ops with a `notify` id are collected and JS is woken once per
// batch through `wake` (like the comm thread): nothing polls on the JS thread.
//
// Waking JS costs the woken core more than the callback's CPU time (the JS thread preempts a
// kernel thread and evicts its tiles from cache: measured ~9% of dgemm throughput with one wake
// per 256x256 tile). So a completion is reported at once only when it may be needed to keep the
// pool busy: when its stream has at most `TTG_DEVICE_WAKE_DEPTH` (default 1) kernels or copies
// left queued, or when some stream is idle. Otherwise it rides with a later completion of the
// same stream; a stream always reports before it goes idle, so nothing waits forever.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "device_op.h"

namespace ttg {

class KernelPool {
 public:
  using Wake = std::function<void()>;
  // Records why a notify id failed, before the id is reported (a program's kernel set its error).
  using Fail = std::function<void(std::uint64_t id, const std::string& why)>;

  // Starts `streams` threads; `wake` is called from a pool thread when a batch becomes ready.
  // `slowdown[i]` (default 1) stretches every op of stream i to that many times its run time, by
  // sleeping after it: an emulated device made slower, for placement tests. A program's kernel
  // that sets its error fails its own notify id through `fail`, or, without one, the next notify
  // id of its stream (as a CUDA stream's error does).
  void start(int streams, Wake wake, const std::vector<double>& slowdown = {}, Fail fail = nullptr);
  // Lets every thread finish its queue, then joins them. Idempotent.
  void stop();
  int streams() const { return static_cast<int>(streams_.size()); }
  void enqueue(const TtgOp& op);
  // Enqueues ops[0..n) on one stream (ops[0].stream) under one lock and at most one wake-up: a
  // task's ops usually come to the addon together (devOps).
  void enqueue(const TtgOp* ops, std::size_t n);
  // JS thread: notify ids completed since the last call, in completion order.
  std::vector<std::uint64_t> take();
  // Pushes a completion from outside the pool (the CUDA host callbacks share the batching).
  void complete(std::uint64_t id);
  // JS thread: waits up to `us` microseconds, yielding the core between looks, for a completion;
  // true when take() must run now (a completion, or a wake-up held back meanwhile: the pool
  // writes none while JS polls).
  bool wait_done(unsigned us);

 private:
  struct Stream {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<TtgOp> q;
    std::atomic<int> work{0};  // queued ops that are not markers
    std::atomic<int> queued{0};  // ops in q (read without the lock while spinning)
    bool sleeping = false;       // the worker waits on cv (guarded by mu)
    bool stop = false;
    double slowdown = 1.0;
    std::string error;  // a program's kernel failed and no notify id reported it yet (worker only)
    std::thread th;
  };
  void run(Stream& s);
  void push_done(std::uint64_t id);
  void wake();

  std::vector<std::unique_ptr<Stream>> streams_;
  unsigned spin_us_ = 0;
  unsigned fault_wake_delay_us_ = 0;  // tests: widens the window between a worker's decision to wake and the wake
  Wake wake_;
  Fail fail_;
  std::mutex done_mu_;
  std::vector<std::uint64_t> done_;
  std::atomic<bool> wake_pending_{false};
  std::atomic<bool> done_pending_{false};
  std::atomic<bool> js_polling_{false};  // the JS thread is in wait_done()
  int cores_ = 1;                          // usable by this process (wait_done spins below that many running kernels)
  std::atomic<int> idle_{0};
  int wake_depth_ = 1;
};

}  // namespace ttg
