#pragma once
/**
 * @brief Exact integer statistics (count, min, max, sum, sum of squares) usable as a Kokkos
 * reduction value, and their conversion to min/mean/max/sigma on the host.
 *
 * Integer sums are order-independent, so a device reduction and its serial twin produce the
 * same bits; sigma is formed on the host from the exact integers (128-bit numerator), so the
 * only rounding is the final division and square root.
 */
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kkperm/core/launch_policy.hpp"

namespace kkperm::detail {

struct IntStat {
  std::int64_t count;
  std::int64_t min;
  std::int64_t max;
  std::int64_t sum;
  std::int64_t sumsq;

  KOKKOS_INLINE_FUNCTION void init() {
    count = 0;
    min = INT64_MAX;
    max = INT64_MIN;
    sum = 0;
    sumsq = 0;
  }
  KOKKOS_INLINE_FUNCTION void add(std::int64_t x) {
    ++count;
    if (x < min) min = x;
    if (x > max) max = x;
    sum += x;
    sumsq += x * x;
  }
  KOKKOS_INLINE_FUNCTION void join(const IntStat& o) {
    count += o.count;
    if (o.min < min) min = o.min;
    if (o.max > max) max = o.max;
    sum += o.sum;
    sumsq += o.sumsq;
  }
  KOKKOS_INLINE_FUNCTION void join(const volatile IntStat& o) volatile {
    count += o.count;
    if (o.min < min) min = o.min;
    if (o.max > max) max = o.max;
    sum += o.sum;
    sumsq += o.sumsq;
  }

  // Host-side summaries; an empty statistic (count 0) reports 0 for everything.
  double min_value() const { return count ? double(min) : 0.0; }
  double max_value() const { return count ? double(max) : 0.0; }
  double mean() const { return count ? double(sum) / double(count) : 0.0; }
  /// Population standard deviation, sqrt((n*S2 - S1^2) / n^2) with an exact 128-bit numerator.
  double sigma() const {
    if (count == 0) return 0.0;
    const __int128 num = static_cast<__int128>(count) * sumsq - static_cast<__int128>(sum) * sum;
    const double n = double(count);
    return std::sqrt(double(num) / (n * n));
  }
};

/// K statistics reduced together in one pass.
template <int K>
struct MultiStat {
  IntStat s[K];
  KOKKOS_INLINE_FUNCTION void init() {
    for (int k = 0; k < K; ++k) s[k].init();
  }
  KOKKOS_INLINE_FUNCTION void join(const MultiStat& o) {
    for (int k = 0; k < K; ++k) s[k].join(o.s[k]);
  }
  KOKKOS_INLINE_FUNCTION void join(const volatile MultiStat& o) volatile {
    for (int k = 0; k < K; ++k) s[k].join(o.s[k]);
  }
};

/// Kokkos custom reducer (Kokkos 3.4 reducer concept) for any value with init(), join(const V&)
/// and the volatile join Kokkos 3.4 still calls.
template <class Value, class Space>
struct JoinReducer {
  using reducer = JoinReducer;
  using value_type = Value;
  using result_view_type = Kokkos::View<value_type, Space, Kokkos::MemoryUnmanaged>;

 private:
  result_view_type value_;

 public:
  KOKKOS_INLINE_FUNCTION JoinReducer(value_type& v) : value_(&v) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest.join(src); }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    dest.join(src);
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v.init(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return value_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }
};

/**
 * @brief Reduces body(i, Value&) over i in [0, n) on Exec and returns the joined Value (any type
 * with init()/join(); MultiStat<K>, or a compact accumulator of one pass).
 *
 * Device spaces use a TeamPolicy reduction: Kokkos 3.4's CUDA RangePolicy reduction launches at
 * most block_size blocks of block_size threads, and a 200-byte MultiStat<5> keeps block_size
 * small (a 2 M-row pass ran on ~16 k threads, each walking ~128 rows one after another), while
 * its TeamPolicy reduction reduces statically sized values with warp shuffles over up to 32768
 * blocks. Teams of 128 threads each take a contiguous range of >= 1024 items (consecutive
 * threads read consecutive rows); every thread folds its items into its own Value, which
 * Kokkos then joins. MinBlocks > 1 adds __launch_bounds__(128, MinBlocks) (a register cap for
 * occupancy). Host spaces use the plain RangePolicy reduction. Integer statistics are exact, so
 * both give the same bits.
 * (Tried before, H100 2026-11-21: two passes through a 26 MB per-thread partials buffer; set 1
 * measured 1.13 ms against 0.91 ms, in a run where other kernels were also slower - reverted.)
 */
template <class Exec, class Value, int MinBlocks = 1, class Body>
Value reduce_rows(const char* label, std::int64_t n, const Body& body) {
  Value out;
  out.init();
  if (n <= 0) return out;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible) {
    Kokkos::parallel_reduce(label, kkperm::range_policy<Exec>(0, n), body, JoinReducer<Value, Kokkos::HostSpace>(out));
  } else {
    constexpr int kTeam = 128;
    using policy_t = std::conditional_t<(MinBlocks > 1), kkperm::team_policy<Exec, Kokkos::LaunchBounds<kTeam, MinBlocks>>,
                                        kkperm::team_policy<Exec>>;
    const std::int64_t per_team = std::max<std::int64_t>(std::int64_t(kTeam) * 8, (n + 32767) / 32768);
    const int league = static_cast<int>((n + per_team - 1) / per_team);
    Kokkos::parallel_reduce(
        label, policy_t(league, kTeam),
        KOKKOS_LAMBDA(const typename policy_t::member_type& m, Value& a) {
          const std::int64_t b = static_cast<std::int64_t>(m.league_rank()) * per_team;
          const std::int64_t e = b + per_team < n ? b + per_team : n;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, b, e), [&](const std::int64_t i) { body(i, a); });
        },
        JoinReducer<Value, Kokkos::HostSpace>(out));
  }
  return out;
}

/// reduce_rows over K IntStats.
template <class Exec, int K, class Body>
MultiStat<K> reduce_stats(const char* label, std::int64_t n, const Body& body) {
  return reduce_rows<Exec, MultiStat<K>>(label, n, body);
}

/// Portable population count (no intrinsics needed on any backend).
KOKKOS_INLINE_FUNCTION int popcount32(std::uint32_t v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return static_cast<int>((((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

/// Population count of a 64-bit word (the hardware instruction on CUDA devices).
KOKKOS_INLINE_FUNCTION int popcount64(std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __popcll(v);
#elif defined(__GNUC__) || defined(__clang__)
  return __builtin_popcountll(v);
#else
  return popcount32(static_cast<std::uint32_t>(v)) + popcount32(static_cast<std::uint32_t>(v >> 32));
#endif
}

/// Maps a column to its cache line, line(c) = c / cpl: a shift when cpl is a power of two (the
/// usual 16 or 32 columns), an integer division otherwise (a runtime division costs ~20
/// instructions on a GPU, and the feature and Hamming passes take one per nonzero or more).
template <class O>
struct LineOf {
  O cpl;
  int shift;  ///< log2(cpl) when cpl is a power of two, else -1
  KOKKOS_INLINE_FUNCTION explicit LineOf(O c) : cpl(c), shift(-1) {
    if (c > 0 && (c & (c - 1)) == 0) {
      shift = 0;
      while ((O(1) << shift) < c) ++shift;
    }
  }
  KOKKOS_INLINE_FUNCTION O operator()(O col) const { return shift >= 0 ? O(col >> shift) : O(col / cpl); }
  /// First column of line l.
  KOKKOS_INLINE_FUNCTION O first_col(O l) const { return shift >= 0 ? O(l << shift) : O(l * cpl); }
};

/**
 * Hamming distance between the cache-line masks of two rows given by their sorted column lists
 * (duplicates of a line are merged on the fly): |L_a| + |L_b| - 2 |L_a ∩ L_b| where L is the set
 * of lines col / cpl. a and b: raw pointers or anything with a[i] (the staged columns of the
 * feature row pass), so device kernels and host code share it.
 * (A shorter merge that skipped each line in both lists after comparing re-read every first
 * entry and made the H100 feature pass 5-10 % slower, run 41.)
 */
template <class PA, class PB, class F, class LA, class LB>
KOKKOS_INLINE_FUNCTION std::int64_t line_mask_distance(const PA& a, F na, const LA& line_a, const PB& b, F nb,
                                                       const LB& line_b) {
  F i = 0, j = 0;
  std::int64_t dist = 0;
  std::int64_t last_a = -1, last_b = -1;
  // Advance to the next distinct line of each list.
  while (i < na || j < nb) {
    std::int64_t la = -1, lb = -1;
    while (i < na) {
      const std::int64_t l = line_a(a[i]);
      if (l != last_a) { la = l; break; }
      ++i;
    }
    while (j < nb) {
      const std::int64_t l = line_b(b[j]);
      if (l != last_b) { lb = l; break; }
      ++j;
    }
    if (la < 0 && lb < 0) break;
    if (lb < 0 || (la >= 0 && la < lb)) {
      ++dist;
      last_a = la;
      ++i;
    } else if (la < 0 || lb < la) {
      ++dist;
      last_b = lb;
      ++j;
    } else {
      last_a = la;
      last_b = lb;
      ++i;
      ++j;
    }
  }
  return dist;
}

/// line_mask_distance of two column lists with the same line map.
template <class PA, class PB, class F, class O>
KOKKOS_INLINE_FUNCTION std::int64_t line_mask_distance(const PA& a, F na, const PB& b, F nb, const LineOf<O>& line) {
  return line_mask_distance(a, na, line, b, nb, line);
}

/// The identity as a line map: for lists that already hold line numbers.
struct LineId {
  template <class O>
  KOKKOS_INLINE_FUNCTION O operator()(O l) const { return l; }
};

/// |A| + |B| - 2 |A ∩ B| for two strictly increasing lists (of line numbers), by one merge.
template <class PA, class PB>
KOKKOS_INLINE_FUNCTION std::int64_t sorted_distance(const PA& a, int na, const PB& b, int nb) {
  int i = 0, j = 0, common = 0;
  while (i < na && j < nb) {
    const auto x = a[i], y = b[j];
    if (x < y) {
      ++i;
    } else if (y < x) {
      ++j;
    } else {
      ++common;
      ++i;
      ++j;
    }
  }
  return static_cast<std::int64_t>(na) + nb - 2 * static_cast<std::int64_t>(common);
}

/// line_mask_distance with the line width given as cpl.
template <class O, class F>
KOKKOS_INLINE_FUNCTION std::int64_t line_mask_distance(const O* a, F na, const O* b, F nb, O cpl) {
  return line_mask_distance(a, na, b, nb, LineOf<O>(cpl));
}

}  // namespace kkperm::detail
