// MPI counts are ints: a buffer of 2 GiB or more is sent, received or broadcast as consecutive
// chunks of at most TTG_MPI_CHUNK_BYTES (1 GiB; smaller in tests), each its own request. The chunks of one buffer share tag and
// communicator, so MPI's non-overtaking order pairs the sender's chunks with the receiver's in turn
// (and a broadcast's in call order), straight into the destination memory.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ttg {

// Starts `start(pointer, count, request)` for each chunk of at most `chunk` bytes of
// [data, data + bytes) (one for an empty buffer), appending the requests to `reqs`; stops at the
// first call that fails and returns its code.
template <typename Start>
int start_chunks(void* data, std::size_t bytes, std::size_t chunk, std::vector<MPI_Request>& reqs, Start&& start) {
  auto* p = static_cast<std::uint8_t*>(data);
  std::size_t left = bytes;
  do {
    const std::size_t n = left < chunk ? left : chunk;
    reqs.push_back(MPI_REQUEST_NULL);
    const int rc = start(p, static_cast<int>(n), &reqs.back());
    if (rc != MPI_SUCCESS) {
      reqs.back() = MPI_REQUEST_NULL;  // not started: nothing to wait for
      return rc;
    }
    p += n;
    left -= n;
  } while (left != 0);
  return MPI_SUCCESS;
}

}  // namespace ttg
