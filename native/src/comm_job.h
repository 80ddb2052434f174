// Runs a TtgCommJob (native/include/ttg_seams.h) on the comm thread, for either transport.
#pragma once

#include "messages.h"

namespace ttg {

// Runs `cmd.job` with `comm` (an MPI_Comm*, or nullptr without MPI: then a failed completion).
Completion run_comm_job(const CollCmd& cmd, const void* comm);

}  // namespace ttg
