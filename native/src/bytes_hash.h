// XXH64 of a byte range (the published xxHash64 algorithm, seed 0), for change detection of
// large host arrays in place: the same value xxhash-wasm's h64Raw gives, without copying the
// bytes into wasm memory first.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ttg {

std::uint64_t xxh64(const void* data, std::size_t bytes);

// Change detection for arrays of any size: XXH64 up to kHashChunk bytes; beyond, XXH64 of the
// XXH64s of its kHashChunk-byte chunks, hashed on several threads (the chunks do not depend on
// the thread count, so neither does the value).
constexpr std::size_t kHashChunk = std::size_t(1) << 20;
std::uint64_t hash_bytes(const void* data, std::size_t bytes);

// memcpy(dst, src, bytes) that returns hash_bytes(dst, bytes): each chunk is hashed right after
// it is copied, while it is still in cache, on up to `max_threads` threads (chunk helpers).
std::uint64_t copy_and_hash(void* dst, const void* src, std::size_t bytes, int max_threads);

}  // namespace ttg
