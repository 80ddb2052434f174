// Task Bench's stencil_1d in plain MPI, as a job for ttg_native's comm thread (ttg_seams.h): the
// baseline of bench:taskbench.
#pragma once

#include "owned_job.h"

namespace ttg_bench {

struct StencilParams {
  double kernel_ns = 0;
  int steps = 0;
};

// A job of `steps` time steps of a 1-D stencil one column wide per rank: each step runs the kernel
// (a spin of `kernel_ns`), then exchanges 16 bytes with each neighbouring rank through
// MPI_Isend/MPI_Irecv/MPI_Waitall, as Task Bench's MPI implementation does. Its result is
// {seconds from a barrier before the first step to a barrier after the last}. Free it with
// free_job<StencilParams> once it has run.
TtgCommJob* make_stencil_job(const StencilParams& p);

}  // namespace ttg_bench
