#include "stencil_job.h"

#include <mpi.h>

#include <cstdio>

#include "busy.h"

namespace ttg_bench {
namespace {

constexpr int kTag = 11;
constexpr int kWords = 2;  // Task Bench's default output: 16 bytes

int run(void* ctx, const void* comm_ptr, double* out, int max_out, char* err, int err_len) {
  const StencilParams& j = params_of<StencilParams>(ctx);
  const MPI_Comm comm = *static_cast<const MPI_Comm*>(comm_ptr);
  if (j.steps < 1 || max_out < 1) {
    std::snprintf(err, static_cast<std::size_t>(err_len), "stencil: needs steps >= 1");
    return -1;
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int peers[2] = {rank - 1, rank + 1};
  double mine[kWords] = {0, 0}, theirs[2][kWords];
  MPI_Request reqs[4];
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  for (int t = 0; t < j.steps; ++t) {
    spin_for_ns(j.kernel_ns);
    mine[0] = t;
    if (t + 1 == j.steps) break;
    int n = 0;
    for (int s = 0; s < 2; ++s) {
      if (peers[s] < 0 || peers[s] >= size) continue;
      MPI_Irecv(theirs[s], kWords, MPI_DOUBLE, peers[s], kTag, comm, &reqs[n++]);
      MPI_Isend(mine, kWords, MPI_DOUBLE, peers[s], kTag, comm, &reqs[n++]);
    }
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
  }
  MPI_Barrier(comm);
  out[0] = MPI_Wtime() - t0;
  return 1;
}

}  // namespace

TtgCommJob* make_stencil_job(const StencilParams& p) { return make_job(&run, p); }

}  // namespace ttg_bench
