// The compute ceilings the benchmarks compare ttg with: the same tile kernel the pool runs, on
// native threads with no runtime and no JS, and LAPACK's own dpotrf on every core.
#include "peaks.h"

#include <chrono>
#include <thread>
#include <vector>

#include "../src/host_kernels.h"

#if TTG_HAVE_BLAS
#include <cblas.h>
#include <lapacke.h>
#endif

namespace ttg_bench {

double dgemm_peak(int n, int iters, int threads) {
  ttg::host_blas_single_threaded();
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::vector<std::vector<double>> mem(static_cast<std::size_t>(threads) * 3, std::vector<double>(nn, 0.5));
  std::vector<std::thread> pool;
  const auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      TtgOp o{};
      o.kind = TTG_OP_DGEMM;
      o.f[0] = o.f[1] = 'N';
      o.m = o.n = o.k = o.lda = o.ldb = o.ldc = n;
      o.alpha = 1.0 / n;
      o.beta = 0.5;
      o.p[0] = mem[3 * t].data();
      o.p[1] = mem[3 * t + 1].data();
      o.p[2] = mem[3 * t + 2].data();
      for (int i = 0; i < iters; ++i) ttg::run_host_op(o);
    });
  }
  for (auto& th : pool) th.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return 2.0 * n * n * static_cast<double>(n) * iters * threads / s / 1e9;
}

double lapack_dpotrf(double* a, int n, int threads, int* info) {
#if TTG_HAVE_BLAS
  // Every core through OpenBLAS's own threads; the pool's one thread per call is restored after
  // (no pool kernel runs during this call in the benchmarks).
  openblas_set_num_threads(threads);
  const auto t0 = std::chrono::steady_clock::now();
  *info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, a, n);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  openblas_set_num_threads(1);
  return s;
#else
  (void)a; (void)n; (void)threads;
  *info = 0;
  return -1.0;
#endif
}

}  // namespace ttg_bench
