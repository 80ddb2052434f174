// bench:irregular's histogram and index-gather in plain MPI, as jobs for ttg_native's comm thread
// (ttg_seams.h): the baselines its fine-grained ttg programs are compared with.
#pragma once

#include "owned_job.h"

namespace ttg_bench {

enum class IrregularKind { Histogram, Gather };

struct IrregularParams {
  IrregularKind kind = IrregularKind::Histogram;
  bool buffered = false;
  int n = 0;         // updates or requests made by each rank
  int per_rank = 0;  // counters or table entries owned by each rank
  int buffer = 0;    // records per destination buffer, when buffered
};

// A job in which every rank makes `n` random picks among `per_rank * size` entries (entry c lives
// on rank c % size, in its slot c / size) and sends each remote one to its owner, local ones being
// handled in place. Histogram: the owner increments counter c. Gather: the owner replies with
// table entry c, (slot * size + owner) * 0.5, and the asker checks it. Naive sends a message per
// record; buffered gathers them per destination (exstack-style) and sends a buffer when full,
// replies alike. Its result is {seconds from a barrier before the first pick to a barrier after the
// last message, check}: the rank's sum of its counters (histogram), or the requests it made that
// were answered wrongly or not at all (gather). Free it with free_job<IrregularParams> once it has run.
TtgCommJob* make_irregular_job(const IrregularParams& p);

}  // namespace ttg_bench
