#include "allreduce_job.h"

#include <mpi.h>

#include <cstdio>
#include <vector>

namespace ttg_bench {
namespace {

int run(void* ctx, const void* comm_ptr, double* out, int max_out, char* err, int err_len) {
  const AllreduceParams& j = params_of<AllreduceParams>(ctx);
  const MPI_Comm comm = *static_cast<const MPI_Comm*>(comm_ptr);
  if (j.count < 1 || j.iters < 1 || max_out < 1) {
    std::snprintf(err, static_cast<std::size_t>(err_len), "allreduce: needs count >= 1 and iters >= 1");
    return -1;
  }
  std::vector<double> v(static_cast<std::size_t>(j.count), 1.0);
  for (int i = 0; i < 10; ++i) MPI_Allreduce(MPI_IN_PLACE, v.data(), j.count, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < j.iters; ++i) MPI_Allreduce(MPI_IN_PLACE, v.data(), j.count, MPI_DOUBLE, MPI_SUM, comm);
  out[0] = (MPI_Wtime() - t0) / j.iters;
  return 1;
}

}  // namespace

TtgCommJob* make_allreduce_job(const AllreduceParams& p) { return make_job(&run, p); }

}  // namespace ttg_bench
