// Comm-thread loop: drain JS commands, progress the transport, publish one batch, then decide how
// to wait. The policy is adaptive, because on a small machine every spinning thread takes a core
// from a JS thread or a kernel worker:
//   - something happened in this pass (a command, an arrival, a completion): poll again at once;
//   - traffic seen in the last TTG_COMM_SPIN_US (default 1000) microseconds, or point-to-point
//     transfers in flight for less than TTG_COMM_SPIN_BUSY_US (default 20000) since the last
//     event (MPI moves their data only when polled): poll again after sched_yield(), which hands
//     the core to any runnable thread (this rank's JS thread shares its core under mpirun);
//   - otherwise back off: sleep 1, 2, 4 ... up to TTG_COMM_IDLE_US (default 50) microseconds, and
//     after 2 ms more of that up to TTG_COMM_DEEP_IDLE_US (default 500).
//   - while kernels run on the pool (cores busy computing) never spin: poll when a kernel ends
//     (the pool pokes this thread) or after TTG_COMM_COMPUTE_IDLE_US (default 2000), since a
//     timer wake-up in the middle of a kernel costs that kernel far more than the poll itself.
// Sleeps are condvar waits that a JS enqueue cuts short, so sends always start at once; only the
// detection of *incoming* messages pays the back-off. An outstanding collective alone (a fence
// wave waiting for a rank that computes) does not keep the thread spinning.
// Measured on a 2-vCPU VM: a flat 50 us cap costs ~33% of a core per idle rank, 500 us ~3%.
#include "settings.h"
#include "comm_thread.h"

#include "cpu_pressure.h"
#include "thread_name.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>

#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace ttg {
namespace {

// MPI may be initialised once per process; a second start after MPI_Finalize must fail clearly.
bool g_mpi_finalized = false;

constexpr auto kDeepIdleAfter = std::chrono::milliseconds(2);  // of backing off
constexpr std::size_t kDirectMaxBytes = 4096;  // payloads the JS thread sends itself
// Payloads every MPI transport sends eagerly (a rendezvous moves larger ones only when polled).
constexpr std::size_t kSurelyEagerBytes = 1024;

std::size_t payload_bytes(const SendCmd& c) {
  std::size_t n = 0;
  for (const Span& p : c.parts) n += p.bytes;
  return n;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void CommThread::start(bool use_mpi, Wake wake) {
  if (running()) throw std::logic_error("ttg_native: the comm thread is already running");
  if (use_mpi && g_mpi_finalized) {
    throw std::runtime_error("ttg_native: MPI was finalized in this process and cannot be started again");
  }
  wake_ = std::move(wake);
  const Settings& s = settings();
  max_idle_us_ = s.comm_idle_us;
  deep_idle_us_ = s.comm_deep_idle_us;
  compute_idle_us_ = s.comm_compute_idle_us;
  spin_us_ = s.comm_spin_us;
  spin_busy_us_ = s.comm_spin_busy_us;
  yield_on_send_ = s.yield_on_send;
  stats.reset();
  std::promise<void> ready;
  std::future<void> up = ready.get_future();
  thread_ = std::thread([this, use_mpi, &ready] {
#ifdef __linux__
    // Default timer slack (50 us) would stretch every short back-off sleep.
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
#endif
    try {
#if TTG_HAVE_MPI
      transport_ = use_mpi ? make_mpi_transport(stats) : make_loopback_transport(stats);
#else
      (void)use_mpi;
      transport_ = make_loopback_transport(stats);
#endif
      rank_ = transport_->rank();
      size_ = transport_->size();
      uses_mpi_ = transport_->uses_mpi();
      direct_ = transport_->any_thread() && settings().direct;
      // named after MPI_Init: the threads MPI starts from here take their creator's name
      name_this_thread("ttg-comm");
    } catch (...) {
      ready.set_exception(std::current_exception());
      return;
    }
    ready.set_value();
    run(use_mpi);
  });
  try {
    up.get();
  } catch (...) {
    thread_.join();
    throw;
  }
}

namespace {
std::atomic<CommThread*> g_running{nullptr};  // the one comm thread of this process, while it runs
}

void CommThread::run(bool use_mpi) {
  using Clock = std::chrono::steady_clock;
  g_running.store(this, std::memory_order_release);
  g_after_kernel.store(&CommThread::poke_running, std::memory_order_relaxed);
  unsigned sleep_us = 0;
  auto last_active = Clock::now();
  const auto spin = std::chrono::microseconds(spin_us_);
  const auto spin_busy = std::chrono::microseconds(spin_busy_us_);
  std::vector<SendCmd> sends;
  std::vector<RecvCmd> recvs;
  std::vector<CollCmd> colls;
  for (;;) {
    bool stop = false;
    // A pass calls MPI: the JS thread's direct sends and polls wait for it, and it for them, by
    // yielding rather than sleeping on the mutex, so that JS never pays a futex wake-up to unlock.
    std::unique_lock<std::mutex> mpi(mpi_mu_, std::defer_lock);
    while (!mpi.try_lock()) std::this_thread::yield();
    // The flag spares the mutex while spinning with nothing enqueued.
    if (inbox_.load(std::memory_order_acquire) || late_.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lk(in_mu_);
      inbox_.store(false, std::memory_order_relaxed);
      late_.store(false, std::memory_order_relaxed);
      due_ns_.store(kNever, std::memory_order_relaxed);  // this thread times what it takes
      sends.swap(sends_);
      recvs.swap(recvs_);
      colls.swap(colls_);
      stop = stop_;
      if (abort_) transport_->abort(abort_code_);
    }
    Batch b;
    bool active = !sends.empty() || !recvs.empty() || !colls.empty();
    // One failed command must not drop the others of its pass (they are counted as sent in JS).
    for (SendCmd& c : sends) {
      if (payload_bytes(c) > kSurelyEagerBytes) moved_ns_.store(now_ns(), std::memory_order_relaxed);
      try {
        transport_->send(std::move(c), b);
      } catch (const std::exception& e) {
        b.arrivals.push_back(error_arrival(e.what()));
      }
    }
    for (RecvCmd& c : recvs) {
      try {
        transport_->recv(std::move(c), b);
      } catch (const std::exception& e) {
        b.arrivals.push_back(error_arrival(e.what()));
      }
    }
    if (!colls.empty() || !deferred_.empty()) {
      const auto now = Clock::now();
      deferred_.add(colls, now);
      active = deferred_.start_ready(*transport_, b, now, last_active, true).any || active;
    }
    sends.clear();
    recvs.clear();
    try {
      active = transport_->progress(b) || active;
    } catch (const std::exception& e) {
      b.arrivals.push_back(error_arrival(e.what()));
    }
    if (!b.empty()) publish(std::move(b));
    if (stop) {
      direct_ = false;  // MPI is finalized next: the JS thread must not call it any more
      break;
    }
    // what the JS thread sent or found itself counts as traffic for the spin window and fence waves
    if (active || js_traffic_.exchange(false, std::memory_order_relaxed)) last_active = Clock::now();
    // read under the lock: the JS thread's direct sends, polls and collectives change these
    const bool transfers = transport_->busy();
    const auto until = deferred_.empty() ? Clock::time_point::max() : deferred_.next_start(last_active);
    const bool blocking_ahead = deferred_.blocking_ahead();
    mpi.unlock();
    if (active) {
      spinning_.store(true, std::memory_order_relaxed);
      sleep_us = 0;
      continue;
    }
    if (!transport_->needs_polling()) {
      idle_wait(sleep_us, max_idle_us_, until);
      continue;
    }
    // The JS thread progresses MPI itself while it polls, and takes nothing while it handles a
    // batch it polled for: a pass beside it would only take its core. Except while transfers are
    // in flight, or within the spin window of a payload over 1 KiB sent by either thread: MPI
    // moves a rendezvous only when polled (a send it reported done may still wait for the
    // receiver's reply), and the receiver waits meanwhile; then the policy below applies.
    const int js = js_state_.load();
    const bool moves = transfers || now_ns() - moved_ns_.load(std::memory_order_relaxed) < spin_us_ * 1000LL;
    if (direct_ && js != kJsIdle && !moves) {
      spinning_.store(false, std::memory_order_relaxed);
      sleep_us = 0;
      // the JS thread starts delayed collectives that come due meanwhile, but not a split or a job
      park(blocking_ahead ? until : Clock::time_point::max());
      continue;
    }
    const auto idle = Clock::now() - last_active;
    const bool computing = g_kernels_running.load(std::memory_order_relaxed) > 0;
    const auto window = computing ? std::chrono::microseconds(0) : transfers ? spin_busy : spin;
    if (idle < window) {
      spinning_.store(true, std::memory_order_relaxed);
      std::this_thread::yield();
      continue;
    }
    spinning_.store(false, std::memory_order_relaxed);
    const bool deep = idle - window > kDeepIdleAfter;
    if (computing) sleep_us = compute_idle_us_;  // no short sleeps: wake on a poke or the cap
    const unsigned cap = computing ? compute_idle_us_ : deep ? deep_idle_us_ : max_idle_us_;
    // With send_now's store of js_traffic_ then load of long_sleep_ (all sequentially consistent),
    // either that send sees the long sleep and pokes, or this sees its traffic and polls again.
    long_sleep_.store(cap > max_idle_us_);
    if (cap > max_idle_us_ && js_traffic_.load()) {
      long_sleep_.store(false);
      continue;
    }
    idle_wait(sleep_us, cap, until);
    long_sleep_.store(false, std::memory_order_relaxed);
  }
  g_after_kernel.store(nullptr, std::memory_order_relaxed);
  g_running.store(nullptr, std::memory_order_release);
  Batch last;
  for (CollCmd& c : deferred_.drain()) last.completions.push_back(Completion{c.promise, false, {}, "finalized before it started"});
  try {
    transport_->shutdown(last);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ttg_native: shutdown: %s\n", e.what());
  }
  if (use_mpi) g_mpi_finalized = true;
  transport_.reset();
  // No wake: stop() is on the JS thread and takes this batch itself after join().
  std::lock_guard<std::mutex> lk(out_mu_);
  outbox_.append(std::move(last));
}

void CommThread::poke_running() {
  CommThread* c = g_running.load(std::memory_order_acquire);
  // a JS thread that polls or handles a batch looks at MPI itself after the kernel, if it may
  if (c != nullptr && (!c->direct_ || c->js_state_.load(std::memory_order_relaxed) == kJsIdle)) c->poke();
}

void CommThread::idle_wait(unsigned& sleep_us, unsigned cap_us, std::chrono::steady_clock::time_point until) {
  std::unique_lock<std::mutex> lk(in_mu_);
  auto has_work = [this] {
    return poked_.exchange(false, std::memory_order_relaxed) || stop_ || abort_ || !sends_.empty() || !recvs_.empty() || !colls_.empty();
  };
  if (!transport_->needs_polling()) {
    if (until == std::chrono::steady_clock::time_point::max()) {
      in_cv_.wait(lk, has_work);
    } else {
      in_cv_.wait_until(lk, until, has_work);
    }
    return;
  }
  sleep_us = sleep_us == 0 ? 1 : std::min(sleep_us * 2, cap_us);
  in_cv_.wait_until(lk, std::min(until, std::chrono::steady_clock::now() + std::chrono::microseconds(sleep_us)), has_work);
}

void CommThread::park(std::chrono::steady_clock::time_point until) {
  using Clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> lk(in_mu_);
  // With js_idle's store of js_state_ then load of parked_ (sequentially consistent), either
  // that call sees this park and notifies, or the predicate below sees the JS thread idle.
  parked_.store(true);
  auto woken = [this] {
    return js_state_.load() == kJsIdle || poked_.exchange(false, std::memory_order_relaxed) || stop_ || abort_ ||
           !sends_.empty() || !recvs_.empty() || !colls_.empty();
  };
  for (;;) {
    const unsigned cap_us = js_state_.load() == kJsPolling ? deep_idle_us_ : compute_idle_us_;
    const auto deadline = std::min(until, Clock::now() + std::chrono::microseconds(cap_us));
    if (in_cv_.wait_until(lk, deadline, woken) || Clock::now() >= until) break;
    // Timed out: a pass is due unless the JS thread is polling right now (it progresses MPI
    // itself). Not merely about to poll: that could be stale, and the pass bounds the wait.
    if (!js_polling_.load()) break;
  }
  parked_.store(false);
}

void CommThread::js_idle() {
  js_state_.store(kJsIdle);
  // a parked comm thread takes over; one in another sleep is woken only for delayed collectives
  // queued without a wake-up (its own sleeps are bounded)
  if (!parked_.load() && !late_.load()) return;
  { std::lock_guard<std::mutex> lk(in_mu_); }
  in_cv_.notify_one();
}

bool CommThread::js_away() {
  // A JS thread that was not polling (it was woken for this batch) may not poll after it either:
  // the comm thread keeps its own policy rather than sleep through the batch and be woken after.
  if (js_state_.load() == kJsIdle) return false;
  js_state_.store(kJsAway);
  return true;
}

void CommThread::js_back(bool polls_next) {
  if (polls_next) {
    js_state_.store(kJsPolling);
    start_due(now_ns());
  } else {
    js_idle();
  }
}

void CommThread::publish(Batch&& b) {
  {
    std::lock_guard<std::mutex> lk(out_mu_);
    outbox_.append(std::move(b));
  }
  // One pending wake-up at a time: everything published meanwhile rides in the same batch. A
  // JS thread polling in wait_output() sees the flag and needs no wake-up.
  if (!wake_pending_.exchange(true) && wake_ && !js_polling_.load()) wake_();
}

bool CommThread::wait_output(unsigned us) {
  if (us == 0) {
    // the JS thread stops looking at MPI: what is ready is taken, and the comm thread takes over
    js_idle();
    return wake_pending_.load();
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  js_polling_.store(true);
  js_state_.store(kJsPolling);
  while (!wake_pending_.load()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) break;
    start_due(std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count());
    poll_now();
    // To the comm thread when it runs a pass on this core; not while it sleeps: the core would go
    // to whatever else is runnable (another process) for the rest of its time slice.
    if (!parked_.load(std::memory_order_relaxed)) std::this_thread::yield();
  }
  js_polling_.store(false);
  // A publish() that saw js_polling_ set skipped the wake-up: its batch is taken now.
  if (wake_pending_.load()) return true;
  js_idle();
  return false;
}

void CommThread::poll_now() {
  std::unique_lock<std::mutex> mpi(mpi_mu_, std::try_to_lock);
  if (!mpi.owns_lock() || !direct_) return;
  Batch b;
  try {
    // traffic found here counts for the comm thread's spin window and fence-wave timing too
    if (transport_->progress(b)) js_traffic_.store(true, std::memory_order_relaxed);
  } catch (const std::exception& e) {
    b.arrivals.push_back(error_arrival(e.what()));
  }
  // published under the lock, as the comm thread publishes: arrivals stay in the order MPI
  // matched them, each sender's messages in send order
  if (!b.empty()) publish(std::move(b));
}

bool CommThread::send_now(SendCmd& cmd) {
  const std::size_t payload = payload_bytes(cmd);
  // A larger payload is copied or handed to MPI's rendezvous: better done beside JS than by it.
  if (payload > kDirectMaxBytes) return false;
  std::unique_lock<std::mutex> mpi(mpi_mu_, std::try_to_lock);
  // Queued commands go first (a send must not overtake an earlier one to the same rank).
  if (!mpi.owns_lock() || !direct_ || inbox_.load(std::memory_order_acquire)) return false;
  Batch b;
  try {
    transport_->send(std::move(cmd), b);
  } catch (const std::exception& e) {
    b.arrivals.push_back(error_arrival(e.what()));
  }
  const bool pending = transport_->busy();
  if (!b.empty()) publish(std::move(b));
  mpi.unlock();
  // Traffic: the comm thread keeps polling for the reply (its spin window) as if it had sent this
  // itself. One in a long sleep is woken, after the message left, and so is any while requests
  // remain: MPI moves a large payload only when polled, and the reply must not wait out the sleep.
  // A small pending send has left (MPI sends it eagerly) and only its completion waits: while the
  // JS thread handles a batch or polls, it polls for that itself, and a wake-up of the comm thread
  // now would take its core. A larger one is moved by the comm thread for a while (run()).
  js_traffic_.store(true);
  const bool large = payload > kSurelyEagerBytes;
  if (large) moved_ns_.store(now_ns(), std::memory_order_relaxed);
  if (large || (pending && js_state_.load() == kJsIdle) || long_sleep_.load()) poke();
  return true;
}

bool CommThread::collective_now(CollCmd& cmd) {
  if (cmd.delay_us != 0 || cmd.quiet_us != 0 || cmd.kind == CollKind::Split || cmd.kind == CollKind::Job) return false;
  std::unique_lock<std::mutex> mpi(mpi_mu_, std::try_to_lock);
  // deferred_ changes only under this lock
  if (!mpi.owns_lock() || !direct_ || inbox_.load(std::memory_order_acquire) || late_.load(std::memory_order_acquire) ||
      !deferred_.empty()) {
    return false;
  }
  Batch b;
  const std::uint64_t promise = cmd.promise;
  try {
    transport_->collective(std::move(cmd), b);
  } catch (const std::exception& e) {
    b.completions.push_back(Completion{promise, false, {}, e.what()});  // as the comm thread reports it
  }
  try {
    transport_->progress(b);
  } catch (const std::exception& e) {
    b.arrivals.push_back(error_arrival(e.what()));
  }
  if (!b.empty()) publish(std::move(b));
  mpi.unlock();
  // as after a direct send: the comm thread polls for the completion in its spin window, woken
  // from a long sleep (the JS thread polls for it too, for a while)
  js_traffic_.store(true);
  if (long_sleep_.load()) poke();
  return true;
}

void CommThread::poke() {
  if (poked_.exchange(true, std::memory_order_relaxed)) return;
  // Taking the mutex orders this poke with the waiter's check of poked_: without it the notify
  // can fall between that check and the wait, and the wake-up is lost.
  { std::lock_guard<std::mutex> lk(in_mu_); }
  in_cv_.notify_one();
}

Batch CommThread::take() {
  wake_pending_.store(false);
  Batch b;
  std::lock_guard<std::mutex> lk(out_mu_);
  std::swap(b, outbox_);
  return b;
}

template <typename Cmd>
void CommThread::push(std::vector<Cmd>& q, Cmd&& cmd) {
  {
    std::lock_guard<std::mutex> lk(in_mu_);
    q.push_back(std::move(cmd));
    inbox_.store(true, std::memory_order_release);
  }
  in_cv_.notify_one();
}

void CommThread::enqueue(SendCmd&& cmd) {
  push(sends_, std::move(cmd));
  // The comm thread, polling or just woken by the push, usually shares this core (mpirun binds a
  // rank to one core): let it start the send now rather than when this thread next blocks.
  // Costs ~1 us when nothing else wants the core. Large sends gain too: the peer starts copying
  // while JS finishes its turn (1 MiB ping-pong, 2 vCPUs: ~5 us less per hop).
  if (yield_on_send_) std::this_thread::yield();
}
void CommThread::enqueue(RecvCmd&& cmd) { push(recvs_, std::move(cmd)); }
void CommThread::enqueue(CollCmd&& cmd) {
  cmd.queued = std::chrono::steady_clock::now();
  const unsigned wait_us = cmd.quiet_us == 0 ? cmd.delay_us : std::min(cmd.delay_us, cmd.quiet_us);
  if (wait_us == 0 || !direct_ || js_state_.load() == kJsIdle) {
    push(colls_, std::move(cmd));
    return;
  }
  // A delayed collective (a fence wave) waits anyway: a comm thread parked beside a busy JS
  // thread is not woken for it; the JS thread starts it when it is due (start_due), or the comm
  // thread when JS goes idle.
  const std::int64_t due = std::chrono::duration_cast<std::chrono::nanoseconds>(cmd.queued.time_since_epoch()).count() +
                           static_cast<std::int64_t>(wait_us) * 1000;
  // late_, not inbox_: a send may still go out directly before it (collectives keep their order)
  std::lock_guard<std::mutex> lk(in_mu_);
  colls_.push_back(std::move(cmd));
  late_.store(true, std::memory_order_release);
  if (due < due_ns_.load(std::memory_order_relaxed)) due_ns_.store(due, std::memory_order_relaxed);
}

void CommThread::start_due(std::int64_t now) {
  if (std::min(due_ns_.load(std::memory_order_relaxed), deferred_.next_due_ns()) > now) return;
  std::unique_lock<std::mutex> mpi(mpi_mu_, std::try_to_lock);
  // in a pass, the comm thread takes and starts them itself
  if (!mpi.owns_lock() || !direct_) return;
  std::vector<CollCmd> colls;
  {
    std::lock_guard<std::mutex> lk(in_mu_);
    // Only when nothing else is queued: the comm thread, woken for that, takes them all in order.
    if (!inbox_.load(std::memory_order_relaxed)) {
      colls.swap(colls_);
      late_.store(false, std::memory_order_relaxed);
      due_ns_.store(kNever, std::memory_order_relaxed);
    }
  }
  const auto t = std::chrono::steady_clock::now();
  deferred_.add(colls, t);
  // By their delay alone: the comm thread's early start of a quiet rank is for a JS thread gone idle.
  Batch b;
  const DeferredColls::Started s = deferred_.start_ready(*transport_, b, t, std::chrono::steady_clock::time_point::max(), false);
  // a split or a job blocks: the comm thread starts it, also one that what started here unblocked
  const bool blocking = s.held || (s.any && deferred_.blocking_ahead());
  if (!b.empty()) publish(std::move(b));
  mpi.unlock();
  if (blocking) poke();
}

void CommThread::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lk(in_mu_);
    stop_ = true;
    inbox_.store(true, std::memory_order_release);
  }
  in_cv_.notify_one();
  thread_.join();
  std::lock_guard<std::mutex> lk(in_mu_);
  stop_ = false;
  inbox_.store(false);
  late_.store(false);
  due_ns_.store(kNever);
  moved_ns_.store(0);
  js_state_.store(kJsIdle);
  sends_.clear();
  recvs_.clear();
  colls_.clear();
  wake_ = nullptr;
}

void CommThread::abort(int code) {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lk(in_mu_);
      abort_ = true;
      abort_code_ = code;
      inbox_.store(true, std::memory_order_release);
    }
    in_cv_.notify_one();
    // MPI_Abort does not return; if the comm thread is stuck, leaving the process still makes
    // mpirun tear the job down.
    std::this_thread::sleep_for(std::chrono::seconds(5));
  }
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace ttg
