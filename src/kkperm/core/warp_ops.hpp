#pragma once
/**
 * @brief Lane-level operations of one warp of a team (W = 32 lanes on CUDA, W = 1 on host
 * backends, where a team is one thread): ballot, exclusive scan, segment masks, lane sync.
 *
 * Usage (inside a team kernel whose W consecutive team ranks form one CUDA warp):
 *   const unsigned m = kkperm::detail::warp_ballot(flag);           // bit l: lane l's flag
 *   const auto ex = kkperm::detail::warp_exclusive_scan(v, lane, W); // sum of v over lanes < lane
 * Preconditions: every lane of the warp calls each function (no divergent call sites); W is 32
 * on CUDA and 1 elsewhere. Lane groups: with W < 32 (a power of two) and mask =
 * lane_group_mask(hardware lane, W), the W lanes of each group call together and groups may
 * diverge from each other (the shuffles stay within the group). Kokkos 3.4 exposes no portable
 * ballot or lane scan for team threads, hence these few intrinsics behind __CUDA_ARCH__.
 */
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

namespace kkperm::detail {

/// Orders the lanes of one CUDA warp (a no-op elsewhere); `mask`: the lanes taking part (a lane
/// group of a warp, see lane_group_mask).
KOKKOS_INLINE_FUNCTION void sync_warp_lanes(unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  __syncwarp(mask);
#else
  (void)mask;
#endif
}

/// Mask of the G-lane group (G a power of two <= 32) that hardware lane `hw_lane` belongs to.
KOKKOS_INLINE_FUNCTION unsigned lane_group_mask(int hw_lane, int G) {
  return G >= 32 ? 0xffffffffu : (((1u << G) - 1u) << (hw_lane & ~(G - 1)));
}

/// The group of team rank `tr` (team threads with vector length 1, so tr % 32 is the hardware
/// lane) for W-lane groups: lane within the group, group within the team, the group's lane mask
/// and the group's first hardware lane.
struct LaneGroup {
  int lane, row;
  unsigned mask;
  int base;
};
KOKKOS_INLINE_FUNCTION LaneGroup lane_group_of(int tr, int W) {
  const int hw = tr % 32;
  return LaneGroup{tr % W, tr / W, lane_group_mask(hw, W), hw & ~(W - 1)};
}

/// Bit l set when lane l's predicate is true (host: bit 0 = the one lane).
/// With a group `mask`, only its lanes take part and the bits stay at hardware lane positions.
KOKKOS_INLINE_FUNCTION unsigned warp_ballot(bool pred, unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  return __ballot_sync(mask, pred);
#else
  (void)mask;
  return pred ? 1u : 0u;
#endif
}

/// Lanes of `mask` whose `v` equals this lane's (this lane included; host: bit 0). Every lane of
/// `mask` calls it.
KOKKOS_INLINE_FUNCTION unsigned warp_match_any(unsigned mask, long long v) {
#if defined(__CUDA_ARCH__)
  return __match_any_sync(mask, v);
#else
  (void)mask;
  (void)v;
  return 1u;
#endif
}

/// Number of set bits of a 32-bit mask.
KOKKOS_INLINE_FUNCTION int popcount32u(unsigned v) {
#if defined(__CUDA_ARCH__)
  return __popc(v);
#else
  int c = 0;
  for (; v != 0u; v &= v - 1u) ++c;
  return c;
#endif
}

/// Bits needed to hold the values 0..v (0 for v = 0); host code (key widths, packed words).
inline int bits_for(std::uint64_t v) {
  int b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}

/// Index of the lowest set bit of a non-zero mask.
KOKKOS_INLINE_FUNCTION int lowest_bit32(unsigned v) {
#if defined(__CUDA_ARCH__)
  return __ffs(v) - 1;
#else
  int b = 0;
  while (((v >> b) & 1u) == 0u) ++b;
  return b;
#endif
}

/// Lanes [lane, next head) where `heads` marks the first lane of each segment of a warp of W
/// lanes and `lane` is a head: the lanes of lane's segment.
KOKKOS_INLINE_FUNCTION unsigned segment_mask(unsigned heads, int lane, int W) {
  const unsigned at_or_below = lane >= 31 ? 0xffffffffu : ((2u << lane) - 1u);
  const unsigned above = heads & ~at_or_below;
  const int end = above != 0u ? lowest_bit32(above) : W;
  const unsigned below_end = end >= 32 ? 0xffffffffu : ((1u << end) - 1u);
  return below_end & (0xffffffffu << lane);
}

/// Index of the highest set bit of a non-zero mask.
KOKKOS_INLINE_FUNCTION int highest_bit32(unsigned v) {
#if defined(__CUDA_ARCH__)
  return 31 - __clz(v);
#else
  int b = 31;
  while (((v >> b) & 1u) == 0u) --b;
  return b;
#endif
}

/// Largest v over the W lanes of the warp, on every lane.
KOKKOS_INLINE_FUNCTION std::int64_t warp_max(std::int64_t v, int W, unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  long long x = v;
  for (int d = W / 2; d >= 1; d >>= 1) {
    const long long y = __shfl_xor_sync(mask, x, d, W);
    if (y > x) x = y;
  }
  return static_cast<std::int64_t>(x);
#else
  (void)W;
  (void)mask;
  return v;
#endif
}

/// Smallest `lo` and largest `hi` over the W lanes of the caller's group, on every lane of it
/// (host: unchanged); 4- or 8-byte integers. Every lane of `mask` calls it.
template <class T>
KOKKOS_INLINE_FUNCTION void warp_min_max(T& lo, T& hi, int W, unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  for (int d = W / 2; d >= 1; d >>= 1) {
    T a, b;
    if constexpr (sizeof(T) == 8) {
      a = static_cast<T>(__shfl_xor_sync(mask, static_cast<long long>(lo), d, W));
      b = static_cast<T>(__shfl_xor_sync(mask, static_cast<long long>(hi), d, W));
    } else {
      static_assert(sizeof(T) == 4, "warp_min_max: 4- or 8-byte integers");
      a = static_cast<T>(__shfl_xor_sync(mask, static_cast<int>(lo), d, W));
      b = static_cast<T>(__shfl_xor_sync(mask, static_cast<int>(hi), d, W));
    }
    if (a < lo) lo = a;
    if (b > hi) hi = b;
  }
#else
  (void)lo;
  (void)hi;
  (void)W;
  (void)mask;
#endif
}

/// Sum of v over the lanes below `lane` (lane 0 gets 0); W-lane groups (lane = index in the
/// group, mask = the group's lanes when W < 32).
KOKKOS_INLINE_FUNCTION std::int64_t warp_exclusive_scan(std::int64_t v, int lane, int W,
                                                        unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  long long x = v;
  for (int d = 1; d < W; d <<= 1) {
    const long long y = __shfl_up_sync(mask, x, d, W);
    if (lane >= d) x += y;
  }
  return static_cast<std::int64_t>(x) - v;
#else
  (void)v;
  (void)lane;
  (void)W;  // one lane per warp on host backends
  (void)mask;
  return 0;
#endif
}

/// warp_exclusive_scan for 4-byte values whose group total fits an int (one shuffle a step
/// instead of two).
KOKKOS_INLINE_FUNCTION int warp_exclusive_scan32(int v, int lane, int W, unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  int x = v;
  for (int d = 1; d < W; d <<= 1) {
    const int y = __shfl_up_sync(mask, x, d, W);
    if (lane >= d) x += y;
  }
  return x - v;
#else
  (void)v;
  (void)lane;
  (void)W;
  (void)mask;
  return 0;
#endif
}

/// v of lane (this lane ^ d) within groups of W lanes (host: v itself); 4- or 8-byte integers.
/// `mask`: the lanes taking part (a W-lane group's, when groups may diverge).
template <class T>
KOKKOS_INLINE_FUNCTION T warp_shfl_xor(T v, int d, int W, unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>(__shfl_xor_sync(mask, static_cast<long long>(v), d, W));
  } else {
    static_assert(sizeof(T) == 4, "warp_shfl_xor: 4- or 8-byte integers");
    return static_cast<T>(__shfl_xor_sync(mask, static_cast<int>(v), d, W));
  }
#else
  (void)d;
  (void)W;
  (void)mask;
  return v;
#endif
}

/// v of lane `src` of the warp (host: v itself); 4- or 8-byte integers, float or double. Every
/// lane calls it. With W < 32, `src` is the lane within the caller's W-lane group and `mask` that
/// group's lanes.
template <class T>
KOKKOS_INLINE_FUNCTION T warp_shfl_idx(T v, int src, int W, unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_floating_point<T>::value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "warp_shfl_idx: float or double");
    return __shfl_sync(mask, v, src, W);
  } else if constexpr (sizeof(T) == 8) {
    return static_cast<T>(__shfl_sync(mask, static_cast<long long>(v), src, W));
  } else {
    static_assert(sizeof(T) == 4, "warp_shfl_idx: 4- or 8-byte integers");
    return static_cast<T>(__shfl_sync(mask, static_cast<int>(v), src, W));
  }
#else
  (void)src;
  (void)W;
  (void)mask;
  return v;
#endif
}

/// Sum of v over the W lanes of the warp, on every lane (host: v).
KOKKOS_INLINE_FUNCTION std::int64_t warp_sum(std::int64_t v, int W, unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  long long x = v;
  for (int d = W / 2; d >= 1; d >>= 1) x += __shfl_xor_sync(mask, x, d, W);
  return static_cast<std::int64_t>(x);
#else
  (void)W;
  (void)mask;
  return v;
#endif
}

/// warp_sum for 4-byte values whose sum fits an int.
KOKKOS_INLINE_FUNCTION int warp_sum32(int v, int W, unsigned mask = 0xffffffffu) {
#if defined(__CUDA_ARCH__)
  for (int d = W / 2; d >= 1; d >>= 1) v += __shfl_xor_sync(mask, v, d, W);
  return v;
#else
  (void)W;
  (void)mask;
  return v;
#endif
}

/// v of lane (this lane + d) within groups of W lanes (undefined for the last d lanes of a
/// group; host: v itself); 4-byte integers.
KOKKOS_INLINE_FUNCTION int warp_shfl_down(int v, int d, int W) {
#if defined(__CUDA_ARCH__)
  return __shfl_down_sync(0xffffffffu, v, d, W);
#else
  (void)d;
  (void)W;
  return v;
#endif
}

/**
 * Copies src[k] to dst[at(k)] for k = lane, lane + W, ... below n (dst in team scratch, src in
 * global memory; 4- or 8-byte elements), then orders the warp's lanes. On CUDA sm_80 and newer
 * every copy of a lane is issued at once with cp.async (no register holds a value in flight) and
 * waited for once; elsewhere plain loads and stores. (H100 run 84: with it, and the Kokkos
 * reduction epilogue gone, the entry-step feature pass on 1-63 random columns per row went from
 * 346 to 307 us; the thread-per-row pass was within noise of plain loads, run 85.)
 */
template <class T, class At>
KOKKOS_INLINE_FUNCTION void warp_stage(T* dst, const T* src, std::int64_t n, int lane, int W, const At& at) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "warp_stage: 4- or 8-byte elements");
  for (std::int64_t k = lane; k < n; k += W) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst + at(k)));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(src + k), "n"(int(sizeof(T))) : "memory");
  }
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#else
  for (std::int64_t k = lane; k < n; k += W) dst[at(k)] = src[k];
#endif
  sync_warp_lanes();
}

}  // namespace kkperm::detail
