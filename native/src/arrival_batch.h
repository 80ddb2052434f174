// One wake-up's arrivals as the arrays JS reads (ArrivalField in src/native/addon.ts): per event
// a row of numbers in `meta`, its header bytes (and an eager payload) in `bytes`; lent buffers and
// error texts in `extra`. Far cheaper than a JS object per event.
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "messages.h"

namespace ttg {

// A message whose payload JS still has to receive (by recv) into views of its choosing.
struct PendingMsg {
  int src;
  int tag;
  std::vector<std::uint64_t> sizes;
  std::vector<Span> loop_src;
  std::uint64_t loop_pin;
};

using PendingMsgs = std::unordered_map<std::uint64_t, PendingMsg>;

struct ArrivalBatch {
  Napi::Float64Array meta;  // valid up to `rows` numbers; may be longer (reused)
  Napi::Uint8Array bytes;
  Napi::Value extra;
  std::size_t rows;
};

// Keeps one pair of arrays from batch to batch (see flatten).
class ArrivalBatcher {
 public:
  // Flattens `arrivals`; messages whose payload JS still has to receive are added to `pending`.
  // `nested`: JS is still reading the previous batch, so this one gets arrays of its own.
  ArrivalBatch flatten(Napi::Env env, std::vector<Arrival>& arrivals, PendingMsgs& pending, bool nested);
  // During environment teardown: the kept arrays are abandoned, not released.
  void abandon() {
    meta_keep_.SuppressDestruct();
    bytes_keep_.SuppressDestruct();
  }

 private:
  Napi::Reference<Napi::Float64Array> meta_keep_;
  Napi::Reference<Napi::Uint8Array> bytes_keep_;
};

}  // namespace ttg
