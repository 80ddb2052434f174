// MPI error checks that say where and why: file:line, the failing call, and MPI's own text.
// They throw; the comm thread turns the exception into an error event or a rejected promise.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace ttg {

[[noreturn]] inline void mpi_fail(int rc, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) std::snprintf(text, sizeof text, "code %d", rc);
  throw std::runtime_error(std::string("MPI error at ") + file + ":" + std::to_string(line) + " in " +
                           call + ": " + text);
}

}  // namespace ttg

#define TTG_CHECK_MPI(call)                                            \
  do {                                                                 \
    int ttg_mpi_rc_ = (call);                                          \
    if (ttg_mpi_rc_ != MPI_SUCCESS) ::ttg::mpi_fail(ttg_mpi_rc_, #call, __FILE__, __LINE__); \
  } while (0)
