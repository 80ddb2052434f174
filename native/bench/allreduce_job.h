// MPI_Allreduce in a loop, as a job for ttg_native's comm thread (ttg_seams.h): the baseline of
// bench:allreduce.
#pragma once

#include "../include/ttg_seams.h"

namespace ttg_bench {

// A job of `iters` timed MPI_Allreduce (sum) calls on `count` doubles, after 10 untimed ones;
// its result is {seconds per call}. Delete it with free_allreduce_job once it has run.
TtgCommJob* make_allreduce_job(int count, int iters);
void free_allreduce_job(TtgCommJob* job);

}  // namespace ttg_bench
