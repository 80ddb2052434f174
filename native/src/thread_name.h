// Names the calling thread, as `top -H`, `ps -L`, perf and gdb show it, so users can tell ttg's
// threads (ttg-comm, ttg-pool-N, ttg-cuda-poll) from Node's and MPI's own.
#pragma once

#include <string>

#ifdef __linux__
#include <pthread.h>
#endif

namespace ttg {

inline void name_this_thread(const std::string& name) {
#ifdef __linux__
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());  // Linux allows 15 characters
#else
  (void)name;
#endif
}

}  // namespace ttg
