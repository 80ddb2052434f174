// Receive-pool buffers lent to JS as external ArrayBuffers, and their early return.
//
// A buffer normally comes back to the RecvPool when V8 collects its ArrayBuffer, which can be
// many messages later: meanwhile every arrival lands in a different, cache-cold buffer. When JS
// *transfers* an array (a consumed value moved to another rank), the addon detaches the
// ArrayBuffer, as postMessage's transfer list does, and the comm thread gives the memory back as
// soon as the send completes, so the next arrival reuses the warm buffer (what a C++ program that
// receives into the buffer it just sent from gets for free). Right after that detach, while the
// send is in flight, the buffer is wrapped again for that next arrival (prepare): creating an
// external ArrayBuffer costs ~2.5 us on a cache that a large receive has just flushed, and this
// moves it off the path from arrival to task. JS thread only.
#pragma once

#include <napi.h>

#include <unordered_map>

#include "messages.h"

namespace ttg {

class PoolLeases {
 public:
  static PoolLeases& instance() {
    static PoolLeases* p = new PoolLeases();  // leaked: finalizers may run during teardown
    return *p;
  }

  // Wraps `b` as an external ArrayBuffer that gives the memory back when collected (unless
  // transferred before that). Takes ownership of the buffer.
  Napi::Value lend(Napi::Env env, PoolBuf& b) {
    if (napi_value ab = take_prepared(env, b)) return Napi::Value(env, ab);
    auto* lease = new Lease{b.data, b.cap, false};
    napi_value ab;
    napi_status s = napi_create_external_arraybuffer(env, b.data, b.bytes, &PoolLeases::finalize, lease, &ab);
    if (s != napi_ok) {
      delete lease;
      NAPI_THROW_IF_FAILED(env, s, Napi::Value());
    }
    b.release();
    live_[lease->data] = lease;
    return Napi::Value(env, ab);
  }

  // If `view` lies in a lent buffer that `busy(data, cap)` says nothing else reads: takes the
  // buffer's ownership into `out` (the caller gives it back once nothing reads the memory any
  // more) and returns its ArrayBuffer, which the caller must detach() before JS runs again; else
  // returns nullptr.
  template <typename Busy>
  napi_value claim(Napi::Env env, Napi::Value view, PoolBuf& out, Busy busy) {
    napi_value ab;
    if (view.IsTypedArray()) {
      NAPI_THROW_IF_FAILED(env, napi_get_typedarray_info(env, view, nullptr, nullptr, nullptr, &ab, nullptr), nullptr);
    } else if (view.IsDataView()) {
      NAPI_THROW_IF_FAILED(env, napi_get_dataview_info(env, view, nullptr, nullptr, &ab, nullptr), nullptr);
    } else {
      return nullptr;
    }
    void* data = nullptr;
    std::size_t bytes = 0;
    NAPI_THROW_IF_FAILED(env, napi_get_arraybuffer_info(env, ab, &data, &bytes), nullptr);
    auto it = live_.find(data);
    if (it == live_.end()) return nullptr;
    Lease* lease = it->second;
    if (busy(lease->data, lease->cap)) return nullptr;
    lease->transferred = true;
    live_.erase(it);
    out.adopt(lease->data, lease->cap, bytes);
    return ab;
  }

  // Wraps `bytes` of claimed memory at `data` in a new ArrayBuffer that JS cannot see until the
  // arrival the comm thread receives there next is lent (if it has the same length). Until then
  // its lease owns nothing, so collecting it gives nothing back.
  void prepare(napi_env env, void* data, std::size_t bytes) {
    auto* lease = new Lease{data, 0, true};
    napi_value ab;
    napi_ref ref;
    if (napi_create_external_arraybuffer(env, data, bytes, &PoolLeases::finalize, lease, &ab) != napi_ok) {
      delete lease;
      return;  // an optimisation only: the arrival then gets a new ArrayBuffer
    }
    if (napi_create_reference(env, ab, 1, &ref) != napi_ok) return;  // collected later; owns nothing
    auto [it, fresh] = prepared_.try_emplace(data, Prepared{ref, lease, bytes});
    if (!fresh) {
      napi_delete_reference(env, it->second.ref);
      it->second = Prepared{ref, lease, bytes};
    }
  }

  // Lends served by a prepared ArrayBuffer (for tests and benchmarks).
  std::uint64_t prepared_lends() const { return prepared_lends_; }

  // Detaches a claimed ArrayBuffer, as postMessage's transfer list does. Node then posts the
  // external buffer's finalizer through uv_async_send (a syscall), which is why callers detach
  // after handing the send to the comm thread rather than before.
  static void detach(Napi::Env env, napi_value ab) { NAPI_THROW_IF_FAILED_VOID(env, napi_detach_arraybuffer(env, ab)); }

 private:
  struct Lease {
    void* data;
    std::size_t cap;
    bool transferred;  // the memory went back through a send, or was never lent: collecting owns nothing
  };

  struct Prepared {
    napi_ref ref;
    Lease* lease;
    std::size_t bytes;
  };

  // The ArrayBuffer prepared for `b`'s memory, now owning it, or nullptr.
  napi_value take_prepared(napi_env env, PoolBuf& b) {
    auto it = prepared_.find(b.data);
    if (it == prepared_.end()) return nullptr;
    const Prepared p = it->second;
    prepared_.erase(it);
    napi_value ab = nullptr;
    const bool ok = napi_get_reference_value(env, p.ref, &ab) == napi_ok && ab != nullptr;
    napi_delete_reference(env, p.ref);
    if (!ok || p.bytes != b.bytes) return nullptr;  // dropped; its lease still owns nothing
    p.lease->cap = b.cap;
    p.lease->transferred = false;
    live_[b.data] = p.lease;
    b.release();
    prepared_lends_++;
    return ab;
  }

  static void finalize(napi_env, void*, void* hint) {
    auto* lease = static_cast<Lease*>(hint);
    if (!lease->transferred) {
      instance().live_.erase(lease->data);
      RecvPool::get().give(lease->data, lease->cap);
    }
    delete lease;
  }

  std::unordered_map<void*, Lease*> live_;
  std::unordered_map<void*, Prepared> prepared_;
  std::uint64_t prepared_lends_ = 0;
};

}  // namespace ttg
