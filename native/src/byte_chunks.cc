#include "byte_chunks.h"

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "cores.h"
#include "settings.h"
#include "thread_name.h"

namespace ttg {
namespace {

// One call's chunks: whoever takes index i runs chunk i; the caller waits until all have run.
struct Job {
  const std::function<void(std::size_t, std::size_t, std::size_t)>* fn;
  std::size_t bytes, chunk, n;
  int helpers;                    // helpers that may still join (max_threads - 1)
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};

  void work() {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      struct Count {  // a chunk that throws is done too: the caller waits for every chunk taken
        Job* j;
        ~Count() { j->done.fetch_add(1, std::memory_order_release); }
      } count{this};
      (*fn)(i, i * chunk, std::min(chunk, bytes - i * chunk));
    }
  }
};

// Threads that help with jobs, started once and kept for the life of the process (a thread per
// call would cost each 8 MiB hash tens of microseconds per thread).
class Helpers {
 public:
  static Helpers& get() {
    static Helpers* h = new Helpers();  // never destroyed: its threads live until the process exits
    return *h;
  }
  int count() const { return static_cast<int>(threads_.size()); }

  void post(const std::shared_ptr<Job>& j) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      jobs_.push_back(j);
    }
    cv_.notify_all();
  }

  void retire(const std::shared_ptr<Job>& j) {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = std::find(jobs_.begin(), jobs_.end(), j);
    if (it != jobs_.end()) jobs_.erase(it);
  }

 private:
  Helpers() {
    const int n = std::min(usable_cores() - 1, 7);
    const unsigned fault = settings().fault_chunk_thread;
    // A thread that cannot start (a process or container limit) leaves fewer helpers: the
    // callers do the chunks themselves. Never throw from here: started threads use this object.
    for (int i = 0; i < n; ++i) {
      try {
        if (fault == static_cast<unsigned>(i) + 1) throw std::system_error(EAGAIN, std::generic_category(), "chunk helper");
        threads_.emplace_back([this, i] {
          name_this_thread("ttg-chunk-" + std::to_string(i));
          run();
        });
      } catch (const std::system_error&) {
        break;
      }
      threads_.back().detach();
    }
  }

  void run() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [&] { return !jobs_.empty(); });
      std::shared_ptr<Job> j;
      for (auto& q : jobs_) {
        // a job takes no more helpers than its caller allowed
        if (q->helpers > 0 && q->next.load() < q->n) {
          --q->helpers;
          j = q;
          break;
        }
      }
      if (j == nullptr) {
        // every queued job is fully taken: wait for the next post
        cv_.wait(lk);
        continue;
      }
      lk.unlock();
      j->work();
      lk.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> jobs_;
  std::vector<std::thread> threads_;
};

}  // namespace

void for_each_chunk(std::size_t bytes, std::size_t chunk, int max_threads,
                    const std::function<void(std::size_t, std::size_t, std::size_t)>& fn) {
  const std::size_t n = bytes == 0 ? 0 : (bytes + chunk - 1) / chunk;
  if (n == 0) return;
  Helpers& h = Helpers::get();
  const int helpers = std::min<int>(std::max(1, max_threads) - 1, std::min<int>(h.count(), static_cast<int>(n - 1)));
  if (helpers <= 0) {
    for (std::size_t i = 0; i < n; ++i) fn(i, i * chunk, std::min(chunk, bytes - i * chunk));
    return;
  }
  auto j = std::make_shared<Job>();
  j->fn = &fn;
  j->bytes = bytes;
  j->chunk = chunk;
  j->n = n;
  j->helpers = helpers;
  h.post(j);
  // Whatever happens here (fn may throw), fn and what it refers to must outlive the helpers'
  // chunks: take the job out of the queue and wait for the chunks already taken.
  struct Settle {
    Helpers& h;
    const std::shared_ptr<Job>& j;
    ~Settle() {
      h.retire(j);
      const std::size_t taken = std::min(j->next.exchange(j->n), j->n);  // no chunk is taken after this
      while (j->done.load(std::memory_order_acquire) < taken) std::this_thread::yield();
    }
  } settle{h, j};
  j->work();
}

}  // namespace ttg
