// Collectives called with a delay (a fence's termination waves), kept in call order until they
// start. Every rank must start the collectives of one communicator in the same order, so a later
// one never overtakes a delayed one of its communicator; a blocking one (a split, a job) also waits
// for everything called before it, of any communicator, so that ranks enter those in call order.
// Used under the comm thread's MPI lock, by whichever thread holds it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "messages.h"
#include "transport.h"

namespace ttg {

class DeferredColls {
 public:
  using Clock = std::chrono::steady_clock;

  // Queues `colls` (in call order), each due `delay_us` after it was called (`queued`, else `now`).
  void add(std::vector<CollCmd>& colls, Clock::time_point now);
  // Starts, in order, those whose time has come: at their due time or, with a quiet time, once
  // this rank has had no traffic since `quiet_from` for that long (Clock::time_point::max(): no
  // early start). Without `blocking_too`, a split or job stays queued with everything of its
  // communicator behind it (`held`).
  struct Started {
    bool any = false;
    bool held = false;
  };
  Started start_ready(Transport& t, Batch& out, Clock::time_point now, Clock::time_point quiet_from, bool blocking_too);
  // When the first one may start (max(): none queued).
  Clock::time_point next_start(Clock::time_point quiet_from) const;
  // Whether the first one of some communicator is a split or a job.
  bool blocking_ahead() const;
  // Steady-clock ns when the first one is due, by its delay alone; readable without the lock.
  std::int64_t next_due_ns() const { return next_due_ns_.load(std::memory_order_relaxed); }
  bool empty() const { return queues_.empty(); }
  // Takes every queued one out (MPI is being finalized: they will not start).
  std::vector<CollCmd> drain();

 private:
  struct Deferred {
    Clock::time_point due;
    std::uint64_t seq;  // call order, over all communicators
    CollCmd cmd;
  };
  static bool blocking(const Deferred& d) { return d.cmd.kind == CollKind::Split || d.cmd.kind == CollKind::Job; }
  static Clock::time_point start_of(const Deferred& d, Clock::time_point quiet_from);
  std::uint64_t first_seq() const;
  bool waits_its_turn(const Deferred& d) const { return blocking(d) && d.seq != first_seq(); }
  void note_next_due();

  std::map<int, std::deque<Deferred>> queues_;  // by communicator
  std::uint64_t seq_ = 0;
  std::atomic<std::int64_t> next_due_ns_{INT64_MAX};
};

}  // namespace ttg
