// Device functions of the addon. One device runtime per process (like the comm thread): either
// the CPU kernel pool (host and emulated backends) or CUDA streams. Completions of ops carrying a
// notify id come back to JS in batches through a JsWaker; while any is pending the waker holds
// the event loop open, otherwise it does not (so idle programs exit).
#include "device_addon.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "bytes_hash.h"
#include "cuda_api.h"
#include "host_kernels.h"
#include "js_views.h"
#include "js_waker.h"
#include "kernel_pool.h"
#include "settings.h"
#include "user_kernels.h"

namespace ttg {
namespace {

// A device address is handle << kOffsetBits | offset: one number, exact in a double while handles
// stay below kMaxHandle (2^53 / 2^32).
constexpr int kOffsetBits = 32;
constexpr std::uint64_t kOffsetMask = (std::uint64_t{1} << kOffsetBits) - 1;
constexpr std::uint64_t kMaxHandle = std::uint64_t{1} << (53 - kOffsetBits);

struct Alloc {
  void* p;
  std::size_t bytes;
  int dev;
};

struct DeviceRuntime {
  enum class Mode { None, Pool, Cuda } mode = Mode::None;
  KernelPool pool;  // Cuda mode: no threads, only the completion batching
  JsWaker waker;
  std::uint64_t outstanding = 0;
  // Cuda mode: streams [0, cuda_streams) are CUDA streams, the next ones the pool's (a host place).
  std::uint32_t cuda_streams = 0;
  std::uint64_t next_handle = 0;
  std::unordered_map<std::uint64_t, Alloc> allocs;
  Napi::Env::CleanupHook<std::function<void()>> cleanup;
  // Why CUDA, a program's kernel on the pool or TTG_FAULT_DEVDONE failed a notify id, until its
  // batch is delivered (CUDA, poller and pool threads write).
  std::mutex failures_mu;
  std::unordered_map<std::uint64_t, std::string> failures;
  Napi::FunctionReference on_done;  // what devPoll delivers to
};

DeviceRuntime& R() {
  static DeviceRuntime* r = new DeviceRuntime();  // leaked on purpose: no exit-time destructor races
  return *r;
}

// Why the pool failed a notify id (a program's kernel set its error): reported with its batch.
void pool_failed(std::uint64_t id, const std::string& why) {
  DeviceRuntime& r = R();
  std::lock_guard<std::mutex> lk(r.failures_mu);
  r.failures.emplace(id, "ttg_native.devCall: " + why);
}

void cuda_done(std::uint64_t id, const char* error, void*) {
  DeviceRuntime& r = R();
  if (error != nullptr) {
    std::lock_guard<std::mutex> lk(r.failures_mu);
    r.failures.emplace(id, error);
  }
  r.pool.complete(id);
}

// Calls onDone(ids) with a batch of completions; onDone(ids, errors) when CUDA (or a program's
// kernel on the pool) failed some of them: errors[i] says why ids[i] failed (undefined for those that ran).
void deliver(Napi::Env env, Napi::Function fn) {
  DeviceRuntime& r = R();
  std::vector<std::uint64_t> ids = r.pool.take();
  if (ids.empty()) return;
  r.outstanding -= std::min<std::uint64_t>(r.outstanding, ids.size());
  if (r.outstanding == 0) r.waker.ref(false);
  Napi::Float64Array arr = Napi::Float64Array::New(env, ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) arr[i] = static_cast<double>(ids[i]);
  std::unordered_map<std::uint64_t, std::string> failed;
  {
    std::lock_guard<std::mutex> lk(r.failures_mu);
    if (!r.failures.empty()) {
      for (std::uint64_t id : ids) {
        auto it = r.failures.find(id);
        if (it == r.failures.end()) continue;
        failed.emplace(id, std::move(it->second));
        r.failures.erase(it);
      }
    }
  }
  if (failed.empty()) {
    fn.Call({arr});
    return;
  }
  Napi::Array errors = Napi::Array::New(env, ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto it = failed.find(ids[i]);
    errors[static_cast<uint32_t>(i)] = it == failed.end() ? env.Undefined() : Napi::String::New(env, it->second);
  }
  fn.Call({arr, errors});
}

void free_alloc(DeviceRuntime& r, const Alloc& a) {
  if (r.mode == DeviceRuntime::Mode::Cuda) ttg_cuda_free(a.dev, a.p);
  else std::free(a.p);
}

// Stops threads/streams and frees device memory. env == nullptr: from the env cleanup hook.
void stop(const Napi::Env* env) {
  DeviceRuntime& r = R();
  if (r.mode == DeviceRuntime::Mode::None) return;
  r.pool.stop();
  if (r.mode == DeviceRuntime::Mode::Cuda) ttg_cuda_stop();
  for (auto& kv : r.allocs) free_alloc(r, kv.second);
  r.allocs.clear();
  r.pool.take();
  {
    std::lock_guard<std::mutex> lk(r.failures_mu);
    r.failures.clear();
  }
  r.waker.close(env != nullptr);
  if (env != nullptr) {
    r.cleanup.Remove(*env);
    r.on_done.Reset();
  } else {
    r.on_done.SuppressDestruct();
  }
  r.outstanding = 0;
  r.cuda_streams = 0;
  r.mode = DeviceRuntime::Mode::None;
}

void require_started(Napi::Env env, const char* what) {
  if (R().mode == DeviceRuntime::Mode::None) {
    throw Napi::Error::New(env, std::string("ttg_native.") + what + ": call devStart() first");
  }
}

// A device address: an allocation's handle·2^32 plus an offset into it, so that JS may carve an
// allocation into blocks. `what` names the argument in errors, e.g. "devOp: p0".
void* device_address(Napi::Env env, std::uint64_t a, const char* what) {
  const std::uint64_t off = a & kOffsetMask;
  auto it = R().allocs.find(a >> kOffsetBits);
  if (it == R().allocs.end() || (off != 0 && off >= it->second.bytes)) {
    throw Napi::Error::New(env, std::string("ttg_native.") + what + ": no allocation at " + std::to_string(a));
  }
  return static_cast<char*>(it->second.p) + off;
}

// A memory operand: a device address (number), host memory (a TypedArray), or none (null). One
// typeof per operand: this runs for every operand of every op.
void* operand(Napi::Value v, const char* what) {
  napi_valuetype t;
  NAPI_THROW_IF_FAILED(v.Env(), napi_typeof(v.Env(), v, &t), nullptr);
  if (t == napi_null || t == napi_undefined) return nullptr;
  if (t == napi_number) return device_address(v.Env(), static_cast<std::uint64_t>(v.As<Napi::Number>().DoubleValue()), what);
  return view_span(v, what).data;
}

// Counts `op` as made (TTG_FAULT_DEVOP / TTG_FAULT_DEVDONE count every op, batched or not),
// enqueues it on CUDA, or checks its pool stream and numbers it as the pool does; counts its
// completion report. True when it is for the pool: the caller then enqueues it there.
bool prepare(Napi::Env env, DeviceRuntime& r, TtgOp& op, const char* what) {
  Settings& s = settings();
  if (s.fault_devop != 0 && ++s.devops_made == s.fault_devop) {
    throw Napi::Error::New(env, std::string("ttg_native.") + what + " failed (injected by TTG_FAULT_DEVOP)");
  }
  if (s.fault_devdone != 0 && op.notify != 0 && ++s.devdones_made == s.fault_devdone) {
    std::lock_guard<std::mutex> lk(r.failures_mu);
    r.failures.emplace(op.notify, std::string("ttg_native.") + what + ": the op failed on its stream (injected by TTG_FAULT_DEVDONE)");
  }
  bool pool = true;
  if (r.mode == DeviceRuntime::Mode::Cuda && op.stream < r.cuda_streams) {
    char err[512] = {0};
    if (ttg_cuda_enqueue(&op, err, sizeof err) != 0) throw Napi::Error::New(env, std::string("ttg_native.") + what + "(cuda): " + err);
    pool = false;
  } else {
    op.stream -= r.cuda_streams;  // the pool numbers its own streams from 0
    if (static_cast<int>(op.stream) >= r.pool.streams()) throw Napi::RangeError::New(env, std::string("ttg_native.") + what + ": no such stream");
  }
  // Count before the op can complete is not needed: completions are only processed on this thread.
  if (op.notify != 0 && r.outstanding++ == 0) r.waker.ref(true);
  return pool;
}

// Enqueues `op` on the pool or on CUDA and counts its completion report. True when the pool took
// it (its worker then frees a user call after running it).
bool submit(Napi::Env env, DeviceRuntime& r, TtgOp& op, const char* what) {
  TtgOp local = op;
  const bool pool = prepare(env, r, local, what);
  if (pool) r.pool.enqueue(local);
  return pool;
}

// The functions devLoadKernel found, by id (never shrinks: ops may still name them).
std::vector<TtgKernelFn>& user_fns() {
  static std::vector<TtgKernelFn>* fns = new std::vector<TtgKernelFn>();  // leaked like R()
  return *fns;
}

Napi::Value DevInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  char err[256] = {0};
  const int count = ttg_cuda_device_count(err, sizeof err);
  o["blas"] = TTG_HAVE_BLAS != 0;
  o["blas_threads"] = host_blas_single_threaded();
  o["kernels"] = host_kernels_description();
  o["cuda_compiled"] = ttg_cuda_compiled() != 0;
  o["cuda_devices"] = count;
  o["cuda_error"] = std::string(err);
  o["cuda_kernels"] = std::string(ttg_cuda_kernels());
  o["allocations"] = static_cast<double>(R().allocs.size());
  return o;
}

Napi::Value DevStart(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceRuntime& r = R();
  if (r.mode != DeviceRuntime::Mode::None) throw Napi::Error::New(env, "ttg_native.devStart: already started (call devStop first)");
  const std::string kind = info[0].ToString().Utf8Value();
  const int streams = info[1].ToNumber().Int32Value();
  const int devices = info[2].ToNumber().Int32Value();
  if (!info[3].IsFunction()) throw Napi::TypeError::New(env, "ttg_native.devStart: onDone must be a function");
  if (streams < 1 || devices < 1 || (kind == "cuda" && streams % devices != 0)) {
    throw Napi::RangeError::New(env, "ttg_native.devStart: needs streams >= 1 and devices >= 1 (for cuda, streams a multiple of devices)");
  }
  r.waker.start(env, info[3].As<Napi::Function>(), deliver, "ttg-device");
  r.on_done = Napi::Persistent(info[3].As<Napi::Function>());
  auto wake = [] { R().waker.wake(); };
  if (kind == "cuda") {
    char err[512] = {0};
    // host: pool threads of a host place beside the CUDA devices (their streams follow the CUDA ones)
    const int host = info.Length() > 5 && info[5].IsNumber() ? std::max(0, info[5].As<Napi::Number>().Int32Value()) : 0;
    r.pool.start(host, wake, {}, pool_failed);
    r.cuda_streams = static_cast<std::uint32_t>(streams);
    const bool first = ttg_cuda_kernels()[0] == '\0';
    if (ttg_cuda_start(devices, streams / devices, cuda_done, nullptr, settings().cuda_libs.c_str(), err, sizeof err) != 0) {
      r.mode = DeviceRuntime::Mode::Cuda;
      stop(nullptr);
      throw Napi::Error::New(env, std::string("ttg_native.devStart(cuda): ") + err);
    }
    r.mode = DeviceRuntime::Mode::Cuda;
    // Once per process, like the build warnings: which library a run's speed comes from.
    if (first) std::fprintf(stderr, "ttg: cuda kernels: %s\n", ttg_cuda_kernels());
  } else {
    // slowdown: one factor per stream (emulated devices made slower), optional
    std::vector<double> slow;
    if (info.Length() > 4 && info[4].IsTypedArray()) {
      Napi::Float64Array f = info[4].As<Napi::Float64Array>();
      slow.assign(f.Data(), f.Data() + f.ElementLength());
    }
    r.pool.start(streams, wake, slow, pool_failed);
    r.mode = DeviceRuntime::Mode::Pool;
  }
  r.cleanup = env.AddCleanupHook(std::function<void()>([] { stop(nullptr); }));
  return env.Undefined();
}

// devPoll(us): waits up to `us` microseconds for completions and delivers them to onDone here,
// with no wake-up of the event loop; false when none came.
Napi::Value DevPoll(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceRuntime& r = R();
  if (r.mode == DeviceRuntime::Mode::None || r.on_done.IsEmpty()) return Napi::Boolean::New(env, false);
  const double us = info[0].ToNumber().DoubleValue();
  if (!r.pool.wait_done(us > 0 ? static_cast<unsigned>(std::min(us, 1e6)) : 0)) return Napi::Boolean::New(env, false);
  deliver(env, r.on_done.Value());
  return Napi::Boolean::New(env, true);
}

Napi::Value DevStop(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  stop(&env);
  return env.Undefined();
}

Napi::Value DevAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require_started(env, "devAlloc");
  DeviceRuntime& r = R();
  const int dev = info[0].ToNumber().Int32Value();
  const auto bytes = static_cast<std::size_t>(info[1].ToNumber().DoubleValue());
  void* p = nullptr;
  if (r.mode == DeviceRuntime::Mode::Cuda) {
    p = ttg_cuda_malloc(dev, bytes);
  } else {
    // 64-byte aligned like device allocations, so BLAS sees the same alignment it would on a GPU.
    p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  }
  if (p == nullptr) return env.Null();
  // Handles wrap after 2^21 allocations (skipping live ones): the pool makes few, so a reused
  // handle would take a stale address of a program that ran millions of them.
  do {
    if (++r.next_handle >= kMaxHandle) r.next_handle = 1;
  } while (r.allocs.count(r.next_handle) != 0);
  const std::uint64_t h = r.next_handle;
  r.allocs.emplace(h, Alloc{p, bytes, dev});
  return Napi::Number::New(env, static_cast<double>(h << kOffsetBits));
}

Napi::Value DevFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceRuntime& r = R();
  const auto a = static_cast<std::uint64_t>(info[0].ToNumber().DoubleValue());
  auto it = (a & kOffsetMask) == 0 ? r.allocs.find(a >> kOffsetBits) : r.allocs.end();  // a block inside is not freed alone
  if (it != r.allocs.end()) {
    free_alloc(r, it->second);
    r.allocs.erase(it);
  }
  return env.Undefined();
}

// devOp(stream, kind, flags, m, n, k, alpha, beta, p0, lda, p1, ldb, p2, ldc, p3, bytes, notify)
Napi::Value DevOp(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require_started(env, "devOp");
  DeviceRuntime& r = R();
  // Called for every kernel, copy and marker: numbers are read as numbers (a non-number throws)
  // rather than coerced, and the flags straight into the op, which halves the Node-API calls.
  auto num = [&](std::size_t i) { return info[i].As<Napi::Number>(); };
  TtgOp op{};
  op.stream = num(0).Uint32Value();
  op.kind = num(1).Int32Value();
  // a program's kernel comes only through devCall, which builds its call: any other operand would be run as one
  if (op.kind < 0 || op.kind >= TTG_OP_KINDS || op.kind == TTG_OP_USER) throw Napi::RangeError::New(env, "ttg_native.devOp: bad op kind");
  if (info[2].IsString()) {
    char flags[sizeof op.f + 1] = {0};
    NAPI_THROW_IF_FAILED(env, napi_get_value_string_utf8(env, info[2], flags, sizeof flags, nullptr), Napi::Value());
    std::memcpy(op.f, flags, sizeof op.f);
  }
  op.m = num(3).Int32Value();
  op.n = num(4).Int32Value();
  op.k = num(5).Int32Value();
  op.alpha = num(6).DoubleValue();
  op.beta = num(7).DoubleValue();
  op.p[0] = operand(info[8], "devOp: p0");
  op.lda = num(9).Int32Value();
  op.p[1] = operand(info[10], "devOp: p1");
  op.ldb = num(11).Int32Value();
  op.p[2] = operand(info[12], "devOp: p2");
  op.ldc = num(13).Int32Value();
  op.p[3] = operand(info[14], "devOp: p3");
  op.bytes = static_cast<std::size_t>(num(15).DoubleValue());
  op.notify = static_cast<std::uint64_t>(num(16).DoubleValue());
  submit(env, r, op, "devOp");
  return env.Undefined();
}

// Numbers per op in devOps' pack (src/device/streams.ts writes them: OP_SLOTS).
constexpr std::size_t kOpSlots = 17;
// Pool ops of one stream handed over together (one lock, at most one wake-up of its worker).
constexpr std::size_t kRun = 16;

// An operand slot of devOps' pack: 0 none, > 0 a device address, < 0 host view -v - 1 of `views`.
void* pack_operand(Napi::Env env, napi_value views, double v) {
  if (v == 0) return nullptr;
  if (v > 0) return device_address(env, static_cast<std::uint64_t>(v), "devOps: operand");
  napi_value e;
  NAPI_THROW_IF_FAILED(env, napi_get_element(env, views, static_cast<std::uint32_t>(-v - 1), &e), nullptr);
  return view_span(Napi::Value(env, e), "devOps: view").data;
}

// devOps(pack, views, from, to): enqueues ops [from, to) of `pack`, a Float64Array of kOpSlots
// numbers per op (stream, kind, flags as char codes, m, n, k, alpha, beta, lda, ldb, ldc, bytes,
// notify, p0..p3), in order: one call for the ops a task makes between two points where JS must
// know they are queued. An op refused throws an Error whose `index` is that op's: every op before
// it is enqueued, none after it (JS decides what the refusal fails and goes on from index + 1).
Napi::Value DevOps(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require_started(env, "devOps");
  DeviceRuntime& r = R();
  Napi::Float64Array pack = info[0].As<Napi::Float64Array>();
  napi_value views = info[1];
  const std::uint32_t from = info[2].As<Napi::Number>().Uint32Value();
  const std::uint32_t to = info[3].As<Napi::Number>().Uint32Value();
  if (to > pack.ElementLength() / kOpSlots) throw Napi::RangeError::New(env, "ttg_native.devOps: past the end of the pack");
  const double* a = pack.Data();
  TtgOp run[kRun];
  std::size_t queued = 0;
  auto hand_over = [&] {
    if (queued != 0) r.pool.enqueue(run, queued);
    queued = 0;
  };
  for (std::uint32_t i = from; i < to; ++i) {
    const double* o = a + static_cast<std::size_t>(i) * kOpSlots;
    try {
      TtgOp op{};
      op.stream = static_cast<std::uint32_t>(o[0]);
      op.kind = static_cast<std::int32_t>(o[1]);
      // a program's kernel only through devCall: its p[0] is the call the addon made
      if (op.kind < 0 || op.kind >= TTG_OP_KINDS || op.kind == TTG_OP_USER) throw Napi::RangeError::New(env, "ttg_native.devOps: bad op kind");
      const auto f = static_cast<std::uint32_t>(o[2]);
      for (int c = 0; c < 4; ++c) op.f[c] = static_cast<char>((f >> (8 * c)) & 0xff);
      op.m = static_cast<std::int32_t>(o[3]);
      op.n = static_cast<std::int32_t>(o[4]);
      op.k = static_cast<std::int32_t>(o[5]);
      op.alpha = o[6];
      op.beta = o[7];
      op.lda = static_cast<std::int32_t>(o[8]);
      op.ldb = static_cast<std::int32_t>(o[9]);
      op.ldc = static_cast<std::int32_t>(o[10]);
      op.bytes = static_cast<std::size_t>(o[11]);
      op.notify = static_cast<std::uint64_t>(o[12]);
      for (int p = 0; p < 4; ++p) op.p[p] = pack_operand(env, views, o[13 + p]);
      if (prepare(env, r, op, "devOps")) {
        if (queued == kRun || (queued != 0 && run[0].stream != op.stream)) hand_over();
        run[queued++] = op;
      }
    } catch (Napi::Error& e) {
      hand_over();
      e.Set("index", Napi::Number::New(env, i));
      throw;
    }
  }
  hand_over();
  return env.Undefined();
}

// devLoadKernel(path, symbol): the id of a program's kernel function (native/include/ttg_kernel.h).
Napi::Value DevLoadKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    user_fns().push_back(load_user_kernel(info[0].ToString().Utf8Value(), info[1].ToString().Utf8Value()));
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, std::string("ttg_native.devLoadKernel: ") + e.what());
  }
  return Napi::Number::New(env, static_cast<double>(user_fns().size() - 1));
}

// devCall(stream, kernel, buffers, lengths, scalars, notify): enqueues one call of a kernel from
// devLoadKernel; buffers are handles or host views, lengths their element counts.
Napi::Value DevCall(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  require_started(env, "devCall");
  DeviceRuntime& r = R();
  const auto id = static_cast<std::size_t>(info[1].As<Napi::Number>().Uint32Value());
  if (id >= user_fns().size()) throw Napi::RangeError::New(env, "ttg_native.devCall: no such kernel");
  auto u = std::make_unique<UserCall>(UserCall{user_fns()[id], {}, {}, {}});
  Napi::Array bufs = info[2].As<Napi::Array>();
  Napi::Float64Array lengths = info[3].As<Napi::Float64Array>();
  Napi::Float64Array scalars = info[4].As<Napi::Float64Array>();
  if (lengths.ElementLength() != bufs.Length()) throw Napi::RangeError::New(env, "ttg_native.devCall: one length per buffer");
  for (uint32_t i = 0; i < bufs.Length(); ++i) {
    u->buffers.push_back(operand(bufs.Get(i), "devCall: buffer"));
    u->lengths.push_back(static_cast<std::size_t>(lengths[i]));
  }
  u->scalars.assign(scalars.Data(), scalars.Data() + scalars.ElementLength());
  TtgOp op{};
  op.kind = TTG_OP_USER;
  op.stream = info[0].As<Napi::Number>().Uint32Value();
  op.p[0] = u.get();
  op.notify = static_cast<std::uint64_t>(info[5].As<Napi::Number>().DoubleValue());
  // The pool's worker frees the call after running it; CUDA ran it while enqueueing.
  if (submit(env, r, op, "devCall")) u.release();
  return env.Undefined();
}

// devCallHere(kernel, views, scalars): runs a kernel from devLoadKernel on this (the JS) thread
// and returns when it has; the views are host memory no stream uses (the caller checked), read
// and written in place. Returns the kernel's error (0: none).
Napi::Value DevCallHere(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto id = static_cast<std::size_t>(info[0].As<Napi::Number>().Uint32Value());
  if (id >= user_fns().size()) throw Napi::RangeError::New(env, "ttg_native.devCallHere: no such kernel");
  Napi::Array views = info[1].As<Napi::Array>();
  Napi::Float64Array scalars = info[2].As<Napi::Float64Array>();
  constexpr uint32_t kInline = 8;  // most kernels take few operands: no heap allocation for them
  void* ptr_small[kInline];
  std::size_t len_small[kInline];
  std::vector<void*> ptr_big;
  std::vector<std::size_t> len_big;
  const uint32_t n = views.Length();
  if (n > kInline) {
    ptr_big.resize(n);
    len_big.resize(n);
  }
  void** ptrs = n > kInline ? ptr_big.data() : ptr_small;
  std::size_t* lens = n > kInline ? len_big.data() : len_small;
  for (uint32_t i = 0; i < n; ++i) {
    Napi::TypedArray t = views.Get(i).As<Napi::TypedArray>();
    const Span s = view_span(t, "devCallHere: buffer");
    ptrs[i] = s.data;
    lens[i] = t.ElementLength();
  }
  int error = 0;
  const TtgKernelCall call{ptrs, lens, static_cast<int>(n), scalars.Data(), static_cast<int>(scalars.ElementLength()), nullptr, &error};
  user_fns()[id](&call);
  return Napi::Number::New(env, error);
}

Napi::Value DevMemInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::size_t free_b = 0, total = 0;
  if (ttg_cuda_mem_info(info[0].ToNumber().Int32Value(), &free_b, &total) != 0) return env.Null();
  Napi::Object o = Napi::Object::New(env);
  o["free"] = static_cast<double>(free_b);
  o["total"] = static_cast<double>(total);
  return o;
}

// hash64(view): hash_bytes of the view's bytes, read in place (a host tile is hashed twice per watch).
Napi::Value Hash64(const Napi::CallbackInfo& info) {
  const Span s = view_span(info[0], "hash64");
  return Napi::BigInt::New(info.Env(), hash_bytes(s.data, s.bytes));
}

// Hashes a view on a libuv worker (whose chunk helpers share the work), keeping the view alive
// until it is done; the caller keeps anything from writing it meanwhile.
class HashWorker : public Napi::AsyncWorker {
 public:
  HashWorker(Napi::Env env, Napi::Value view, Span span)
      : Napi::AsyncWorker(env, "ttg-hash"), deferred_(Napi::Promise::Deferred::New(env)),
        view_(Napi::Persistent(view.As<Napi::Object>())), span_(span) {}
  Napi::Promise promise() const { return deferred_.Promise(); }
  void Execute() override { hash_ = hash_bytes(span_.data, span_.bytes); }
  void OnOK() override { deferred_.Resolve(Napi::BigInt::New(Env(), hash_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference view_;
  Span span_;
  std::uint64_t hash_ = 0;
};

// hash64Async(view): a promise of hash64(view), computed off the JS thread.
Napi::Value Hash64Async(const Napi::CallbackInfo& info) {
  const Span s = view_span(info[0], "hash64Async");
  auto* w = new HashWorker(info.Env(), info[0], s);  // deletes itself once settled
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

}  // namespace

void define_device_exports(Napi::Env env, Napi::Object exports) {
  exports["devInfo"] = Napi::Function::New(env, DevInfo, "devInfo");
  exports["devStart"] = Napi::Function::New(env, DevStart, "devStart");
  exports["devStop"] = Napi::Function::New(env, DevStop, "devStop");
  exports["devAlloc"] = Napi::Function::New(env, DevAlloc, "devAlloc");
  exports["devFree"] = Napi::Function::New(env, DevFree, "devFree");
  exports["devOp"] = Napi::Function::New(env, DevOp, "devOp");
  exports["devOps"] = Napi::Function::New(env, DevOps, "devOps");
  exports["devPoll"] = Napi::Function::New(env, DevPoll, "devPoll");
  exports["devMemInfo"] = Napi::Function::New(env, DevMemInfo, "devMemInfo");
  exports["devLoadKernel"] = Napi::Function::New(env, DevLoadKernel, "devLoadKernel");
  exports["devCall"] = Napi::Function::New(env, DevCall, "devCall");
  exports["devCallHere"] = Napi::Function::New(env, DevCallHere, "devCallHere");
  exports["hash64"] = Napi::Function::New(env, Hash64, "hash64");
  exports["hash64Async"] = Napi::Function::New(env, Hash64Async, "hash64Async");
}

}  // namespace ttg
