// Tuning of the comm thread, the MPI transport and the kernel pools. JS reads every TTG_*
// variable (src/base/settings.ts) and hands the values over with configure() before start():
// the addon reads no environment variable itself.
#pragma once

#include <napi.h>

#include <cstddef>
#include <string>

namespace ttg {

struct Settings {
  std::size_t eager_bytes = 64 * 1024;       // TTG_EAGER_BYTES
  bool prerecv = true;                       // TTG_PRERECV
  std::size_t recv_pool_bytes = 256u << 20;  // TTG_RECV_POOL_MB
  unsigned comm_idle_us = 50;                // TTG_COMM_IDLE_US
  unsigned comm_deep_idle_us = 500;          // TTG_COMM_DEEP_IDLE_US
  unsigned comm_compute_idle_us = 2000;      // TTG_COMM_COMPUTE_IDLE_US
  unsigned comm_spin_us = 1000;              // TTG_COMM_SPIN_US
  unsigned comm_spin_busy_us = 20000;        // TTG_COMM_SPIN_BUSY_US
  bool yield_on_send = true;                 // TTG_YIELD_ON_SEND
  std::size_t mpi_chunk_bytes = std::size_t{1} << 30;  // TTG_MPI_CHUNK_BYTES (tests: smaller chunks of large parts)
  bool direct = true;                        // TTG_DIRECT (0: only the comm thread calls MPI)
  int device_wake_depth = 1;                 // TTG_DEVICE_WAKE_DEPTH
  unsigned pool_spin_us = 20;                // TTG_POOL_SPIN_US
  unsigned fault_send = 0;                   // TTG_FAULT_SEND (tests of error paths: the nth MPI send fails)
  unsigned fault_recv_delay_ms = 0;          // TTG_FAULT_RECV_DELAY_MS (tests: a payload counts as received no sooner than this after its receives were posted)
  unsigned fault_wake_delay_us = 0;          // TTG_FAULT_WAKE_DELAY_US (tests: a pool worker that decided to wake JS waits this long first)
  unsigned fault_chunk_thread = 0;           // TTG_FAULT_CHUNK_THREAD (tests: the nth chunk helper thread fails to start)
  unsigned fault_devop = 0;                  // TTG_FAULT_DEVOP (tests of error paths: the nth device enqueue fails)
  unsigned devops_made = 0;                  // enqueues counted for fault_devop since it was configured
  unsigned fault_devdone = 0;                // TTG_FAULT_DEVDONE (tests of error paths: the nth completion of a device op fails)
  unsigned devdones_made = 0;                // ops with a completion counted for fault_devdone since it was configured
  std::string cuda_libs;                     // TTG_CUDA_LIBS + where CUDA libraries usually are (src/native/cuda-libs.ts)
};

// The values given to configure(), or the defaults.
Settings& settings();

// configure({ eagerBytes, prerecv, ... }): fields missing from the object keep their value.
void define_settings_exports(Napi::Env env, Napi::Object exports);

}  // namespace ttg
