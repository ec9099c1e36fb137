#pragma once
/**
 * @brief The pieces of kkperm's order-independent hash of sparse structures: index_hash of one
 * index at one position of one array, the salts that tell the four arrays of a product's two
 * structures apart, the slot count partial sums go to, and the finish step.
 *
 * The hash of (A, B) is the wrapping 64-bit sum of index_hash(pos, value, salt) over every
 * position of A's entries, A's row_map, B's entries and B's row_map (salts kSaltEntriesA, ...),
 * xor mix64 of their total length. Any kernel may add any subset of the terms into any of the
 * kHashSlots slots: the sum does not depend on who added what, so the SpGEMM plan's validation
 * pass (crs_utils.hpp, which reads those arrays anyway) and the standalone hash kernel
 * (spgemm/esc_kernels.hpp, structure_hash2_launch) give the same number.
 * Usage: h = structure_hash_finish(slots read back, total length).
 */
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kkperm::detail {

/// Partial sums a hashing kernel spreads its atomics over.
inline constexpr int kHashSlots = 32;

/// Salts of the four arrays of a product's structures.
inline constexpr std::uint32_t kSaltEntriesA = 0x1u;
inline constexpr std::uint32_t kSaltRowMapA = 0x2B7E1516u;
inline constexpr std::uint32_t kSaltEntriesB = 0x28AED2A6u;
inline constexpr std::uint32_t kSaltRowMapB = 0xABF71588u;

/// splitmix64 finaliser (mixes the total length into the hash).
KOKKOS_INLINE_FUNCTION std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Hash of one index value at position `pos` of a structure array (`salt` tells the arrays
/// apart): 32-bit multiplies only (murmur3's finaliser), summed in 64 bits by the caller. A 64-bit
/// splitmix per index made the check compute-bound (three emulated 64-bit multiplies per index:
/// 45 us for 12 M indices on the H100, session 7).
KOKKOS_INLINE_FUNCTION std::uint64_t index_hash(std::uint64_t pos, std::uint64_t value, std::uint32_t salt) {
  std::uint32_t h = static_cast<std::uint32_t>(pos) * 0x9E3779B1u ^ static_cast<std::uint32_t>(pos >> 32) ^
                    (static_cast<std::uint32_t>(value) + static_cast<std::uint32_t>(value >> 32) * 0x7FEB352Du) ^ salt;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

/// The hash from the kHashSlots partial sums (read back) and the number of indices covered.
inline std::uint64_t structure_hash_finish(const std::int64_t* host_slots, std::int64_t len) {
  std::uint64_t h = 0;
  for (int k = 0; k < kHashSlots; ++k) h += static_cast<std::uint64_t>(host_slots[k]);
  return h ^ mix64(static_cast<std::uint64_t>(len));
}

}  // namespace kkperm::detail
