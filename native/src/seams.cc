#include "seams.h"

#include <string>

#include "cpu_pressure.h"

namespace ttg {
namespace {

void compute_enter() { g_kernels_running.fetch_add(1, std::memory_order_relaxed); }

void compute_leave() {
  g_kernels_running.fetch_sub(1, std::memory_order_relaxed);
  if (auto poke = g_after_kernel.load(std::memory_order_relaxed)) poke();
}

TtgSeams g_seams{TTG_SEAMS_MAGIC, TTG_SEAMS_VERSION, &compute_enter, &compute_leave};

}  // namespace

void define_seams_exports(Napi::Env env, Napi::Object exports) {
  exports["seams"] = Napi::Function::New(
      env, [](const Napi::CallbackInfo& info) { return Napi::External<TtgSeams>::New(info.Env(), &g_seams); }, "seams");
}

const TtgCommJob* comm_job_of(Napi::Value v, const char* what) {
  const TtgCommJob* j = v.IsExternal() ? v.As<Napi::External<TtgCommJob>>().Data() : nullptr;
  if (j == nullptr || j->magic != TTG_COMM_JOB_MAGIC || j->version != TTG_SEAMS_VERSION || j->run == nullptr) {
    throw Napi::TypeError::New(v.Env(), std::string("ttg_native.") + what + ": job must be an External holding a TtgCommJob of version " +
                                            std::to_string(TTG_SEAMS_VERSION));
  }
  return j;
}

}  // namespace ttg
