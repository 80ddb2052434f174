// busy(ns): spins the calling (JS) thread for `ns` nanoseconds of the steady clock, like Task
// Bench's compute-bound kernel runs on the worker that executes the task. Used by
// bench/taskbench.ts to give tasks a controllable granularity.
#include <napi.h>

#include <chrono>
#include <cstdint>

#include "cpu_pressure.h"

namespace ttg {

namespace {

Napi::Value Busy(const Napi::CallbackInfo& info) {
  const double ns = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : 0.0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(static_cast<std::int64_t>(ns > 0 ? ns : 0));
  volatile std::uint64_t spins = 0;
  // a compute kernel like any other: the comm thread must not spin against it (cpu_pressure.h)
  g_kernels_running.fetch_add(1, std::memory_order_relaxed);
  while (std::chrono::steady_clock::now() < until) spins = spins + 1;
  g_kernels_running.fetch_sub(1, std::memory_order_relaxed);
  if (auto poke = g_after_kernel.load(std::memory_order_relaxed)) poke();
  return info.Env().Undefined();
}

}  // namespace

void define_busy_exports(Napi::Env env, Napi::Object exports) {
  exports.Set("busy", Napi::Function::New(env, Busy, "busy"));
}

}  // namespace ttg
