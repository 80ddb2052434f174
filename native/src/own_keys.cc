#include "own_keys.h"

// V8's headers are not written for -Wextra
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <v8.h>
#pragma GCC diagnostic pop

#include <cstring>

namespace ttg {

namespace {

// ownNonIndexKeys(value): the number of own properties (strings and symbols, enumerable or not)
// of `value` that are not array indices, or -1 when `value` is not an object or V8 refused.
// Node-API's napi_get_all_property_names lists every index first, as JavaScript's own key
// functions do: a cost per element on every send of a typed array. V8 itself can skip them
// (IndexFilter::kSkipIndices), so this one call goes to V8's API; a napi_value is the location of
// a v8::Local, as Node's own Node-API implementation converts it.
napi_value OwnNonIndexKeys(napi_env env, napi_callback_info info) {
  std::size_t argc = 1;
  napi_value arg = nullptr;
  napi_value result = nullptr;
  double count = -1;
  if (napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr) == napi_ok && argc == 1) {
    v8::Local<v8::Value> value;
    static_assert(sizeof value == sizeof arg, "a napi_value is a v8::Local");
    std::memcpy(static_cast<void*>(&value), &arg, sizeof arg);
    if (value->IsObject()) {
      v8::Isolate* isolate = v8::Isolate::GetCurrent();
      v8::Local<v8::Array> keys;
      if (value.As<v8::Object>()
              ->GetPropertyNames(isolate->GetCurrentContext(), v8::KeyCollectionMode::kOwnOnly, v8::ALL_PROPERTIES,
                                 v8::IndexFilter::kSkipIndices, v8::KeyConversionMode::kKeepNumbers)
              .ToLocal(&keys)) {
        count = keys->Length();
      }
    }
  }
  napi_create_double(env, count, &result);
  return result;
}

}  // namespace

void define_own_keys_exports(Napi::Env env, Napi::Object exports) {
  napi_value fn = nullptr;
  NAPI_THROW_IF_FAILED_VOID(env, napi_create_function(env, "ownNonIndexKeys", NAPI_AUTO_LENGTH, OwnNonIndexKeys, nullptr, &fn));
  exports.Set("ownNonIndexKeys", Napi::Value(env, fn));
}

}  // namespace ttg
