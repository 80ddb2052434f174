// Node-API glue of the device layer (kernel pool, emulated device memory, CUDA): adds the dev*
// functions to the addon's exports. Marshalling only; src/device makes every decision.
#pragma once

#include <napi.h>

namespace ttg {

void define_device_exports(Napi::Env env, Napi::Object exports);

}  // namespace ttg
