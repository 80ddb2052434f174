// Whether this process was started by an MPI launcher. We only initialise MPI then: a plain
// `node app.js` must not pay for (or fail in) MPI_Init, and is rank 0 of 1.
#pragma once

#include <cstdlib>

namespace ttg {

inline bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

}  // namespace ttg
