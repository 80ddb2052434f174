// How many own properties an object has besides its array indices: the value check's question
// about a typed array or an array (src/serialize/own-properties.ts), answered without listing
// the indices.
#pragma once

#include <napi.h>

namespace ttg {

// Adds `ownNonIndexKeys(value)` to the addon's exports.
void define_own_keys_exports(Napi::Env env, Napi::Object exports);

}  // namespace ttg
