/* The zones example's solver sweep as a native kernel (native/include/ttg_kernel.h): `reps` Jacobi
 * sweeps over a zone of w x h points stored with a one-point ghost ring ((w + 2) x (h + 2), row
 * major). Buffers: u (the zone, ghost ring filled: read, and overwritten with the result) and v
 * (scratch of the same size). Scalars: w, h, alpha, reps. The same operations in the same order as
 * zones.ts's sweep(), so results are bitwise equal (build without contraction). */
#include <string.h>

#include "ttg_kernel.h"

void zone_sweep(const TtgKernelCall* c) {
  double* u = (double*)c->buffers[0];
  double* v = (double*)c->buffers[1];
  const long w = (long)c->scalars[0], h = (long)c->scalars[1];
  const double alpha = c->scalars[2];
  const long reps = (long)c->scalars[3];
  const long s = w + 2;
  for (long rep = 0; rep < reps; rep++) {
    for (long y = 1; y <= h; y++) {
      for (long x = 1; x <= w; x++) {
        const long i = y * s + x;
        v[i] = u[i] + alpha * (u[i - s] + u[i + s] + u[i - 1] + u[i + 1] - 4 * u[i]);
      }
    }
    for (long y = 1; y <= h; y++) memcpy(u + y * s + 1, v + y * s + 1, (size_t)w * sizeof(double));
  }
}
