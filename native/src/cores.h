// How many cores this process may use.
#pragma once

#include <algorithm>
#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

namespace ttg {

// Cores this process may run on (its affinity mask: one under mpirun's default binding).
inline int usable_cores() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace ttg
