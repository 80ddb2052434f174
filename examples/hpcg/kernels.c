/* HPCG's kernels as native kernels (see native/include/ttg_kernel.h), on the ghosted layout of
 * vectors.ts: a block of nx x ny x nz owned points with a one-point ghost layer, x fastest. Each
 * computes what its JavaScript twin in vectors.ts computes, with the same operations in the same
 * order (the 27 terms of a row z, then y, then x offsets from -1 to 1; rows z, then y, then x), so
 * the results are equal bit for bit when built without floating-point contraction.
 * Scalars start with the block's nx, ny, nz. */
#include "ttg_kernel.h"

#define DIMS                                                                  \
  const long nx = (long)c->scalars[0], ny = (long)c->scalars[1], nz = (long)c->scalars[2]; \
  const long sy = nx + 2, sz = (nx + 2) * (ny + 2)

/* Index of the first owned point of x-line (iy, iz). */
static long line(long iy, long iz, long sy, long sz) { return (iz + 1) * sz + (iy + 1) * sy + 1; }

/* Runs the statement that follows for each owned x-line in row order (z, then y), with b the
 * index of the line's first point. */
#define FOR_LINES(b)                 \
  for (long iz = 0; iz < nz; iz++)   \
    for (long iy = 0, b = line(0, iz, sy, sz); iy < ny; iy++, b += sy)

/* y = A x (ComputeSPMV_ref). Buffers x, y. */
void hpcg_spmv(const TtgKernelCall* c) {
  const double* x = (const double*)c->buffers[0];
  double* y = (double*)c->buffers[1];
  DIMS;
  FOR_LINES(b) {
    for (long i = b; i < b + nx; i++) {
      double s = 0.0;
      for (long dz = -1; dz <= 1; dz++) {
        for (long dy = -1; dy <= 1; dy++) {
          const long p = i + dz * sz + dy * sy;
          if (dz == 0 && dy == 0) {
            s -= x[p - 1];
            s += 26.0 * x[p];
            s -= x[p + 1];
          } else {
            s -= x[p - 1];
            s -= x[p];
            s -= x[p + 1];
          }
        }
      }
      y[i] = s;
    }
  }
}

static void relax(double* x, const double* r, long sy, long sz, long i) {
  double s = r[i];
  const double d = x[i];
  for (long dz = -1; dz <= 1; dz++) {
    for (long dy = -1; dy <= 1; dy++) {
      const long p = i + dz * sz + dy * sy;
      if (dz == 0 && dy == 0) {
        s += x[p - 1];
        s -= 26.0 * d;
        s += x[p + 1];
      } else {
        s += x[p - 1];
        s += x[p];
        s += x[p + 1];
      }
    }
  }
  s += d * 26.0;
  x[i] = s / 26.0;
}

/* One symmetric Gauss-Seidel sweep for A x = r (ComputeSYMGS_ref). Buffers r, x. */
void hpcg_symgs(const TtgKernelCall* c) {
  const double* r = (const double*)c->buffers[0];
  double* x = (double*)c->buffers[1];
  DIMS;
  FOR_LINES(b) {
    for (long i = b; i < b + nx; i++) relax(x, r, sy, sz, i);
  }
  for (long iz = nz - 1; iz >= 0; iz--) {
    for (long iy = ny - 1; iy >= 0; iy--) {
      const long b = line(iy, iz, sy, sz);
      for (long i = b + nx - 1; i >= b; i--) relax(x, r, sy, sz, i);
    }
  }
}

/* w = alpha x + beta y (ComputeWAXPBY_ref, with its special cases). Buffers x, y, w; scalars
 * nx, ny, nz, alpha, beta. */
void hpcg_waxpby(const TtgKernelCall* c) {
  const double* x = (const double*)c->buffers[0];
  const double* y = (const double*)c->buffers[1];
  double* w = (double*)c->buffers[2];
  DIMS;
  const double alpha = c->scalars[3], beta = c->scalars[4];
  FOR_LINES(b) {
    if (alpha == 1.0) {
      for (long i = b; i < b + nx; i++) w[i] = x[i] + beta * y[i];
    } else if (beta == 1.0) {
      for (long i = b; i < b + nx; i++) w[i] = alpha * x[i] + y[i];
    } else {
      for (long i = b; i < b + nx; i++) w[i] = alpha * x[i] + beta * y[i];
    }
  }
}

/* out[0] = this rank's part of x . y (ComputeDotProduct_ref before its MPI_Allreduce). Buffers
 * x, y, out. */
void hpcg_dot(const TtgKernelCall* c) {
  const double* x = (const double*)c->buffers[0];
  const double* y = (const double*)c->buffers[1];
  double* out = (double*)c->buffers[2];
  DIMS;
  double s = 0.0;
  FOR_LINES(b) {
    for (long i = b; i < b + nx; i++) s += x[i] * y[i];
  }
  out[0] = s;
}

/* rc = rf - Axf at the injected points (ComputeRestriction_ref). Buffers rf, axf, rc, f2c (the
 * fine index of each coarse point); scalars: the coarse block's nx, ny, nz. */
void hpcg_restrict(const TtgKernelCall* c) {
  const double* rf = (const double*)c->buffers[0];
  const double* axf = (const double*)c->buffers[1];
  double* rc = (double*)c->buffers[2];
  const int* f2c = (const int*)c->buffers[3];
  DIMS;
  long row = 0;
  FOR_LINES(b) {
    for (long i = b; i < b + nx; i++, row++) rc[i] = rf[f2c[row]] - axf[f2c[row]];
  }
}

/* xf += xc at the injected points (ComputeProlongation_ref). Buffers xc, xf, f2c; scalars: the
 * coarse block's nx, ny, nz. */
void hpcg_prolong(const TtgKernelCall* c) {
  const double* xc = (const double*)c->buffers[0];
  double* xf = (double*)c->buffers[1];
  const int* f2c = (const int*)c->buffers[2];
  DIMS;
  long row = 0;
  FOR_LINES(b) {
    for (long i = b; i < b + nx; i++, row++) xf[f2c[row]] += xc[i];
  }
}

/* v = value at the owned points (ghosts are left alone). Buffer v; scalars nx, ny, nz, value. */
void hpcg_fill(const TtgKernelCall* c) {
  double* v = (double*)c->buffers[0];
  DIMS;
  const double value = c->scalars[3];
  FOR_LINES(b) {
    for (long i = b; i < b + nx; i++) v[i] = value;
  }
}

/* to = from at the owned points. Buffers from, to. */
void hpcg_copy(const TtgKernelCall* c) {
  const double* from = (const double*)c->buffers[0];
  double* to = (double*)c->buffers[1];
  DIMS;
  FOR_LINES(b) {
    for (long i = b; i < b + nx; i++) to[i] = from[i];
  }
}
