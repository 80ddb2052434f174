// The one thread that owns the transport (and so MPI). JS enqueues commands and is woken,
// through `wake`, only when a batch of arrivals/completions is ready; it never polls.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "deferred_colls.h"
#include "messages.h"
#include "transport.h"

namespace ttg {

class CommThread {
 public:
  using Wake = std::function<void()>;

  // Starts the thread and blocks until its transport is up (MPI_Init_thread runs there).
  // Throws what the transport threw. `wake` is called from the comm thread.
  void start(bool use_mpi, Wake wake);
  bool running() const { return thread_.joinable(); }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool uses_mpi() const { return uses_mpi_; }

  // JS thread: makes the send itself when MPI is free (the comm thread between passes) and no
  // command is queued before it, so the message costs no hand-off to the comm thread; returns
  // false, with `cmd` untouched, when it must be enqueued instead.
  bool send_now(SendCmd& cmd);
  // JS thread: starts a collective itself in the same case (nothing queued or deferred before it,
  // so every rank still starts its collectives in program order); not a split or a job, which
  // block, nor one with a delay. False, with `cmd` untouched: enqueue it instead.
  bool collective_now(CollCmd& cmd);
  void enqueue(SendCmd&& cmd);
  void enqueue(RecvCmd&& cmd);
  void enqueue(CollCmd&& cmd);

  // JS thread: everything published since the last call.
  Batch take();
  // JS thread: polls up to `us` microseconds (yielding the core between looks to an awake comm
  // thread) for something published; true when there is, to take() now (meanwhile publish()
  // does not wake the loop). Where MPI allows, each look also progresses the transport itself
  // (poll_now) and starts delayed collectives that came due (start_due).
  bool wait_output(unsigned us);
  // JS thread, around the handling of a batch: while JS runs tasks it cannot take more arrivals,
  // so the comm thread sleeps rather than poll beside it; after, `polls_next` says whether JS
  // polls again shortly (a poll is queued) or may go to sleep (the comm thread takes over).
  // js_away returns whether JS was polling, or about to, before the batch (only then does the
  // comm thread leave MPI to it during the batch).
  bool js_away();
  void js_back(bool polls_next);
  // Joins the thread after the transport's shutdown (MPI_Finalize); idempotent.
  void stop();
  // MPI_Abort from the comm thread; falls back to _exit if that thread does not respond.
  [[noreturn]] void abort(int code);

  Stats stats;

 private:
  void run(bool use_mpi);
  void publish(Batch&& b);
  void idle_wait(unsigned& sleep_us, unsigned cap_us, std::chrono::steady_clock::time_point until);
  // Sleeps while the JS thread polls or handles a batch (up to TTG_COMM_DEEP_IDLE_US while it
  // polls, TTG_COMM_COMPUTE_IDLE_US while it handles one), until `until`, or until a command, a
  // poke or the JS thread going idle.
  void park(std::chrono::steady_clock::time_point until);
  // JS thread: it stops looking at MPI (and may sleep); a parked comm thread takes over now.
  void js_idle();
  // JS thread: starts the delayed collectives that are due by `now_ns`, when MPI is free.
  void start_due(std::int64_t now_ns);
  static void poke_running();
  // Wakes the loop if it sleeps, to poll now.
  void poke();
  // JS thread: one pass of the transport's progress, when MPI is free; publishes what it found.
  void poll_now();
  template <typename Cmd>
  void push(std::vector<Cmd>& q, Cmd&& cmd);

  std::thread thread_;
  std::unique_ptr<Transport> transport_;
  Wake wake_;
  int rank_ = 0, size_ = 1;
  bool uses_mpi_ = false;
  unsigned max_idle_us_ = 50;
  unsigned deep_idle_us_ = 500;
  unsigned compute_idle_us_ = 2000;
  unsigned spin_us_ = 1000;
  unsigned spin_busy_us_ = 20000;
  bool yield_on_send_ = true;
  std::atomic<bool> spinning_{false};  // the loop polls without sleeping (set by the comm thread)

  // Held around every call into the transport once it is up: by the comm thread for a pass, by
  // the JS thread for a direct send or poll. MPI_THREAD_SERIALIZED asks no more than that.
  std::mutex mpi_mu_;
  // The JS thread may call the transport under mpi_mu_ (MPI serialized, TTG_DIRECT on); cleared
  // under mpi_mu_ before MPI is finalized.
  std::atomic<bool> direct_{false};

  std::mutex in_mu_;
  std::condition_variable in_cv_;
  std::vector<SendCmd> sends_;
  std::vector<RecvCmd> recvs_;
  std::vector<CollCmd> colls_;
  // Collectives waiting for their start time, under mpi_mu_.
  DeferredColls deferred_;
  std::atomic<bool> long_sleep_{false};  // the loop sleeps longer than TTG_COMM_IDLE_US
  std::atomic<bool> js_traffic_{false};  // the JS thread sent or received directly since the last pass
  std::atomic<bool> poked_{false};  // a kernel finished: a good moment to poll (see cpu_pressure.h)
  std::atomic<bool> inbox_{false};  // set with in_mu_ held whenever a command or stop/abort is queued
  std::atomic<bool> late_{false};   // set with in_mu_ held when a delayed collective is queued without a wake-up
  bool stop_ = false;
  bool abort_ = false;
  int abort_code_ = 0;

  std::mutex out_mu_;
  Batch outbox_;
  std::atomic<bool> wake_pending_{false};
  std::atomic<bool> js_polling_{false};  // the JS thread is in wait_output()
  // What the JS thread does, for the comm thread's policy: it looks at MPI itself (polls, or will
  // shortly), handles a batch, or neither (asleep, or running code that does not poll).
  enum JsState : int { kJsIdle, kJsPolling, kJsAway };
  std::atomic<int> js_state_{kJsIdle};
  std::atomic<bool> parked_{false};  // the comm thread sleeps in park()
  static constexpr std::int64_t kNever = INT64_MAX;
  // Steady-clock ns when the first delayed collective queued without a wake-up is due (kNever:
  // none); written under in_mu_, read by the JS thread's polls.
  std::atomic<std::int64_t> due_ns_{kNever};
  // Steady-clock ns when a payload that MPI may move only when polled was last sent (either thread).
  std::atomic<std::int64_t> moved_ns_{0};
};

}  // namespace ttg
