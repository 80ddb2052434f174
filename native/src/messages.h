// Plain structs that cross between the JS thread and the comm thread. No napi and no MPI types
// here, so the comm thread and the transports stay testable and free of JS concerns.
#pragma once

#include "settings.h"
#include "../include/ttg_seams.h"
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace ttg {

// JS-owned memory. The comm thread never frees it: `pin` ids name the napi references that keep
// it alive, and only the JS thread may drop those, so finished pins are handed back in a Batch.
struct Span {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// A heap byte buffer that is not zero-filled on allocation (std::vector would be).
struct OwnedBytes {
  std::unique_ptr<std::uint8_t[]> data;
  std::size_t size = 0;

  OwnedBytes() = default;
  explicit OwnedBytes(std::size_t n) : data(n ? new std::uint8_t[n] : nullptr), size(n) {}
  std::uint8_t* get() const { return data.get(); }
};

// Receive buffers for large plain typed-array payloads. The comm thread receives into them as
// soon as the header arrives (no trip through JS first); JS then wraps each as an external
// ArrayBuffer whose finalizer gives it back. Reusing memory that is already faulted in (and, from
// 1 MiB, backed by transparent huge pages) is what makes a fresh receive array cheap: a new
// 16 MiB array from malloc costs ~1 ms of page faults on top of the copy. The pool keeps at most
// TTG_RECV_POOL_MB (default 256) MiB of free buffers; beyond that they are freed.
class RecvPool {
 public:
  static RecvPool& get() {
    static RecvPool* p = new RecvPool();  // leaked: finalizers may run during process teardown
    return *p;
  }

  // A buffer of at least `bytes`; `cap` receives its real size (pass it back to give()).
  void* take(std::size_t bytes, std::size_t& cap) {
    const std::size_t fresh = capacity(bytes);
    {
      std::lock_guard<std::mutex> lk(mu_);
      // Smallest fitting size class, and in it the buffer given back last (warmest in cache).
      auto it = free_.lower_bound(bytes);
      if (it != free_.end() && it->first <= std::max(fresh, bytes + bytes / 4 + 4096)) {
        cap = it->first;
        void* p = it->second.back();
        it->second.pop_back();
        if (it->second.empty()) free_.erase(it);
        free_bytes_ -= cap;
        reused_++;
        return p;
      }
    }
    allocated_++;
    cap = fresh;
    const bool huge = cap % kHuge == 0;
    void* p = std::aligned_alloc(huge ? kHuge : 4096, cap);
    if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (huge) madvise(p, cap, MADV_HUGEPAGE);
#endif
    return p;
  }

  void give(void* p, std::size_t cap) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (free_bytes_ + cap <= limit_) {
        free_[cap].push_back(p);
        free_bytes_ += cap;
        return;
      }
    }
    std::free(p);
  }

  // Buffers handed out that came from the free list, and that had to be allocated.
  std::uint64_t reused() const { return reused_.load(); }
  std::uint64_t allocated() const { return allocated_.load(); }

 private:
  static constexpr std::size_t kHuge = std::size_t{2} << 20;
  // From 1 MiB a buffer is whole 2 MiB huge pages (up to twice the payload at exactly 1 MiB):
  // the receive copy then touches one TLB entry instead of 256, and the task that runs after it
  // finds more of its own translations still cached. 1 MiB ping-pong on a 2-vCPU VM: copy 117 ->
  // 101 us median, ttg round trip ~400 -> ~350 us, raw MPI ~230 -> ~190 us (same pool).
  static std::size_t capacity(std::size_t bytes) {
    const std::size_t align = bytes >= kHuge / 2 ? kHuge : 4096;
    return (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
  }
  RecvPool() : limit_(settings().recv_pool_bytes) {}
  std::mutex mu_;
  std::map<std::size_t, std::vector<void*>> free_;
  std::size_t free_bytes_ = 0;
  std::size_t limit_ = 0;
  std::atomic<std::uint64_t> reused_{0}, allocated_{0};
};

// One pool buffer holding `bytes` of payload; gives itself back unless released to JS.
struct PoolBuf {
  void* data = nullptr;
  std::size_t cap = 0;
  std::size_t bytes = 0;

  PoolBuf() = default;
  explicit PoolBuf(std::size_t n) : bytes(n) { data = RecvPool::get().take(n, cap); }
  PoolBuf(PoolBuf&& o) noexcept : data(o.data), cap(o.cap), bytes(o.bytes) { o.data = nullptr; }
  PoolBuf& operator=(PoolBuf&& o) noexcept {
    if (this != &o) {
      reset();
      data = o.data;
      cap = o.cap;
      bytes = o.bytes;
      o.data = nullptr;
    }
    return *this;
  }
  PoolBuf(const PoolBuf&) = delete;
  PoolBuf& operator=(const PoolBuf&) = delete;
  ~PoolBuf() { reset(); }
  void reset() {
    if (data != nullptr) RecvPool::get().give(data, cap);
    data = nullptr;
  }
  // Hands ownership to the caller (who must RecvPool::get().give(data, cap) eventually).
  void release() { data = nullptr; }
  // Takes back ownership of pool memory that release() handed out.
  void adopt(void* d, std::size_t c, std::size_t n) {
    reset();
    data = d;
    cap = c;
    bytes = n;
  }
};

struct SendCmd {
  int dest = 0;
  std::vector<std::uint8_t> header;
  std::vector<Span> parts;
  std::uint64_t pin = 0;  // 0: nothing pinned
  // Every part is a plain typed array: the receiver may receive it into memory of its own
  // choosing (a RecvPool buffer) before JS has seen the header.
  bool plain = false;
  // Pool buffers that JS transferred with this send (see pool_leases.h): they go back to the
  // pool when the send no longer needs them.
  std::vector<PoolBuf> recycle;
  // The addon copied the parts when JS sent them (small payloads): `parts` point into `copy`,
  // one after the other, and nothing is pinned.
  bool copied = false;
  OwnedBytes copy;
};

// `src`/`tag` come from the Arrival that announced the message; `loop_*` only for loopback,
// where the "payload in flight" is the sender's own pinned memory. (A payload sent inside the
// header message never needs one: JS gets it with the header.)
struct RecvCmd {
  std::uint64_t id = 0;
  int src = 0;
  int tag = 0;
  std::vector<Span> parts;
  std::uint64_t pin = 0;
  std::vector<Span> loop_src;
  std::uint64_t loop_pin = 0;
};

enum class CollKind { Allreduce, Barrier, Split, Job, Bcast };

// Allreduce operations, numbered as src/native/addon.ts numbers them.
enum class ReduceOp { Sum = 0, Min = 1, Max = 2, Prod = 3 };

struct CollCmd {
  CollKind kind = CollKind::Barrier;
  std::uint64_t promise = 0;
  std::vector<double> values;  // allreduce operand, reduced in place
  ReduceOp op = ReduceOp::Sum;  // Allreduce
  int root = 0;                 // Bcast: the rank whose `buf` every rank receives
  Span buf;                     // Bcast: JS memory, pinned by `pin` until the broadcast completes
  std::uint64_t pin = 0;
  std::uint32_t delay_us = 0;  // start no sooner than this long after it was enqueued (in order)
  std::uint32_t quiet_us = 0;  // with delay_us: start sooner, once this rank has had no traffic that long
  std::chrono::steady_clock::time_point queued{};  // when JS called it (the delay counts from there)
  int comm = 0;                // communicator: 0 the whole job, n a split's (see Split)
  int color = 0;               // Split: ranks of one color form a communicator (< 0: none)
  int key = 0;                 // Split: orders the ranks of a color
  const TtgCommJob* job = nullptr;  // Job: run on the comm thread (kept alive by the addon)
};

struct Arrival {
  enum class Kind { Msg, Recvd, Error } kind = Kind::Msg;
  int src = 0;
  std::uint64_t id = 0;
  int tag = 0;
  std::vector<std::uint8_t> header;
  std::vector<std::uint64_t> sizes;
  std::vector<Span> loop_src;
  std::uint64_t loop_pin = 0;
  // Kind::Msg sent eagerly: the payload parts follow each other in `eager` from `eager_off`.
  bool is_eager = false;
  OwnedBytes eager;
  std::size_t eager_off = 0;
  // Kind::Msg of plain parts: already received, one pool buffer per part (JS needs no recv).
  std::vector<PoolBuf> pre;
  std::string message;  // Kind::Error
};

// An error of the comm thread, reported to JS as an arrival.
inline Arrival error_arrival(const std::string& what) {
  Arrival a;
  a.kind = Arrival::Kind::Error;
  a.message = what;
  return a;
}

struct Completion {
  std::uint64_t promise = 0;
  bool ok = true;
  std::vector<double> values;  // allreduce result, {comm, rank, size} for split, a job's results
  std::string message;         // when !ok
};

// Everything one wake-up of the JS thread delivers; arrivals are in the order they happened.
struct Batch {
  std::vector<Arrival> arrivals;
  std::vector<Completion> completions;
  std::vector<std::uint64_t> released;

  bool empty() const { return arrivals.empty() && completions.empty() && released.empty(); }
  void append(Batch&& other);
};

inline void Batch::append(Batch&& other) {
  for (auto& a : other.arrivals) arrivals.push_back(std::move(a));
  for (auto& c : other.completions) completions.push_back(std::move(c));
  released.insert(released.end(), other.released.begin(), other.released.end());
}

// Counters read by JS tests while the comm thread writes them.
struct Stats {
  std::atomic<std::uint64_t> sent_msgs{0}, recv_msgs{0}, sent_bytes{0}, recv_bytes{0};
  std::atomic<std::uint64_t> receiving{0};  // messages whose payload is being received
  void reset() { sent_msgs = recv_msgs = sent_bytes = recv_bytes = receiving = 0; }
};

}  // namespace ttg
