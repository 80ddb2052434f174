// Built instead of the .cu files when no CUDA compiler was found: the addon then reports
// `compiled: false` and zero devices, and the cuda backend is never chosen.
#include <cstdio>

#include "cuda_api.h"

extern "C" {
int ttg_cuda_compiled(void) { return 0; }
int ttg_cuda_device_count(char* err, size_t errlen) {
  std::snprintf(err, errlen, "addon built without CUDA (no nvcc found at build time)");
  return 0;
}
int ttg_cuda_start(int, int, TtgCudaDone, void*, const char*, char* err, size_t errlen) {
  std::snprintf(err, errlen, "addon built without CUDA");
  return 1;
}
const char* ttg_cuda_kernels(void) { return ""; }
void ttg_cuda_stop(void) {}
void* ttg_cuda_malloc(int, size_t) { return nullptr; }
void ttg_cuda_free(int, void*) {}
int ttg_cuda_mem_info(int, size_t*, size_t*) { return 1; }
int ttg_cuda_enqueue(const TtgOp*, char* err, size_t errlen) {
  std::snprintf(err, errlen, "addon built without CUDA");
  return 1;
}
}
