#include "comm_job.h"

#include <string>

namespace ttg {
namespace {

constexpr int kMaxResults = 64;

}  // namespace

Completion run_comm_job(const CollCmd& cmd, const void* comm) {
  Completion c;
  c.promise = cmd.promise;
  if (comm == nullptr) {
    c.ok = false;
    c.message = "commJob needs MPI (run under mpirun with an MPI-enabled addon)";
    return c;
  }
  double out[kMaxResults];
  char err[512] = {0};
  const int n = cmd.job->run(cmd.job->ctx, comm, out, kMaxResults, err, static_cast<int>(sizeof err));
  if (n < 0 || n > kMaxResults) {
    c.ok = false;
    c.message = n < 0 ? std::string(err) : "commJob: the job reported more results than it was given room for";
    return c;
  }
  c.values.assign(out, out + n);
  return c;
}

}  // namespace ttg
