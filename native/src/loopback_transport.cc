// Single-rank transport used without mpirun (or without MPI at build time). A message to self
// is announced at once; its payload is copied straight from the sender's pinned parts into the
// receiver's views when JS calls recv, so the JS-visible protocol is the same as under MPI.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "comm_job.h"
#include "transport.h"

namespace ttg {
namespace {

class LoopbackTransport final : public Transport {
 public:
  explicit LoopbackTransport(Stats& stats) : stats_(stats) {}

  int rank() const override { return 0; }
  int size() const override { return 1; }
  bool uses_mpi() const override { return false; }
  bool needs_polling() const override { return false; }
  bool busy() const override { return false; }

  void send(SendCmd&& cmd, Batch& out) override {
    Arrival a;
    a.kind = Arrival::Kind::Msg;
    a.src = 0;
    a.id = ++next_id_;
    std::uint64_t bytes = cmd.header.size();
    for (const Span& p : cmd.parts) {
      a.sizes.push_back(p.bytes);
      bytes += p.bytes;
    }
    a.header = std::move(cmd.header);
    if (cmd.copied) {
      // copied at send time: delivered with the header, like an eager MPI message
      a.is_eager = true;
      a.eager = std::move(cmd.copy);
      a.eager_off = 0;
      stats_.recv_bytes += bytes - a.header.size();
    } else if (cmd.parts.empty()) {
      if (cmd.pin) out.released.push_back(cmd.pin);
    } else {
      a.loop_src = std::move(cmd.parts);
      a.loop_pin = cmd.pin;
    }
    stats_.sent_msgs++;
    stats_.sent_bytes += bytes;
    stats_.recv_msgs++;
    stats_.recv_bytes += a.header.size();
    out.arrivals.push_back(std::move(a));
  }

  void recv(RecvCmd&& cmd, Batch& out) override {
    for (std::size_t i = 0; i < cmd.parts.size(); ++i) {
      if (cmd.parts[i].bytes) std::memcpy(cmd.parts[i].data, cmd.loop_src[i].data, cmd.parts[i].bytes);
      stats_.recv_bytes += cmd.parts[i].bytes;
    }
    if (cmd.loop_pin) out.released.push_back(cmd.loop_pin);
    if (cmd.pin) out.released.push_back(cmd.pin);
    Arrival a;
    a.kind = Arrival::Kind::Recvd;
    a.id = cmd.id;
    out.arrivals.push_back(std::move(a));
  }

  void collective(CollCmd&& cmd, Batch& out) override {
    Completion c;
    c.promise = cmd.promise;
    if (cmd.kind == CollKind::Split) {
      c.ok = false;
      c.message = "split needs MPI (a world of one rank splits in JS)";
    } else if (cmd.kind == CollKind::Job) {
      c = run_comm_job(cmd, nullptr);
    } else if (cmd.kind == CollKind::Bcast) {
      if (cmd.pin) out.released.push_back(cmd.pin);  // one rank: the root's buffer is everyone's
    } else {
      c.values = std::move(cmd.values);  // the sum over one rank is the value itself
    }
    out.completions.push_back(std::move(c));
  }

  bool progress(Batch&) override { return false; }

  [[noreturn]] void abort(int code) override {
    std::fflush(nullptr);
    std::_Exit(code);
  }

  void shutdown(Batch&) override {}

 private:
  Stats& stats_;
  std::uint64_t next_id_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_loopback_transport(Stats& stats) {
  return std::make_unique<LoopbackTransport>(stats);
}

}  // namespace ttg
