// The C seams of ttg_native (native/include/ttg_seams.h) on the JS side: `seams()` hands them to
// other addons, comm_job_of takes a job from one.
#pragma once

#include <napi.h>

#include "../include/ttg_seams.h"

namespace ttg {

// Adds `seams()` to the exports.
void define_seams_exports(Napi::Env env, Napi::Object exports);

// The job inside `v` (an External made by another addon), or a TypeError naming `what`.
const TtgCommJob* comm_job_of(Napi::Value v, const char* what);

}  // namespace ttg
