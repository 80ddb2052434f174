// Keeps JS views (and so their memory) alive while the comm thread reads or writes them, until it
// hands the pin id back.
#pragma once

#include <napi.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ttg {

class JsPins {
 public:
  // 0 for no views.
  std::uint64_t pin(Napi::Array views) {
    if (views.Length() == 0) return 0;
    std::vector<Napi::ObjectReference> refs;
    refs.reserve(views.Length());
    for (uint32_t i = 0; i < views.Length(); ++i) refs.push_back(Napi::Persistent(views.Get(i).As<Napi::Object>()));
    const std::uint64_t id = ++seq_;
    pins_.emplace(id, std::move(refs));
    return id;
  }

  void release(std::uint64_t id) { pins_.erase(id); }

  void release(const std::vector<std::uint64_t>& ids) {
    for (std::uint64_t id : ids) pins_.erase(id);
  }

  // During environment teardown: the references are abandoned, not deleted.
  void abandon() {
    for (auto& [id, refs] : pins_) {
      for (auto& r : refs) r.SuppressDestruct();
    }
    pins_.clear();
  }

  void clear() { pins_.clear(); }

 private:
  std::uint64_t seq_ = 0;
  std::unordered_map<std::uint64_t, std::vector<Napi::ObjectReference>> pins_;
};

}  // namespace ttg
