// Our own CUDA tile kernels for the SPEC §5 kernel set (no cuBLAS/cuSOLVER needed), launched
// on a given stream by cuda_backend.cu. Column-major, BLAS conventions. Included only by .cu files.
#pragma once

#include <cuda_runtime.h>

#include "device_op.h"

// Launches the kernel(s) for a BLAS-like op on `s`; returns the launch error.
cudaError_t ttg_cuda_launch(const TtgOp& op, cudaStream_t s);
