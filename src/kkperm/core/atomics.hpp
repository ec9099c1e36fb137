#pragma once
/**
 * @brief Integer atomics that map to one hardware instruction on every backend.
 *
 * Kokkos 3.4 has native CUDA overloads of atomic_add / atomic_fetch_add for int, unsigned int and
 * unsigned long long only; `long` (std::int64_t on Linux) falls to its generic compare-and-swap
 * loop, which collapses under contention: the feature kernel that summed per-warp loads with
 * int64 atomics on 64 addresses took 4.4 ms on a 10 M-nnz stencil (ncu, H100, session 3), the
 * same sums through unsigned long long take microseconds. Two's-complement addition is the same
 * modulo 2^64, so signed 64-bit sums go through the unsigned type bit for bit.
 *
 * Usage: kkperm::atomic_add_i64(&view(i), delta); auto old = kkperm::atomic_fetch_add_i64(p, d);
 */
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

namespace kkperm {

static_assert(sizeof(unsigned long long) == sizeof(std::int64_t), "64-bit atomics need a 64-bit ULL");

/// *p += v atomically (one native 64-bit atomic add).
template <class T>
KOKKOS_INLINE_FUNCTION void atomic_add_i64(T* p, T v) {
  static_assert(std::is_integral<T>::value && sizeof(T) == 8, "atomic_add_i64: 64-bit integers only");
  Kokkos::atomic_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

/// Returns the old *p and adds v atomically (one native 64-bit atomic).
template <class T>
KOKKOS_INLINE_FUNCTION T atomic_fetch_add_i64(T* p, T v) {
  static_assert(std::is_integral<T>::value && sizeof(T) == 8, "atomic_fetch_add_i64: 64-bit integers only");
  return static_cast<T>(Kokkos::atomic_fetch_add(reinterpret_cast<unsigned long long*>(p),
                                                 static_cast<unsigned long long>(v)));
}

/// *p = max(*p, v) atomically for 64-bit integers compared as unsigned (one native atomic on CUDA).
template <class T>
KOKKOS_INLINE_FUNCTION void atomic_max_u64(T* p, T v) {
  static_assert(std::is_integral<T>::value && sizeof(T) == 8, "atomic_max_u64: 64-bit integers only");
  Kokkos::atomic_fetch_max(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

/// Integer atomic add on any integer width: native for 32-bit, through atomic_add_i64 for 64-bit.
template <class T>
KOKKOS_INLINE_FUNCTION void atomic_add_int(T* p, T v) {
  if constexpr (sizeof(T) == 8) atomic_add_i64(p, v);
  else Kokkos::atomic_add(p, v);
}

/// Fetch-and-add on any integer width (native for 32-bit and, through the unsigned type, 64-bit).
template <class T>
KOKKOS_INLINE_FUNCTION T atomic_fetch_add_int(T* p, T v) {
  if constexpr (sizeof(T) == 8) return atomic_fetch_add_i64(p, v);
  else return Kokkos::atomic_fetch_add(p, v);
}

/**
 * *p += 1 for every calling thread. On CUDA the calling lanes of a warp that target the same
 * address combine first (__match_any_sync over the active lanes) and one lane adds their count,
 * so neighbouring rows that touch the same counter cost one atomic per warp instead of one per
 * lane (the feature pass counts (row, line) pairs: on a 2D stencil the 32 rows of a warp touch
 * 2-3 lines per band). Elsewhere one atomic per call. Integer counters only.
 */
template <class T>
KOKKOS_INLINE_FUNCTION void atomic_increment_aggregated(T* p) {
  static_assert(std::is_integral<T>::value && sizeof(T) == 4, "atomic_increment_aggregated: 32-bit integers only");
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 700)
  const unsigned active = __activemask();
  const unsigned peers = __match_any_sync(active, reinterpret_cast<unsigned long long>(p));
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  if (lane == static_cast<unsigned>(__ffs(peers) - 1)) atomicAdd(p, static_cast<T>(__popc(peers)));
#else
  Kokkos::atomic_add(p, T(1));
#endif
}

}  // namespace kkperm
