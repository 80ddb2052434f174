// How many kernel-pool threads are running an op right now. The comm thread reads it to poll
// gently while the cores compute: spinning then would take CPU away from the kernels, and a
// message that waits a little longer costs less than a kernel that runs slower.
#pragma once

#include <atomic>

namespace ttg {

inline std::atomic<int> g_kernels_running{0};

// Called by a pool thread after each op, when a core is between kernels anyway: the comm thread
// polls MPI then instead of waking on a timer in the middle of someone's kernel.
inline std::atomic<void (*)()> g_after_kernel{nullptr};

}  // namespace ttg
