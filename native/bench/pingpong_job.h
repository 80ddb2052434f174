// The raw MPI ping-pong of bench:pingpong, as a job for ttg_native's comm thread (ttg_seams.h).
#pragma once

#include <cstddef>
#include <string>

#include "../include/ttg_seams.h"

namespace ttg_bench {

struct PingpongParams {
  int peer = 0;
  std::size_t bytes = 0;
  int iters = 0;
  bool verify = false;
};

// A job owning its parameters; delete it with free_pingpong_job once it has run.
TtgCommJob* make_pingpong_job(const PingpongParams& p);
void free_pingpong_job(TtgCommJob* job);

}  // namespace ttg_bench
