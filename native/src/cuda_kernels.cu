// Straightforward tile kernels: correct for any sizes, tuned only enough for tiles (shared-memory
// blocking for gemm/syrk; one thread per right-hand side for trsm; one block for potrf).
#include "cuda_kernels.h"

namespace {

constexpr int TB = 16;

__device__ __forceinline__ double at(const double* x, int ld, bool t, int i, int j) {
  return t ? x[j + i * ld] : x[i + j * ld];
}

// C = alpha op(A) op(B) + beta C; tri 0: full, 1: lower triangle only, 2: upper only (syrk).
__global__ void gemm_kernel(bool ta, bool tb, int m, int n, int k, double alpha, const double* A, int lda,
                            const double* B, int ldb, double beta, double* C, int ldc, int tri) {
  __shared__ double As[TB][TB + 1];
  __shared__ double Bs[TB][TB + 1];
  const int i = blockIdx.y * TB + threadIdx.y;  // row of C
  const int j = blockIdx.x * TB + threadIdx.x;  // column of C
  double s = 0;
  for (int l0 = 0; l0 < k; l0 += TB) {
    const int la = l0 + threadIdx.x, lb = l0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (i < m && la < k) ? at(A, lda, ta, i, la) : 0.0;
    Bs[threadIdx.y][threadIdx.x] = (lb < k && j < n) ? at(B, ldb, tb, lb, j) : 0.0;
    __syncthreads();
    for (int l = 0; l < TB; ++l) s += As[threadIdx.y][l] * Bs[l][threadIdx.x];
    __syncthreads();
  }
  if (i >= m || j >= n) return;
  if ((tri == 1 && i < j) || (tri == 2 && i > j)) return;
  double& c = C[i + j * ldc];
  c = alpha * s + (beta == 0.0 ? 0.0 : beta * c);
}

// One thread per right-hand side: substitution with op(A) (left) or op(A)^T (right).
__global__ void trsm_kernel(bool left, bool upper, bool t, bool unit, int m, int n, double alpha, const double* A,
                            int lda, double* B, int ldb) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  const int count = left ? n : m, len = left ? m : n;
  if (r >= count) return;
  double* x = left ? B + r * ldb : B + r;
  const int inc = left ? 1 : ldb;
  const bool tt = left ? t : !t;  // right side: solve op(A)^T x^T = b^T
  const bool lower = left ? (upper == t) : !(upper == t);
  for (int q = 0; q < len; ++q) x[q * inc] *= alpha;
  if (lower) {
    for (int i = 0; i < len; ++i) {
      double s = x[i * inc];
      for (int l = 0; l < i; ++l) s -= at(A, lda, tt, i, l) * x[l * inc];
      x[i * inc] = unit ? s : s / at(A, lda, tt, i, i);
    }
  } else {
    for (int i = len - 1; i >= 0; --i) {
      double s = x[i * inc];
      for (int l = i + 1; l < len; ++l) s -= at(A, lda, tt, i, l) * x[l * inc];
      x[i * inc] = unit ? s : s / at(A, lda, tt, i, i);
    }
  }
}

// Right-looking Cholesky in one block; `upper` reads the lower factor through the transpose.
__global__ void potrf_kernel(bool upper, int n, double* A, int lda, int* info) {
  __shared__ int bad;
  if (threadIdx.x == 0) bad = 0;
  __syncthreads();
  auto L = [&](int i, int j) -> double& { return upper ? A[j + i * lda] : A[i + j * lda]; };
  for (int j = 0; j < n; ++j) {
    if (threadIdx.x == 0) {
      const double d = L(j, j);
      if (!(d > 0)) bad = j + 1;
      else L(j, j) = sqrt(d);
    }
    __syncthreads();
    if (bad != 0) break;
    const double d = L(j, j);
    for (int i = j + 1 + threadIdx.x; i < n; i += blockDim.x) L(i, j) /= d;
    __syncthreads();
    for (int c = j + 1; c < n; ++c)
      for (int i = c + threadIdx.x; i < n; i += blockDim.x) L(i, c) -= L(i, j) * L(c, j);
    __syncthreads();
  }
  if (threadIdx.x == 0 && info != nullptr) *info = bad;
}

__global__ void axpy_kernel(int n, double alpha, const double* x, double* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] += alpha * x[i];
}

__global__ void scal_kernel(int n, double alpha, double* x) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] *= alpha;
}

int blocks_for(int n, int threads) {
  const int b = (n + threads - 1) / threads;
  return b < 1 ? 1 : (b > 4096 ? 4096 : b);
}

}  // namespace

cudaError_t ttg_cuda_launch(const TtgOp& o, cudaStream_t s) {
  double* A = static_cast<double*>(o.p[0]);
  double* B = static_cast<double*>(o.p[1]);
  double* C = static_cast<double*>(o.p[2]);
  auto host_is_t = [](char c) { return c == 'T' || c == 't' || c == 'C' || c == 'c'; };
  switch (o.kind) {
    case TTG_OP_DGEMM: {
      dim3 th(TB, TB), gr((o.n + TB - 1) / TB, (o.m + TB - 1) / TB);
      gemm_kernel<<<gr, th, 0, s>>>(host_is_t(o.f[0]), host_is_t(o.f[1]), o.m, o.n, o.k, o.alpha, A, o.lda, B, o.ldb,
                                    o.beta, C, o.ldc, 0);
      break;
    }
    case TTG_OP_DSYRK: {
      // C = alpha op(A) op(A)^T + beta C on the uplo triangle: a gemm with B = A, transposes swapped.
      const bool t = host_is_t(o.f[1]);
      const bool upper = o.f[0] == 'U' || o.f[0] == 'u';
      dim3 th(TB, TB), gr((o.n + TB - 1) / TB, (o.n + TB - 1) / TB);
      gemm_kernel<<<gr, th, 0, s>>>(t, !t, o.n, o.n, o.k, o.alpha, A, o.lda, A, o.lda, o.beta, C, o.ldc, upper ? 2 : 1);
      break;
    }
    case TTG_OP_DTRSM: {
      const bool left = !(o.f[0] == 'R' || o.f[0] == 'r');
      const int count = left ? o.n : o.m;
      trsm_kernel<<<blocks_for(count, 128), 128, 0, s>>>(left, o.f[1] == 'U' || o.f[1] == 'u', host_is_t(o.f[2]),
                                                         o.f[3] == 'U' || o.f[3] == 'u', o.m, o.n, o.alpha, A, o.lda,
                                                         B, o.ldb);
      break;
    }
    case TTG_OP_DPOTRF:
      potrf_kernel<<<1, 256, 0, s>>>(o.f[0] == 'U' || o.f[0] == 'u', o.n, A, o.lda, static_cast<int*>(o.p[3]));
      break;
    case TTG_OP_DAXPY:
      axpy_kernel<<<blocks_for(o.n, 256), 256, 0, s>>>(o.n, o.alpha, A, B);
      break;
    case TTG_OP_DSCAL:
      scal_kernel<<<blocks_for(o.n, 256), 256, 0, s>>>(o.n, o.alpha, A);
      break;
    default:
      return cudaSuccess;
  }
  return cudaGetLastError();
}
