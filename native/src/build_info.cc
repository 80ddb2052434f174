#include "build_info.h"

#if TTG_HAVE_MPI
#include <mpi.h>
#endif
#if TTG_HAVE_BLAS
#include <cblas.h>
#endif

#ifndef TTG_NATIVE_VERSION
#define TTG_NATIVE_VERSION "0.0.0"
#endif

namespace ttg {

BuildInfo build_info() {
  BuildInfo b{TTG_HAVE_MPI != 0, TTG_HAVE_BLAS != 0, TTG_HAVE_CUDA != 0, TTG_NATIVE_VERSION, ""};
#if TTG_HAVE_MPI
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(lib, &len);  // allowed before MPI_Init
  std::string first(lib, static_cast<std::size_t>(len));
  first = first.substr(0, first.find_first_of(",\n"));
  b.details += "MPI: " + first;
#else
  b.details += "MPI: off";
#endif
#if TTG_HAVE_BLAS
  b.details += std::string("; BLAS: ") + openblas_get_config();
#else
  b.details += "; BLAS: off";
#endif
  b.details += TTG_HAVE_CUDA ? "; CUDA: compiled (nvcc)" : "; CUDA: off";
  return b;
}

}  // namespace ttg
