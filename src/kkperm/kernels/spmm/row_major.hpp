#pragma once
/**
 * @brief Row-major-B SpMM (GNN-style), Y = alpha*A*B + beta*Y with B and Y row-major
 * (Kokkos::LayoutRight).
 *
 * Device backends: a group of G lanes (32; 16 or 8 when K <= 16 or 8, so small-K calls do not
 * leave lanes idle) owns a batch of consecutive stored rows (about 2G entries' worth, at least
 * one row); its lanes run across the K columns, so every nonzero a_ij reads row j of B with
 * coalesced accesses, and each lane keeps R accumulators in registers (columns lane, lane + G,
 * ..., a pass covers G*R columns; R = 1, 2 or 4 from K). The batch's entries are streamed G at a
 * time, one per lane (coalesced), and handed to the group by shuffles; U of them are consumed per
 * step with all U*R loads of B issued before the first use, so a lane has U*R independent loads
 * in flight instead of a chain of (entry, B) load pairs, and a row is written out when the stream
 * passes its end. Batches shrink until the launch has a full wave of resident teams (small
 * matrices). When the stored rows average G/2 entries or more, or at R = 4 (K > 64) when
 * their entries give each lane G/2 loads of B (rows of 4 entries and more), or a batch is one
 * row, a batch's per-entry boundary checks are pure overhead: each group then walks one row,
 * plainly (row_major_row_walk).
 * Host backends: a row a thread, plainly.
 * Optional column slabs (slab_cols): one launch per slab of columns, so that the slab of B a
 * launch gathers from can stay in L2 (slab_columns() sizes it).
 * Optional chunked walk (walk_rows > 1, the row_major_chunked candidate): in the per-row walk a
 * team takes a chunk of consecutive rows and its lane groups take them in turn, so the rows in
 * flight on an SM are neighbours whose shared columns can hit in L1.
 *
 * Long rows (a power-law hub of 10^5 entries would keep one group busy long after the rest of
 * the matrix is done) can be split: with a RowSplit built by build_row_split(), rows longer
 * than split_from are skipped by the row kernel, their Y rows scaled by beta, and their entries
 * cut into segments of seg_len (<= split_from) entries, one group each, whose partial sums are
 * added to Y atomically (summation order then varies between runs, within the same rounding
 * bound).
 *
 * Usage: `kkperm::kernels::spmm::row_major(exec, alpha, row_map, entries, values, row_ids, B,
 *         beta, Y[, split[, slab_cols]]);` (row sets as in spmm_common.hpp).
 * Measured (H100, session 22, docs/benchmarks/spmm_h100_gen_s22_2026-11-25.md): 2D 5-point
 * K = 32 0.37 ms, 46 % of the HBM byte floor (cuSPARSE's best 0.50 ms); 3D 27-point (rows of 27
 * entries, the plain per-row walk) K = 32 1.04 ms against cuSPARSE's 1.52 ms.
 */
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/warp_ops.hpp"
#include "kkperm/kernels/spmm/spmm_common.hpp"

namespace kkperm::kernels::spmm {

// Tuning constants may be overridden at compile time (-D...) to build A/B variants of the
// translation unit that instantiates the kernels (scripts/gpu/session22/build_spmm_variants.sh);
// the plan's details() string names the values a binary was built with.
#ifndef KKPERM_SPMM_RM_COLS_PER_LANE
#define KKPERM_SPMM_RM_COLS_PER_LANE 4
#endif
#ifndef KKPERM_SPMM_RM_LOADS_IN_FLIGHT
#define KKPERM_SPMM_RM_LOADS_IN_FLIGHT 8
#endif
#ifndef KKPERM_SPMM_RM_BATCH_WIDTHS
#define KKPERM_SPMM_RM_BATCH_WIDTHS 2
#endif
#ifndef KKPERM_SPMM_RM_MIN_BLOCKS
#define KKPERM_SPMM_RM_MIN_BLOCKS 8
#endif
#ifndef KKPERM_SPMM_RM_WALK_DIVISOR
#define KKPERM_SPMM_RM_WALK_DIVISOR 2
#endif
#ifndef KKPERM_SPMM_RM_CARVEOUT
#define KKPERM_SPMM_RM_CARVEOUT 14
#endif

/// Tuning constants of the row-major kernel (GPU values; host spaces use 1 lane x 1 row).
struct RowMajorConfig {
  static constexpr int warp_size = 32;
  /// Warps (of 32 threads) per team.
  static constexpr int warps_per_team = 4;
  /// Largest number of register accumulators per lane per pass (pass width = lanes * R); wider
  /// K is taken in several passes over the same entries inside the lane group.
  static constexpr int cols_per_lane = KKPERM_SPMM_RM_COLS_PER_LANE;
  /// B loads a lane keeps in flight per step (U entries x R columns).
  static constexpr int loads_in_flight = KKPERM_SPMM_RM_LOADS_IN_FLIGHT;
  /// Default split length: rows longer than max(min_split, split_factor * mean row length).
  static constexpr std::int64_t min_split = 512;
  /// min_split for row sets with fewer stored rows than one wave of lane groups can take (small
  /// matrices) whose longest row exceeds small_split_from: there the longest row's chain of
  /// loads is the whole call, and a 512-entry segment is 64 dependent steps (H100 run 156,
  /// adder_dcop_05, 1813 rows, one of 1310 entries, K = 32: 85.8 us against 20.2 us for cuSPARSE
  /// ALG3; 23.3 us with 64-entry segments, run 157).
  static constexpr std::int64_t min_split_small = 64;
  /// Segments run after the row launch, so a split row costs a row chain plus a segment chain:
  /// a small row set whose rows are all this long or shorter is not split (run 157, can_256,
  /// rows up to 83 entries, K = 128: 16.8 us unsplit, 28.7 us in 64-entry segments).
  static constexpr std::int64_t small_split_from = 4 * min_split_small;
  static constexpr std::int64_t split_factor = 4;
  /// Most segments one split row is cut into when wave_segment_length shortens them (their atomic
  /// adds to the row's Y entries queue on the same addresses): H100 run 209, 727 segments a row
  /// were 2.4x faster than 91, 4 220 were 1.2x slower than 1 953.
  static constexpr std::int64_t max_row_segments = 1024;
  /// Entries a lane group streams per batch of short rows, in lane-group widths (batch =
  /// batch_widths * G / mean row length rows, at least 1 and at most G - 1).
  static constexpr int batch_widths = KKPERM_SPMM_RM_BATCH_WIDTHS;
  /// Stored rows averaging G / walk_divisor entries or more (at R = 4: entries × 4) take a row
  /// per lane group (the plain walk) instead of batches.
  static constexpr int walk_divisor = KKPERM_SPMM_RM_WALK_DIVISOR;
  /// Rows each lane group walks in the plain per-row walk of the row_major_chunked candidate
  /// (row_major's walk_rows argument; 1 = a row a group): a team then takes groups x walk_rows
  /// consecutive rows, group g rows g, g + groups, ..., so the rows a team has in flight stay
  /// neighbours and B rows they share can hit in L1. H100 run 194 (f64, row-major, against a
  /// row a group; 8 rows a group was no better at K = 32 and worse at K = 128):
  /// - K = 32: block 20000 x 32 0.797 -> 0.679 ms, banded (8 a side) 1.756 -> 1.509, banded
  ///   (200 a side, 5 %) 1.063 -> 0.925, 3D 27-point 1.107 -> 1.036, 2D/3D stencils within 1 %;
  /// - K = 128: block 1.585 -> 1.245, 2D 9-point 1.145 -> 1.034, banded (8) 2.670 -> 2.516, but
  ///   3D 27-point 2.614 -> 2.868, 3D 7-point 1.303 -> 1.375, 4elt Kronecker 3.076 -> 3.785:
  ///   hence a candidate of its own, not the default.
  static constexpr int chunked_walk_rows = 4;
  /// Blocks per SM the launches ask registers for (Kokkos::LaunchBounds): 8 blocks of 128 threads
  /// allow 64 registers a thread.
  static constexpr int min_blocks = KKPERM_SPMM_RM_MIN_BLOCKS;
  /// Shared-memory carveout hint of the row kernels, percent (kkperm::parallel_for's; -1:
  /// Kokkos 3.4's PreferShared for team kernels, a 228 KiB shared configuration that leaves 28 KiB
  /// of L1 although the kernels use 1 KB of scratch a team). Nsight Compute on the H200
  /// (session 44, run 355), 3D 7-point, K = 32: 14 % gave a 64 KiB configuration and raised the
  /// L1 hit rate from 8.8 % to 41 %; 28 % (132 KiB) 35 %, 44 % (196 KiB) 21 %. Timed there on six
  /// matrices at K = 32 and 128 (row_major, _chunked, _dcsr and _lpt against -1, one process
  /// each): 14 % was faster in all 48 cases, by 1.5-24 %, 28 % and 44 % less so. 0 (run 354) was
  /// 1.2-2.4x slower everywhere (not profiled; presumably too little shared memory left for the 8
  /// blocks an SM that the registers allow).
  /// Overridable at run time by the environment variable KKPERM_SPMM_RM_CARVEOUT (row_major_carveout()).
  static constexpr int carveout = KKPERM_SPMM_RM_CARVEOUT;
  /// Bytes of B a column slab may take (row_major_slab candidates): half the H100's 50 MB L2.
  static constexpr std::size_t slab_cache_bytes = std::size_t(24) << 20;
};
static_assert(RowMajorConfig::cols_per_lane == 1 || RowMajorConfig::cols_per_lane == 2 ||
                  RowMajorConfig::cols_per_lane == 4,
              "row_major: KKPERM_SPMM_RM_COLS_PER_LANE must be 1, 2 or 4");
static_assert(RowMajorConfig::loads_in_flight >= 1 && RowMajorConfig::loads_in_flight <= 32 &&
                  (RowMajorConfig::loads_in_flight & (RowMajorConfig::loads_in_flight - 1)) == 0,
              "row_major: KKPERM_SPMM_RM_LOADS_IN_FLIGHT must be a power of two in [1, 32]");
static_assert(RowMajorConfig::batch_widths >= 1 && RowMajorConfig::walk_divisor >= 1 &&
                  RowMajorConfig::min_blocks >= 1,
              "row_major: batch widths, walk divisor and min blocks must be positive");

/// The row kernels' carveout hint: RowMajorConfig::carveout, or the environment variable
/// KKPERM_SPMM_RM_CARVEOUT (an integer in [-1, 100]; anything else: std::invalid_argument naming
/// it), read once per process.
inline int row_major_carveout() {
  static const int c = [] {
    const char* e = std::getenv("KKPERM_SPMM_RM_CARVEOUT");
    if (e == nullptr) return RowMajorConfig::carveout;
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    if (*e == '\0' || end == nullptr || *end != '\0' || v < -1 || v > 100)
      throw std::invalid_argument(std::string("kkperm::spmm: KKPERM_SPMM_RM_CARVEOUT must be an integer in [-1, 100], got '") +
                                  e + "'");
    return static_cast<int>(v);
  }();
  return c;
}

/// The tuning a binary was built with, for reports ("R4,L8,B2,W2,M8", ",C<carveout>" when set).
inline std::string row_major_tuning() {
  const int c = row_major_carveout();
  return "R" + std::to_string(RowMajorConfig::cols_per_lane) + ",L" + std::to_string(RowMajorConfig::loads_in_flight) +
         ",B" + std::to_string(RowMajorConfig::batch_widths) + ",W" + std::to_string(RowMajorConfig::walk_divisor) +
         ",M" + std::to_string(RowMajorConfig::min_blocks) + (c >= 0 ? ",C" + std::to_string(c) : std::string());
}

/// Long rows cut into segments for row_major (see the file comment). Empty (split_from == 0): no
/// split. Rows longer than `split_from` entries are split into segments of `seg_len` entries
/// (the last one shorter). `long_rows`: output rows (in Y) of the split rows; per segment its
/// output row and its entry range [seg_beg, seg_end).
template <class Device, class Ordinal, class Offset>
struct RowSplit {
  std::int64_t split_from = 0;
  std::int64_t seg_len = 0;
  Kokkos::View<Ordinal*, Device> long_rows;
  Kokkos::View<Ordinal*, Device> seg_row;
  Kokkos::View<Offset*, Device> seg_beg;
  Kokkos::View<Offset*, Device> seg_end;
  std::int64_t segments() const { return static_cast<std::int64_t>(seg_row.extent(0)); }
  /// Device bytes held.
  double bytes() const {
    return static_cast<double>(long_rows.extent(0) + seg_row.extent(0)) * sizeof(Ordinal) +
           2.0 * static_cast<double>(seg_beg.extent(0)) * sizeof(Offset);
  }
};

/// Split length for a row set of `nnz` entries over `rows` stored rows, the longest `max_row`
/// entries (RowMajorConfig): split_factor x the mean, at least min_split; at least
/// min_split_small instead for row sets of fewer than `small_rows` rows (wave_rows()) with a
/// row longer than small_split_from.
inline std::int64_t default_split_length(std::int64_t nnz, std::int64_t rows, std::int64_t small_rows = 0,
                                         std::int64_t max_row = 0) {
  const std::int64_t mean = rows > 0 ? (nnz + rows - 1) / rows : 0;
  const std::int64_t s = RowMajorConfig::split_factor * mean;
  const bool small = rows < small_rows && max_row > RowMajorConfig::small_split_from;
  const std::int64_t floor = small ? RowMajorConfig::min_split_small : RowMajorConfig::min_split;
  return s > floor ? s : floor;
}

/// Segment length for split rows whose `segments` segments of `split_from` entries would not
/// fill one wave of `wave` lane groups: then the segment launch lasts as long as one segment's
/// chain of dependent loads, so the same rows are cut into shorter segments, about one wave of
/// them (at least min_split_small entries each), but never so short that the longest split row
/// (`max_row` entries) gets more than max_row_segments segments: each segment adds its sums to
/// the row's Y entries atomically, and those atomics queue on the same addresses. Returns
/// split_from when the segments fill a wave, when there are none, or on host spaces (wave == 0).
/// H100 run 209 (f64, row-major, K = 32 / 128): arrow__suitesparse (one row of 46 500 entries,
/// 727 segments of 64 instead of 91 of 512) 0.103 -> 0.042 and 0.216 -> 0.085 ms; polblogs (1 490
/// rows, split from 92) 0.034 -> 0.027 and 0.042 -> 0.035 ms; but the generated arrow (two rows of
/// 10^6 entries, 4 220 segments a row of 237 instead of 1 953 of 512) 0.430 -> 0.519 and
/// 1.228 -> 1.512 ms, hence the cap.
inline std::int64_t wave_segment_length(std::int64_t segments, std::int64_t split_from, std::int64_t wave,
                                        std::int64_t max_row) {
  if (segments <= 0 || wave <= 0 || segments >= wave || split_from <= RowMajorConfig::min_split_small)
    return split_from;
  const std::int64_t entries = segments * split_from;  // at least the split rows' entries
  std::int64_t len = std::max<std::int64_t>(RowMajorConfig::min_split_small, (entries + wave - 1) / wave);
  len = std::max<std::int64_t>(len, (max_row + RowMajorConfig::max_row_segments - 1) / RowMajorConfig::max_row_segments);
  return std::min(split_from, len);
}

/// Rows one wave of row_major lane groups of G lanes takes at once on ExecSpace (default: 32-lane
/// groups, the fewest per team); 0 on host spaces, where waves do not apply.
template <class ExecSpace>
inline std::int64_t wave_rows(int G = RowMajorConfig::warp_size) {
  if constexpr (is_gpu_space<ExecSpace>::value) {
    constexpr int T = RowMajorConfig::warps_per_team * RowMajorConfig::warp_size;
    return std::int64_t(T / G) * resident_teams<ExecSpace>(T);
  } else {
    (void)G;
    return 0;
  }
}

/**
 * @brief Segments of seg_len (>= 1) entries of the stored rows longer than split_from (>= seg_len),
 * on the device; row_ids as for row_major (extent 0 = identity). Two passes over the row map and
 * one host read of the counts. The overload without split_from splits at seg_len.
 */
template <class RowMap, class RowIds>
using row_split_for = RowSplit<typename RowMap::device_type,
                               typename std::remove_const<typename RowIds::value_type>::type,
                               typename std::remove_const<typename RowMap::value_type>::type>;

template <class ExecSpace, class RowMap, class RowIds>
row_split_for<RowMap, RowIds> build_row_split(const ExecSpace& exec, const RowMap& row_map,
                                              const RowIds& row_ids, std::int64_t split_from,
                                              std::int64_t seg_len) {
  using device_t = typename RowMap::device_type;
  using offset_t = typename std::remove_const<typename RowMap::value_type>::type;
  using ordinal_t = typename std::remove_const<typename RowIds::value_type>::type;
  row_split_for<RowMap, RowIds> s;
  if (seg_len < 1) throw std::invalid_argument("kkperm::spmm::build_row_split: seg_len must be >= 1");
  if (split_from < seg_len)
    throw std::invalid_argument("kkperm::spmm::build_row_split: split_from (" + std::to_string(split_from) +
                                ") must be >= seg_len (" + std::to_string(seg_len) + ")");
  s.split_from = split_from;
  s.seg_len = seg_len;
  const std::int64_t n = stored_rows(row_map);
  if (n == 0) return s;
  const bool has_ids = row_ids.extent(0) != 0;
  // per stored row: its segment count (0 when not split); exclusive scan -> first segment
  Kokkos::View<std::int64_t*, device_t> first(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                                  "kkperm::spmm::split_first"),
                                              n + 1);
  Kokkos::parallel_scan(
      "kkperm::spmm::split_scan", kkperm::range_policy<ExecSpace>(exec, 0, n + 1),
      KOKKOS_LAMBDA(const std::int64_t p, std::int64_t& acc, const bool final) {
        std::int64_t c = 0;
        if (p < n) {
          const std::int64_t len = static_cast<std::int64_t>(row_map(p + 1) - row_map(p));
          c = len > split_from ? (len + seg_len - 1) / seg_len : 0;
        }
        if (final) first(p) = acc;
        acc += c;
      });
  std::int64_t total = 0;
  Kokkos::deep_copy(total, Kokkos::subview(first, n));
  if (total == 0) return s;
  // long rows: positions whose count is non-zero; a second scan numbers them
  Kokkos::View<std::int64_t*, device_t> long_idx(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                                     "kkperm::spmm::split_long"),
                                                 n + 1);
  Kokkos::parallel_scan(
      "kkperm::spmm::split_long_scan", kkperm::range_policy<ExecSpace>(exec, 0, n + 1),
      KOKKOS_LAMBDA(const std::int64_t p, std::int64_t& acc, const bool final) {
        const std::int64_t c = p < n && first(p + 1) > first(p) ? 1 : 0;
        if (final) long_idx(p) = acc;
        acc += c;
      });
  std::int64_t nlong = 0;
  Kokkos::deep_copy(nlong, Kokkos::subview(long_idx, n));
  s.long_rows = Kokkos::View<ordinal_t*, device_t>("kkperm::spmm::split_rows", nlong);
  s.seg_row = Kokkos::View<ordinal_t*, device_t>("kkperm::spmm::seg_row", total);
  s.seg_beg = Kokkos::View<offset_t*, device_t>("kkperm::spmm::seg_beg", total);
  s.seg_end = Kokkos::View<offset_t*, device_t>("kkperm::spmm::seg_end", total);
  const auto lr = s.long_rows;
  const auto sr = s.seg_row;
  const auto sb = s.seg_beg;
  const auto se = s.seg_end;
  Kokkos::parallel_for(
      "kkperm::spmm::split_fill", kkperm::range_policy<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t p) {
        const std::int64_t f = first(p), c = first(p + 1) - f;
        if (c == 0) return;
        const ordinal_t out = has_ids ? row_ids(p) : static_cast<ordinal_t>(p);
        lr(long_idx(p)) = out;
        const offset_t beg = row_map(p), end = row_map(p + 1);
        for (std::int64_t q = 0; q < c; ++q) {
          const offset_t b = beg + static_cast<offset_t>(q * seg_len);
          const offset_t e = b + static_cast<offset_t>(seg_len) < end ? b + static_cast<offset_t>(seg_len) : end;
          sr(f + q) = out;
          sb(f + q) = b;
          se(f + q) = e;
        }
      });
  return s;
}

template <class ExecSpace, class RowMap, class RowIds>
row_split_for<RowMap, RowIds> build_row_split(const ExecSpace& exec, const RowMap& row_map,
                                              const RowIds& row_ids, std::int64_t seg_len) {
  return build_row_split(exec, row_map, row_ids, seg_len, seg_len);
}

namespace detail {

/// Y(yr, base + lane + q*G) = alpha*acc_q + beta*Y(...) (Atomic: Y(...) += alpha*acc_q, the
/// segments of a split row), then acc = 0.
template <int G, int R, bool Atomic, class YView, class Acc, class Id, class V>
KOKKOS_FORCEINLINE_FUNCTION void row_major_flush(const YView& Y, const Id yr, Acc& acc, int base, int lane,
                                                 bool full, int K, V a, V b) {
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const int c = base + lane + q * G;
    if (full || c < K) {
      const V ax = a * acc.v[q];
      if constexpr (Atomic)
        Kokkos::atomic_add(&Y(yr, c), ax);
      else
        Y(yr, c) = b == V(0) ? ax : V(ax + b * Y(yr, c));
    }
    acc.v[q] = V(0);
  }
}

/**
 * One G-lane group computes a batch of nb (< G) consecutive stored rows: lane l holds rp = the
 * first entry of row l (l <= nb, so row l is [rp_l, rp_{l+1})) and yid = its output row (l < nb);
 * bit l of `split_bits` marks rows the segments kernel writes instead. Each run of unsplit rows
 * is streamed as one entry range: entries loaded G at a time (one per lane) and handed out by
 * shuffles, U per step with all U*R loads of B issued before the first use (a partial last step
 * is predicated rather than a scalar tail, so short rows keep their loads in flight too); a row
 * is written out when the stream passes its end. Every lane of `mask` calls this.
 * (Written without lambdas: capturing the accumulators by reference put them on the stack.)
 */
template <int G, int R, bool Atomic, class Entries, class Values, class BView, class YView, class Off, class Id>
KOKKOS_INLINE_FUNCTION void row_major_batch(const Entries& entries, const Values& values, const BView& B,
                                            const YView& Y, const Off rp, const Id yid, const int nb,
                                            const unsigned split_bits, const int k0, const int K,
                                            const typename YView::non_const_value_type a,
                                            const typename YView::non_const_value_type b, const int lane,
                                            const unsigned mask) {
  using ordinal_t = typename std::remove_const<typename Entries::value_type>::type;
  using value_t = typename YView::non_const_value_type;
  constexpr int U0 = RowMajorConfig::loads_in_flight / R;
  constexpr int U = U0 < 1 ? 1 : (U0 > G ? G : U0);
  static_assert(G % U == 0, "row_major: steps tile the lane group");
  constexpr int pass = G * R;
  for (int base = k0; base < K; base += pass) {
    const bool full = base + pass <= K;
    StripAccumulator<value_t, R> acc;
    int r = 0;  // current row of the batch
    while (r < nb) {
      if ((split_bits >> r) & 1u) {  // a split row: its segments write it
        ++r;
        continue;
      }
      // run [r, r_end) of unsplit rows
      const unsigned later = r + 1 >= 32 ? 0u : (split_bits >> (r + 1));
      const int r_end = later != 0u ? r + 1 + kkperm::detail::lowest_bit32(later) : nb;
      const std::int64_t e0 = kkperm::detail::warp_shfl_idx(rp, r, G, mask);
      const std::int64_t e1 = kkperm::detail::warp_shfl_idx(rp, r_end, G, mask);
      std::int64_t next = kkperm::detail::warp_shfl_idx(rp, r + 1, G, mask);
      for (std::int64_t c0 = e0; c0 < e1; c0 += G) {
        const int n = e1 - c0 < G ? static_cast<int>(e1 - c0) : G;
        ordinal_t mc = 0;
        value_t mv = value_t(0);
        if (lane < n) {
          mc = entries(c0 + lane);
          mv = values(c0 + lane);
        }
        for (int j = 0; j < n; j += U) {
          ordinal_t cu[U];
          value_t vu[U];
#pragma unroll
          for (int u = 0; u < U; ++u) {
            cu[u] = kkperm::detail::warp_shfl_idx(mc, j + u, G, mask);
            vu[u] = kkperm::detail::warp_shfl_idx(mv, j + u, G, mask);
          }
          value_t bv[U][R];
#pragma unroll
          for (int u = 0; u < U; ++u)
#pragma unroll
            for (int q = 0; q < R; ++q) {
              const int c = base + lane + q * G;
              bv[u][q] = (j + u < n && (full || c < K)) ? value_t(B(cu[u], c)) : value_t(0);
            }
          // (no break: with one, the u loop stayed rolled and bv went to the stack)
#pragma unroll
          for (int u = 0; u < U; ++u) {
            if (j + u < n) {
              while (c0 + j + u >= next) {  // rows ending before this entry (uniform)
                row_major_flush<G, R, Atomic>(Y, kkperm::detail::warp_shfl_idx(yid, r, G, mask), acc, base,
                                              lane, full, K, a, b);
                ++r;
                next = kkperm::detail::warp_shfl_idx(rp, r + 1, G, mask);
              }
#pragma unroll
              for (int q = 0; q < R; ++q) acc.v[q] += vu[u] * bv[u][q];
            }
          }
        }
      }
      for (; r < r_end; ++r)  // the run's last row and any empty rows after its last entry
        row_major_flush<G, R, Atomic>(Y, kkperm::detail::warp_shfl_idx(yid, r, G, mask), acc, base, lane, full,
                                      K, a, b);
    }
  }
}

/**
 * One G-lane group computes one stored row [beg, end) into acc (columns base + lane + q*G): full
 * steps of U entries without predicates, then a tail of single entries. For rows of G/2 entries
 * and more (at R = 4: G/2 loads a lane, 4 entries) this beats the batch walk (H100 run 143,
 * row_major candidate, 3D 27-point: K = 32 1.04 vs 1.45 ms, K = 128 2.61 vs 3.26 ms; run 140:
 * uniform 200k x 500, K = 32, 3.56 vs 4.60 ms), whose per-entry row-boundary checks and
 * predicated steps only pay off when several short rows share a step. Every lane of `mask` calls this.
 */
template <int G, int R, class Entries, class Values, class BView, class V>
KOKKOS_INLINE_FUNCTION void row_major_row_walk(const Entries& entries, const Values& values, const BView& B,
                                               const std::int64_t beg, const std::int64_t end, const int base,
                                               const int K, const bool full, const int lane, const unsigned mask,
                                               V (&acc)[R]) {
  using ordinal_t = typename std::remove_const<typename Entries::value_type>::type;
  constexpr int U0 = RowMajorConfig::loads_in_flight / R;
  constexpr int U = U0 < 1 ? 1 : (U0 > G ? G : U0);
  for (std::int64_t c0 = beg; c0 < end; c0 += G) {
    const int n = end - c0 < G ? static_cast<int>(end - c0) : G;
    ordinal_t mc = 0;
    V mv = V(0);
    if (lane < n) {
      mc = entries(c0 + lane);
      mv = values(c0 + lane);
    }
    int j = 0;
    for (; j + U <= n; j += U) {
      ordinal_t cu[U];
      V vu[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        cu[u] = kkperm::detail::warp_shfl_idx(mc, j + u, G, mask);
        vu[u] = kkperm::detail::warp_shfl_idx(mv, j + u, G, mask);
      }
      V bv[U][R];
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int q = 0; q < R; ++q) {
          const int c = base + lane + q * G;
          bv[u][q] = (full || c < K) ? V(B(cu[u], c)) : V(0);
        }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int q = 0; q < R; ++q) acc[q] += vu[u] * bv[u][q];
    }
    for (; j < n; ++j) {
      const ordinal_t c1 = kkperm::detail::warp_shfl_idx(mc, j, G, mask);
      const V v1 = kkperm::detail::warp_shfl_idx(mv, j, G, mask);
#pragma unroll
      for (int q = 0; q < R; ++q) {
        const int c = base + lane + q * G;
        if (full || c < K) acc[q] += v1 * V(B(c1, c));
      }
    }
  }
}

/// Device path: G-lane groups, batches of short rows, then the split rows' segments.
template <int G, int R, class ExecSpace, class RowMap, class Entries, class Values, class RowIds,
          class BView, class YView, class Split>
void row_major_run(const ExecSpace& exec, typename YView::const_value_type alpha, const RowMap& row_map,
                   const Entries& entries, const Values& values, const RowIds& row_ids, const BView& B,
                   typename YView::const_value_type beta, const YView& Y, const Split& split, const int k0,
                   const int k1, const int walk_rows) {
  using value_t = typename YView::non_const_value_type;
  using offset_t = typename std::remove_const<typename RowMap::value_type>::type;
  using id_t = typename std::remove_const<typename RowIds::value_type>::type;
  constexpr int T = RowMajorConfig::warps_per_team * RowMajorConfig::warp_size;
  static_assert(T % G == 0 && G >= 2, "row_major: team threads are a multiple of the group size");
  constexpr int groups = T / G;
  // at most 64 registers a lane (8 blocks of 128 threads a SM, half occupancy); capping R == 1 at
  // 32 registers for full occupancy spilled 112-224 bytes of stack a thread and ran 3-9x slower
  // (H100 run 137)
  using policy_t = kkperm::team_policy<ExecSpace, Kokkos::LaunchBounds<T, RowMajorConfig::min_blocks>>;
  using member_t = typename policy_t::member_type;
  // B through the read-only path (texture/__ldg on CUDA)
  const Kokkos::View<typename BView::const_data_type, typename BView::array_layout,
                     typename BView::device_type, Kokkos::MemoryTraits<Kokkos::RandomAccess>>
      Br = B;
  const std::int64_t n_rows = stored_rows(row_map);
  const int K = k1;  // columns [k0, k1) of this launch
  const bool has_ids = row_ids.extent(0) != 0;
  const value_t a = alpha, b = beta;
  const std::int64_t split_from = split.split_from;
  // short rows: a group streams a batch as one run (about batch_widths*G entries; at most G - 1
  // rows, as lane l holds row l's first entry and lane nb the batch's end); a row a group
  // (row_major_row_walk) when rows average G / walk_divisor entries or more, and at R = 4
  // (K > 64) already when a row's entries give each lane that many loads of B (mean entries × 4):
  // a 5-entry row then keeps 20 loads a lane in flight and the batches' row-boundary work only
  // costs. Measured on the H100, K = 128, walk against batches in one run (runs 152, 154):
  // 2D 5-point 0.892 against 1.335 ms, 2D 9-point 1.119 / 1.242, uniform 4 a row 3.568 / 3.636,
  // power law (mean 8) 6.081 / 6.173, but 3D 7-point 1.294 / 1.267 and arrow 1.253 / 1.211. At
  // K = 64 (R = 2) the walk did not pay (2D 9-point 0.690 against 0.663, power law 3.120 / 3.101)
  // and at K = 32 it lost 2x (2D 5-point 0.700 / 0.373): there the entry count alone decides.
  // A batch is a chain of dependent loads walked by one group; on a small matrix, batches that
  // leave fewer teams than the device keeps resident only lengthen the chains while SMs idle, so
  // the batch shrinks until the launch fills one wave (a batch of one row is the plain walk).
  // H100 run 156, 1138_bus (1138 rows, K = 32): 24.0 us against 9.7 us for cuSPARSE ALG3.
  const std::int64_t mean = static_cast<std::int64_t>(entries.extent(0)) / n_rows;
  // rows a lane group may take while the launch still fills one wave (batches and chunks alike)
  const std::int64_t wave_cap = n_rows / wave_rows<ExecSpace>(G);
  const int batch = static_cast<int>(std::max<std::int64_t>(
      1, std::min<std::int64_t>({G - 1, (RowMajorConfig::batch_widths * G) / std::max<std::int64_t>(1, mean),
                                 wave_cap})));
  const std::int64_t walk_from = G / RowMajorConfig::walk_divisor;
  if (batch == 1 || mean >= walk_from || (R >= 4 && mean * R >= walk_from)) {  // a row a group, the plain walk
    // walk_rows rows a group, fewer while the launch would not fill one wave
    const std::int64_t S = std::max<std::int64_t>(1, std::min<std::int64_t>(walk_rows, wave_cap));
    const std::int64_t per_team = std::int64_t(groups) * S;
    const std::int64_t teams = (n_rows + per_team - 1) / per_team;
    constexpr int pass = G * R;
    const auto rows_kernel = KOKKOS_LAMBDA(const member_t& team) {
          const kkperm::detail::LaneGroup lg = kkperm::detail::lane_group_of(team.team_rank(), G);
          for (std::int64_t s = 0; s < S; ++s) {
            const std::int64_t p = team.league_rank() * per_team + s * groups + lg.row;
            if (p >= n_rows) return;  // the whole group leaves together
            const std::int64_t beg = row_map(p), end = row_map(p + 1);
            if (split_from > 0 && end - beg > split_from) continue;  // a split row: its segments write it
            const id_t yr = has_ids ? row_ids(p) : static_cast<id_t>(p);
            for (int base = k0; base < K; base += pass) {
              const bool full = base + pass <= K;
              value_t acc[R];
#pragma unroll
              for (int q = 0; q < R; ++q) acc[q] = value_t(0);
              row_major_row_walk<G, R>(entries, values, Br, beg, end, base, K, full, lg.lane, lg.mask, acc);
#pragma unroll
              for (int q = 0; q < R; ++q) {
                const int c = base + lg.lane + q * G;
                if (full || c < K) {
                  const value_t ax = a * acc[q];
                  Y(yr, c) = b == value_t(0) ? ax : value_t(ax + b * Y(yr, c));
                }
              }
            }
          }
        };
    kkperm::parallel_for("kkperm::spmm::row_major_rows", policy_t(exec, static_cast<int>(teams), T, 1), rows_kernel,
                         row_major_carveout());
  } else {
    const std::int64_t per_team = std::int64_t(groups) * batch;
    const std::int64_t teams = (n_rows + per_team - 1) / per_team;
    const auto batch_kernel = KOKKOS_LAMBDA(const member_t& team) {
          const kkperm::detail::LaneGroup lg = kkperm::detail::lane_group_of(team.team_rank(), G);
          const int lane = lg.lane;
          const unsigned mask = lg.mask;
          const std::int64_t r0 = (team.league_rank() * std::int64_t(groups) + lg.row) * batch;
          if (r0 >= n_rows) return;  // the whole group leaves together
          const int nb = n_rows - r0 < batch ? static_cast<int>(n_rows - r0) : batch;
          const offset_t rp = lane <= nb ? row_map(r0 + lane) : offset_t(0);
          const id_t yid = lane < nb ? (has_ids ? row_ids(r0 + lane) : static_cast<id_t>(r0 + lane)) : id_t(0);
          const offset_t rp_next = kkperm::detail::warp_shfl_idx(rp, lane + 1 < G ? lane + 1 : lane, G, mask);
          const bool is_split = lane < nb && split_from > 0 && std::int64_t(rp_next - rp) > split_from;
          const unsigned split_bits = kkperm::detail::warp_ballot(is_split, mask) >> lg.base;
          row_major_batch<G, R, false>(entries, values, Br, Y, rp, yid, nb, split_bits, k0, K, a, b, lane, mask);
        };
    kkperm::parallel_for("kkperm::spmm::row_major", policy_t(exec, static_cast<int>(teams), T, 1), batch_kernel,
                         row_major_carveout());
  }
  const std::int64_t nseg = split.segments();
  if (nseg == 0) return;
  if (k0 == 0) scale_rows(exec, beta, split.long_rows, Y);  // all columns, before any segment adds
  const auto sr = split.seg_row;
  const auto sb = split.seg_beg;
  const auto se = split.seg_end;
  const std::int64_t steams = (nseg + groups - 1) / groups;
  Kokkos::parallel_for(
      "kkperm::spmm::row_major_segments", policy_t(exec, static_cast<int>(steams), T, 1),
      KOKKOS_LAMBDA(const member_t& team) {
        const kkperm::detail::LaneGroup lg = kkperm::detail::lane_group_of(team.team_rank(), G);
        const std::int64_t s = team.league_rank() * std::int64_t(groups) + lg.row;
        if (s >= nseg) return;
        // a batch of one "row": lanes 0 and 1 hold the segment's range, lane 0 its output row
        const offset_t rp = lg.lane == 0 ? sb(s) : (lg.lane == 1 ? se(s) : offset_t(0));
        const id_t yid = lg.lane == 0 ? sr(s) : id_t(0);
        row_major_batch<G, R, true>(entries, values, Br, Y, rp, yid, 1, 0u, k0, K, a, b, lg.lane, lg.mask);
      });
}

/// Host path: a row (or segment) a thread, every column; same split semantics as the device.
template <class ExecSpace, class RowMap, class Entries, class Values, class RowIds, class BView, class YView,
          class Split>
void row_major_host(const ExecSpace& exec, typename YView::const_value_type alpha, const RowMap& row_map,
                    const Entries& entries, const Values& values, const RowIds& row_ids, const BView& B,
                    typename YView::const_value_type beta, const YView& Y, const Split& split) {
  using value_t = typename YView::non_const_value_type;
  const std::int64_t n_rows = stored_rows(row_map);
  const int K = static_cast<int>(Y.extent(1));
  const bool has_ids = row_ids.extent(0) != 0;
  const value_t a = alpha, b = beta;
  const std::int64_t split_from = split.split_from;
  const auto dot = [=](std::int64_t beg, std::int64_t end, int c) {
    value_t acc = value_t(0);
    for (std::int64_t k = beg; k < end; ++k) acc += values(k) * B(entries(k), c);
    return acc;
  };
  Kokkos::parallel_for(
      "kkperm::spmm::row_major_host", kkperm::range_policy<ExecSpace>(exec, 0, n_rows), [=](const std::int64_t p) {
        const std::int64_t beg = row_map(p), end = row_map(p + 1);
        if (split_from > 0 && end - beg > split_from) return;  // its segments below
        const auto yr = has_ids ? row_ids(p) : p;
        for (int c = 0; c < K; ++c) {
          const value_t ax = a * dot(beg, end, c);
          Y(yr, c) = b == value_t(0) ? ax : value_t(ax + b * Y(yr, c));
        }
      });
  const std::int64_t nseg = split.segments();
  if (nseg == 0) return;
  scale_rows(exec, beta, split.long_rows, Y);
  const auto sr = split.seg_row;
  const auto sb = split.seg_beg;
  const auto se = split.seg_end;
  Kokkos::parallel_for(
      "kkperm::spmm::row_major_host_segments", kkperm::range_policy<ExecSpace>(exec, 0, nseg),
      [=](const std::int64_t s) {
        for (int c = 0; c < K; ++c) Kokkos::atomic_add(&Y(sr(s), c), value_t(a * dot(sb(s), se(s), c)));
      });
}

}  // namespace detail

/// The row kernel on the stored rows (and, with a non-empty `split`, the segments of its long
/// rows). Preconditions as in spmm_common.hpp; `split` built from the same row_map and row_ids.
/// `slab_cols` > 0 (device backends): the columns of B and Y are taken in slabs of that many
/// columns, one launch each, so that a slab of B can stay in L2 while the rows gather from it
/// (A is read once per slab); 0: all columns in one launch. `walk_rows` > 1 (device backends):
/// in the plain per-row walk each lane group takes that many rows of a team's chunk of
/// consecutive rows (RowMajorConfig::chunked_walk_rows); 1: a row a group.
template <class ExecSpace, class RowMap, class Entries, class Values, class RowIds, class BView,
          class YView, class Split>
void row_major(const ExecSpace& exec, typename YView::const_value_type alpha,
               const RowMap& row_map, const Entries& entries, const Values& values,
               const RowIds& row_ids, const BView& B, typename YView::const_value_type beta,
               const YView& Y, const Split& split, int slab_cols = 0, int walk_rows = 1) {
  const std::int64_t n_rows = stored_rows(row_map);
  const int K = static_cast<int>(Y.extent(1));
  if (walk_rows < 1) throw std::invalid_argument("kkperm::spmm::row_major: walk_rows must be >= 1");
  if (n_rows == 0 || K == 0) return;
  if constexpr (is_gpu_space<ExecSpace>::value) {
    const int w = slab_cols > 0 && slab_cols < K ? slab_cols : K;
    for (int k0 = 0; k0 < K; k0 += w) {
      const int k1 = K - k0 < w ? K : k0 + w, kw = k1 - k0;
      if (kw <= 8)
        detail::row_major_run<8, 1>(exec, alpha, row_map, entries, values, row_ids, B, beta, Y, split, k0, k1,
                                     walk_rows);
      else if (kw <= 16)
        detail::row_major_run<16, 1>(exec, alpha, row_map, entries, values, row_ids, B, beta, Y, split, k0, k1,
                                     walk_rows);
      else if (kw <= 32)
        detail::row_major_run<32, 1>(exec, alpha, row_map, entries, values, row_ids, B, beta, Y, split, k0, k1,
                                     walk_rows);
      else if (kw <= 64)
        detail::row_major_run<32, (RowMajorConfig::cols_per_lane < 2 ? RowMajorConfig::cols_per_lane : 2)>(
            exec, alpha, row_map, entries, values, row_ids, B, beta, Y, split, k0, k1, walk_rows);
      else
        detail::row_major_run<32, RowMajorConfig::cols_per_lane>(exec, alpha, row_map, entries, values,
                                                                  row_ids, B, beta, Y, split, k0, k1, walk_rows);
    }
  } else {
    detail::row_major_host(exec, alpha, row_map, entries, values, row_ids, B, beta, Y, split);
  }
}

/// Slab width for row_major: the most columns (a multiple of 32, at least 32) whose slab of B
/// (rows x columns x value bytes) fits `cache_bytes`; 0 (no slabs) when all of B fits.
inline int slab_columns(std::int64_t b_rows, int K, std::size_t value_bytes,
                        std::size_t cache_bytes = RowMajorConfig::slab_cache_bytes) {
  const double all = static_cast<double>(b_rows) * K * static_cast<double>(value_bytes);
  if (b_rows <= 0 || all <= static_cast<double>(cache_bytes)) return 0;
  const std::int64_t fit = static_cast<std::int64_t>(cache_bytes / (static_cast<std::size_t>(b_rows) * value_bytes));
  const std::int64_t w = std::max<std::int64_t>(32, fit / 32 * 32);
  return w >= K ? 0 : static_cast<int>(w);
}

/// Without a split: every row on the row kernel.
template <class ExecSpace, class RowMap, class Entries, class Values, class RowIds, class BView,
          class YView>
void row_major(const ExecSpace& exec, typename YView::const_value_type alpha,
               const RowMap& row_map, const Entries& entries, const Values& values,
               const RowIds& row_ids, const BView& B, typename YView::const_value_type beta,
               const YView& Y) {
  row_major(exec, alpha, row_map, entries, values, row_ids, B, beta, Y, row_split_for<RowMap, RowIds>{});
}

}  // namespace kkperm::kernels::spmm
