// Task Bench's compute-bound kernel: a spin for a wall-clock duration, the same in the raw MPI
// stencil and in the ttg tasks that bench:taskbench compares it with.
#pragma once

#include <chrono>
#include <cstdint>

namespace ttg_bench {

inline void spin_for_ns(double ns) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(static_cast<std::int64_t>(ns > 0 ? ns : 0));
  volatile std::uint64_t spins = 0;
  while (std::chrono::steady_clock::now() < until) spins = spins + 1;
}

}  // namespace ttg_bench
