// Node-API glue: converts JS values to the plain structs of messages.h and back. Every
// decision (routing, termination, retries) lives in TypeScript; this file only marshals,
// pins JS memory while the comm thread uses it, and settles promises.
#include <napi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "settings.h"
#include "arrival_batch.h"
#include "build_info.h"
#include "comm_thread.h"
#include "device_addon.h"
#include "js_pins.h"
#include "js_views.h"
#include "js_waker.h"
#include "launch_env.h"
#include "own_keys.h"
#include "pool_leases.h"
#include "seams.h"

namespace ttg {
namespace {

// One per process, like MPI itself; deliberately leaked so no exit-time destructor races a
// still-running thread.
CommThread& comm() {
  static CommThread* c = new CommThread();
  return *c;
}
napi_env g_owner = nullptr;

// process.exit() skips env cleanup hooks; without this MPI would never be finalized and mpirun
// would report an improper exit. Runs on the exiting thread; touches no JS state.
void stop_at_exit() { comm().stop(); }

constexpr std::size_t kMaxCopyBytes = std::size_t{1} << 20;

struct PendingPromise {
  Napi::Promise::Deferred deferred;
  CollKind kind;
  Napi::Reference<Napi::Value> job;  // CollKind::Job: its External stays alive while it runs
};

class NativeAddon : public Napi::Addon<NativeAddon> {
 public:
  NativeAddon(Napi::Env env, Napi::Object exports) {
    DefineAddon(exports, {
                             InstanceMethod("info", &NativeAddon::Info),
                             InstanceMethod("start", &NativeAddon::Start),
                             InstanceMethod("send", &NativeAddon::Send),
                             InstanceMethod("recv", &NativeAddon::Recv),
                             InstanceMethod("allreduce", &NativeAddon::Allreduce),
                             InstanceMethod("barrier", &NativeAddon::Barrier),
                             InstanceMethod("bcast", &NativeAddon::Bcast),
                             InstanceMethod("split", &NativeAddon::Split),
                             InstanceMethod("commJob", &NativeAddon::CommJob),
                             InstanceMethod("stats", &NativeAddon::StatsJs),
                             InstanceMethod("abort", &NativeAddon::Abort),
                             InstanceMethod("finalize", &NativeAddon::Finalize),
                             InstanceMethod("keepAlive", &NativeAddon::KeepAlive),
                             InstanceMethod("poll", &NativeAddon::Poll),
                         });
    define_device_exports(env, exports);
    define_seams_exports(env, exports);
    define_settings_exports(env, exports);
    define_own_keys_exports(env, exports);
  }

  // `polled`: the JS thread polled for this batch, and polls again after it (endpoint.ts);
  // otherwise it does when `fn` returns true, or, for a batch without arrivals (`fn` not called),
  // when it was about to before.
  void Deliver(Napi::Env env, Napi::Function fn, bool polled) {
    const bool was_polling = comm().js_away();
    bool polls_next = polled || was_polling;
    Batch b = comm().take();
    pins_.release(b.released);
    if (!tracked_.empty() && !b.released.empty()) ReportSent(env, b.released);
    // Arrivals first: a collective that completed in the same batch (e.g. a termination wave)
    // must see JS's counters already updated by these messages.
    if (!b.arrivals.empty() && started_ && !fn.IsEmpty()) {
      ArrivalBatch batch = batcher_.flatten(env, b.arrivals, pending_, delivering_);
      delivering_ = true;
      try {
        const Napi::Value again = fn.Call({batch.meta, batch.bytes, batch.extra, Napi::Number::New(env, static_cast<double>(batch.rows))});
        polls_next = polled || (again.IsBoolean() && again.As<Napi::Boolean>().Value());
      } catch (const Napi::Error& e) {
        napi_fatal_exception(env, e.Value());
      }
      delivering_ = false;
    }
    Settle(env, b.completions);
    comm().js_back(polls_next);
  }

 private:
  Napi::Value Info(const Napi::CallbackInfo& info) {
    const BuildInfo b = build_info();
    Napi::Object o = Napi::Object::New(info.Env());
    o["mpi"] = b.mpi;
    o["blas"] = b.blas;
    o["cuda"] = b.cuda;
    o["version"] = b.version;
    o["details"] = b.details;
    return o;
  }

  Napi::Value Start(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsFunction()) throw Napi::TypeError::New(env, "ttg_native.start(onArrivals): onArrivals must be a function");
    if (info.Length() > 1 && !info[1].IsUndefined() && !info[1].IsFunction()) {
      throw Napi::TypeError::New(env, "ttg_native.start(onArrivals, onSent): onSent must be a function");
    }
    if (started_ || comm().running()) {
      throw Napi::Error::New(env, g_owner == env ? "ttg_native.start: already started (call finalize first)"
                                                 : "ttg_native.start: the comm thread belongs to another thread's environment");
    }
    const bool launched = launched_by_mpirun();
    if (launched && !TTG_HAVE_MPI) {
      std::fprintf(stderr, "ttg_native: launched by mpirun but built without MPI; this process runs as rank 0 of 1\n");
    }
    waker_.start(env, info[0].As<Napi::Function>(), [this](Napi::Env e, Napi::Function fn) { Deliver(e, fn, false); }, "ttg-comm");
    waker_.ref(true);
    try {
      comm().start(launched && TTG_HAVE_MPI, [this] { waker_.wake(); });
    } catch (const std::exception& e) {
      waker_.close(true);
      throw Napi::Error::New(env, std::string("ttg_native.start: ") + e.what());
    }
    started_ = true;
    g_owner = env;
    sent_fn_ = info.Length() > 1 && info[1].IsFunction() ? Napi::Persistent(info[1].As<Napi::Function>()) : Napi::FunctionReference();
    static const bool at_exit_registered = std::atexit(stop_at_exit) == 0;
    (void)at_exit_registered;
    cleanup_ = env.AddCleanupHook(std::function<void()>([this] { Shutdown(nullptr); }));
    Napi::Object o = Napi::Object::New(env);
    o["rank"] = comm().rank();
    o["size"] = comm().size();
    o["mpi"] = comm().uses_mpi();
    return o;
  }

  Napi::Value Send(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireStarted(env, "send");
    const double d = info[0].ToNumber().DoubleValue();
    if (!(d >= 0 && d < comm().size() && std::floor(d) == d)) {
      throw Napi::RangeError::New(env, "ttg_native.send: dest " + info[0].ToString().Utf8Value() +
                                           " is not a rank in [0, " + std::to_string(comm().size()) + ")");
    }
    const Span h = view_span(info[1], "send: header");
    if (h.bytes > (1u << 30)) throw Napi::RangeError::New(env, "ttg_native.send: header larger than 1 GiB");
    if (!info[2].IsArray()) throw Napi::TypeError::New(env, "ttg_native.send: parts must be an array of ArrayBufferViews");
    Napi::Array parts = info[2].As<Napi::Array>();
    SendCmd cmd;
    cmd.dest = static_cast<int>(d);
    cmd.header.assign(static_cast<const std::uint8_t*>(h.data), static_cast<const std::uint8_t*>(h.data) + h.bytes);
    cmd.parts = Spans(parts, "send: parts");
    cmd.plain = info[3].ToBoolean().Value();
    if (info[5].ToBoolean().Value()) {
      // copy: JS may reuse the parts' memory as soon as this returns (small staged payloads).
      std::size_t total = 0;
      for (const Span& s : cmd.parts) total += s.bytes;
      if (total > kMaxCopyBytes) throw Napi::RangeError::New(env, "ttg_native.send: copy is for payloads of at most 1 MiB");
      cmd.copied = true;
      cmd.copy = OwnedBytes(total);
      std::uint8_t* q = cmd.copy.get();
      for (Span& s : cmd.parts) {
        if (s.bytes) std::memcpy(q, s.data, s.bytes);
        s.data = q;
        q += s.bytes;
      }
      if (!comm().send_now(cmd)) comm().enqueue(std::move(cmd));
      return env.Undefined();
    }
    // transfer: the sender gives up these arrays (a moved value); lent pool buffers among them
    // go with the send, are reused once sent, and are detached right after the hand-off (JS
    // cannot run in between), then prepared for their next arrival. Loopback reads the sender's
    // memory, so never there.
    // Memory that another live hand-off (an earlier send, a receive) still reads is never claimed:
    // it would be recycled into the next arrival while that one reads it.
    std::vector<std::pair<napi_value, Span>> claimed;
    if (info[4].ToBoolean().Value() && comm().uses_mpi()) {
      for (uint32_t i = 0; i < parts.Length(); ++i) {
        PoolBuf b;
        auto busy = [this](const void* data, std::size_t cap) { return pins_.covers(data, cap); };
        if (napi_value ab = PoolLeases::instance().claim(env, parts.Get(i), b, busy)) {
          claimed.emplace_back(ab, Span{b.data, b.bytes});
          cmd.recycle.push_back(std::move(b));
        }
      }
    }
    // When the send owns all its memory, nothing in JS needs pinning, and its completion need not
    // wake the JS thread at all (one wake-up less per hop of a moved array).
    std::uint64_t pin = 0;
    if (cmd.recycle.size() < parts.Length()) {
      pin = cmd.pin = pins_.pin(parts, cmd.parts);
      if (info[6].ToBoolean().Value()) tracked_.insert(pin);
    }
    if (!comm().send_now(cmd)) comm().enqueue(std::move(cmd));
    for (auto& [ab, mem] : claimed) {
      PoolLeases::detach(env, ab);
      PoolLeases::instance().prepare(env, mem.data, mem.bytes);
    }
    return Napi::Number::New(env, static_cast<double>(pin));
  }

  // Tells JS which of the sends it asked about (send's `track`) no longer read their memory.
  void ReportSent(Napi::Env env, const std::vector<std::uint64_t>& released) {
    std::vector<double> done;
    for (std::uint64_t id : released) {
      if (tracked_.erase(id) != 0) done.push_back(static_cast<double>(id));
    }
    if (done.empty() || sent_fn_.IsEmpty()) return;
    Napi::Float64Array ids = Napi::Float64Array::New(env, done.size());
    std::copy(done.begin(), done.end(), ids.Data());
    try {
      sent_fn_.Call({ids});
    } catch (const Napi::Error& e) {
      napi_fatal_exception(env, e.Value());
    }
  }

  Napi::Value Recv(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireStarted(env, "recv");
    const auto id = static_cast<std::uint64_t>(info[0].ToNumber().DoubleValue());
    auto it = pending_.find(id);
    if (it == pending_.end()) {
      throw Napi::Error::New(env, "ttg_native.recv: no message " + std::to_string(id) +
                                      " awaits a receive (already received, or it had no payload parts)");
    }
    if (!info[1].IsArray()) throw Napi::TypeError::New(env, "ttg_native.recv: views must be an array of ArrayBufferViews");
    Napi::Array views = info[1].As<Napi::Array>();
    RecvCmd cmd;
    cmd.parts = Spans(views, "recv: parts");
    const PendingMsg& m = it->second;
    if (cmd.parts.size() != m.sizes.size()) {
      throw Napi::RangeError::New(env, "ttg_native.recv: message " + std::to_string(id) + " has " +
                                           std::to_string(m.sizes.size()) + " parts, got " +
                                           std::to_string(cmd.parts.size()) + " views");
    }
    for (std::size_t i = 0; i < m.sizes.size(); ++i) {
      if (cmd.parts[i].bytes != m.sizes[i]) {
        throw Napi::RangeError::New(env, "ttg_native.recv: views[" + std::to_string(i) + "] has " +
                                             std::to_string(cmd.parts[i].bytes) + " bytes, the part has " +
                                             std::to_string(m.sizes[i]));
      }
    }
    // inline: the payload is already in this process (loopback): copy it now and report
    // completion by returning true, with no 'recvd' event.
    if (info[2].ToBoolean().Value() && !m.loop_src.empty()) {
      std::uint64_t bytes = 0;
      for (std::size_t i = 0; i < cmd.parts.size(); ++i) {
        const std::size_t n = cmd.parts[i].bytes;
        if (n) std::memcpy(cmd.parts[i].data, m.loop_src[i].data, n);
        bytes += n;
      }
      comm().stats.recv_bytes += bytes;
      if (m.loop_pin) {
        pins_.release(m.loop_pin);
        if (tracked_.count(m.loop_pin) != 0) ReportSent(env, {m.loop_pin});
      }
      pending_.erase(it);
      return Napi::Boolean::New(env, true);
    }
    cmd.id = id;
    cmd.src = m.src;
    cmd.tag = m.tag;
    cmd.loop_src = m.loop_src;
    cmd.loop_pin = m.loop_pin;
    cmd.pin = pins_.pin(views, cmd.parts);
    pending_.erase(it);
    comm().enqueue(std::move(cmd));
    return Napi::Boolean::New(env, false);
  }

  Napi::Value Allreduce(const Napi::CallbackInfo& info) {
    CollCmd cmd;
    cmd.kind = CollKind::Allreduce;
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array) {
      return Rejected(info.Env(), Napi::TypeError::New(info.Env(), "ttg_native.allreduce: values must be a Float64Array"));
    }
    Napi::Float64Array v = info[0].As<Napi::Float64Array>();
    if (v.ElementLength() > static_cast<std::size_t>(INT_MAX)) {
      return Rejected(info.Env(), Napi::RangeError::New(info.Env(), "ttg_native.allreduce: " + std::to_string(v.ElementLength()) +
                                                                         " values; at most 2^31 - 1 in one call"));
    }
    cmd.values.assign(v.Data(), v.Data() + v.ElementLength());
    if (info.Length() > 1 && info[1].IsNumber()) {
      const double us = info[1].As<Napi::Number>().DoubleValue();
      cmd.delay_us = us > 0 ? static_cast<std::uint32_t>(std::min(us, 1e7)) : 0;
    }
    if (info.Length() > 2 && info[2].IsNumber()) cmd.comm = info[2].As<Napi::Number>().Int32Value();
    if (info.Length() > 3 && info[3].IsNumber()) {
      const int op = info[3].As<Napi::Number>().Int32Value();
      if (op < 0 || op > 3) return Rejected(info.Env(), Napi::RangeError::New(info.Env(), "ttg_native.allreduce: op must be 0 (sum), 1 (min), 2 (max) or 3 (prod)"));
      cmd.op = static_cast<ReduceOp>(op);
    }
    if (info.Length() > 4 && info[4].IsNumber()) {
      const double us = info[4].As<Napi::Number>().DoubleValue();
      cmd.quiet_us = us > 0 ? static_cast<std::uint32_t>(std::min(us, 1e7)) : 0;
    }
    return Collective(info.Env(), std::move(cmd), "allreduce");
  }

  Napi::Value Barrier(const Napi::CallbackInfo& info) {
    CollCmd cmd;
    cmd.kind = CollKind::Barrier;
    if (info.Length() > 0 && info[0].IsNumber()) cmd.comm = info[0].As<Napi::Number>().Int32Value();
    return Collective(info.Env(), std::move(cmd), "barrier");
  }

  // bcast(view, root, comm): every rank's `view` (of the same byte length) receives root's bytes.
  Napi::Value Bcast(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    CollCmd cmd;
    cmd.kind = CollKind::Bcast;
    cmd.buf = view_span(info[0], "bcast: view");
    cmd.root = info[1].ToNumber().Int32Value();
    if (info.Length() > 2 && info[2].IsNumber()) cmd.comm = info[2].As<Napi::Number>().Int32Value();
    if (!started_) return Collective(env, std::move(cmd), "bcast");
    Napi::Array views = Napi::Array::New(env, 1);
    views[0u] = info[0];
    cmd.pin = pins_.pin(views, {cmd.buf});
    return Collective(env, std::move(cmd), "bcast");
  }

  // split(comm, color, key): MPI_Comm_split of communicator `comm`; resolves [comm, rank, size]
  // of the new one ([-1, -1, 0] for a negative color).
  Napi::Value Split(const Napi::CallbackInfo& info) {
    CollCmd cmd;
    cmd.kind = CollKind::Split;
    cmd.comm = info[0].ToNumber().Int32Value();
    cmd.color = info[1].ToNumber().Int32Value();
    cmd.key = info[2].ToNumber().Int32Value();
    return Collective(info.Env(), std::move(cmd), "split");
  }

  // commJob(job, comm): runs another addon's TtgCommJob on the comm thread with communicator
  // `comm` (as allreduce numbers them); resolves the job's results.
  Napi::Value CommJob(const Napi::CallbackInfo& info) {
    CollCmd cmd;
    cmd.kind = CollKind::Job;
    cmd.job = comm_job_of(info[0], "commJob");
    if (info.Length() > 1 && info[1].IsNumber()) cmd.comm = info[1].As<Napi::Number>().Int32Value();
    return Collective(info.Env(), std::move(cmd), "commJob", info[0]);
  }

  Napi::Value StatsJs(const Napi::CallbackInfo& info) {
    Napi::Object o = Napi::Object::New(info.Env());
    o["sent_msgs"] = static_cast<double>(comm().stats.sent_msgs.load());
    o["recv_msgs"] = static_cast<double>(comm().stats.recv_msgs.load());
    o["sent_bytes"] = static_cast<double>(comm().stats.sent_bytes.load());
    o["recv_bytes"] = static_cast<double>(comm().stats.recv_bytes.load());
    o["receiving"] = static_cast<double>(comm().stats.receiving.load());
    o["pool_reused"] = static_cast<double>(RecvPool::get().reused());
    o["pool_allocated"] = static_cast<double>(RecvPool::get().allocated());
    o["pool_prepared"] = static_cast<double>(PoolLeases::instance().prepared_lends());
    return o;
  }

  Napi::Value Abort(const Napi::CallbackInfo& info) {
    comm().abort(info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : 1);
  }

  // The comm thread holds the event loop open (like a listening socket) so a rank waiting for
  // messages does not exit; JS turns that off when it expects nothing, e.g. after a fence.
  Napi::Value KeepAlive(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireStarted(env, "keepAlive");
    waker_.ref(info[0].ToBoolean().Value());
    return env.Undefined();
  }

  // poll(us, onArrivals): the JS thread waits up to `us` microseconds for the comm thread's next
  // batch and, if one comes, delivers it here as a wake-up would have.
  Napi::Value Poll(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireStarted(env, "poll");
    if (!info[1].IsFunction()) throw Napi::TypeError::New(env, "ttg_native.poll(us, onArrivals): onArrivals must be a function");
    const double us = info[0].ToNumber().DoubleValue();
    if (!comm().wait_output(us > 0 ? static_cast<unsigned>(std::min(us, 1e6)) : 0)) return Napi::Boolean::New(env, false);
    Deliver(env, info[1].As<Napi::Function>(), us > 0);
    return Napi::Boolean::New(env, true);
  }

  Napi::Value Finalize(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Shutdown(&env);
    return env.Undefined();
  }

  // env == nullptr: called from the env cleanup hook while Node tears down; JS is gone, so no
  // promise is settled and references are abandoned rather than deleted.
  void Shutdown(const Napi::Env* env) {
    if (!started_) return;
    started_ = false;
    comm().stop();
    Batch b = comm().take();
    if (env != nullptr) {
      pins_.release(b.released);
      Settle(*env, b.completions);
      for (auto& [id, p] : promises_) {
        p.deferred.Reject(Napi::Error::New(*env, "ttg_native: finalized before this operation completed").Value());
      }
      cleanup_.Remove(*env);
    } else {
      pins_.abandon();
      batcher_.abandon();
    }
    pins_.clear();
    tracked_.clear();
    if (env != nullptr) sent_fn_.Reset();
    else sent_fn_.SuppressDestruct();
    promises_.clear();
    pending_.clear();
    waker_.close(env != nullptr);
    g_owner = nullptr;
  }

  void RequireStarted(Napi::Env env, const char* what) {
    if (!started_) throw Napi::Error::New(env, std::string("ttg_native.") + what + ": call start() first (or after finalize())");
  }

  // `what` is e.g. "send: parts" (errors name the index).
  static std::vector<Span> Spans(Napi::Array views, const char* what) {
    std::vector<Span> spans(views.Length());
    for (uint32_t i = 0; i < views.Length(); ++i) spans[i] = view_span(views.Get(i), what, i);
    return spans;
  }

  Napi::Value Collective(Napi::Env env, CollCmd&& cmd, const char* what, Napi::Value job = Napi::Value()) {
    if (!started_) {
      return Rejected(env, Napi::Error::New(env, std::string("ttg_native.") + what + ": call start() first"));
    }
    cmd.promise = ++promise_seq_;
    auto d = Napi::Promise::Deferred::New(env);
    promises_.emplace(cmd.promise, PendingPromise{d, cmd.kind, job.IsEmpty() ? Napi::Reference<Napi::Value>() : Napi::Persistent(job)});
    if (!comm().collective_now(cmd)) comm().enqueue(std::move(cmd));
    return d.Promise();
  }

  static Napi::Value Rejected(Napi::Env env, const Napi::Error& e) {
    auto d = Napi::Promise::Deferred::New(env);
    d.Reject(e.Value());
    return d.Promise();
  }

  void Settle(Napi::Env env, std::vector<Completion>& done) {
    for (Completion& c : done) {
      auto it = promises_.find(c.promise);
      if (it == promises_.end()) continue;
      PendingPromise p = std::move(it->second);
      promises_.erase(it);
      if (!c.ok) {
        p.deferred.Reject(Napi::Error::New(env, "ttg_native: " + c.message).Value());
      } else if (p.kind == CollKind::Allreduce || p.kind == CollKind::Split || p.kind == CollKind::Job) {
        Napi::Float64Array r = Napi::Float64Array::New(env, c.values.size());
        std::copy(c.values.begin(), c.values.end(), r.Data());
        p.deferred.Resolve(r);
      } else {
        p.deferred.Resolve(env.Undefined());
      }
    }
  }

  bool started_ = false;
  bool delivering_ = false;
  ArrivalBatcher batcher_;
  JsWaker waker_;
  Napi::Env::CleanupHook<std::function<void()>> cleanup_;
  std::uint64_t promise_seq_ = 0;
  JsPins pins_;
  std::unordered_set<std::uint64_t> tracked_;  // pins of sends whose completion JS wants to hear of
  Napi::FunctionReference sent_fn_;             // start's onSent
  std::unordered_map<std::uint64_t, PendingPromise> promises_;
  PendingMsgs pending_;
};

}  // namespace
}  // namespace ttg

using ttg::NativeAddon;
NODE_API_ADDON(NativeAddon)
