#include "settings.h"
#include "kernel_pool.h"

#include "cores.h"
#include "cpu_pressure.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

#include "host_kernels.h"
#include "thread_name.h"
#include "user_kernels.h"

namespace ttg {
namespace {

// Numbers the workers of every pool of the process, in the order they start (their thread names).
std::atomic<int> next_thread_number{0};

}  // namespace

void KernelPool::start(int streams, Wake wake, const std::vector<double>& slowdown, Fail fail) {
  wake_ = std::move(wake);
  fail_ = std::move(fail);
  wake_depth_ = settings().device_wake_depth;
  spin_us_ = settings().pool_spin_us;
  fault_wake_delay_us_ = settings().fault_wake_delay_us;
  cores_ = usable_cores();
  host_blas_single_threaded();
  for (int i = 0; i < streams; ++i) {
    streams_.push_back(std::make_unique<Stream>());
    Stream* s = streams_.back().get();
    if (static_cast<std::size_t>(i) < slowdown.size() && slowdown[i] > 1.0) s->slowdown = slowdown[i];
    const int n = next_thread_number.fetch_add(1);
    s->th = std::thread([this, s, n] {
      name_this_thread("ttg-pool-" + std::to_string(n));
      run(*s);
    });
  }
}

void KernelPool::stop() {
  for (auto& s : streams_) {
    std::lock_guard<std::mutex> lk(s->mu);
    s->stop = true;
    s->cv.notify_one();
  }
  for (auto& s : streams_) {
    if (s->th.joinable()) s->th.join();
  }
  streams_.clear();
}

void KernelPool::enqueue(const TtgOp& op) {
  Stream& s = *streams_.at(op.stream);
  std::lock_guard<std::mutex> lk(s.mu);
  s.q.push_back(op);
  s.queued.fetch_add(1, std::memory_order_release);
  if (op.kind != TTG_OP_MARKER) s.work.fetch_add(1);
  // Notify under the lock: the worker cannot miss it between its empty check and its wait.
  if (s.sleeping) s.cv.notify_one();
}

void KernelPool::enqueue(const TtgOp* ops, std::size_t n) {
  if (n == 0) return;
  Stream& s = *streams_.at(ops[0].stream);
  std::lock_guard<std::mutex> lk(s.mu);
  int work = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s.q.push_back(ops[i]);
    if (ops[i].kind != TTG_OP_MARKER) ++work;
  }
  s.queued.fetch_add(static_cast<int>(n), std::memory_order_release);
  if (work != 0) s.work.fetch_add(work);
  if (s.sleeping) s.cv.notify_one();
}

void KernelPool::run(Stream& s) {
  for (;;) {
    TtgOp op;
    {
      std::unique_lock<std::mutex> lk(s.mu);
      if (s.q.empty()) {
        idle_.fetch_add(1);
        if (done_pending_.load()) wake();  // report everything before going idle
        // A task's next op usually comes within microseconds: waiting for it awake spares JS
        // the futex wake-up of a sleeping worker on each enqueue.
        lk.unlock();
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us_);
        while (s.queued.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < until) {
          std::this_thread::yield();  // awake, but the core goes to any thread that wants it (JS)
        }
        lk.lock();
        s.sleeping = true;
        s.cv.wait(lk, [&] { return s.stop || !s.q.empty(); });
        s.sleeping = false;
        idle_.fetch_sub(1);
      }
      if (s.q.empty()) return;  // stop requested and queue drained
      op = s.q.front();
      s.q.pop_front();
      s.queued.fetch_sub(1, std::memory_order_relaxed);
      if (op.kind != TTG_OP_MARKER) s.work.fetch_sub(1);
    }
    if (op.kind != TTG_OP_MARKER) {
      const auto t0 = std::chrono::steady_clock::now();
      g_kernels_running.fetch_add(1, std::memory_order_relaxed);
      if (op.kind == TTG_OP_USER) {
        const int error = ttg_run_user_op(&op, nullptr);
        ttg_free_user_op(&op);
        if (error != 0 && s.error.empty()) s.error = "the kernel function returned error " + std::to_string(error);
      } else {
        run_host_op(op);
      }
      g_kernels_running.fetch_sub(1, std::memory_order_relaxed);
      if (auto poke = g_after_kernel.load(std::memory_order_relaxed)) poke();
      if (s.slowdown > 1.0) std::this_thread::sleep_for((std::chrono::steady_clock::now() - t0) * (s.slowdown - 1.0));
    }
    if (op.notify != 0) {
      if (!s.error.empty() && fail_) {
        fail_(op.notify, s.error);
        s.error.clear();
      }
      push_done(op.notify);
    }
    if (done_pending_.load() && (s.work.load() <= wake_depth_ || idle_.load() > 0)) {
      // JS may take the completions meanwhile (its poll); the wake then comes late, the case to test
      if (fault_wake_delay_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(fault_wake_delay_us_));
      wake();
    }
  }
}

void KernelPool::push_done(std::uint64_t id) {
  std::lock_guard<std::mutex> lk(done_mu_);
  done_.push_back(id);
  done_pending_.store(true);
}

void KernelPool::complete(std::uint64_t id) {
  push_done(id);
  wake();
}

void KernelPool::wake() {
  // One pending wake-up at a time: completions meanwhile ride in the same batch. A JS thread
  // polling in wait_done() takes them without one.
  if (!wake_pending_.exchange(true) && wake_ && !js_polling_.load()) wake_();
}

bool KernelPool::wait_done(unsigned us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  js_polling_.store(true);
  // Spinning while kernels fill every core would slow them more than a wake-up costs JS.
  while (!done_pending_.load() && std::chrono::steady_clock::now() < until &&
         g_kernels_running.load(std::memory_order_relaxed) < cores_) {
    std::this_thread::yield();
  }
  js_polling_.store(false);
  // A wake() that saw js_polling_ set wrote nothing: take() must run now, even when the
  // completions it was for were taken already, or wake_pending_ stays set and every later wake()
  // skips the event loop's wake-up.
  return wake_pending_.load() || done_pending_.load();
}

std::vector<std::uint64_t> KernelPool::take() {
  wake_pending_.store(false);
  std::vector<std::uint64_t> out;
  std::lock_guard<std::mutex> lk(done_mu_);
  out.swap(done_);
  done_pending_.store(false);
  return out;
}

}  // namespace ttg
