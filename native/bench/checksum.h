// Payload verification for the ping-pong benchmark: Fletcher-style sums (mod 2^32) over the
// 32-bit words of a buffer. The raw MPI loop and the ttg loop verify every payload with this one
// routine, so both pause for the same time per hop (on a VM, a longer pause slows the next
// transfers: a 16 MiB raw round trip takes ~50% longer after a 10 ms pause than after none).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ttg_bench {

// (s2 * 2^32 + s1) as a double, rounded as JavaScript's `(s2 >>> 0) * 2 ** 32 + (s1 >>> 0)` is.
inline double fletcher_words(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint32_t s1 = 0, s2 = 0;
  for (std::size_t i = 0; i + 4 <= bytes; i += 4) {
    std::uint32_t w;
    std::memcpy(&w, p + i, 4);
    s1 += w;
    s2 += s1;
  }
  return static_cast<double>(s2) * 4294967296.0 + static_cast<double>(s1);
}

}  // namespace ttg_bench
