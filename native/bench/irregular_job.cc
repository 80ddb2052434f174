// One event loop per rank, on a communicator of the job's own (so that nothing of ttg's can match
// its messages): make a few records, start sends, receive whatever has arrived, until every stream
// has ended. Sends never block, or two ranks each sending to the other could wait for ever; each
// destination's stream ends with a message of tag kLast, which arrives after the stream's other
// messages (MPI keeps one sender's order for receives that match any tag).
#include "irregular_job.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <vector>

namespace ttg_bench {
namespace {

constexpr int kData = 1;             // histogram slots or gather requests
constexpr int kLast = 2;             // the last message of kData to a destination, possibly empty
constexpr int kReply = 3;            // gather replies
constexpr std::size_t kWindow = 16;  // sends in flight at once
constexpr int kChunk = 128;          // picks between two looks at what has arrived
constexpr int kMaxBuffer = 1 << 20;  // records per buffer: a buffer's bytes stay within an int

struct Request {
  std::int32_t slot;
  std::int32_t id;
};

struct Reply {
  double value;
  std::int32_t id;
  std::int32_t unused;
};

// 64-bit LCG (Knuth's MMIX constants), its high bits taken; a stream of its own per rank.
class Random {
 public:
  explicit Random(int rank) : x_(0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(rank + 1)) {}
  int below(int range) {
    x_ = x_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>(static_cast<std::uint32_t>(x_ >> 33) % static_cast<std::uint32_t>(range));
  }

 private:
  std::uint64_t x_;
};

// MPI_Isend of copies, at most kWindow in flight, tested oldest first (a long array for
// MPI_Testsome costs more than the sends); the rest wait in a queue for progress().
class Sender {
 public:
  explicit Sender(MPI_Comm comm) : comm_(comm), reqs_(kWindow, MPI_REQUEST_NULL), bufs_(kWindow) {}
  void send(int dest, int tag, const char* data, std::size_t bytes) {
    if (backed_up() || !queue_.empty()) {
      queue_.push_back(Queued{dest, tag, std::vector<char>(data, data + bytes)});
    } else {
      start(dest, tag, data, bytes);
    }
  }
  void progress() {
    for (int done = 1; tail_ < head_; ++tail_) {
      MPI_Test(&reqs_[tail_ % kWindow], &done, MPI_STATUS_IGNORE);
      if (done == 0) break;
    }
    for (; !backed_up() && !queue_.empty(); queue_.pop_front()) {
      const Queued& q = queue_.front();
      start(q.dest, q.tag, q.data.data(), q.data.size());
    }
  }
  // Every slot in flight: making more records would only lengthen the queue.
  bool backed_up() const { return head_ - tail_ == kWindow; }
  bool idle() const { return queue_.empty() && head_ == tail_; }

 private:
  struct Queued {
    int dest, tag;
    std::vector<char> data;
  };
  void start(int dest, int tag, const char* data, std::size_t bytes) {
    std::vector<char>& b = bufs_[head_ % kWindow];
    b.assign(data, data + bytes);
    MPI_Isend(b.data(), static_cast<int>(bytes), MPI_BYTE, dest, tag, comm_, &reqs_[head_ % kWindow]);
    ++head_;
  }
  MPI_Comm comm_;
  std::vector<MPI_Request> reqs_;
  std::vector<std::vector<char>> bufs_;
  std::size_t head_ = 0, tail_ = 0;  // in flight: [tail_, head_), modulo kWindow
  std::deque<Queued> queue_;
};

// A buffer of up to `cap` records of R per destination, sent when full (cap 1: a message per record).
template <typename R>
class Outbox {
 public:
  Outbox(int size, int cap, Sender& sender) : bufs_(static_cast<std::size_t>(size)), cap_(static_cast<std::size_t>(cap)), sender_(sender) {
    for (auto& b : bufs_) b.reserve(cap_);
  }
  void push(int dest, int tag, const R& r) {
    std::vector<R>& b = bufs_[static_cast<std::size_t>(dest)];
    b.push_back(r);
    if (b.size() == cap_) flush(dest, tag);
  }
  void flush(int dest, int tag) {
    std::vector<R>& b = bufs_[static_cast<std::size_t>(dest)];
    sender_.send(dest, tag, reinterpret_cast<const char*>(b.data()), b.size() * sizeof(R));
    b.clear();
  }
  bool empty(int dest) const { return bufs_[static_cast<std::size_t>(dest)].empty(); }

 private:
  std::vector<std::vector<R>> bufs_;
  std::size_t cap_;
  Sender& sender_;
};

// The next message that has arrived, received into `in`; false when none has.
bool next_message(MPI_Comm comm, std::vector<char>& in, MPI_Status& st) {
  int flag = 0;
  MPI_Message msg;
  MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &msg, &st);
  if (flag == 0) return false;
  int bytes = 0;
  MPI_Get_count(&st, MPI_BYTE, &bytes);
  in.resize(static_cast<std::size_t>(bytes));
  MPI_Mrecv(in.data(), bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
  return true;
}

// Calls f(record) for each whole R in `in`.
template <typename R, typename F>
void each_record(const std::vector<char>& in, F&& f) {
  for (std::size_t at = 0; at + sizeof(R) <= in.size(); at += sizeof(R)) {
    R r;
    std::memcpy(&r, in.data() + at, sizeof(R));
    f(r);
  }
}

struct World {
  MPI_Comm comm;
  int rank, size;
};

// {seconds, sum of this rank's counters}
void histogram(const World& w, const IrregularParams& p, double* out) {
  Sender sender(w.comm);
  Outbox<std::int32_t> box(w.size, p.buffered ? p.buffer : 1, sender);
  std::vector<std::int64_t> counters(static_cast<std::size_t>(p.per_rank), 0);
  auto count = [&](std::int32_t slot) {
    if (slot >= 0 && slot < p.per_rank) counters[static_cast<std::size_t>(slot)]++;
  };
  Random random(w.rank);
  std::vector<char> in;
  MPI_Status st;
  int made = 0, lasts = 0;
  bool ended = false;
  MPI_Barrier(w.comm);
  const double t0 = MPI_Wtime();
  while (!ended || lasts < w.size - 1 || !sender.idle()) {
    for (const int end = made + std::min(kChunk, p.n - made); made < end && !sender.backed_up(); ++made) {
      const int c = random.below(p.per_rank * w.size);
      if (c % w.size == w.rank) {
        count(c / w.size);
      } else {
        box.push(c % w.size, kData, c / w.size);
      }
    }
    if (!ended && made == p.n) {
      for (int d = 0; d < w.size; ++d) {
        if (d != w.rank) box.flush(d, kLast);
      }
      ended = true;
    }
    sender.progress();
    while (next_message(w.comm, in, st)) {
      if (st.MPI_TAG == kLast) lasts++;
      each_record<std::int32_t>(in, count);
    }
  }
  MPI_Barrier(w.comm);
  out[0] = MPI_Wtime() - t0;
  std::int64_t sum = 0;
  for (std::int64_t c : counters) sum += c;
  out[1] = static_cast<double>(sum);
}

// {seconds, requests of this rank answered wrongly or not at all}
void gather(const World& w, const IrregularParams& p, double* out) {
  Sender sender(w.comm);
  const int cap = p.buffered ? p.buffer : 1;
  Outbox<Request> asks(w.size, cap, sender);
  Outbox<Reply> answers(w.size, cap, sender);
  std::vector<double> table(static_cast<std::size_t>(p.per_rank));
  for (int j = 0; j < p.per_rank; ++j) table[static_cast<std::size_t>(j)] = (static_cast<double>(j) * w.size + w.rank) * 0.5;
  const auto n = static_cast<std::size_t>(p.n);
  std::vector<std::int32_t> asked(n);
  std::vector<char> answered(n, 0);
  int wrong = 0;
  auto check = [&](std::int32_t id, double value) {
    const auto i = static_cast<std::size_t>(id);
    if (id < 0 || i >= n || answered[i] != 0) {
      wrong++;
      return;
    }
    answered[i] = 1;
    if (value != asked[i] * 0.5) wrong++;
  };
  auto lookup = [&](std::int32_t slot) { return slot >= 0 && slot < p.per_rank ? table[static_cast<std::size_t>(slot)] : -1.0; };
  Random random(w.rank);
  std::vector<char> in;
  MPI_Status st;
  int made = 0, lasts = 0, remote = 0, replies = 0;
  bool ended = false;
  MPI_Barrier(w.comm);
  const double t0 = MPI_Wtime();
  while (!ended || lasts < w.size - 1 || replies < remote || !sender.idle()) {
    for (const int end = made + std::min(kChunk, p.n - made); made < end && !sender.backed_up(); ++made) {
      const int c = random.below(p.per_rank * w.size);
      asked[static_cast<std::size_t>(made)] = c;
      if (c % w.size == w.rank) {
        check(made, lookup(c / w.size));
      } else {
        asks.push(c % w.size, kData, Request{c / w.size, made});
        remote++;
      }
    }
    if (!ended && made == p.n) {
      for (int d = 0; d < w.size; ++d) {
        if (d != w.rank) asks.flush(d, kLast);
      }
      ended = true;
    }
    sender.progress();
    while (next_message(w.comm, in, st)) {
      const int src = st.MPI_SOURCE;
      if (st.MPI_TAG == kReply) {
        each_record<Reply>(in, [&](const Reply& r) {
          check(r.id, r.value);
          replies++;
        });
        continue;
      }
      each_record<Request>(in, [&](const Request& r) { answers.push(src, kReply, Reply{lookup(r.slot), r.id, 0}); });
      if (st.MPI_TAG == kLast) {
        lasts++;
        if (!answers.empty(src)) answers.flush(src, kReply);
      }
    }
  }
  MPI_Barrier(w.comm);
  out[0] = MPI_Wtime() - t0;
  out[1] = wrong + static_cast<double>(std::count(answered.begin(), answered.end(), 0));
}

int run(void* ctx, const void* comm_ptr, double* out, int max_out, char* err, int err_len) {
  const IrregularParams& p = params_of<IrregularParams>(ctx);
  const MPI_Comm comm = *static_cast<const MPI_Comm*>(comm_ptr);
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // n below INT_MAX - kChunk: a chunk's end, made + kChunk, must not overflow
  if (p.n < 0 || p.n > INT_MAX - kChunk || p.per_rank < 1 || p.per_rank > INT_MAX / size || (p.buffered && (p.buffer < 1 || p.buffer > kMaxBuffer)) ||
      max_out < 2) {
    std::snprintf(err, static_cast<std::size_t>(err_len),
                  "irregular: needs 0 <= n <= %d, 1 <= perRank <= %d at %d ranks and, when buffered, 1 <= buffer <= %d",
                  INT_MAX - kChunk, INT_MAX / size, size, kMaxBuffer);
    return -1;
  }
  World w{MPI_COMM_NULL, rank, size};
  MPI_Comm_dup(comm, &w.comm);
  if (p.kind == IrregularKind::Histogram) {
    histogram(w, p, out);
  } else {
    gather(w, p, out);
  }
  MPI_Comm_free(&w.comm);
  return 2;
}

}  // namespace

TtgCommJob* make_irregular_job(const IrregularParams& p) { return make_job(&run, p); }

}  // namespace ttg_bench
