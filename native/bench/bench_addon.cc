// ttg_bench: the baselines the benchmarks compare ttg with, built beside ttg_native but never
// loaded by the library (bench/lib/baselines.ts loads it). It reaches ttg_native only through
// the C seams of ttg_seams.h, handed over once by attach(native.seams()).
#include <napi.h>

#include <climits>
#include <cmath>
#include <string>

#include "../include/ttg_seams.h"
#include "busy.h"
#include "checksum.h"
#include "peaks.h"
#if TTG_HAVE_MPI
#include "allreduce_job.h"
#include "irregular_job.h"
#include "pingpong_job.h"
#include "stencil_job.h"
#endif

namespace {

const TtgSeams* g_seams = nullptr;

template <typename T>
const T* seams_struct(Napi::Value v, const char* what) {
  if (!v.IsExternal()) throw Napi::TypeError::New(v.Env(), std::string("ttg_bench.") + what + ": needs an External from ttg_native");
  const T* s = v.As<Napi::External<T>>().Data();
  if (s == nullptr || s->magic != TTG_SEAMS_MAGIC || s->version != TTG_SEAMS_VERSION) {
    throw Napi::TypeError::New(v.Env(), std::string("ttg_bench.") + what + ": not ttg_native's seams of version " +
                                            std::to_string(TTG_SEAMS_VERSION));
  }
  return s;
}

Napi::Value Attach(const Napi::CallbackInfo& info) {
  g_seams = seams_struct<TtgSeams>(info[0], "attach");
  return info.Env().Undefined();
}

// Spins the calling (JS) thread for `ns` nanoseconds of the steady clock, like Task Bench's
// compute-bound kernel on the worker that runs the task; announced to ttg_native as computation,
// as its own kernels are, so its comm thread does not spin against it.
Napi::Value Busy(const Napi::CallbackInfo& info) {
  const double ns = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : 0.0;
  if (g_seams != nullptr) g_seams->compute_enter();
  ttg_bench::spin_for_ns(ns);
  if (g_seams != nullptr) g_seams->compute_leave();
  return info.Env().Undefined();
}

// Fletcher-style sums (mod 2^32) over the 32-bit words of an ArrayBufferView: the payload check
// both loops of bench:pingpong run.
Napi::Value Checksum(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info[0].IsTypedArray()) {
    auto v = info[0].As<Napi::TypedArray>();
    const auto* base = static_cast<const std::uint8_t*>(v.ArrayBuffer().Data()) + v.ByteOffset();
    return Napi::Number::New(env, ttg_bench::fletcher_words(base, v.ByteLength()));
  }
  if (info[0].IsDataView()) {
    auto v = info[0].As<Napi::DataView>();
    return Napi::Number::New(env, ttg_bench::fletcher_words(static_cast<const std::uint8_t*>(v.Data()), v.ByteLength()));
  }
  throw Napi::TypeError::New(env, "ttg_bench.checksum: needs an ArrayBufferView");
}

#if TTG_HAVE_MPI
// `make(p)` as an External that frees the job when JS lets go of it.
template <typename P>
Napi::Value job_value(Napi::Env env, TtgCommJob* (*make)(const P&), const P& p) {
  return Napi::External<TtgCommJob>::New(env, make(p), [](Napi::Env, TtgCommJob* j) { ttg_bench::free_job<P>(j); });
}

// Argument i of `fn` as an int, or a RangeError: Int32Value would quietly wrap 2^32 + 5 into 5.
int int_arg(const Napi::CallbackInfo& info, std::size_t i, const char* fn) {
  const double v = info[i].IsNumber() ? info[i].As<Napi::Number>().DoubleValue() : NAN;
  if (!(v >= INT_MIN && v <= INT_MAX) || v != std::floor(v)) {
    throw Napi::RangeError::New(info.Env(), std::string("ttg_bench.") + fn + ": argument " + std::to_string(i) + " must be a 32-bit integer");
  }
  return static_cast<int>(v);
}
#endif

// pingpongJob(peer, bytes, iters, verify): a job for ttg_native's commJob.
Napi::Value PingpongJob(const Napi::CallbackInfo& info) {
#if TTG_HAVE_MPI
  ttg_bench::PingpongParams p;
  p.peer = info[0].ToNumber().Int32Value();
  const double bytes = info[1].ToNumber().DoubleValue();
  p.bytes = bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
  p.iters = info[2].ToNumber().Int32Value();
  p.verify = info[3].ToBoolean().Value();
  return job_value(info.Env(), &ttg_bench::make_pingpong_job, p);
#else
  throw Napi::Error::New(info.Env(), "ttg_bench.pingpongJob: built without MPI");
#endif
}

// stencilJob(kernelNs, steps): a job for ttg_native's commJob.
Napi::Value StencilJob(const Napi::CallbackInfo& info) {
#if TTG_HAVE_MPI
  const ttg_bench::StencilParams p{info[0].ToNumber().DoubleValue(), info[1].ToNumber().Int32Value()};
  return job_value(info.Env(), &ttg_bench::make_stencil_job, p);
#else
  throw Napi::Error::New(info.Env(), "ttg_bench.stencilJob: built without MPI");
#endif
}

// allreduceJob(count, iters): a job for ttg_native's commJob.
Napi::Value AllreduceJob(const Napi::CallbackInfo& info) {
#if TTG_HAVE_MPI
  const ttg_bench::AllreduceParams p{info[0].ToNumber().Int32Value(), info[1].ToNumber().Int32Value()};
  return job_value(info.Env(), &ttg_bench::make_allreduce_job, p);
#else
  throw Napi::Error::New(info.Env(), "ttg_bench.allreduceJob: built without MPI");
#endif
}

// irregularJob(kind, variant, n, perRank, buffer): a job for ttg_native's commJob.
Napi::Value IrregularJob(const Napi::CallbackInfo& info) {
#if TTG_HAVE_MPI
  Napi::Env env = info.Env();
  const std::string kind = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
  const std::string variant = info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "";
  if ((kind != "histogram" && kind != "gather") || (variant != "naive" && variant != "buffered")) {
    throw Napi::TypeError::New(env, "ttg_bench.irregularJob: kind is 'histogram' or 'gather', variant 'naive' or 'buffered'");
  }
  ttg_bench::IrregularParams p;
  p.kind = kind == "histogram" ? ttg_bench::IrregularKind::Histogram : ttg_bench::IrregularKind::Gather;
  p.buffered = variant == "buffered";
  p.n = int_arg(info, 2, "irregularJob");
  p.per_rank = int_arg(info, 3, "irregularJob");
  p.buffer = int_arg(info, 4, "irregularJob");
  return job_value(env, &ttg_bench::make_irregular_job, p);
#else
  throw Napi::Error::New(info.Env(), "ttg_bench.irregularJob: built without MPI");
#endif
}

Napi::Value DevPeak(const Napi::CallbackInfo& info) {
  const int n = info[0].ToNumber().Int32Value(), iters = info[1].ToNumber().Int32Value();
  const int threads = info[2].ToNumber().Int32Value();
  if (n < 1 || iters < 1 || threads < 1) throw Napi::RangeError::New(info.Env(), "ttg_bench.devPeak: n, iters, threads must be >= 1");
  return Napi::Number::New(info.Env(), ttg_bench::dgemm_peak(n, iters, threads));
}

Napi::Value LapackDpotrf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array) {
    throw Napi::TypeError::New(env, "ttg_bench.lapackDpotrf: needs a Float64Array");
  }
  auto a = info[0].As<Napi::Float64Array>();
  const int n = info[1].ToNumber().Int32Value(), threads = info[2].ToNumber().Int32Value();
  if (n < 1 || threads < 1 || a.ElementLength() < static_cast<std::size_t>(n) * n) {
    throw Napi::RangeError::New(env, "ttg_bench.lapackDpotrf: needs n >= 1, threads >= 1 and n*n elements");
  }
  int status = 0;
  const double s = ttg_bench::lapack_dpotrf(a.Data(), n, threads, &status);
  if (s < 0) throw Napi::Error::New(env, "ttg_bench.lapackDpotrf: built without LAPACKE");
  if (status != 0) throw Napi::Error::New(env, "ttg_bench.lapackDpotrf: LAPACKE_dpotrf info " + std::to_string(status));
  return Napi::Number::New(env, s);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports["attach"] = Napi::Function::New(env, Attach, "attach");
  exports["busy"] = Napi::Function::New(env, Busy, "busy");
  exports["checksum"] = Napi::Function::New(env, Checksum, "checksum");
  exports["pingpongJob"] = Napi::Function::New(env, PingpongJob, "pingpongJob");
  exports["allreduceJob"] = Napi::Function::New(env, AllreduceJob, "allreduceJob");
  exports["stencilJob"] = Napi::Function::New(env, StencilJob, "stencilJob");
  exports["irregularJob"] = Napi::Function::New(env, IrregularJob, "irregularJob");
  exports["devPeak"] = Napi::Function::New(env, DevPeak, "devPeak");
  exports["lapackDpotrf"] = Napi::Function::New(env, LapackDpotrf, "lapackDpotrf");
  return exports;
}

}  // namespace

NODE_API_MODULE(ttg_bench, Init)
