// Work over a large byte range split into fixed chunks, spread over a few short-lived threads.
// A single core reads or writes memory at a fraction of what the memory system gives several,
// so hashing or staging a large tile on one thread leaves most of the bandwidth unused.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

namespace ttg {

// Calls fn(i, offset, length) once for each chunk i of `bytes` cut every `chunk` bytes (the last
// one shorter), on the calling thread and up to `max_threads - 1` more. Returns when all are done.
template <typename F>
void for_each_chunk(std::size_t bytes, std::size_t chunk, int max_threads, F&& fn) {
  const std::size_t n = bytes == 0 ? 0 : (bytes + chunk - 1) / chunk;
  const std::size_t helpers = std::min<std::size_t>(n == 0 ? 0 : n - 1, static_cast<std::size_t>(std::max(1, max_threads) - 1));
  std::atomic<std::size_t> next{0};
  auto run = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) fn(i, i * chunk, std::min(chunk, bytes - i * chunk));
  };
  std::vector<std::thread> threads;
  threads.reserve(helpers);
  for (std::size_t t = 0; t < helpers; ++t) threads.emplace_back(run);
  run();
  for (auto& t : threads) t.join();
}

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
