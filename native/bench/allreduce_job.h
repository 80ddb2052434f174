// MPI_Allreduce in a loop, as a job for ttg_native's comm thread (ttg_seams.h): the baseline of
// bench:allreduce.
#pragma once

#include "owned_job.h"

namespace ttg_bench {

struct AllreduceParams {
  int count = 0;
  int iters = 0;
};

// A job of `iters` timed MPI_Allreduce (sum) calls on `count` doubles, after 10 untimed ones;
// its result is {seconds per call}. Free it with free_job<AllreduceParams> once it has run.
TtgCommJob* make_allreduce_job(const AllreduceParams& p);

}  // namespace ttg_bench
