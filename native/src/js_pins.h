// Keeps JS views (and so their memory) alive while the comm thread reads or writes them, until it
// hands the pin id back.
#pragma once

#include <napi.h>

#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "messages.h"

namespace ttg {

class JsPins {
 public:
  // Pins `views`, whose memory is `spans` (one per view); 0 for no views.
  std::uint64_t pin(Napi::Array views, const std::vector<Span>& spans) {
    if (views.Length() == 0) return 0;
    Pin p;
    p.refs.reserve(views.Length());
    for (uint32_t i = 0; i < views.Length(); ++i) p.refs.push_back(Napi::Persistent(views.Get(i).As<Napi::Object>()));
    for (const Span& s : spans) {
      p.starts.push_back(static_cast<const char*>(s.data));
      starts_.insert(p.starts.back());
    }
    const std::uint64_t id = ++seq_;
    pins_.emplace(id, std::move(p));
    return id;
  }

  void release(std::uint64_t id) {
    auto it = pins_.find(id);
    if (it == pins_.end()) return;
    for (const char* s : it->second.starts) starts_.erase(starts_.find(s));
    pins_.erase(it);
  }

  void release(const std::vector<std::uint64_t>& ids) {
    for (std::uint64_t id : ids) release(id);
  }

  // Whether a live pin's memory starts in [data, data + bytes): a buffer another hand-off reads.
  bool covers(const void* data, std::size_t bytes) const {
    const char* lo = static_cast<const char*>(data);
    auto it = starts_.lower_bound(lo);
    return it != starts_.end() && *it < lo + bytes;
  }

  // During environment teardown: the references are abandoned, not deleted.
  void abandon() {
    for (auto& [id, p] : pins_) {
      for (auto& r : p.refs) r.SuppressDestruct();
    }
    pins_.clear();
    starts_.clear();
  }

  void clear() {
    pins_.clear();
    starts_.clear();
  }

 private:
  struct Pin {
    std::vector<Napi::ObjectReference> refs;
    std::vector<const char*> starts;
  };
  std::uint64_t seq_ = 0;
  std::unordered_map<std::uint64_t, Pin> pins_;
  std::multiset<const char*> starts_;  // where each pinned view's memory starts
};

}  // namespace ttg
