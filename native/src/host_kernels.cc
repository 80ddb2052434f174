// Host execution of TtgOps. With BLAS each call is one single-threaded OpenBLAS/LAPACKE call
// (parallelism comes from running one call per pool thread); without BLAS, straightforward
// column-major loops that are correct but slow, so the addon still works everywhere.
#include "host_kernels.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "bytes_hash.h"

#if TTG_HAVE_BLAS
#include <cblas.h>
#include <lapacke.h>
#endif

namespace ttg {
namespace {

inline bool is(char c, char want) { return c == want || c == want + ('a' - 'A'); }

#if TTG_HAVE_BLAS
CBLAS_TRANSPOSE tr(char c) { return is(c, 'T') || is(c, 'C') ? CblasTrans : CblasNoTrans; }
CBLAS_UPLO up(char c) { return is(c, 'U') ? CblasUpper : CblasLower; }
#else
// Element (i, j) of op(X) for a column-major X with leading dimension ld.
inline double at(const double* x, int ld, bool t, int i, int j) { return t ? x[j + i * ld] : x[i + j * ld]; }

void loop_gemm(const TtgOp& o, const double* A, const double* B, double* C) {
  const bool ta = is(o.f[0], 'T') || is(o.f[0], 'C'), tb = is(o.f[1], 'T') || is(o.f[1], 'C');
  for (int j = 0; j < o.n; ++j)
    for (int i = 0; i < o.m; ++i) {
      double s = 0;
      for (int l = 0; l < o.k; ++l) s += at(A, o.lda, ta, i, l) * at(B, o.ldb, tb, l, j);
      double& c = C[i + j * o.ldc];
      c = o.alpha * s + (o.beta == 0 ? 0 : o.beta * c);
    }
}

void loop_syrk(const TtgOp& o, const double* A, double* C) {
  const bool lower = !is(o.f[0], 'U'), t = is(o.f[1], 'T') || is(o.f[1], 'C');
  for (int j = 0; j < o.n; ++j)
    for (int i = lower ? j : 0; i < (lower ? o.n : j + 1); ++i) {
      double s = 0;
      for (int l = 0; l < o.k; ++l) s += at(A, o.lda, t, i, l) * at(A, o.lda, t, j, l);
      double& c = C[i + j * o.ldc];
      c = o.alpha * s + (o.beta == 0 ? 0 : o.beta * c);
    }
}

// Solves T x = b in place for one right-hand side, T given by an element accessor.
template <class Tfn>
void tri_solve(int n, bool lower, bool unit, Tfn T, double* x, int incx) {
  if (lower) {
    for (int i = 0; i < n; ++i) {
      double s = x[i * incx];
      for (int l = 0; l < i; ++l) s -= T(i, l) * x[l * incx];
      x[i * incx] = unit ? s : s / T(i, i);
    }
  } else {
    for (int i = n - 1; i >= 0; --i) {
      double s = x[i * incx];
      for (int l = i + 1; l < n; ++l) s -= T(i, l) * x[l * incx];
      x[i * incx] = unit ? s : s / T(i, i);
    }
  }
}

void loop_trsm(const TtgOp& o, const double* A, double* B) {
  const bool left = !is(o.f[0], 'R'), upper = is(o.f[1], 'U');
  const bool t = is(o.f[2], 'T') || is(o.f[2], 'C'), unit = is(o.f[3], 'U');
  for (int j = 0; j < o.n; ++j)
    for (int i = 0; i < o.m; ++i) B[i + j * o.ldb] *= o.alpha;
  const bool opLower = upper == t;  // op(A) is lower when A is lower and not transposed, or upper and transposed
  if (left) {
    auto T = [&](int i, int j) { return at(A, o.lda, t, i, j); };
    for (int j = 0; j < o.n; ++j) tri_solve(o.m, opLower, unit, T, B + j * o.ldb, 1);
  } else {
    // X op(A) = B  <=>  op(A)^T x_row = b_row
    auto T = [&](int i, int j) { return at(A, o.lda, !t, i, j); };
    for (int i = 0; i < o.m; ++i) tri_solve(o.n, !opLower, unit, T, B + i, o.ldb);
  }
}

int loop_potrf(const TtgOp& o, double* A) {
  const bool upper = is(o.f[0], 'U');
  auto L = [&](int i, int j) -> double& { return upper ? A[j + i * o.lda] : A[i + j * o.lda]; };
  for (int j = 0; j < o.n; ++j) {
    double d = L(j, j);
    for (int l = 0; l < j; ++l) d -= L(j, l) * L(j, l);
    if (!(d > 0)) return j + 1;
    d = std::sqrt(d);
    L(j, j) = d;
    for (int i = j + 1; i < o.n; ++i) {
      double s = L(i, j);
      for (int l = 0; l < j; ++l) s -= L(i, l) * L(j, l);
      L(i, j) = s / d;
    }
  }
  return 0;
}
#endif

}  // namespace

double steady_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void run_host_op(const TtgOp& o) {
  double* A = static_cast<double*>(o.p[0]);
  double* B = static_cast<double*>(o.p[1]);
  double* C = static_cast<double*>(o.p[2]);
  switch (o.kind) {
    case TTG_OP_COPY:
      // the stream's thread is the emulated copy engine: it hashes alone, as it copies alone
      if (o.p[2] != nullptr) *static_cast<std::uint64_t*>(o.p[2]) = copy_and_hash(o.p[0], o.p[1], o.bytes, 1);
      else if (o.bytes != 0) std::memcpy(o.p[0], o.p[1], o.bytes);
      return;
    case TTG_OP_STAMP:
      *static_cast<double*>(o.p[0]) = steady_ms();
      return;
#if TTG_HAVE_BLAS
    case TTG_OP_DGEMM:
      cblas_dgemm(CblasColMajor, tr(o.f[0]), tr(o.f[1]), o.m, o.n, o.k, o.alpha, A, o.lda, B, o.ldb, o.beta, C, o.ldc);
      return;
    case TTG_OP_DSYRK:
      cblas_dsyrk(CblasColMajor, up(o.f[0]), tr(o.f[1]), o.n, o.k, o.alpha, A, o.lda, o.beta, C, o.ldc);
      return;
    case TTG_OP_DTRSM:
      cblas_dtrsm(CblasColMajor, is(o.f[0], 'R') ? CblasRight : CblasLeft, up(o.f[1]), tr(o.f[2]),
                  is(o.f[3], 'U') ? CblasUnit : CblasNonUnit, o.m, o.n, o.alpha, A, o.lda, B, o.ldb);
      return;
    case TTG_OP_DPOTRF: {
      const int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, is(o.f[0], 'U') ? 'U' : 'L', o.n, A, o.lda);
      if (o.p[3] != nullptr) *static_cast<int32_t*>(o.p[3]) = info;
      return;
    }
    case TTG_OP_DAXPY:
      cblas_daxpy(o.n, o.alpha, A, 1, B, 1);
      return;
    case TTG_OP_DSCAL:
      cblas_dscal(o.n, o.alpha, A, 1);
      return;
#else
    case TTG_OP_DGEMM:
      loop_gemm(o, A, B, C);
      return;
    case TTG_OP_DSYRK:
      loop_syrk(o, A, C);
      return;
    case TTG_OP_DTRSM:
      loop_trsm(o, A, B);
      return;
    case TTG_OP_DPOTRF: {
      const int info = loop_potrf(o, A);
      if (o.p[3] != nullptr) *static_cast<int32_t*>(o.p[3]) = info;
      return;
    }
    case TTG_OP_DAXPY:
      for (int i = 0; i < o.n; ++i) B[i] += o.alpha * A[i];
      return;
    case TTG_OP_DSCAL:
      for (int i = 0; i < o.n; ++i) A[i] *= o.alpha;
      return;
#endif
    default:
      return;  // TTG_OP_MARKER
  }
}

int host_blas_single_threaded() {
#if TTG_HAVE_BLAS
  openblas_set_num_threads(1);
  return openblas_get_num_threads();
#else
  return 1;
#endif
}

std::string host_kernels_description() {
#if TTG_HAVE_BLAS
  return std::string("OpenBLAS/LAPACKE (") + openblas_get_config() + "), " +
         std::to_string(openblas_get_num_threads()) + " thread(s) per call";
#else
  return "plain C++ loops (addon built without BLAS: TTG_WITH_BLAS=OFF or OpenBLAS/LAPACKE not found)";
#endif
}

}  // namespace ttg
