// Work over a large byte range split into fixed chunks, spread over a few helper threads.
// A single core reads or writes memory at a fraction of what the memory system gives several,
// so hashing or staging a large tile on one thread leaves most of the bandwidth unused.
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>

namespace ttg {

// Calls fn(i, offset, length) once for each chunk i of `bytes` cut every `chunk` bytes (the last
// one shorter), on the calling thread and on up to `max_threads - 1` of the process's chunk
// helpers (started on first use, one fewer than the usable cores, at most 7). Returns when all
// are done. Callable from any thread, several at once.
void for_each_chunk(std::size_t bytes, std::size_t chunk, int max_threads,
                    const std::function<void(std::size_t, std::size_t, std::size_t)>& fn);

// memcpy of a large range on up to `max_threads` threads, 1 MiB at a time.
inline void copy_in_chunks(void* dst, const void* src, std::size_t bytes, int max_threads) {
  if (bytes <= (std::size_t(1) << 21) || max_threads <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  for_each_chunk(bytes, std::size_t(1) << 20, max_threads, [&](std::size_t, std::size_t at, std::size_t n) {
    std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, n);
  });
}

}  // namespace ttg
