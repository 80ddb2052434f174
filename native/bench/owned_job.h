// A TtgCommJob that owns its parameters: the one way the benchmarks' comm-thread jobs are made,
// read and freed.
#pragma once

#include "../include/ttg_seams.h"

namespace ttg_bench {

using JobRun = int (*)(void* ctx, const void* comm, double* out, int max_out, char* err, int err_len);

template <typename P>
struct OwnedJob {
  TtgCommJob head;
  P params;
};

// A job that runs `run` with a copy of `params`; free it with free_job<P> once it has run.
template <typename P>
TtgCommJob* make_job(JobRun run, const P& params) {
  auto* j = new OwnedJob<P>{TtgCommJob{TTG_COMM_JOB_MAGIC, TTG_SEAMS_VERSION, run, nullptr}, params};
  j->head.ctx = j;
  return &j->head;
}

// The parameters of the job whose `ctx` a run function was given.
template <typename P>
const P& params_of(void* ctx) {
  return static_cast<OwnedJob<P>*>(ctx)->params;
}

template <typename P>
void free_job(TtgCommJob* job) {
  delete static_cast<OwnedJob<P>*>(job->ctx);
}

}  // namespace ttg_bench
