/* The heat example's interior update as a native kernel (see native/include/ttg_kernel.h):
 * buffers u (the block, h x w, row-major) and v (the new block), scalars h, w, alpha. The same
 * operations in the same order as grid.ts's cell(), so the results are bitwise equal; build
 * without floating-point contraction (-ffp-contract=off) to keep them so. */
#include "ttg_kernel.h"

void heat_interior(const TtgKernelCall* c) {
  const double* u = (const double*)c->buffers[0];
  double* v = (double*)c->buffers[1];
  const long h = (long)c->scalars[0], w = (long)c->scalars[1];
  const double alpha = c->scalars[2];
  for (long r = 1; r < h - 1; r++) {
    for (long col = 1; col < w - 1; col++) {
      const long x = r * w + col;
      v[x] = u[x] + alpha * (u[x - w] + u[x + w] + u[x - 1] + u[x + 1] - 4 * u[x]);
    }
  }
}
