// Turns a JS ArrayBufferView into the raw memory it covers, without copying. V8 never moves an
// ArrayBuffer's backing store once napi has handed out its pointer, so the Span stays valid
// for as long as a reference keeps the view alive.
#pragma once

#include <napi.h>

#include <string>

#include "messages.h"

namespace ttg {

inline std::size_t element_size(napi_typedarray_type t) {
  switch (t) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array:
      return 1;
    case napi_int16_array:
    case napi_uint16_array:
      return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array:
      return 4;
    default:
      return 8;
  }
}

// `what` names the argument in the TypeError, e.g. "send: parts[2]".
// `what` names the value in the error; `index` >= 0 appends "[index]" (built only on error).
inline Span view_span(Napi::Value v, const char* what, long index = -1) {
  napi_env env = v.Env();
  Span s;
  if (v.IsTypedArray()) {
    napi_typedarray_type type;
    std::size_t length = 0;
    NAPI_THROW_IF_FAILED(env, napi_get_typedarray_info(env, v, &type, &length, &s.data, nullptr, nullptr), s);
    s.bytes = length * element_size(type);
  } else if (v.IsDataView()) {
    NAPI_THROW_IF_FAILED(env, napi_get_dataview_info(env, v, &s.bytes, &s.data, nullptr, nullptr), s);
  } else {
    const std::string at = index < 0 ? "" : "[" + std::to_string(index) + "]";
    throw Napi::TypeError::New(env, std::string("ttg_native.") + what + at + " must be a TypedArray or DataView");
  }
  return s;
}

}  // namespace ttg
