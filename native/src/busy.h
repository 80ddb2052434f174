// busy(ns): a compute-bound kernel of controllable duration for bench:taskbench (busy.cc).
#pragma once

#include <napi.h>

namespace ttg {

void define_busy_exports(Napi::Env env, Napi::Object exports);

}  // namespace ttg
