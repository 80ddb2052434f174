#include "arrival_batch.h"

#include <algorithm>
#include <cstring>

#include "pool_leases.h"

namespace ttg {
namespace {

// An eager payload starts at an 8-byte boundary of the batch's bytes, so JS can copy each part
// with a typed-array view of the same type (no byte view of a small on-heap array, which would
// make V8 move it off the heap).
constexpr std::size_t align8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

// Layout of one arrival in the meta array handed to JS (mirrored by src/native/addon.ts):
// kind, src, id, header bytes, payload mode, number of parts, then each part's byte size.
constexpr std::size_t kArrivalFields = 6;
constexpr double kRecvNeeded = 0;    // JS calls recv(id, views) (or the message has no parts)
constexpr double kEagerPayload = 1;  // the payload follows the header in the batch's bytes
constexpr double kLentBuffers = 2;   // the payload is in pool buffers, extra[event] (or extra itself)

constexpr std::size_t kBatchKeepMax = 8u << 20;  // bytes: a flood's batch is not kept

// A batch's arrays are read by JS only during its onArrivals call, so one pair serves every
// batch: two ArrayBuffer allocations less per wake-up on the way into JS. A batch delivered
// while JS still reads the previous one (a nested call) gets arrays of its own.
template <typename T>
T BatchArray(Napi::Env env, Napi::Reference<T>& keep, std::size_t n, bool nested) {
  if (nested || n * sizeof(*T().Data()) > kBatchKeepMax) return T::New(env, n);
  T kept = keep.IsEmpty() ? T() : keep.Value();
  // An empty handle is no array at all (a first batch of errors alone has no bytes): make one.
  if (!kept.IsEmpty() && kept.ElementLength() >= n) return kept;
  const std::size_t had = kept.IsEmpty() ? 0 : kept.ElementLength();
  T a = T::New(env, std::max({n, 2 * had, std::size_t{1024}}));
  keep.Reset(a, 1);
  return a;
}

}  // namespace

ArrivalBatch ArrivalBatcher::flatten(Napi::Env env, std::vector<Arrival>& arrivals, PendingMsgs& pending, bool nested) {
  std::size_t nmeta = 0, nbytes = 0;
  std::size_t extras = 0;
  for (const Arrival& a : arrivals) {
    nmeta += kArrivalFields + a.sizes.size();
    if (a.kind == Arrival::Kind::Msg) {
      nbytes += a.header.size();
      if (a.is_eager) nbytes = align8(nbytes) + (a.eager.size - a.eager_off);
    }
    if (!a.pre.empty() || a.kind == Arrival::Kind::Error) extras++;
  }
  // One lent single-part payload alone in its batch (a large message's usual case) travels as
  // `extra` itself: no JS array to make and fill right after the copy has flushed the caches.
  const bool lone_buffer = extras == 1 && arrivals.size() == 1 && arrivals[0].pre.size() == 1;
  ArrivalBatch out{BatchArray(env, meta_keep_, nmeta, nested), BatchArray(env, bytes_keep_, nbytes, nested),
                   extras == 0 || lone_buffer ? env.Undefined() : Napi::Array::New(env, arrivals.size()), nmeta};
  double* m = out.meta.Data();
  std::uint8_t* const base = out.bytes.Data();
  std::uint8_t* p = base;
  for (std::size_t e = 0; e < arrivals.size(); ++e) {
    Arrival& a = arrivals[e];
    m[0] = static_cast<double>(a.kind);
    m[1] = a.src;
    m[2] = static_cast<double>(a.id);
    m[3] = static_cast<double>(a.header.size());
    m[4] = kRecvNeeded;
    m[5] = static_cast<double>(a.sizes.size());
    for (std::size_t i = 0; i < a.sizes.size(); ++i) m[kArrivalFields + i] = static_cast<double>(a.sizes[i]);
    double& mode = m[4];
    if (a.kind == Arrival::Kind::Msg) {
      if (!a.header.empty()) std::memcpy(p, a.header.data(), a.header.size());
      p += a.header.size();
      if (a.is_eager) {
        p = base + align8(static_cast<std::size_t>(p - base));
        const std::size_t n = a.eager.size - a.eager_off;
        if (n) std::memcpy(p, a.eager.get() + a.eager_off, n);
        p += n;
        mode = kEagerPayload;
      } else if (!a.pre.empty()) {
        // Already received into pool buffers: lend them to JS (back on GC or on transfer).
        if (lone_buffer) {
          out.extra = PoolLeases::instance().lend(env, a.pre[0]);
        } else {
          Napi::Array bufs = Napi::Array::New(env, a.pre.size());
          for (uint32_t i = 0; i < a.pre.size(); ++i) bufs[i] = PoolLeases::instance().lend(env, a.pre[i]);
          out.extra.As<Napi::Array>()[static_cast<uint32_t>(e)] = bufs;
        }
        mode = kLentBuffers;
      } else if (!a.sizes.empty()) {
        pending.emplace(a.id, PendingMsg{a.src, a.tag, std::move(a.sizes), std::move(a.loop_src), a.loop_pin});
      }
    } else if (a.kind == Arrival::Kind::Error) {
      out.extra.As<Napi::Array>()[static_cast<uint32_t>(e)] = Napi::String::New(env, a.message);
    }
    m += kArrivalFields + static_cast<std::size_t>(m[5]);
  }
  return out;
}

}  // namespace ttg
