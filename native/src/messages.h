// Plain structs that cross between the JS thread and the comm thread. No napi and no MPI types
// here, so the comm thread and the transports stay testable and free of JS concerns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ttg {

// JS-owned memory. The comm thread never frees it: `pin` ids name the napi references that keep
// it alive, and only the JS thread may drop those, so finished pins are handed back in a Batch.
struct Span {
  void* data = nullptr;
  std::size_t bytes = 0;
};

struct SendCmd {
  int dest = 0;
  std::vector<std::uint8_t> header;
  std::vector<Span> parts;
  std::uint64_t pin = 0;  // 0: nothing pinned
};

// `src`/`tag` come from the Arrival that announced the message; `loop_*` only for loopback,
// where the "payload in flight" is the sender's own pinned memory.
struct RecvCmd {
  std::uint64_t id = 0;
  int src = 0;
  int tag = 0;
  std::vector<Span> parts;
  std::uint64_t pin = 0;
  std::vector<Span> loop_src;
  std::uint64_t loop_pin = 0;
};

enum class CollKind { Allreduce, Barrier, Pingpong };

struct CollCmd {
  CollKind kind = CollKind::Barrier;
  std::uint64_t promise = 0;
  std::vector<double> values;  // allreduce operand, summed in place
  int peer = 0;                // pingpong
  std::size_t bytes = 0;
  int iters = 0;
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
  std::string message;  // Kind::Error
};

struct Completion {
  std::uint64_t promise = 0;
  bool ok = true;
  std::vector<double> values;  // allreduce result, or {seconds} for pingpong
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
  void reset() { sent_msgs = recv_msgs = sent_bytes = recv_bytes = 0; }
};

}  // namespace ttg
