// A program's own kernels (native/include/ttg_kernel.h): loaded from shared libraries, called as
// TTG_OP_USER ops whose p[0] is a UserCall. The pool's worker runs and frees a call; the CUDA
// backend runs it while enqueueing (it launches on the stream) and the glue frees it.
#pragma once

#include <stddef.h>

#include "device_op.h"

#ifdef __cplusplus
#include <string>
#include <vector>

#include "../include/ttg_kernel.h"

namespace ttg {

// One call of a user kernel: the function for the backend and its operands (owned).
struct UserCall {
  TtgKernelFn fn;
  std::vector<void*> buffers;
  std::vector<size_t> lengths;
  std::vector<double> scalars;
};

// Looks up `symbol` in the shared library at `path` (loaded once); throws std::runtime_error.
TtgKernelFn load_user_kernel(const std::string& path, const std::string& symbol);

}  // namespace ttg

extern "C" {
#endif

// Runs the UserCall in op->p[0] with `stream` (NULL on the host pool); does not free it.
int ttg_run_user_op(const TtgOp* op, void* stream);
// Frees the UserCall in op->p[0] (the pool's worker, after running it).
void ttg_free_user_op(const TtgOp* op);

#ifdef __cplusplus
}
#endif
