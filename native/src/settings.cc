#include "settings.h"

namespace ttg {

Settings& settings() {
  static Settings s;
  return s;
}

namespace {

template <typename T>
void take(const Napi::Object& o, const char* name, T& field) {
  Napi::Value v = o.Get(name);
  if (v.IsNumber()) field = static_cast<T>(v.As<Napi::Number>().DoubleValue());
  else if (v.IsBoolean()) field = static_cast<T>(v.As<Napi::Boolean>().Value());
}

void take(const Napi::Object& o, const char* name, std::string& field) {
  Napi::Value v = o.Get(name);
  if (v.IsString()) field = v.As<Napi::String>().Utf8Value();
}

Napi::Value Configure(const Napi::CallbackInfo& info) {
  if (!info[0].IsObject()) throw Napi::TypeError::New(info.Env(), "ttg_native.configure: needs a settings object");
  const Napi::Object o = info[0].As<Napi::Object>();
  Settings& s = settings();
  take(o, "eagerBytes", s.eager_bytes);
  take(o, "prerecv", s.prerecv);
  take(o, "recvPoolBytes", s.recv_pool_bytes);
  take(o, "commIdleUs", s.comm_idle_us);
  take(o, "commDeepIdleUs", s.comm_deep_idle_us);
  take(o, "commComputeIdleUs", s.comm_compute_idle_us);
  take(o, "commSpinUs", s.comm_spin_us);
  take(o, "commSpinBusyUs", s.comm_spin_busy_us);
  take(o, "yieldOnSend", s.yield_on_send);
  take(o, "direct", s.direct);
  take(o, "mpiChunkBytes", s.mpi_chunk_bytes);
  take(o, "deviceWakeDepth", s.device_wake_depth);
  take(o, "poolSpinUs", s.pool_spin_us);
  take(o, "faultSend", s.fault_send);
  take(o, "faultRecvDelayMs", s.fault_recv_delay_ms);
  take(o, "faultWakeDelayUs", s.fault_wake_delay_us);
  take(o, "faultChunkThread", s.fault_chunk_thread);
  if (o.Get("faultDevOp").IsNumber()) {
    take(o, "faultDevOp", s.fault_devop);
    s.devops_made = 0;
  }
  if (o.Get("faultDevDone").IsNumber()) {
    take(o, "faultDevDone", s.fault_devdone);
    s.devdones_made = 0;
  }
  take(o, "cudaLibs", s.cuda_libs);
  return info.Env().Undefined();
}

}  // namespace

void define_settings_exports(Napi::Env env, Napi::Object exports) {
  exports.Set("configure", Napi::Function::New(env, Configure, "configure"));
}

}  // namespace ttg
