// Compute ceilings for the benchmarks (peaks.cc).
#pragma once

namespace ttg_bench {

// `threads` native threads each run `iters` single-threaded n x n dgemm calls on private tiles;
// GFLOP/s over the wall time.
double dgemm_peak(int n, int iters, int threads);

// LAPACKE_dpotrf (lower, column-major, lda = n) of `a` in place on `threads` OpenBLAS threads;
// returns seconds and sets `info`. Returns -1 when built without BLAS.
double lapack_dpotrf(double* a, int n, int threads, int* info);

}  // namespace ttg_bench
