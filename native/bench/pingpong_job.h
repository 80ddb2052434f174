// The raw MPI ping-pong of bench:pingpong, as a job for ttg_native's comm thread (ttg_seams.h).
#pragma once

#include <cstddef>
#include <string>

#include "owned_job.h"

namespace ttg_bench {

struct PingpongParams {
  int peer = 0;
  std::size_t bytes = 0;
  int iters = 0;
  bool verify = false;
};

// Free the job with free_job<PingpongParams> once it has run.
TtgCommJob* make_pingpong_job(const PingpongParams& p);

}  // namespace ttg_bench
