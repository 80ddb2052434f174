// MPI transport, owned by the comm thread (MPI_Init_thread is called from it, and no other
// thread touches MPI, so MPI_THREAD_FUNNELED is enough and avoids MULTIPLE's locking).
//
// Wire protocol of one active message:
//   hdr_comm, tag kHeaderTag: envelope = Head, nparts x uint64 size, header bytes (the single tag
//                             makes MPI's non-overtaking rule keep headers in order).
//     eager (payload total <= TTG_EAGER_BYTES, default 64 KiB): the payload parts follow the
//                             header in the same envelope and reach JS with it (addon.cc
//                             Flatten), so a small message needs one trip through JS, not two.
//     else: data_comm, tag = per-destination sequence number: each payload part, in order, sent
//                             from the JS array's own memory. Plain typed arrays (flag kPlain): the
//                             receiver's comm thread receives them at once into RecvPool buffers and
//                             announces the message only when complete; JS wraps those buffers (one
//                             trip through JS; TTG_PRERECV=0 turns this off). Otherwise (split
//                             metadata) the receiver posts its receives into JS-allocated views
//                             after JS has seen the header.
// Collectives and the raw ping-pong use a third communicator so they never match user traffic.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>

#include "mpi_check.h"
#include "mpi_chunks.h"
#include "settings.h"
#include "comm_job.h"
#include "transport.h"

namespace ttg {
namespace {

constexpr int kHeaderTag = 1;

constexpr std::uint32_t kEager = 1;  // Head::flags: the payload follows the header
constexpr std::uint32_t kPlain = 2;  // Head::flags: parts may be received into any memory

struct Head {
  std::uint32_t nparts;
  std::uint32_t header_len;
  std::int32_t tag;
  std::uint32_t flags;
};

struct PendingSend {
  OwnedBytes envelope;  // must outlive its MPI_Isend
  OwnedBytes copy;      // parts the addon copied at send time, if sent from there
  std::vector<MPI_Request> reqs;
  std::uint64_t pin;
  std::vector<PoolBuf> recycle;  // given back to the pool when this is destroyed (send complete)
};

using Clock = std::chrono::steady_clock;

struct PendingRecv {
  std::uint64_t id;
  std::vector<MPI_Request> reqs;
  std::uint64_t pin;
  std::uint64_t bytes;
  Clock::time_point due;  // TTG_FAULT_RECV_DELAY_MS: not complete before this
};

// A plain message whose parts the comm thread is receiving into pool buffers.
struct PendingPre {
  Arrival arrival;
  std::vector<MPI_Request> reqs;
  Clock::time_point due;  // TTG_FAULT_RECV_DELAY_MS: not complete before this
};

struct PendingColl {
  CollCmd cmd;
  std::vector<MPI_Request> reqs;  // a broadcast of 2 GiB or more takes one per chunk
  std::string failed;             // a later chunk could not start: reported once the started ones end
};

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Min: return MPI_MIN;
    case ReduceOp::Max: return MPI_MAX;
    case ReduceOp::Prod: return MPI_PROD;
    default: return MPI_SUM;
  }
}

bool test_all(std::vector<MPI_Request>& reqs) {
  int done = 0;
  TTG_CHECK_MPI(MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE));
  return done != 0;
}

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(Stats& stats) : stats_(stats) {
#ifdef OPEN_MPI
    // Open MPI's plugins expect libmpi's symbols to be global; Node loads addons RTLD_LOCAL.
    dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
#endif
    // SERIALIZED lets the JS thread make MPI calls itself while it holds the comm thread's MPI
    // lock (comm_thread.h); with FUNNELED only the comm thread calls MPI.
    int provided = 0;
    TTG_CHECK_MPI(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided));
    if (provided < MPI_THREAD_FUNNELED) {
      MPI_Finalize();
      throw std::runtime_error("MPI provides thread level " + std::to_string(provided) +
                               ", the comm thread needs MPI_THREAD_FUNNELED");
    }
    serialized_ = provided >= MPI_THREAD_SERIALIZED;
    for (MPI_Comm* c : {&hdr_, &data_, &coll_}) {
      TTG_CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, c));
      TTG_CHECK_MPI(MPI_Comm_set_errhandler(*c, MPI_ERRORS_RETURN));
    }
    TTG_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
    TTG_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
    void* ub = nullptr;
    int flag = 0;
    TTG_CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    tag_ub_ = flag ? *static_cast<int*>(ub) : 32767;
    next_tag_.assign(size_, 0);
    eager_limit_ = settings().eager_bytes;
    fault_send_ = settings().fault_send;
    fault_recv_delay_ = std::chrono::milliseconds(settings().fault_recv_delay_ms);
    prerecv_ = settings().prerecv;
    chunk_ = std::clamp<std::size_t>(settings().mpi_chunk_bytes, 1, std::size_t{1} << 30);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool uses_mpi() const override { return true; }
  bool needs_polling() const override { return true; }
  bool any_thread() const override { return serialized_; }
  bool busy() const override { return !sends_.empty() || !recvs_.empty() || !pre_.empty(); }

  void send(SendCmd&& cmd, Batch& out) override {
    if (fault_send_ != 0 && ++sends_made_ == fault_send_) {
      if (cmd.pin) out.released.push_back(cmd.pin);
      throw std::runtime_error("ttg_native: send " + std::to_string(fault_send_) + " to rank " + std::to_string(cmd.dest) +
                               " failed (injected by TTG_FAULT_SEND)");
    }
    PendingSend ps;
    ps.pin = cmd.pin;
    ps.recycle = std::move(cmd.recycle);
    ps.copy = std::move(cmd.copy);
    std::uint64_t payload = 0;
    for (const Span& p : cmd.parts) payload += p.bytes;
    const bool eager = !cmd.parts.empty() && payload <= eager_limit_;
    const int tag = eager ? 0 : static_cast<int>(next_tag_[cmd.dest]++ % static_cast<unsigned>(tag_ub_));
    Head head{static_cast<std::uint32_t>(cmd.parts.size()), static_cast<std::uint32_t>(cmd.header.size()), tag,
              eager ? kEager : cmd.plain ? kPlain : 0};
    const std::size_t sizes_bytes = cmd.parts.size() * sizeof(std::uint64_t);
    const std::size_t fixed = sizeof(Head) + sizes_bytes + cmd.header.size();
    ps.envelope = OwnedBytes(fixed + (eager ? payload : 0));
    std::uint8_t* p = ps.envelope.get();
    std::memcpy(p, &head, sizeof head);
    for (std::size_t i = 0; i < cmd.parts.size(); ++i) {
      const std::uint64_t n = cmd.parts[i].bytes;
      std::memcpy(p + sizeof(Head) + i * sizeof n, &n, sizeof n);
    }
    if (!cmd.header.empty()) std::memcpy(p + sizeof(Head) + sizes_bytes, cmd.header.data(), cmd.header.size());
    if (eager) {
      std::uint8_t* q = p + fixed;
      for (const Span& part : cmd.parts) {
        if (part.bytes) std::memcpy(q, part.data, part.bytes);
        q += part.bytes;
      }
      // the payload is copied: JS may drop (or reuse) its arrays at once
      if (ps.pin) out.released.push_back(ps.pin);
      ps.pin = 0;
    }
    ps.reqs.assign(1, MPI_REQUEST_NULL);
    const int rc = MPI_Isend(ps.envelope.get(), static_cast<int>(ps.envelope.size), MPI_BYTE, cmd.dest, kHeaderTag,
                             hdr_, &ps.reqs[0]);
    if (rc != MPI_SUCCESS) {
      if (ps.pin) out.released.push_back(ps.pin);  // nothing reads the parts: they go back to JS
      TTG_CHECK_MPI(rc);
    }
    if (!eager) {
      for (const Span& part : cmd.parts) {
        const int rc = start_chunks(part.data, part.bytes, chunk_, ps.reqs, [&](void* data, int n, MPI_Request* r) {
          return MPI_Isend(data, n, MPI_BYTE, cmd.dest, tag, data_, r);
        });
        if (rc != MPI_SUCCESS) {
          // The requests already started still read the envelope and the parts: they stay owned
          // (pending) until MPI is done with them, and only then is the pin given back.
          sends_.push_back(std::move(ps));
          TTG_CHECK_MPI(rc);
        }
      }
    }
    stats_.sent_msgs++;
    stats_.sent_bytes += cmd.header.size() + payload;
    // Small sends usually complete at once (MPI's own eager protocol); skip the pending list then.
    if (!test_all(ps.reqs)) {
      sends_.push_back(std::move(ps));
    } else if (ps.pin) {
      out.released.push_back(ps.pin);
    }
  }

  void recv(RecvCmd&& cmd, Batch& out) override {
    PendingRecv pr{cmd.id, {}, cmd.pin, 0, due()};
    for (const Span& part : cmd.parts) {
      TTG_CHECK_MPI(start_chunks(part.data, part.bytes, chunk_, pr.reqs, [&](void* data, int n, MPI_Request* r) {
        return MPI_Irecv(data, n, MPI_BYTE, cmd.src, cmd.tag, data_, r);
      }));
      pr.bytes += part.bytes;
    }
    recvs_.push_back(std::move(pr));
    note_receiving();
    (void)out;
  }

  void collective(CollCmd&& cmd, Batch& out) override {
    MPI_Comm comm = cmd.comm == 0 ? coll_ : cmd.comm <= static_cast<int>(splits_.size()) ? splits_[cmd.comm - 1] : MPI_COMM_NULL;
    if (comm == MPI_COMM_NULL) {
      Completion c;
      c.promise = cmd.promise;
      c.ok = false;
      c.message = "no communicator " + std::to_string(cmd.comm);
      out.completions.push_back(std::move(c));
      return;
    }
    if (cmd.kind == CollKind::Split) {
      out.completions.push_back(split(cmd, comm));
      return;
    }
    if (cmd.kind == CollKind::Job) {
      out.completions.push_back(run_comm_job(cmd, &comm));
      return;
    }
    // A deque never moves its elements, so values.data() stays where MPI was told to write.
    const int id = cmd.comm;
    std::deque<PendingColl>& q = colls_[id];
    q.push_back(PendingColl{std::move(cmd), {}, {}});
    PendingColl& pc = q.back();
    int rc = MPI_SUCCESS;
    if (pc.cmd.kind == CollKind::Allreduce) {
      pc.reqs.assign(1, MPI_REQUEST_NULL);
      rc = MPI_Iallreduce(MPI_IN_PLACE, pc.cmd.values.data(), static_cast<int>(pc.cmd.values.size()), MPI_DOUBLE,
                          mpi_op(pc.cmd.op), comm, &pc.reqs[0]);
    } else if (pc.cmd.kind == CollKind::Bcast) {
      rc = start_chunks(pc.cmd.buf.data, pc.cmd.buf.bytes, chunk_, pc.reqs, [&](void* data, int n, MPI_Request* r) {
        return MPI_Ibcast(data, n, MPI_BYTE, pc.cmd.root, comm, r);
      });
      if (rc != MPI_SUCCESS && pc.reqs.size() > 1) {
        // earlier chunks are under way and write (or read) the buffer: it stays until they end
        pc.failed = "MPI_Ibcast of chunk " + std::to_string(pc.reqs.size()) + " failed (MPI error " + std::to_string(rc) + ")";
        return;
      }
    } else {
      pc.reqs.assign(1, MPI_REQUEST_NULL);
      rc = MPI_Ibarrier(comm, &pc.reqs[0]);
    }
    if (rc == MPI_SUCCESS) return;
    // Not started: a null request would read as done, so it leaves the queue (and its pin goes back).
    if (pc.cmd.pin) out.released.push_back(pc.cmd.pin);
    q.pop_back();
    if (q.empty()) colls_.erase(id);
    TTG_CHECK_MPI(rc);
  }

  // New headers last: a payload that probe_headers has just received is published (and JS woken)
  // without first testing every other request, each test a pass of MPI's progress engine.
  bool progress(Batch& out) override {
    bool any = false;
    for (std::size_t i = 0; i < sends_.size();) {
      bool done = false;
      try {
        done = test_all(sends_[i].reqs);
      } catch (const std::exception& e) {
        // A send MPI failed must not stop every later pass: it leaves the list with its memory
        // kept for good (a request may still read it) and its error reported once.
        out.arrivals.push_back(error_arrival(e.what()));
        new PendingSend(std::move(sends_[i]));
        sends_[i] = std::move(sends_.back());
        sends_.pop_back();
        any = true;
        continue;
      }
      if (done) {
        if (sends_[i].pin) out.released.push_back(sends_[i].pin);
        sends_[i] = std::move(sends_.back());
        sends_.pop_back();
        any = true;
      } else {
        ++i;
      }
    }
    any = publish_in_order(out) || any;
    // Receives complete in posting order when they can, so 'recvd' events stay in a stable order.
    for (std::size_t i = 0; i < recvs_.size();) {
      if (received(recvs_[i].reqs, recvs_[i].due)) {
        Arrival a;
        a.kind = Arrival::Kind::Recvd;
        a.id = recvs_[i].id;
        out.arrivals.push_back(std::move(a));
        if (recvs_[i].pin) out.released.push_back(recvs_[i].pin);
        stats_.recv_bytes += recvs_[i].bytes;
        recvs_.erase(recvs_.begin() + static_cast<std::ptrdiff_t>(i));
        any = true;
      } else {
        ++i;
      }
    }
    // A communicator's collectives are started in program order on every rank, so they finish in
    // that order too; each communicator is reported on its own, so that one world's pending fence
    // wave never holds back another world's finished collective.
    for (auto it = colls_.begin(); it != colls_.end();) {
      std::deque<PendingColl>& q = it->second;
      while (!q.empty()) {
        if (!test_all(q.front().reqs)) break;
        Completion c;
        c.promise = q.front().cmd.promise;
        c.values = std::move(q.front().cmd.values);
        if (!q.front().failed.empty()) {
          c.ok = false;
          c.message = q.front().failed;
        }
        if (q.front().cmd.pin) out.released.push_back(q.front().cmd.pin);
        out.completions.push_back(std::move(c));
        q.pop_front();
        any = true;
      }
      it = q.empty() ? colls_.erase(it) : std::next(it);
    }
    any = probe_headers(out) || any;
    note_receiving();
    return any;
  }

  [[noreturn]] void abort(int code) override {
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

  void shutdown(Batch& out) override {
    // Unmatched rendezvous sends never finish, so give in-flight sends a bounded grace period.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while ((!sends_.empty() || !colls_.empty()) && std::chrono::steady_clock::now() < deadline) {
      try {
        progress(out);
      } catch (const std::exception&) {
        break;  // what is still pending is kept below until MPI_Finalize
      }
    }
    for (PendingPre& r : pre_) {
      for (MPI_Request& q : r.reqs) {
        if (q == MPI_REQUEST_NULL) continue;
        MPI_Cancel(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
      }
    }
    pre_.clear();
    for (PendingRecv& r : recvs_) {
      for (MPI_Request& q : r.reqs) {
        if (q == MPI_REQUEST_NULL) continue;
        MPI_Cancel(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
      }
      if (r.pin) out.released.push_back(r.pin);
    }
    if (!sends_.empty() || !colls_.empty()) {
      std::fprintf(stderr, "ttg_native: rank %d finalizing with %zu sends and %zu collectives unfinished\n", rank_,
                   sends_.size(), colls_.size());
    }
    // A freed request's send may still read its memory until MPI_Finalize: its envelope is leaked
    // and its pin kept (never handed back to JS), so nothing frees what MPI reads.
    for (PendingSend& s : sends_) {
      for (MPI_Request& q : s.reqs) {
        if (q != MPI_REQUEST_NULL) MPI_Request_free(&q);
      }
      new PendingSend(std::move(s));
    }
    sends_.clear();
    recvs_.clear();
    // An unfinished collective may still write its values until MPI_Finalize: kept until after it.
    std::map<int, std::deque<PendingColl>> colls = std::move(colls_);
    colls_.clear();
    for (MPI_Comm& c : splits_) if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    for (MPI_Comm* c : {&hdr_, &data_, &coll_}) MPI_Comm_free(c);
    MPI_Finalize();
  }

 private:
  bool probe_headers(Batch& out) {
    bool any = false;
    // Bounded so a flood of headers cannot starve completions.
    for (int n = 0; n < 256; ++n) {
      int flag = 0;
      MPI_Message msg;
      MPI_Status st;
      TTG_CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, kHeaderTag, hdr_, &flag, &msg, &st));
      if (!flag) break;
      int count = 0;
      TTG_CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      OwnedBytes env(static_cast<std::size_t>(count));
      TTG_CHECK_MPI(MPI_Mrecv(env.get(), count, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
      bool plain = false;
      Arrival a = parse(std::move(env), st.MPI_SOURCE, plain);
      if (plain) {
        PendingPre pp{std::move(a), {}, due()};
        for (std::size_t i = 0; i < pp.arrival.sizes.size(); ++i) {
          try {
            pp.arrival.pre.emplace_back(static_cast<std::size_t>(pp.arrival.sizes[i]));
          } catch (const std::bad_alloc&) {
            for (PoolBuf& b : pp.arrival.pre) b.release();  // receives of earlier parts write them
            throw std::runtime_error("ttg_native: cannot allocate " + std::to_string(pp.arrival.sizes[i]) +
                                     " bytes to receive part " + std::to_string(i) + " of a message from rank " +
                                     std::to_string(st.MPI_SOURCE) + " (out of memory)");
          }
          const int rc = start_chunks(pp.arrival.pre[i].data, pp.arrival.pre[i].bytes, chunk_, pp.reqs, [&](void* data, int n, MPI_Request* r) {
            return MPI_Irecv(data, n, MPI_BYTE, st.MPI_SOURCE, pp.arrival.tag, data_, r);
          });
          if (rc != MPI_SUCCESS) {
            // the receives already posted still write their buffers: those never go back to the pool
            for (PoolBuf& b : pp.arrival.pre) b.release();
            TTG_CHECK_MPI(rc);
          }
        }
        if (!waiting_from(st.MPI_SOURCE) && received(pp.reqs, pp.due)) {
          for (const PoolBuf& b : pp.arrival.pre) stats_.recv_bytes += b.bytes;
          out.arrivals.push_back(std::move(pp.arrival));
          // a large payload just came in: hand it over now; later headers wait for the next pass
          return true;
        }
        pre_.push_back(std::move(pp));
      } else if (waiting_from(st.MPI_SOURCE)) {
        // an earlier message of the same sender is still being received: this one waits behind it
        pre_.push_back(PendingPre{std::move(a), {}, {}});
      } else {
        out.arrivals.push_back(std::move(a));
      }
      any = true;
    }
    return any;
  }

  Clock::time_point due() const { return fault_recv_delay_.count() == 0 ? Clock::time_point{} : Clock::now() + fault_recv_delay_; }

  bool received(std::vector<MPI_Request>& reqs, Clock::time_point due) {
    return test_all(reqs) && (due == Clock::time_point{} || Clock::now() >= due);
  }

  // Payload receives in flight: the hang watchdog does not take this rank for stalled meanwhile,
  // since MPI reports no partial progress of a large receive.
  void note_receiving() {
    std::size_t n = recvs_.size();
    for (const PendingPre& p : pre_) n += p.reqs.empty() ? 0 : 1;
    stats_.receiving.store(n, std::memory_order_relaxed);
  }

  // Whether a message from `src` waits in pre_ (its payload not all in, or behind one that is not).
  bool waiting_from(int src) const {
    for (const PendingPre& p : pre_) {
      if (p.arrival.src == src) return true;
    }
    return false;
  }

  // Announces the messages of pre_ whose payload is in, keeping each sender's order: a message
  // waits while an earlier one from the same sender is still being received.
  bool publish_in_order(Batch& out) {
    if (pre_.empty()) return false;
    bool any = false;
    blocked_.assign(static_cast<std::size_t>(size_), 0);
    for (std::size_t i = 0; i < pre_.size();) {
      PendingPre& p = pre_[i];
      char& blocked = blocked_[static_cast<std::size_t>(p.arrival.src)];
      if (blocked || !(p.reqs.empty() || received(p.reqs, p.due))) {
        blocked = 1;
        ++i;
        continue;
      }
      for (const PoolBuf& b : p.arrival.pre) stats_.recv_bytes += b.bytes;
      out.arrivals.push_back(std::move(p.arrival));
      pre_.erase(pre_.begin() + static_cast<std::ptrdiff_t>(i));
      any = true;
    }
    return any;
  }

  Arrival parse(OwnedBytes&& env, int src, bool& plain) {
    Head head;
    if (env.size < sizeof head) throw std::runtime_error("ttg_native: truncated envelope from rank " + std::to_string(src));
    std::memcpy(&head, env.get(), sizeof head);
    const std::size_t sizes_bytes = std::size_t{head.nparts} * sizeof(std::uint64_t);
    const std::size_t fixed = sizeof head + sizes_bytes + head.header_len;
    Arrival a;
    a.kind = Arrival::Kind::Msg;
    a.src = src;
    a.id = ++next_id_;
    a.tag = head.tag;
    a.sizes.resize(head.nparts);
    if (sizes_bytes) std::memcpy(a.sizes.data(), env.get() + sizeof head, sizes_bytes);
    std::uint64_t payload = 0;
    for (std::uint64_t n : a.sizes) payload += n;
    const bool eager = (head.flags & kEager) != 0;
    plain = prerecv_ && !eager && (head.flags & kPlain) != 0 && head.nparts > 0;
    if (env.size != fixed + (eager ? payload : 0)) {
      throw std::runtime_error("ttg_native: malformed envelope from rank " + std::to_string(src));
    }
    a.header.assign(env.get() + sizeof head + sizes_bytes, env.get() + fixed);
    stats_.recv_msgs++;
    stats_.recv_bytes += a.header.size() + (eager ? payload : 0);
    if (eager) {
      a.is_eager = true;
      a.eager_off = fixed;
      a.eager = std::move(env);
    }
    return a;
  }

  Stats& stats_;
  MPI_Comm hdr_ = MPI_COMM_NULL, data_ = MPI_COMM_NULL, coll_ = MPI_COMM_NULL;
  // Communicators of split worlds, for their collectives (their messages travel on hdr_/data_).
  std::vector<MPI_Comm> splits_;

  // Blocking, but every rank of `parent` is already in it: JS enters a split only after an
  // allreduce over `parent` that every rank made for the same split.
  Completion split(const CollCmd& cmd, MPI_Comm parent) {
    Completion c;
    c.promise = cmd.promise;
    MPI_Comm nc = MPI_COMM_NULL;
    TTG_CHECK_MPI(MPI_Comm_split(parent, cmd.color < 0 ? MPI_UNDEFINED : cmd.color, cmd.key, &nc));
    if (nc == MPI_COMM_NULL) {
      c.values = {-1, -1, 0};
      return c;
    }
    int rank = 0, size = 0;
    TTG_CHECK_MPI(MPI_Comm_rank(nc, &rank));
    TTG_CHECK_MPI(MPI_Comm_size(nc, &size));
    splits_.push_back(nc);
    c.values = {static_cast<double>(splits_.size()), static_cast<double>(rank), static_cast<double>(size)};
    return c;
  }
  int rank_ = 0, size_ = 1, tag_ub_ = 32767;
  std::vector<std::uint32_t> next_tag_;
  std::size_t eager_limit_ = 64 * 1024;
  bool serialized_ = false;  // MPI_THREAD_SERIALIZED provided
  std::size_t chunk_ = std::size_t{1} << 30;  // largest count of one request (mpi_chunks.h)
  bool prerecv_ = true;  // TTG_PRERECV=0: plain messages take the split-metadata path too
  std::chrono::milliseconds fault_recv_delay_{0};
  unsigned fault_send_ = 0, sends_made_ = 0;  // TTG_FAULT_SEND: the nth send throws (tests of error paths)
  std::uint64_t next_id_ = 0;
  std::vector<PendingSend> sends_;
  std::vector<PendingRecv> recvs_;
  // Messages not yet announced, in header order: plain ones being received, and any later one of
  // the same sender (per-sender order is what the runtime promises).
  std::vector<PendingPre> pre_;
  std::vector<char> blocked_;  // publish_in_order's scratch: a sender with an earlier message pending
  std::map<int, std::deque<PendingColl>> colls_;  // by communicator
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(Stats& stats) { return std::make_unique<MpiTransport>(stats); }

}  // namespace ttg
