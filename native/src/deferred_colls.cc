#include "deferred_colls.h"

#include <algorithm>
#include <exception>
#include <utility>

namespace ttg {

void DeferredColls::add(std::vector<CollCmd>& colls, Clock::time_point now) {
  for (CollCmd& c : colls) {
    const int comm = c.comm;
    const auto from = c.queued == Clock::time_point{} ? now : c.queued;
    const auto due = from + std::chrono::microseconds(c.delay_us);
    queues_[comm].push_back(Deferred{due, ++seq_, std::move(c)});
  }
  colls.clear();
  note_next_due();
}

DeferredColls::Started DeferredColls::start_ready(Transport& t, Batch& out, Clock::time_point now, Clock::time_point quiet_from,
                                                  bool blocking_too) {
  Started s;
  for (auto it = queues_.begin(); it != queues_.end();) {
    auto& q = it->second;
    while (!q.empty() && start_of(q.front(), quiet_from) <= now && !waits_its_turn(q.front())) {
      if (!blocking_too && blocking(q.front())) {
        s.held = true;
        break;
      }
      s.any = true;
      CollCmd c = std::move(q.front().cmd);
      q.pop_front();
      const std::uint64_t promise = c.promise;
      try {
        t.collective(std::move(c), out);
      } catch (const std::exception& e) {
        out.completions.push_back(Completion{promise, false, {}, e.what()});
      }
    }
    it = q.empty() ? queues_.erase(it) : std::next(it);
  }
  note_next_due();
  return s;
}

DeferredColls::Clock::time_point DeferredColls::start_of(const Deferred& d, Clock::time_point quiet_from) {
  if (d.cmd.quiet_us == 0 || quiet_from == Clock::time_point::max()) return d.due;
  return std::min(d.due, quiet_from + std::chrono::microseconds(d.cmd.quiet_us));
}

DeferredColls::Clock::time_point DeferredColls::next_start(Clock::time_point quiet_from) const {
  // a blocking collective that waits for an earlier one starts when that one does, not before
  auto first = Clock::time_point::max();
  for (const auto& [comm, q] : queues_) {
    if (!q.empty() && !waits_its_turn(q.front())) first = std::min(first, start_of(q.front(), quiet_from));
  }
  return first;
}

bool DeferredColls::blocking_ahead() const {
  for (const auto& [comm, q] : queues_) {
    if (!q.empty() && blocking(q.front())) return true;
  }
  return false;
}

std::uint64_t DeferredColls::first_seq() const {
  std::uint64_t first = UINT64_MAX;
  for (const auto& [comm, q] : queues_) {
    if (!q.empty()) first = std::min(first, q.front().seq);
  }
  return first;
}

void DeferredColls::note_next_due() {
  std::int64_t first = INT64_MAX;
  for (const auto& [comm, q] : queues_) {
    if (q.empty()) continue;
    first = std::min<std::int64_t>(first, std::chrono::duration_cast<std::chrono::nanoseconds>(q.front().due.time_since_epoch()).count());
  }
  next_due_ns_.store(first, std::memory_order_relaxed);
}

std::vector<CollCmd> DeferredColls::drain() {
  std::vector<CollCmd> all;
  for (auto& [comm, q] : queues_) {
    for (Deferred& d : q) all.push_back(std::move(d.cmd));
  }
  queues_.clear();
  note_next_due();
  return all;
}

}  // namespace ttg
