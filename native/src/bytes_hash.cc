#include "bytes_hash.h"

#include <cstring>
#include <vector>

#include "byte_chunks.h"
#include "cores.h"

namespace ttg {
namespace {

constexpr std::uint64_t P1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t P2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t P3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t P4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t P5 = 0x27D4EB2F165667C5ULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline std::uint64_t read64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);  // little-endian hosts only (x86-64, aarch64), as the addon is built for
  return v;
}

inline std::uint32_t read32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline std::uint64_t round(std::uint64_t acc, std::uint64_t input) { return rotl(acc + input * P2, 31) * P1; }

inline std::uint64_t merge(std::uint64_t acc, std::uint64_t v) { return (acc ^ round(0, v)) * P1 + P4; }

}  // namespace

std::uint64_t xxh64(const void* data, std::size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  const unsigned char* const end = p + bytes;
  std::uint64_t h;
  if (bytes >= 32) {
    std::uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
    for (const unsigned char* const last = end - 32; p <= last; p += 32) {
      v1 = round(v1, read64(p));
      v2 = round(v2, read64(p + 8));
      v3 = round(v3, read64(p + 16));
      v4 = round(v4, read64(p + 24));
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else {
    h = P5;
  }
  h += bytes;
  for (; end - p >= 8; p += 8) h = rotl(h ^ round(0, read64(p)), 27) * P1 + P4;
  if (end - p >= 4) {
    h = rotl(h ^ (static_cast<std::uint64_t>(read32(p)) * P1), 23) * P2 + P3;
    p += 4;
  }
  for (; p < end; ++p) h = rotl(h ^ (*p * P5), 11) * P1;
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

std::uint64_t hash_bytes(const void* data, std::size_t bytes) {
  if (bytes <= kHashChunk) return xxh64(data, bytes);
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::vector<std::uint64_t> parts((bytes + kHashChunk - 1) / kHashChunk);
  for_each_chunk(bytes, kHashChunk, std::min(usable_cores(), 8), [&](std::size_t i, std::size_t at, std::size_t n) {
    parts[i] = xxh64(p + at, n);
  });
  return xxh64(parts.data(), parts.size() * sizeof(std::uint64_t));
}

std::uint64_t copy_and_hash(void* dst, const void* src, std::size_t bytes, int max_threads) {
  unsigned char* d = static_cast<unsigned char*>(dst);
  const unsigned char* s = static_cast<const unsigned char*>(src);
  if (bytes <= kHashChunk) {
    if (bytes != 0) std::memcpy(d, s, bytes);
    return xxh64(d, bytes);
  }
  std::vector<std::uint64_t> parts((bytes + kHashChunk - 1) / kHashChunk);
  for_each_chunk(bytes, kHashChunk, max_threads, [&](std::size_t i, std::size_t at, std::size_t n) {
    std::memcpy(d + at, s + at, n);
    parts[i] = xxh64(d + at, n);
  });
  return xxh64(parts.data(), parts.size() * sizeof(std::uint64_t));
}

}  // namespace ttg
