// XXH64 of a byte range (the published xxHash64 algorithm, seed 0), for change detection of
// large host arrays in place: the same value xxhash-wasm's h64Raw gives, without copying the
// bytes into wasm memory first.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ttg {

std::uint64_t xxh64(const void* data, std::size_t bytes);

}  // namespace ttg
