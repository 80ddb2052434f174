// Runs one TtgOp on the calling thread: OpenBLAS/LAPACKE when linked (TTG_HAVE_BLAS), else plain
// loops. Used by every stream of the kernel pool (host and emulated backends).
#pragma once

#include <string>

#include "device_op.h"

namespace ttg {

void run_host_op(const TtgOp& op);

// Milliseconds of the steady clock (what TTG_OP_STAMP records).
double steady_ms();

// Makes BLAS single-threaded per call (each pool thread is one stream); returns the BLAS's
// thread count afterwards (1 when the call worked; 1 without BLAS).
int host_blas_single_threaded();

// "openblas ... (single-threaded per call)" or "loops (built without BLAS)".
std::string host_kernels_description();

}  // namespace ttg
