// Blocking MPI_Send / MPI_Recv on purpose: this is the raw baseline, so nothing of ttg's may sit
// in the loop. It runs on ttg_native's comm thread (the one thread that calls MPI) between ttg's
// own rounds, so both are measured in the same process state. With `verify`, each rank checks
// every payload it receives as the ttg loop of bench:pingpong does (element 0 carries the round,
// the rest is checksummed) and the checks' time is left out: results = {seconds per round trip,
// payloads that failed the check}.
#include "pingpong_job.h"

#include <mpi.h>
#include <sys/mman.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "checksum.h"

namespace ttg_bench {
namespace {

constexpr int kTag = 7;
constexpr std::size_t kHuge = std::size_t{2} << 20;

// Aligned and backed like ttg's receive pool (whole 2 MiB huge pages from 1 MiB), so that the
// two loops touch memory of the same kind.
struct Buffer {
  explicit Buffer(std::size_t bytes) {
    const std::size_t align = bytes >= kHuge / 2 ? kHuge : 4096;
    cap = (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
    data = static_cast<double*>(std::aligned_alloc(align, cap));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (data != nullptr && align == kHuge) madvise(data, cap, MADV_HUGEPAGE);
#endif
  }
  ~Buffer() { std::free(data); }
  double* data = nullptr;
  std::size_t cap = 0;
};

int fail(char* err, int err_len, const char* what) {
  std::snprintf(err, static_cast<std::size_t>(err_len), "%s", what);
  return -1;
}

int run(void* ctx, const void* comm_ptr, double* out, int max_out, char* err, int err_len) {
  const PingpongParams& p = params_of<PingpongParams>(ctx);
  const MPI_Comm comm = *static_cast<const MPI_Comm*>(comm_ptr);
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (p.peer < 0 || p.peer >= size || p.peer == rank || p.bytes > static_cast<std::size_t>(INT_MAX) || p.iters <= 0) {
    return fail(err, err_len, "pingpong: need a peer rank other than self, bytes <= 2 GiB - 1 and iters > 0");
  }
  if (max_out < 2) return fail(err, err_len, "pingpong: needs room for 2 results");
  Buffer mem((p.bytes + 7) / 8 * 8);
  if (mem.data == nullptr) return fail(err, err_len, "pingpong: out of memory");
  double* buf = mem.data;
  const std::size_t elems = p.bytes / sizeof(double);
  for (std::size_t i = 0; i < elems; ++i) buf[i] = static_cast<double>(i) * 1.25 + static_cast<double>(p.bytes);
  const bool verify = p.verify && elems > 0;
  // the payload after element 0 (the round), as the ttg loop sums it
  auto payload_sum = [&] { return elems > 1 ? fletcher_words(buf + 1, (elems - 1) * sizeof(double)) : 0.0; };
  const double expect = payload_sum();
  const int n = static_cast<int>(p.bytes);
  const bool first = rank < p.peer;
  double checking = 0;
  double bad = 0;
  auto check = [&](int round) {
    if (!verify) return;
    const double t = MPI_Wtime();
    if (buf[0] != round) bad++;
    if (payload_sum() != expect) bad++;
    checking += MPI_Wtime() - t;
  };
  auto round = [&](int r) {
    if (first) {
      buf[0] = r;
      MPI_Send(buf, n, MPI_BYTE, p.peer, kTag, comm);
      MPI_Recv(buf, n, MPI_BYTE, p.peer, kTag, comm, MPI_STATUS_IGNORE);
      check(-r);
    } else {
      MPI_Recv(buf, n, MPI_BYTE, p.peer, kTag, comm, MPI_STATUS_IGNORE);
      check(r);
      buf[0] = -r;
      MPI_Send(buf, n, MPI_BYTE, p.peer, kTag, comm);
    }
  };
  const int warm = std::min(p.iters, 10);
  for (int i = 0; i < warm; ++i) round(i + 1);
  checking = 0;
  const double t0 = MPI_Wtime();
  for (int i = 0; i < p.iters; ++i) round(warm + i + 1);
  const double elapsed = MPI_Wtime() - t0;
  // Both ranks' checks lie on the one sequential path of the round trips (only the two take part),
  // which the first rank's clock spans whole: the second stops before the first's last check.
  double mine[2] = {checking, elapsed}, peer[2] = {0, 0};
  MPI_Sendrecv(mine, 2, MPI_DOUBLE, p.peer, kTag, peer, 2, MPI_DOUBLE, p.peer, kTag, comm, MPI_STATUS_IGNORE);
  out[0] = ((first ? elapsed : peer[1]) - checking - peer[0]) / p.iters;
  out[1] = bad;
  return 2;
}

}  // namespace

TtgCommJob* make_pingpong_job(const PingpongParams& p) { return make_job(&run, p); }

}  // namespace ttg_bench
