#pragma once
/**
 * @brief SpMM/SpMV sparsity features (feature set 1, permutation paper, 24 numbers) and the
 * SpMV format-selection features (feature set 2, decision-tree paper, 15 numbers), computed by
 * Kokkos kernels on the matrix's execution space, each with a serial twin on HostCsr.
 *
 * Usage:
 *   kkperm::FeatureVector f = kkperm::compute_features(A, kkperm::FeatureParams{});
 *   // f.names == kkperm::feature_names(), f.values in the same order
 * Preconditions: A is a valid CrsMatrix with sorted, unique columns in every row (checked, throws
 * std::invalid_argument); its views are accessible from its execution space.
 *
 * Definitions (Nt = warp_size, Nw = warps_per_block, cpl = cols_per_line; a "line" is the cache
 * line of the dense operand holding columns [l*cpl, (l+1)*cpl), i.e. line(col) = col / cpl, and
 * there are ceil(n_col / cpl) lines). Choices where the papers are ambiguous are marked CHOICE.
 *
 * Set 1 (names prefixed "spmm_"):
 *  - n_row, n_col, density = nnz / (n_row * n_col)            (0 for an empty shape)
 *  - nnz_row_{min,mean,max}: nonzeros per row over all rows (empty rows included).
 *  - blocks_row_{min,mean,max}: distinct lines holding >= 1 nonzero of the row.
 *  - warp_load_{min,mean,max}: CHOICE "per warp" spans the whole matrix: warp w in [0, Nw) owns
 *    every row i with i mod Nw == w (the stripe a permutation reorders), and its load is
 *    sum over those rows of ceil(nnz_i / Nt). Statistics over the min(n_row, Nw) warps that own
 *    at least one row.
 *  - same_line_{min,mean,max}: CHOICE a "request" is one (row, line) pair: a warp serving a row
 *    issues one request per distinct line the row touches (accesses to the same line within a
 *    row coalesce). Requests are counted per line, statistics over ALL ceil(n_col/cpl) lines,
 *    lines never requested count as 0.
 *  - distinct_lines_warp_{min,mean,max}: number of distinct lines touched by all rows of warp w
 *    (the union over its stripe), over the warps owning a row.
 *  - total_lines_warp_{min,mean,max}: sum over the rows of warp w of their distinct lines, i.e.
 *    the requests of the warp without inter-row reuse (total >= distinct).
 *  - adj_dist_{min,mean,max}: CHOICE the row bit mask is the cache-line mask (ceil(n_col/cpl)
 *    bits, the same masks the Hamming permutations use); distance between rows i and i+1 for
 *    i in [0, n_row-1) in the stored order. A matrix with < 2 rows reports 0.
 * Set 2 (names prefixed "fmt_"; decision-tree paper):
 *  - nnz_tot, nnz_frac = 100 * density (percent), nnz_{min,max,mu,sigma} per row.
 *  - nnzb_tot: number of runs of contiguous nonzero columns (a "block" in that paper: maximal
 *    c, c+1, ..., c+k all nonzero in one row); nnzb_{min,max,mu,sigma} runs per row.
 *  - snzb_{min,max,mu,sigma}: sizes of those runs, statistics over all runs of the matrix.
 * sigma is the population standard deviation. Every statistic of an empty set is 0.
 *
 * Where work runs: everything on A's execution space. One fused pass over the rows, reduced
 * into a compact accumulator (detail::rows_staged_pass / detail::row_pass_entries with a register
 * cap; each warp's accumulator is added to one of kSlotCopies copies of a few device slots): each
 * warp stages the columns of its 32 rows and the next one in team scratch (cp.async) - up to
 * FeatureParams::row_stage_cols entries, by default enough for 1.25x the mean row length within
 * the 40 KB team scratch, which took the Kronecker mesh of ~70 nonzeros per row from 9.2 to 5.0
 * SpMV-eq on an H100, run 41; the thread-per-row pass stores them with one skip word per 32
 * entries so lanes walking equal-length rows use different banks, 32x32 blocks 4.2 -> 2.3-2.6,
 * runs 55-57 - then walks them a thread per row or, where row lengths vary
 * within the warp, by steps of one entry per lane (FeatureParams::row_pass);
 * FeatureParams::row_lanes > 1 lets that many vector lanes share each row instead); rows longer than
 * FeatureParams::long_row_nnz are listed and handled by one team each in
 * detail::long_row_features, so hub rows do not serialize the pass. Each (row, line) request is
 * recorded with atomics (detail::LineRecorder, FeatureParams::line_counts): one counter per
 * (line, stripe) - one atomic - where those Nw * n_lines counters are small next to the matrix,
 * else a per-line counter (warp-aggregated) and a per-stripe line bitmap. One finishing kernel
 * (detail::finish_spmm_set) puts the per-stripe sums, distinct-line counts and the line
 * statistic into one small device array that the host reads once. Scratch (from the reusable
 * workspace, core/workspace.hpp): n_row ints, Nw * n_lines ints (stripes) or n_lines ints and
 * Nw * ceil(n_lines / 32) bitmap words (bitmap), and one slot per long row.
 */
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kkperm/core/atomics.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/warp_ops.hpp"
#include "kkperm/core/workspace.hpp"
#include "kkperm/features/feature_params.hpp"
#include "kkperm/features/int_stats.hpp"

namespace kkperm {

/// Which sets `spmv_features_raw` computes (a bit mask).
enum FeatureSetMask : unsigned { kSpmmSet = 1u, kFormatSet = 2u, kAllSpmvSets = 3u };

/// Exact integer intermediate of sets 1 and 2; device and serial twin must agree bit for bit.
struct RawSpmvFeatures {
  std::int64_t n_row = 0, n_col = 0, nnz = 0;
  int cols_per_line = 0, warp_size = 0, warps_per_block = 0;
  detail::IntStat nnz_row{}, blocks_row{}, warp_load{}, same_line{}, distinct_lines_warp{},
      total_lines_warp{}, adj_dist{}, runs_row{}, run_size{};
};

/// Names of feature set 1 (24) in order.
inline const std::vector<std::string>& spmm_feature_names() {
  static const std::vector<std::string> n = {
      "spmm_n_row",          "spmm_n_col",           "spmm_density",
      "spmm_nnz_row_min",    "spmm_nnz_row_mean",    "spmm_nnz_row_max",
      "spmm_blocks_row_min", "spmm_blocks_row_mean", "spmm_blocks_row_max",
      "spmm_warp_load_min",  "spmm_warp_load_mean",  "spmm_warp_load_max",
      "spmm_same_line_min",  "spmm_same_line_mean",  "spmm_same_line_max",
      "spmm_distinct_lines_warp_min", "spmm_distinct_lines_warp_mean",
      "spmm_distinct_lines_warp_max", "spmm_total_lines_warp_min",
      "spmm_total_lines_warp_mean",   "spmm_total_lines_warp_max",
      "spmm_adj_dist_min",   "spmm_adj_dist_mean",   "spmm_adj_dist_max"};
  return n;
}

/// Names of feature set 2 (15) in order.
inline const std::vector<std::string>& format_feature_names() {
  static const std::vector<std::string> n = {
      "fmt_nnz_tot",   "fmt_nnz_frac",   "fmt_nnz_min",    "fmt_nnz_max",    "fmt_nnz_mu",
      "fmt_nnz_sigma", "fmt_nnzb_tot",   "fmt_nnzb_min",   "fmt_nnzb_max",   "fmt_nnzb_mu",
      "fmt_nnzb_sigma", "fmt_snzb_min",  "fmt_snzb_max",   "fmt_snzb_mu",    "fmt_snzb_sigma"};
  return n;
}

/// Names of the vector returned by compute_features: set 1 then set 2 (39 names).
inline std::vector<std::string> feature_names() {
  std::vector<std::string> n = spmm_feature_names();
  const auto& f = format_feature_names();
  n.insert(n.end(), f.begin(), f.end());
  return n;
}

/// Turns the exact intermediate into the named vector of the requested sets (host only).
inline FeatureVector finalize_features(const RawSpmvFeatures& r, unsigned sets = kAllSpmvSets) {
  FeatureVector f;
  f.cols_per_line = r.cols_per_line;
  f.warp_size = r.warp_size;
  f.warps_per_block = r.warps_per_block;
  const double cells = double(r.n_row) * double(r.n_col);
  const double density = cells > 0 ? double(r.nnz) / cells : 0.0;
  auto push3 = [&](const detail::IntStat& s) {
    f.values.push_back(s.min_value());
    f.values.push_back(s.mean());
    f.values.push_back(s.max_value());
  };
  auto push4 = [&](const detail::IntStat& s) {
    f.values.push_back(s.min_value());
    f.values.push_back(s.max_value());
    f.values.push_back(s.mean());
    f.values.push_back(s.sigma());
  };
  if (sets & kSpmmSet) {
    const auto& n = spmm_feature_names();
    f.names.insert(f.names.end(), n.begin(), n.end());
    f.values.push_back(double(r.n_row));
    f.values.push_back(double(r.n_col));
    f.values.push_back(density);
    push3(r.nnz_row);
    push3(r.blocks_row);
    push3(r.warp_load);
    push3(r.same_line);
    push3(r.distinct_lines_warp);
    push3(r.total_lines_warp);
    push3(r.adj_dist);
  }
  if (sets & kFormatSet) {
    const auto& n = format_feature_names();
    f.names.insert(f.names.end(), n.begin(), n.end());
    f.values.push_back(double(r.nnz));
    f.values.push_back(100.0 * density);
    push4(r.nnz_row);
    f.values.push_back(double(r.runs_row.sum));
    push4(r.runs_row);
    push4(r.run_size);
  }
  KKPERM_ASSERT(f.names.size() == f.values.size(), "feature names/values out of step");
  return f;
}

namespace detail {
/**
 * Records one (row, line) request of set 1 - row i touches line l - for same_line and
 * distinct_lines_warp (FeatureParams::LineCounts), into one of two structures:
 *  - stripes: scount(l * nw + i % nw) += 1, one atomic per request (the Nw counters of a line
 *    share its 128 bytes); Nw counters per line;
 *  - bitmap: count(l) += 1 (warp-aggregated on CUDA) and bit l % 32 of word (l / 32) * nw +
 *    i % nw of the stripe bitmap (word-major: one warp's rows on one line write one segment),
 *    two atomics per request, one counter per line.
 * On uniform random columns (8 per row, 1e6 rows) the two scattered atomics per request loaded
 * the L2 and bounded the pass (ncu, H100 run 48): one atomic took sets 1+2 from 3.7 to 2.5
 * SpMV-eq; where the lanes of a warp share lines (stencils) the aggregated count makes the
 * bitmap 0.1-0.4 SpMV-eq cheaper (H100 run 81). Deciding per request (the bitmap where other
 * lanes record the same line) cost a __match_any_sync per request and was slower than either
 * (run 81), as was warp-aggregating the stripe counters (run 80).
 */
template <class Counts, class Bits>
struct LineRecorder {
  Counts count;   ///< per line (bitmap)
  Bits bitmap;    ///< per (stripe, line) bit (bitmap)
  Counts scount;  ///< per (line, stripe) (stripes)
  std::int64_t nw = 1;
  bool stripes = false;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t l, std::int64_t stripe) const {
    if (stripes) {
      Kokkos::atomic_add(&scount(l * nw + stripe), 1);
    } else {
      kkperm::atomic_increment_aggregated(&count(l));
      Kokkos::atomic_or(&bitmap((l / 32) * nw + stripe), std::uint32_t(1u) << (l % 32));
    }
  }
};

/// Compact statistic of the row pass: min/max in the ordinal type O, sum and sum of squares in
/// 64 bits, no count (the caller knows it). Same values as IntStat, fewer registers.
template <class O>
struct PassStat {
  std::int64_t sum, sumsq;
  O min, max;
  KOKKOS_INLINE_FUNCTION void init() {
    sum = 0;
    sumsq = 0;
    min = Kokkos::reduction_identity<O>::min();  // the largest O
    max = Kokkos::reduction_identity<O>::max();  // the smallest O
  }
  KOKKOS_INLINE_FUNCTION void add(O x) {
    if (x < min) min = x;
    if (x > max) max = x;
    sum += x;
    sumsq += static_cast<std::int64_t>(x) * x;
  }
  KOKKOS_INLINE_FUNCTION void join(const PassStat& o) {
    if (o.min < min) min = o.min;
    if (o.max > max) max = o.max;
    sum += o.sum;
    sumsq += o.sumsq;
  }
  KOKKOS_INLINE_FUNCTION void join(const volatile PassStat& o) volatile {
    const_cast<PassStat&>(*this).join(const_cast<const PassStat&>(o));
  }
  /// Joins the statistic of lane (this lane ^ d) of a W-lane warp (warp_shfl_xor).
  KOKKOS_INLINE_FUNCTION void shfl_join(int d, int W) {
    PassStat o;
    o.sum = warp_shfl_xor(sum, d, W);
    o.sumsq = warp_shfl_xor(sumsq, d, W);
    o.min = warp_shfl_xor(min, d, W);
    o.max = warp_shfl_xor(max, d, W);
    join(o);
  }
  /// Adds this statistic (of values >= 0) to four zero-initialized device slots: the maximum of
  /// the complement of the minimum (so zero means "no value yet"), the maximum, sum, sum of squares.
  KOKKOS_INLINE_FUNCTION void publish(std::int64_t* s) const {
    if (max < min) return;  // empty
    kkperm::atomic_max_u64(&s[0], static_cast<std::int64_t>(~static_cast<std::uint64_t>(static_cast<std::int64_t>(min))));
    kkperm::atomic_max_u64(&s[1], static_cast<std::int64_t>(max));
    if (sum != 0) kkperm::atomic_add_i64(&s[2], sum);
    if (sumsq != 0) kkperm::atomic_add_i64(&s[3], sumsq);
  }
  /// The statistic publish() left in four slots (host side).
  static PassStat from_slots(const std::int64_t* s) {
    PassStat p;
    p.init();
    if (s[0] == 0) return p;  // nothing published
    p.min = static_cast<O>(static_cast<std::int64_t>(~static_cast<std::uint64_t>(s[0])));
    p.max = static_cast<O>(s[1]);
    p.sum = s[2];
    p.sumsq = s[3];
    return p;
  }
  /// The IntStat of `count` added values (an empty one keeps IntStat's empty state).
  IntStat to_int_stat(std::int64_t count) const {
    IntStat s;
    s.init();
    if (count == 0) return s;
    s.count = count;
    s.min = static_cast<std::int64_t>(min);
    s.max = static_cast<std::int64_t>(max);
    s.sum = sum;
    s.sumsq = sumsq;
    return s;
  }
};

/// Accumulator of the fused row pass of sets 1 and 2 (see spmv_features_raw). The counts the
/// host can derive are not carried: rows (n), short rows (n - n_long), runs (sum of runs per row).
template <class O>
struct RowPassAcc {
  PassStat<O> nnz, blocks, adj, runs, run_size;
  std::int64_t adj_count;
  int n_long;
  KOKKOS_INLINE_FUNCTION void init() {
    nnz.init();
    blocks.init();
    adj.init();
    runs.init();
    run_size.init();
    adj_count = 0;
    n_long = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(const RowPassAcc& o) {
    nnz.join(o.nnz);
    blocks.join(o.blocks);
    adj.join(o.adj);
    runs.join(o.runs);
    run_size.join(o.run_size);
    adj_count += o.adj_count;
    n_long += o.n_long;
  }
  KOKKOS_INLINE_FUNCTION void join(const volatile RowPassAcc& o) volatile {
    const_cast<RowPassAcc&>(*this).join(const_cast<const RowPassAcc&>(o));
  }
  /// Device slots of publish(): 4 per statistic (PassStat::publish), then adj_count and n_long.
  static constexpr int kSlots = 22;
  /// Joins the accumulators of the W lanes of a warp (every lane ends with the total).
  KOKKOS_INLINE_FUNCTION void warp_join(int W) {
    for (int d = W / 2; d >= 1; d >>= 1) {
      nnz.shfl_join(d, W);
      blocks.shfl_join(d, W);
      adj.shfl_join(d, W);
      runs.shfl_join(d, W);
      run_size.shfl_join(d, W);
      adj_count += warp_shfl_xor(adj_count, d, W);
      n_long += warp_shfl_xor(n_long, d, W);
    }
  }
  /// Adds this accumulator to kSlots zero-initialized device slots with atomics (a few dozen per
  /// warp instead of Kokkos' reduction epilogue: a skipped pass of 1042 empty teams still took
  /// 25 us in it with this 136-byte value, ncu H100 run 80).
  KOKKOS_INLINE_FUNCTION void publish(std::int64_t* s) const {
    nnz.publish(s);
    blocks.publish(s + 4);
    adj.publish(s + 8);
    runs.publish(s + 12);
    run_size.publish(s + 16);
    if (adj_count != 0) kkperm::atomic_add_i64(&s[20], adj_count);
    if (n_long != 0) kkperm::atomic_add_i64(&s[21], static_cast<std::int64_t>(n_long));
  }
  /// The accumulator publish() calls left in kSlots slots (host side).
  static RowPassAcc from_slots(const std::int64_t* s) {
    RowPassAcc a;
    a.nnz = PassStat<O>::from_slots(s);
    a.blocks = PassStat<O>::from_slots(s + 4);
    a.adj = PassStat<O>::from_slots(s + 8);
    a.runs = PassStat<O>::from_slots(s + 12);
    a.run_size = PassStat<O>::from_slots(s + 16);
    a.adj_count = s[20];
    a.n_long = static_cast<int>(s[21]);
    return a;
  }
  /// s[0] nnz per row (all n rows), s[1] blocks, s[2] adjacent distances, s[3] runs per row,
  /// s[4] run sizes - of the short rows; long_row_features joins the long rows' parts.
  MultiStat<5> to_stats(std::int64_t n) const {
    MultiStat<5> m;
    const std::int64_t short_rows = n - n_long;
    m.s[0] = nnz.to_int_stat(n);
    m.s[1] = blocks.to_int_stat(short_rows);
    m.s[2] = adj.to_int_stat(adj_count);
    m.s[3] = runs.to_int_stat(short_rows);
    m.s[4] = run_size.to_int_stat(runs.sum);
    return m;
  }
};

/// Columns staged per warp by the staged row passes at least (6 KB of team scratch per warp).
constexpr int kStageCap = 1536;

/// Threads per team of the staged row passes on device backends.
constexpr int kStagedTeam = 128;

/// Threads per team of the staged row passes on Exec (1 on host backends) and the warps (W = 32
/// lanes; 1 on host) among them, each with its own stage_cap columns of team scratch.
template <class Exec>
constexpr int staged_team_size() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible ? 1 : kStagedTeam;
}
/// Lanes of one warp of those teams: W = 32 on device backends, 1 on host backends.
template <class Exec>
constexpr int staged_warp_lanes() {
  return staged_team_size<Exec>() < 32 ? staged_team_size<Exec>() : 32;
}
template <class Exec>
constexpr int staged_warps_per_team() {
  return staged_team_size<Exec>() < 32 ? 1 : staged_team_size<Exec>() / 32;
}

/// Rows per team of the staged row passes: whole W-row chunks, about kRowPassTeamNnz nonzeros
/// per team, between one chunk per warp (128 rows) and 1024 rows, and at most 32768 teams.
/// (At least 1024 rows per team, the rule before, left the 1.4e5-row Kronecker mesh ~70 nonzeros
/// per row 140 teams, ~4 warps per SM; 128-row teams made short-row stencils slower, H100 run 48.)
constexpr std::int64_t kRowPassTeamNnz = 8192;
template <class Exec>
std::int64_t row_pass_rows_per_team(std::int64_t n, std::int64_t nnz) {
  const std::int64_t team = staged_team_size<Exec>();
  const std::int64_t W = staged_warp_lanes<Exec>();
  const std::int64_t by_nnz = nnz > 0 ? (kRowPassTeamNnz * std::max<std::int64_t>(n, 1) + nnz - 1) / nnz : 1024;
  std::int64_t per_team = std::min<std::int64_t>(std::max<std::int64_t>(by_nnz, team), std::max<std::int64_t>(team, 1024));
  per_team = std::max<std::int64_t>(per_team, (n + 32767) / 32768);
  return (per_team + W - 1) / W * W;
}

/**
 * Columns of a row staged by rows_staged_pass, read as cols[k] for k in [0, row length): entry
 * d0 + k of the staged span sits at p[d + (d >> shift)] with d = d0 + k (32-bit: a staged span
 * holds a few thousand entries at most, a row read in place at most long_row_nnz). Staged spans
 * skip one word after every 32 entries (shift 5), so the threads of a warp reading rows whose
 * lengths are multiples of 2^j land in different shared-memory banks (32x32 blocks: rows of 32
 * entries, all 32 lanes in one bank without the skip; H100 runs 55-57: 4.1 -> 2.3-2.6 SpMV-eq
 * for sets 1+2); a row read in place uses p = its first column and shift 31 (no skip).
 */
/// Skip shift of staged spans and of rows read in place (no skip for d < 2^31).
constexpr int kSkewShift = 5, kNoSkewShift = 31;
/// Position of entry d of a span stored with one skip word after every 2^shift entries.
KOKKOS_INLINE_FUNCTION int skewed_index(int d, int shift) { return d + (d >> shift); }

template <class O>
struct StagedRow {
  const O* p;
  int d0;
  int shift;
  KOKKOS_INLINE_FUNCTION O operator[](std::int64_t k) const { return p[skewed_index(d0 + static_cast<int>(k), shift)]; }
  /// Overwrites entry k: only for rows of a staged span (team scratch), never the matrix.
  KOKKOS_INLINE_FUNCTION void put(std::int64_t k, O v) const {
    const_cast<O*>(p)[skewed_index(d0 + static_cast<int>(k), shift)] = v;
  }
};

/// The columns a warp staged (staged: skewed, entry off of the matrix at d = 0) or the matrix's
/// column array: row(b) gives the columns of the row starting at entry b.
template <class O, class F>
struct StagedSpan {
  const O* p;
  F off;
  bool staged;
  KOKKOS_INLINE_FUNCTION StagedRow<O> row(F b) const {
    return staged ? StagedRow<O>{p, static_cast<int>(b - off), kSkewShift} : StagedRow<O>{p + b, 0, kNoSkewShift};
  }
};

/// Team scratch entries of a skewed staging buffer for stage_cap columns (one skip per 32).
inline std::int64_t skewed_len(std::int64_t stage_cap) { return stage_cap + (stage_cap >> kSkewShift) + 1; }

/**
 * Decision of RowPass::automatic on the device (row_padded_work's padded work against a limit):
 * a pass given a Gate runs only when (padded > limit) == above, so both passes can be launched
 * back to back without the host waiting for the decision; every team of the other one returns
 * at once. A null `padded` always runs.
 */
struct PassGate {
  const std::int64_t* padded = nullptr;
  double limit = 0.0;
  bool above = false;
  KOKKOS_INLINE_FUNCTION bool skip() const { return padded != nullptr && (double(*padded) > limit) != above; }
};

/// Copies of the Acc::kSlots device slots (each in its own 256 bytes, kSlotStride words): warp w
/// of a pass adds to copy w % kSlotCopies, so each slot takes 1 / kSlotCopies of the atomics, and
/// the host joins the copies. (One copy, ~22 same-address atomics per warp: the thread-per-row
/// pass took 225 us on the 2D stencil and 94 us on 32x32 blocks; 16 copies: 121 and 63 us, and
/// 192 and 88 us with the Kokkos reduction before; ncu H100 run 87.)
constexpr int kSlotCopies = 16, kSlotStride = 32;

/// Joins the accumulators of a warp's lanes and adds them to copy `warp_id % kSlotCopies` of the
/// device slots (lane 0's atomics).
template <class Acc>
KOKKOS_INLINE_FUNCTION void publish_warp(Acc& a, int lane, int W, std::int64_t warp_id, std::int64_t* slots) {
  static_assert(Acc::kSlots <= kSlotStride, "slot copies overlap");
  a.warp_join(W);
  if (lane == 0) a.publish(slots + (warp_id % kSlotCopies) * kSlotStride);
}

/**
 * The thread-per-row pass in two phases per chunk of rows: body(i, span, a) walks row i (its
 * columns through span.row(row_map(i))) and returns a count c_i (or -1), then, once every lane
 * of the warp has walked its row, pair(i, span, a, c_i, c_next) with c_next = c_{i+1} when row
 * i + 1 was walked by the next lane of this chunk, else -1. Each warp (W = 32 threads of a
 * 128-thread team; W = 1 on host backends) takes W consecutive rows at a time, copies the columns
 * of those rows and of the next one into its slice of team scratch (warp_stage; skewed, see
 * StagedRow), then lane l runs body and pair on row r + l from there; body may overwrite its own
 * row's staged entries it has read (StagedRow::put) for pair to use. Ranges longer than
 * stage_cap entries are read in place (span.staged false). Each lane folds its rows into its own
 * Acc; the warp's accumulators are joined and added to the zero-initialized device `slots`
 * (kSlotCopies copies, publish_warp), so nothing waits for the pass. gate: see PassGate.
 * Why staging: ncu on the thread-per-row pass (H100, session 6, run 29) put most stall samples on
 * the first use of each column load (long scoreboard): every thread walked its own row with one
 * dependent load after another.
 */
template <class Exec, class Acc, int MinBlocks, class RowMap, class Entries, class Body, class Pair>
void rows_staged_pass(const char* label, std::int64_t n, std::int64_t nnz, const RowMap& row_map,
                      const Entries& entries, const Body& body, const Pair& pair, int stage_cap, PassGate gate,
                      std::int64_t* slots) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  if (n <= 0) return;
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  using policy_t = std::conditional_t<(MinBlocks > 1 && !on_host),
                                      kkperm::team_policy<Exec, Kokkos::LaunchBounds<kStagedTeam, MinBlocks>>,
                                      kkperm::team_policy<Exec>>;
  using member_t = typename policy_t::member_type;
  using buf_t = Kokkos::View<O*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const int team = staged_team_size<Exec>();
  const int W = staged_warp_lanes<Exec>();
  const int groups = staged_warps_per_team<Exec>();
  const std::int64_t per_team = row_pass_rows_per_team<Exec>(n, nnz);
  const int league = static_cast<int>((n + per_team - 1) / per_team);
  const std::int64_t stride = skewed_len(stage_cap);
  policy_t pol(league, team);
  pol.set_scratch_size(0, Kokkos::PerTeam(buf_t::shmem_size(std::size_t(groups) * stride)));
  kkperm::parallel_for(
      label, pol, KOKKOS_LAMBDA(const member_t& m) {
        if (gate.skip()) return;  // team-uniform
        const int t = m.team_rank();
        const int lane = t % W, g = t / W;
        buf_t buf(m.team_scratch(0), std::size_t(groups) * stride);
        O* mine = buf.data() + std::size_t(g) * stride;
        Acc a;
        a.init();
        const std::int64_t b0 = static_cast<std::int64_t>(m.league_rank()) * per_team;
        const std::int64_t e0 = b0 + per_team < n ? b0 + per_team : n;
        for (std::int64_t r = b0 + std::int64_t(g) * W; r < e0; r += std::int64_t(groups) * W) {
          const std::int64_t rl = r + W + 1 < n ? r + W + 1 : n;  // one past the row after the chunk
          const F sb = row_map(r), se = row_map(rl);
          const bool staged = static_cast<std::int64_t>(se - sb) <= stage_cap;
          if (staged)
            warp_stage(mine, entries.data() + sb, static_cast<std::int64_t>(se - sb), lane, W,
                       [](std::int64_t k) { return skewed_index(static_cast<int>(k), kSkewShift); });
          else
            sync_warp_lanes();
          const std::int64_t i = r + lane;
          const StagedSpan<O, F> span{staged ? static_cast<const O*>(mine) : entries.data(), sb, staged};
          const int c = i < e0 ? body(i, span, a) : -1;
          sync_warp_lanes();  // every row of the chunk walked
          const int c_down = warp_shfl_down(c, 1, W);
          if (i < e0) pair(i, span, a, c, lane + 1 < W && i + 1 < e0 ? c_down : -1);
          sync_warp_lanes();  // the next chunk overwrites the buffer
        }
        publish_warp(a, lane, W, std::int64_t(m.league_rank()) * groups + g, slots);
      });
}

/// Per-row sums of the lane-parallel row pass (distinct lines, runs, lines shared with the
/// previous row), reduced across the lanes of a row with Kokkos' vector reduction.
struct LaneRowSums {
  int nb, runs, common;
  KOKKOS_INLINE_FUNCTION LaneRowSums() : nb(0), runs(0), common(0) {}
  KOKKOS_INLINE_FUNCTION LaneRowSums& operator+=(const LaneRowSums& o) {
    nb += o.nb;
    runs += o.runs;
    common += o.common;
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile LaneRowSums& o) volatile {
    nb += o.nb;
    runs += o.runs;
    common += o.common;
  }
};

/// First k in [lo, hi) with entries(k) >= c (entries sorted on that range), hi when none.
template <class Entries, class F, class O>
KOKKOS_INLINE_FUNCTION F lower_bound_col(const Entries& entries, F lo, F hi, O c) {
  while (lo < hi) {
    const F mid = lo + (hi - lo) / 2;
    if (entries(mid) < c) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/// First entry of the run of contiguous columns that contains entry k of the sorted list starting
/// at b: the first j in [b, k] with col(j) - j == col(k) - k (col(j) - j never decreases).
template <class Entries, class F>
KOKKOS_INLINE_FUNCTION F run_start(const Entries& entries, F b, F k) {
  const std::int64_t key = static_cast<std::int64_t>(entries(k)) - static_cast<std::int64_t>(k);
  F lo = b, hi = k;
  while (lo < hi) {
    const F mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(entries(mid)) - static_cast<std::int64_t>(mid) < key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/// Staged columns per warp of the thread-per-row pass: FeatureParams::row_stage_cols, or (0) enough
/// for 33 rows of 1.25 times the mean length, at least kStageCap, rounded up to 256, capped to
/// what the team scratch of the warps of a team can hold on this space.
/// extra_per_warp: bytes of team scratch each warp needs besides its staged columns; skewed: the
/// columns are stored with one skip per 32 (skewed_len).
template <class Exec, class O>
int stage_cols_for(int requested, std::int64_t n_row, std::int64_t nnz, std::int64_t extra_per_warp = 0,
                   bool skewed = false) {
  const std::int64_t groups = staged_warps_per_team<Exec>();
  const std::int64_t raw =
      (static_cast<std::int64_t>(kkperm::team_policy<Exec>::scratch_size_max(0)) - groups * extra_per_warp) /
          (groups * std::int64_t(sizeof(O))) -
      8;
  const std::int64_t fit = skewed ? (raw - 1) * 32 / 33 : raw;
  std::int64_t c = requested;
  if (c == 0) {
    const double mu = n_row > 0 ? double(nnz) / double(n_row) : 0.0;
    c = std::max<std::int64_t>(kStageCap, (static_cast<std::int64_t>(33.0 * 1.25 * mu) + 255) / 256 * 256);
    c = std::min<std::int64_t>(c, fit);
  }
  KKPERM_REQUIRE(c <= fit, "kkperm::spmv_features_raw: row_stage_cols " << requested << " needs more team scratch than "
                                                                         << kkperm::team_policy<Exec>::scratch_size_max(0)
                                                                         << " bytes per team");
  return static_cast<int>(std::max<std::int64_t>(c, 33));
}

/// Read access to a raw column array with the entries(k) syntax of the search helpers above.
template <class O>
struct ColPtr {
  const O* p;
  KOKKOS_INLINE_FUNCTION O operator()(std::int64_t k) const { return p[k]; }
};

/// Per-warp team scratch of row_pass_entries besides its staged columns: row offsets and
/// their compacted prefix (kEntrySlots int64 each) and three per-row counters (kEntrySlots each).
constexpr int kEntrySlots = 34;  // W + 2 for W <= 32

template <class O>
constexpr std::int64_t entry_pass_extra_bytes() {
  return 2 * kEntrySlots * std::int64_t(sizeof(std::int64_t)) + 3 * kEntrySlots * std::int64_t(sizeof(O)) + 64;
}

/// RowPass::automatic takes the entry steps when the thread-per-row walk would keep fewer than
/// 1 / kEntryImbalance of its lanes busy: sum over W-row chunks of W times the chunk's longest
/// row (row_padded_work), over nnz, above kEntryImbalance. H100 run 88 (sets 1+2, SpMV-eq): 1-63
/// random columns per row (padded work ~1.9 x nnz) rows 2.2-2.3 vs entries 2.7-2.8; 5 % non-empty
/// rows of 32 (~16 x nnz) rows 2.3 vs entries 1.35; stencils, banded, blocks and the Kronecker
/// mesh (< 1.5) rows 1.4-2.3 vs entries 3.2-7.9. (1.5 before the thread-per-row pass compacted
/// its line lists and lost the reduction epilogue, when 1-63/row was ~10 % cheaper by entries.)
constexpr double kEntryImbalance = 2.5;

/// Sum over the W-row chunks of W times the chunk's longest row (the padded work of a
/// thread-per-row walk of W-row chunks; nnz for rows of equal length, 0 for no rows), ADDED to
/// the device scalar `*out` without waiting for it (W a power of two up to 32). On device
/// backends a thread per row (coalesced offsets, a chunk's maximum by shuffles over its W
/// lanes), 8 rows per thread, one atomic per team; on host backends a team is one thread
/// walking its chunks. (The Kokkos range reduction before, a thread per chunk walking its 32
/// offsets, ran 37 blocks and took 10 us on 3e5 rows, ncu H100 run 80.)
template <class Exec, class RowMap>
void row_padded_work(std::int64_t n, const RowMap& row_map, int W, std::int64_t* out) {
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  using part_t = Kokkos::View<std::int64_t*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  KKPERM_REQUIRE(W >= 1 && W <= 32 && (W & (W - 1)) == 0,
                 "kkperm::detail::row_padded_work: W must be a power of two from 1 to 32, got " << W);
  constexpr int kRowsPerThread = 8;
  const int team = on_host ? 1 : kStagedTeam;  // kStagedTeam: whole warps
  const int groups = on_host ? 1 : kStagedTeam / 32;
  const std::int64_t per_team = on_host ? std::int64_t(W) * 1024 : std::int64_t(team) * kRowsPerThread;  // W-row chunks
  const std::int64_t league = n > 0 ? (n + per_team - 1) / per_team : 0;
  if (league == 0) return;
  policy_t pol(static_cast<int>(league), team);
  pol.set_scratch_size(0, Kokkos::PerTeam(part_t::shmem_size(groups)));
  kkperm::parallel_for(
      "kkperm::features::row_imbalance", pol, KOKKOS_LAMBDA(const member_t& m) {
        const std::int64_t base = static_cast<std::int64_t>(m.league_rank()) * per_team;
        const std::int64_t end = base + per_team < n ? base + per_team : n;
        std::int64_t s = 0;
        if (on_host) {
          for (std::int64_t c = base; c < end; c += W) {
            std::int64_t longest = 0;
            for (std::int64_t i = c; i < c + W && i < n; ++i) {
              const std::int64_t len = static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
              if (len > longest) longest = len;
            }
            s += longest * W;
          }
          if (s != 0) kkperm::atomic_add_i64(out, s);
          return;
        }
        part_t part(m.team_scratch(0), groups);
        const int t = m.team_rank();
        for (int j = 0; j < kRowsPerThread; ++j) {  // rows base + j * team + t: whole W-row chunks
          const std::int64_t i = base + std::int64_t(j) * team + t;
          const std::int64_t len = i < n ? static_cast<std::int64_t>(row_map(i + 1) - row_map(i)) : 0;
          const std::int64_t longest = warp_max(len, W);
          if (t % W == 0) s += longest * W;
        }
        for (int d = 16; d >= 1; d >>= 1) s += warp_shfl_xor(s, d, 32);  // the warp's chunks
        if (t % 32 == 0) part(t / 32) = s;
        m.team_barrier();
        if (t == 0) {
          std::int64_t total = 0;
          for (int q = 0; q < groups; ++q) total += part(q);
          if (total != 0) kkperm::atomic_add_i64(out, total);
        }
      });
}

/**
 * The row pass of sets 1 and 2 by entry steps (FeatureParams::RowPass::entries). A warp (W = 32
 * threads of a 128-thread team; W = 1 on host backends) takes W consecutive rows r .. r + W - 1
 * (its own rows) and looks at row r + W as well (the other half of its last row's adjacent pair):
 *  1. lane q loads the offset of row r + q; a warp scan gives each row's start in a compacted
 *     space that leaves out long rows (> long_nnz, a team each in long_row_features), rows of
 *     another team and, for set 2 only, the look-ahead row;
 *  2. the rows' columns are copied into the warp's slice of team scratch (warp_stage) when they
 *     fit stage_cap entries, else read in place;
 *  3. steps of W compacted entries, one per lane. The lane finds its row (it only moves forward;
 *     binary search over the prefix when it moves), flags the first entry of each line (for own
 *     rows it records the (row, line) request (LineRecorder) and looks the line up in the
 *     next row by binary search) and the first and last entry of each run; a run's length is
 *     taken at its last entry from the ballot of run starts (or the last start of an earlier
 *     step). The first lane of each row in a step adds the row's flags (ballot, popcount over the
 *     row's lanes) to its counters in scratch;
 *  4. lane q folds row r + q's counters into its accumulator; the warp's accumulators go to the
 *     device slots at the end (publish_warp). gate: see PassGate.
 * The work per step does not depend on how row lengths vary within a warp: rows_staged_pass
 * (a thread per row) keeps one lane of 32 busy on hypersparse rows (5 % non-empty: 4.6 -> 1.8
 * SpMV-eq for sets 1+2, H100 run 50) and waits for the longest of 32 rows on 1-63 random columns
 * per row (5.2 -> 4.2); on rows of contiguous column runs (stencils, banded, blocks) most entries
 * open no line and the thread per row is 1.3-2x cheaper. Teams hold whole W-row chunks
 * (row_pass_rows_per_team).
 */
template <class Exec, class Acc, class RowMap, class Entries, class Rec, class Blocks, class LongIds, class NLong,
          class O>
void row_pass_entries(std::int64_t n, std::int64_t nnz, const RowMap& row_map, const Entries& entries,
                      const LineOf<O> lo, int nw, std::int64_t long_nnz, bool want_spmm, bool want_fmt,
                      const Rec& rec, const Blocks& blocks, const LongIds& long_ids, const NLong& n_long,
                      int stage_cap, PassGate gate, std::int64_t* slots) {
  using F = typename RowMap::non_const_value_type;
  using I = std::int64_t;
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  using policy_t = std::conditional_t<on_host, kkperm::team_policy<Exec>,
                                      kkperm::team_policy<Exec, Kokkos::LaunchBounds<kStagedTeam, 4>>>;
  using member_t = typename policy_t::member_type;
  using cols_t = Kokkos::View<O*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using offs_t = Kokkos::View<I*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  if (n <= 0) return;
  const int team = staged_team_size<Exec>();
  const int W = staged_warp_lanes<Exec>();
  const int groups = staged_warps_per_team<Exec>();
  const std::int64_t per_team = row_pass_rows_per_team<Exec>(n, nnz);
  const int league = static_cast<int>((n + per_team - 1) / per_team);
  const std::size_t n_cols = std::size_t(groups) * stage_cap, n_offs = std::size_t(groups) * 2 * kEntrySlots,
                    n_cnt = std::size_t(groups) * 3 * kEntrySlots;
  policy_t pol(league, team);
  pol.set_scratch_size(0, Kokkos::PerTeam(cols_t::shmem_size(n_cols) + offs_t::shmem_size(n_offs) +
                                          cols_t::shmem_size(n_cnt)));
  kkperm::parallel_for(
      "kkperm::features::rows_entries", pol, KOKKOS_LAMBDA(const member_t& m) {
        if (gate.skip()) return;  // team-uniform
        Acc a;
        a.init();
        const int t = m.team_rank();
        const int lane = t % W, g = t / W;
        cols_t cbuf(m.team_scratch(0), n_cols);
        offs_t obuf(m.team_scratch(0), n_offs);
        cols_t nbuf(m.team_scratch(0), n_cnt);
        O* cols = cbuf.data() + std::size_t(g) * stage_cap;
        I* off = obuf.data() + std::size_t(g) * 2 * kEntrySlots;  // off[q]: start of row r + q in the span
        I* soff = off + kEntrySlots;                                 // start of row r + q in the compacted space
        O* nb = nbuf.data() + std::size_t(g) * 3 * kEntrySlots;      // distinct lines of row r + q (q <= W)
        O* runs = nb + kEntrySlots;                                  // runs of row r + q (q < W)
        O* common = runs + kEntrySlots;                              // lines of row r + q also in row r + q + 1
        const I b0 = static_cast<I>(m.league_rank()) * per_team;
        const I e0 = b0 + per_team < n ? b0 + per_team : n;
        for (I r = b0 + I(g) * W; r < e0; r += I(groups) * W) {
          const F sb = row_map(r);
          for (int q = lane; q < W + 2; q += W) off[q] = static_cast<I>(row_map(r + q < n ? r + q : n) - sb);
          for (int q = lane; q < W + 1; q += W) nb[q] = runs[q] = common[q] = 0;
          sync_warp_lanes();
          // Row q is in the entry steps when it is short and an own row (q < W, row < e0) or the
          // look-ahead row of set 1 (q == W; r + W < n means this chunk is full).
          auto in_steps = [&](const int q) -> bool {
            const I len = off[q + 1] - off[q];
            const bool here = q < W ? r + q < e0 : (want_spmm && r + W < n);
            return here && len <= long_nnz;
          };
          {
            const I v = in_steps(lane) ? off[lane + 1] - off[lane] : 0;
            const I ex = warp_exclusive_scan(v, lane, W);
            soff[lane] = ex;
            if (lane == W - 1) {
              soff[W] = ex + v;
              soff[W + 1] = soff[W] + (in_steps(W) ? off[W + 1] - off[W] : 0);
            }
          }
          // Stage the span of all W + 1 rows (long ones included: then it rarely fits).
          const I span = off[W + 1];
          const bool staged = span <= stage_cap;
          if (staged)
            warp_stage(cols, entries.data() + sb, span, lane, W, [](I k) { return k; });
          else
            sync_warp_lanes();
          const ColPtr<O> src{staged ? static_cast<const O*>(cols) : entries.data() + sb};
          const I total = soff[W + 1];
          int q = 0;           // this lane's row; non-decreasing from step to step
          I run_from = 0;      // compacted position of the last run start of the previous steps
          for (I base = 0; base < total; base += W) {
            const I j = base + lane;
            const bool act = j < total;
            bool head = false, fl = false, rstart = false, cm = false, rend = false;
            if (act) {
              if (soff[q + 1] <= j) {  // moved past row q: search [q + 1, W]
                int lo_q = q + 1, hi_q = W + 1;  // soff[lo_q] <= j < soff[hi_q]
                while (hi_q - lo_q > 1) {
                  const int mid = (lo_q + hi_q) / 2;
                  if (soff[mid] <= j) lo_q = mid; else hi_q = mid;
                }
                q = lo_q;
              }
              const I bq = off[q], eq = off[q + 1];
              const I p = bq + (j - soff[q]);
              const O c = src(p);
              head = lane == 0 || j == soff[q];
              if (want_spmm) {
                const O l = lo(c);
                fl = p == bq || lo(src(p - 1)) != l;
                if (fl && q < W) {
                  rec(l, (r + q) % nw);
                  if (r + q + 1 < n && off[q + 2] - off[q + 1] <= long_nnz) {  // pair (r+q, r+q+1) is counted here
                    const I b2 = off[q + 1], e2 = off[q + 2];
                    const I k2 = lower_bound_col(src, b2, e2, lo.first_col(l));
                    cm = k2 < e2 && lo(src(k2)) == l;
                  }
                }
              }
              if (want_fmt && q < W) {
                rstart = p == bq || src(p - 1) + 1 != c;
                rend = p + 1 == eq || src(p + 1) != c + 1;
              }
            }
            const unsigned heads = warp_ballot(head), mfl = warp_ballot(fl), mrs = warp_ballot(rstart),
                           mcm = warp_ballot(cm);
            if (rend) {  // the run's start: the last run start at or below this lane, else carried
              const unsigned upto = mrs & (lane >= 31 ? 0xffffffffu : ((2u << lane) - 1u));
              const I from = upto != 0u ? base + highest_bit32(upto) : run_from;
              a.run_size.add(static_cast<O>(j - from + 1));
            }
            if (mrs != 0u) run_from = base + highest_bit32(mrs);
            if (head) {
              const unsigned seg = segment_mask(heads, lane, W);
              nb[q] += static_cast<O>(popcount32u(mfl & seg));
              runs[q] += static_cast<O>(popcount32u(mrs & seg));
              common[q] += static_cast<O>(popcount32u(mcm & seg));
            }
            sync_warp_lanes();  // the next step's heads read these counters
          }
          const I i = r + lane;
          if (i < e0) {
            const I len = off[lane + 1] - off[lane];
            a.nnz.add(static_cast<O>(len));
            const bool pair = i + 1 < n && off[lane + 2] - off[lane + 1] <= long_nnz;  // else the long row's team
            if (len > long_nnz) {
              long_ids(kkperm::atomic_fetch_add_int(&n_long(0), 1)) = i;
              ++a.n_long;
            } else {
              if (want_spmm) {
                blocks(i) = nb[lane];
                a.blocks.add(nb[lane]);
                if (pair) {
                  a.adj.add(static_cast<O>(nb[lane] + nb[lane + 1] - 2 * common[lane]));
                  ++a.adj_count;
                }
              }
              if (want_fmt) a.runs.add(runs[lane]);
            }
          }
          sync_warp_lanes();  // the next chunk overwrites offsets, counters and columns
        }
        publish_warp(a, lane, W, std::int64_t(m.league_rank()) * groups + g, slots);
      });
}

/// Columns of the long-row result table: nb, dist(i,i+1), dist(i-1,i), runs, run count/min/max/sum/sumsq.
constexpr int kLongRowCols = 10;

/// True when entry k of the sorted column list starting at b is the first one in its line.
template <class Entries, class F, class O>
KOKKOS_INLINE_FUNCTION bool first_of_line(const Entries& entries, F b, F k, O cpl) {
  return k == b || entries(k - 1) / cpl != entries(k) / cpl;
}

/// Number of distinct lines of the sorted column list [b, e) (team-parallel).
template <class Member, class Entries, class F, class O>
KOKKOS_INLINE_FUNCTION std::int64_t team_distinct_lines(const Member& m, const Entries& entries, F b, F e, O cpl) {
  std::int64_t c = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(m, b, e),
      [&](const F k, std::int64_t& s) { s += first_of_line(entries, b, k, cpl) ? 1 : 0; }, c);
  m.team_barrier();  // the next team reduction must not overwrite this one's result before all read it
  return c;
}

/// Lines shared by the sorted column lists [b, e) and [b2, e2): every distinct line of the first
/// is looked up in the second by binary search (team-parallel over the first list).
template <class Member, class Entries, class F, class O>
KOKKOS_INLINE_FUNCTION std::int64_t team_common_lines(const Member& m, const Entries& entries, F b, F e, F b2, F e2,
                                                      O cpl) {
  std::int64_t c = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(m, b, e),
      [&](const F k, std::int64_t& s) {
        if (!first_of_line(entries, b, k, cpl)) return;
        const O l = entries(k) / cpl;
        const F lo = lower_bound_col(entries, b2, e2, O(l * cpl));  // first entry of line l or beyond
        if (lo < e2 && entries(lo) / cpl == l) s += 1;
      },
      c);
  m.team_barrier();
  return c;
}

/**
 * Features of the rows listed in long_ids (more than long_nnz nonzeros), one team per row: the
 * row's distinct lines (recording its (row, line) requests like the row pass, LineRecorder),
 * its adjacent distances (pair (i, i+1), and (i-1, i) when row i-1 is short, so every pair is
 * counted once), its runs and run sizes (a run ends at k; it started at the first j with
 * col(j) - j == col(k) - k, found by binary search since col(j) - j never decreases). The team
 * writes its numbers to one row of a small table that the host folds into `acc` (exact integers,
 * so the result equals the serial twin).
 */
template <class Matrix, class IdView, class Rec, class BlockView, class Stats>
void long_row_features(const Matrix& A, const IdView& long_ids, int n_long, typename Matrix::non_const_ordinal_type cpl,
                       bool want_spmm, bool want_fmt, const Rec& rec, const BlockView& blocks, int nw,
                       std::int64_t long_nnz, Stats& acc) {
  using exec_t = typename Matrix::execution_space;
  using mem_t = typename Matrix::memory_space;
  using O = typename Matrix::non_const_ordinal_type;
  using F = typename Matrix::non_const_size_type;
  using policy_t = kkperm::team_policy<exec_t>;
  Kokkos::View<std::int64_t* [kLongRowCols], mem_t> res("kkperm::features::long_rows_res", n_long);
  auto row_map = A.graph.row_map;
  auto entries = A.graph.entries;
  const std::int64_t n = A.numRows();
  kkperm::parallel_for(
      "kkperm::features::long_rows", policy_t(n_long, Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename policy_t::member_type& m) {
        const std::int64_t t = m.league_rank();
        const std::int64_t i = long_ids(t);
        const F b = row_map(i), e = row_map(i + 1);
        std::int64_t out[kLongRowCols] = {0, -1, -1, 0, 0, INT64_MAX, INT64_MIN, 0, 0, 0};
        if (want_spmm) {
          const std::int64_t wslot = i % nw;  // the row's stripe
          std::int64_t nb = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, b, e),
              [&](const F k, std::int64_t& s) {
                if (!first_of_line(entries, b, k, cpl)) return;
                const O l = entries(k) / cpl;
                s += 1;
                rec(l, wslot);
              },
              nb);
          m.team_barrier();
          out[0] = nb;
          if (i + 1 < n) {  // pair (i, i+1), walking the shorter list
            const F b2 = row_map(i + 1), e2 = row_map(i + 2);
            const std::int64_t nb2 = team_distinct_lines(m, entries, b2, e2, cpl);
            const std::int64_t common = (e2 - b2 < e - b) ? team_common_lines(m, entries, b2, e2, b, e, cpl)
                                                          : team_common_lines(m, entries, b, e, b2, e2, cpl);
            out[1] = nb + nb2 - 2 * common;
          }
          if (i > 0 && static_cast<std::int64_t>(row_map(i) - row_map(i - 1)) <= long_nnz) {  // pair (i-1, i)
            const F b0 = row_map(i - 1), e0 = b;
            const std::int64_t nb0 = team_distinct_lines(m, entries, b0, e0, cpl);
            out[2] = nb + nb0 - 2 * team_common_lines(m, entries, b0, e0, b, e, cpl);
          }
        }
        if (want_fmt) {
          std::int64_t runs = 0, mn = INT64_MAX, mx = INT64_MIN, sq = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, b, e),
              [&](const F k, std::int64_t& s) { s += (k == b || entries(k) != entries(k - 1) + 1) ? 1 : 0; }, runs);
          m.team_barrier();
          // Length of the run ending at k (0 when k ends no run): a run of one entry needs no
          // search; otherwise its first entry is the first j with col(j) - j == col(k) - k.
          auto run_len = [&](const F k) -> std::int64_t {
            if (k + 1 < e && entries(k + 1) == entries(k) + 1) return 0;  // not a run end
            if (k == b || entries(k - 1) + 1 != entries(k)) return 1;
            return static_cast<std::int64_t>(k - run_start(entries, b, k)) + 1;
          };
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, b, e),
              [&](const F k, std::int64_t& v) {
                const std::int64_t r = run_len(k);
                if (r > 0 && r < v) v = r;
              },
              Kokkos::Min<std::int64_t>(mn));
          m.team_barrier();
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, b, e),
              [&](const F k, std::int64_t& v) {
                const std::int64_t r = run_len(k);
                if (r > v) v = r;
              },
              Kokkos::Max<std::int64_t>(mx));
          m.team_barrier();
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, b, e),
              [&](const F k, std::int64_t& s) {
                const std::int64_t r = run_len(k);
                s += r * r;
              },
              sq);
          m.team_barrier();
          // one run ends per run, and the run lengths add up to the row length
          const std::int64_t cnt = runs, sum = static_cast<std::int64_t>(e - b);
          out[3] = runs;
          out[4] = cnt;
          out[5] = mn;
          out[6] = mx;
          out[7] = sum;
          out[8] = sq;
        }
        Kokkos::single(Kokkos::PerTeam(m), [&]() {
          if (want_spmm) blocks(i) = static_cast<int>(out[0]);
          for (int c = 0; c < kLongRowCols; ++c) res(t, c) = out[c];
        });
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), res);
  for (int t = 0; t < n_long; ++t) {  // O(number of long rows) host work
    if (want_spmm) {
      acc.s[1].add(h(t, 0));
      if (h(t, 1) >= 0) acc.s[2].add(h(t, 1));
      if (h(t, 2) >= 0) acc.s[2].add(h(t, 2));
    }
    if (want_fmt) {
      acc.s[3].add(h(t, 3));
      IntStat rs;
      rs.count = h(t, 4);
      rs.min = h(t, 5);
      rs.max = h(t, 6);
      rs.sum = h(t, 7);
      rs.sumsq = h(t, 8);
      acc.s[4].join(rs);
    }
  }
}

/**
 * The per-stripe sums and the line statistic of set 1 after the row pass, one kernel, results in
 * one small device array (so the host waits once): for each stripe w, out(3w) = warp load
 * sum ceil(nnz_i / nt), out(3w + 1) = total lines sum blocks(i) over rows i = w mod nw,
 * out(3w + 2) = the stripe's distinct lines (non-zero (line, w) counters, or set bits of its
 * bitmap); then over all n_lines lines the requests per line c_l: out(3nw) = max of ~c_l (the
 * complement, so the minimum fits a zero-initialized slot), out(3nw + 1) = max c_l, out(3nw + 2)
 * = sum c_l, out(3nw + 3) = sum c_l^2. `out` must be zero on entry. Teams of the first kind take
 * kFinishItems consecutive rows, the others kFinishItems lines (bitmap: their counts and words)
 * or kFinishItems / Nw lines (stripes: their Nw counters side by side, read coalesced); per-stripe
 * sums go through team scratch and one global atomic per stripe and team, the line statistic
 * through a team reduction and four global atomics per team. (Before: three kernels - a thread per
 * (stripe, 32 rows), a thread per (stripe, word group), a 128-thread team per 1024 lines - and
 * two host waits, 60-75 us together on 1e7-nnz matrices, H100 run 78.) Exact integers.
 */
constexpr std::int64_t kFinishItems = 2048;
template <class Exec, class Rec, class RowMap, class Blocks, class Out>
Out finish_spmm_set(std::int64_t n, int nt, int nw, std::int64_t n_lines, const Rec& rec, const RowMap& row_map,
                    const Blocks& blocks, const Out& out) {
  const bool stripes = rec.stripes;
  const auto count = rec.count;
  const auto scount = rec.scount;
  const auto bitmap = rec.bitmap;
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  using sums_t = Kokkos::View<std::int64_t*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const int team = on_host ? 1 : 256;
  // Teams of kFinishItems rows, kFinishItems lines (bitmap; a multiple of 32 lines, so teams
  // share no bitmap word) or kFinishItems / Nw lines with their Nw counters (stripes). (2048
  // lines of 32 counters per team, the first version, left 5 teams walking 256 dependent loads
  // each: 196 us on the Kronecker mesh, H100 run 79; 256 lines per team was 0.05-0.1 SpMV-eq
  // slower than 64 on most of the generated set, run 82.)
  const std::int64_t per_line_team = stripes ? std::max<std::int64_t>(1, kFinishItems / nw) : kFinishItems;
  const std::int64_t row_teams = (n + kFinishItems - 1) / kFinishItems;
  const std::int64_t line_teams = (n_lines + per_line_team - 1) / per_line_team;
  const std::int64_t league = row_teams + line_teams;
  if (league == 0) return out;
  const std::size_t n_sums = std::size_t(3) * nw;
  // Stripe counters with Nw == 32 on a device: a warp per line, lane w reading counter (l, w) -
  // one coalesced 128-byte load gives the line's requests (a warp sum) and, per lane, whether
  // stripe w touched it - and each warp's line statistic goes through 5 scratch words per warp.
  // (The thread per line before read its 32 counters one after another, twice: 62 us for the
  // 16 MB of counters of the 2D stencil against 33 us for the bitmap, ncu H100 run 81.)
  const bool warp_lines = stripes && !on_host && nw == 32;
  const int warps = team / 32;
  const std::size_t n_parts = warp_lines ? std::size_t(5) * warps : 0;
  policy_t pol(static_cast<int>(league), team);
  pol.set_scratch_size(0, Kokkos::PerTeam(sums_t::shmem_size(n_sums + n_parts)));
  const std::int64_t f0 = 3 * std::int64_t(nw);
  kkperm::parallel_for(
      "kkperm::features::finish", pol, KOKKOS_LAMBDA(const member_t& m) {
        sums_t sums(m.team_scratch(0), n_sums + n_parts);
        const int t = m.team_rank(), T = m.team_size();
        for (std::size_t k = t; k < n_sums; k += T) sums(k) = 0;
        m.team_barrier();
        const std::int64_t lr = m.league_rank();
        if (lr < row_teams) {
          const std::int64_t b = lr * kFinishItems, e = b + kFinishItems < n ? b + kFinishItems : n;
          for (std::int64_t i = b + t; i < e; i += T) {
            const std::int64_t len = static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
            const std::int64_t w = i % nw;
            kkperm::atomic_add_i64(&sums(w), (len + nt - 1) / nt);
            kkperm::atomic_add_i64(&sums(nw + w), static_cast<std::int64_t>(blocks(i)));
          }
        } else {
          const std::int64_t lb = (lr - row_teams) * per_line_team;
          const std::int64_t le = lb + per_line_team < n_lines ? lb + per_line_team : n_lines;
          if (warp_lines) {
            const int lane = t % 32, g = t / 32;
            std::int64_t touched = 0;  // lines of stripe `lane` among this warp's
            IntStat la;
            la.init();
            for (std::int64_t l = lb + g; l < le; l += warps) {
              const std::int64_t v = scount(l * 32 + lane);
              touched += v != 0 ? 1 : 0;
              std::int64_t c = v;
              for (int d = 16; d >= 1; d >>= 1) c += warp_shfl_xor(c, d, 32);
              la.add(c);  // the same on every lane
            }
            if (touched != 0) kkperm::atomic_add_i64(&sums(2 * nw + lane), touched);
            std::int64_t* part = &sums(n_sums + 5 * std::size_t(g));
            if (lane == 0) {
              part[0] = la.count;
              part[1] = la.min;
              part[2] = la.max;
              part[3] = la.sum;
              part[4] = la.sumsq;
            }
            m.team_barrier();
            if (t == 0) {
              IntStat all;
              all.init();
              for (int q = 0; q < warps; ++q) {
                const std::int64_t* pq = &sums(n_sums + 5 * std::size_t(q));
                IntStat w;
                w.count = pq[0];
                w.min = pq[1];
                w.max = pq[2];
                w.sum = pq[3];
                w.sumsq = pq[4];
                all.join(w);
              }
              // counts >= 0: unsigned order = signed order
              kkperm::atomic_max_u64(&out(f0), static_cast<std::int64_t>(~static_cast<std::uint64_t>(all.min)));
              kkperm::atomic_max_u64(&out(f0 + 1), all.max);
              kkperm::atomic_add_i64(&out(f0 + 2), all.sum);
              kkperm::atomic_add_i64(&out(f0 + 3), all.sumsq);
            }
          } else {
            if (stripes) {  // distinct lines: the (line, stripe) counters in order, coalesced
              for (std::int64_t q = lb * nw + t; q < le * nw; q += T)
                if (scount(q) != 0) kkperm::atomic_add_i64(&sums(2 * nw + q % nw), std::int64_t(1));
            } else {        // distinct lines: popcounts of the stripes' words of these lines
              const std::int64_t wb = lb / 32, we = (le + 31) / 32;  // per_line_team % 32 == 0: no shared words
              for (std::int64_t q = wb * nw + t; q < we * nw; q += T) {
                const int d = detail::popcount32(bitmap(q));
                if (d != 0) kkperm::atomic_add_i64(&sums(2 * nw + q % nw), std::int64_t(d));
              }
            }
            IntStat la;  // over this team's lines, never empty
            Kokkos::parallel_reduce(
                Kokkos::TeamThreadRange(m, lb, le),
                [&](const std::int64_t l, IntStat& v) {
                  std::int64_t c = 0;
                  if (stripes) {
                    for (std::int64_t w = 0; w < nw; ++w) c += scount(l * nw + w);
                  } else {
                    c = count(l);
                  }
                  v.add(c);
                },
                JoinReducer<IntStat, Kokkos::HostSpace>(la));
            Kokkos::single(Kokkos::PerTeam(m), [&]() {  // counts >= 0: unsigned order = signed order
              kkperm::atomic_max_u64(&out(f0), static_cast<std::int64_t>(~static_cast<std::uint64_t>(la.min)));
              kkperm::atomic_max_u64(&out(f0 + 1), la.max);
              kkperm::atomic_add_i64(&out(f0 + 2), la.sum);
              kkperm::atomic_add_i64(&out(f0 + 3), la.sumsq);
            });
          }
        }
        m.team_barrier();
        for (std::size_t k = t; k < n_sums; k += T)  // sums(kind * nw + w) -> out(3 * w + kind)
          if (sums(k) != 0)
            kkperm::atomic_add_i64(&out(3 * (std::int64_t(k) % nw) + std::int64_t(k) / nw), sums(k));
      });
  return out;
}
}  // namespace detail

/**
 * @brief Device computation of the exact intermediate of the requested sets (see the header
 * comment for every definition). Validates nothing: call compute_features for a checked entry.
 */
template <class Matrix>
RawSpmvFeatures spmv_features_raw(const Matrix& A, const FeatureParams& p,
                                  unsigned sets = kAllSpmvSets) {
  using exec_t = typename Matrix::execution_space;
  using mem_t = typename Matrix::memory_space;
  using O = typename Matrix::non_const_ordinal_type;
  using F = typename Matrix::non_const_size_type;
  using detail::IntStat;
  using Stats = detail::MultiStat<5>;

  RawSpmvFeatures r;
  const O n = A.numRows();
  const O m = A.numCols();
  r.n_row = n;
  r.n_col = m;
  r.nnz = static_cast<std::int64_t>(A.nnz());
  r.cols_per_line = p.cols_per_line(sizeof(typename Matrix::non_const_value_type));
  r.warp_size = p.warp_size;
  r.warps_per_block = p.warps_per_block;
  r.nnz_row.init();
  r.blocks_row.init();
  r.warp_load.init();
  r.same_line.init();
  r.distinct_lines_warp.init();
  r.total_lines_warp.init();
  r.adj_dist.init();
  r.runs_row.init();
  r.run_size.init();
  if (n == 0) return r;

  const O cpl = static_cast<O>(r.cols_per_line);
  const int nt = p.warp_size;
  const int nw = p.warps_per_block;
  const bool want_spmm = (sets & kSpmmSet) != 0;
  const bool want_fmt = (sets & kFormatSet) != 0;
  const std::int64_t n_lines = (static_cast<std::int64_t>(m) + cpl - 1) / cpl;
  const std::int64_t words = (n_lines + 31) / 32;

  auto row_map = A.graph.row_map;
  auto entries = A.graph.entries;
  // Rows longer than long_row_nnz go to a list and get a team each below (one thread walking a
  // hub row of a power-law matrix took ~50 ms on an H100); the row pass skips their per-entry
  // work and the adjacent-distance pairs that touch them.
  const std::int64_t long_nnz = p.long_row_nnz;
  const std::int64_t long_cap = static_cast<std::int64_t>(A.nnz()) / (long_nnz + 1) + 1;
  // Scratch from the reusable workspace (workspace.hpp): the zeroed arrays first, one zero kernel.
  using ws_t = detail::Workspace<mem_t>;
  using Acc = detail::RowPassAcc<O>;
  // Per-(line, stripe) counters (one atomic per (row, line) pair) or a per-line counter and a
  // per-stripe bitmap (two atomics, 1/32 of the memory): FeatureParams::line_counts.
  using LC = FeatureParams::LineCounts;
  const bool stripes =
      p.line_counts == LC::stripes ||
      (p.line_counts == LC::automatic &&
       double(nw) * double(n_lines) * double(sizeof(int)) <= p.stripe_count_bytes_per_nnz * double(r.nnz));
  const std::int64_t n_cnt = want_spmm && !stripes ? n_lines : 0;
  const std::int64_t n_scnt = want_spmm && stripes ? std::int64_t(nw) * n_lines : 0;
  const std::int64_t n_bits = want_spmm && !stripes ? std::int64_t(nw) * words : 0;
  ws_t ws(ws_t::template bytes_for<int>(n_cnt) + ws_t::template bytes_for<int>(n_scnt) +
          ws_t::template bytes_for<std::uint32_t>(n_bits) +
          ws_t::template bytes_for<std::int64_t>(3 * nw + 4) + ws_t::template bytes_for<int>(1) +
          ws_t::template bytes_for<std::int64_t>(1 + detail::kSlotCopies * detail::kSlotStride) +
          ws_t::template bytes_for<int>(want_spmm ? n : 0) +
          ws_t::template bytes_for<std::int64_t>(long_cap));
  const auto zero_from = ws.mark();
  auto line_count = ws.template take<int>(n_cnt);
  // Counter (line l, stripe w) at l * nw + w: the Nw counters of a line side by side.
  auto stripe_count = ws.template take<int>(n_scnt);
  // Word q of stripe w's line bitmap sits at q * nw + w (word-major): the rows of one CUDA warp
  // belong to consecutive stripes, so their atomics on one line land in one 128-byte segment.
  auto bitmap = ws.template take<std::uint32_t>(n_bits);
  // finish_spmm_set's results: 3 * Nw stripe totals, then ~min, max, sum, sum of squares of the
  // requests per line (zero-initialized: the minimum is kept as a maximum of its complement)
  auto finish = ws.template take<std::int64_t>(3 * nw + 4);
  auto n_long = ws.template take<int>(1);
  // padded work of a thread per row (RowPass::automatic), then the row pass's accumulator slots
  auto pass_out = ws.template take<std::int64_t>(1 + detail::kSlotCopies * detail::kSlotStride);
  ws.template zero_since<exec_t>(zero_from);
  auto blocks = ws.template take<int>(want_spmm ? n : 0);
  auto long_ids = ws.template take<std::int64_t>(long_cap);
  const detail::LineRecorder<decltype(line_count), decltype(bitmap)> rec{line_count, bitmap, stripe_count, nw, stripes};

  // One pass over the rows, reduced into a compact accumulator (min/max in the ordinal type, only
  // the sums the statistics need: 31 registers of state instead of 5 full IntStats' 50), with a
  // register cap for occupancy (ncu, H100 session 5: the MultiStat<5> version used 128 registers
  // per thread, 25 % occupancy, and was latency bound at 375 us on a 10 M-nnz stencil).
  const detail::LineOf<O> lo(cpl);
  const int lanes = p.row_lanes;
  KKPERM_REQUIRE(lanes >= 1 && lanes <= 32 && (lanes & (lanes - 1)) == 0,
                 "kkperm::spmv_features_raw: row_lanes must be a power of two from 1 to 32, got " << lanes);
  Acc acc;
  using RowPass = FeatureParams::RowPass;
  // RowPass::automatic: entry steps where a thread per row would idle most lanes (device only; a
  // host team is one thread, where both walks do the same work). The padded work of a thread per
  // row (row_padded_work) goes to a device scalar and both passes are launched behind it, each
  // skipping itself unless the decision is its own (PassGate): no host wait between them, and the
  // skipped one costs a launch. Both add their accumulators to the same device slots, read once.
  // (Run 80, the thread-per-row pass a Kokkos reduction skipped by the host's reading of an
  // untouched result: imbalance pass 10 us + skipped pass 25 us + a host wait, ~0.35 SpMV-eq on
  // 1-63 random columns per row.)
  constexpr bool on_host_space = Kokkos::SpaceAccessibility<Kokkos::HostSpace, mem_t>::accessible;
  const bool decide = lanes == 1 && p.row_pass == RowPass::automatic && !on_host_space && r.nnz > 0;
  std::int64_t* const padded = pass_out.data();
  std::int64_t* const slots = pass_out.data() + 1;
  if (decide) detail::row_padded_work<exec_t>(n, row_map, detail::staged_warp_lanes<exec_t>(), padded);
  const double limit = detail::kEntryImbalance * double(r.nnz);
  const bool run_rows = lanes == 1 && p.row_pass != RowPass::entries;
  const bool run_entries = lanes == 1 && (p.row_pass == RowPass::entries || decide);
  if (run_rows) {
    // A thread per row; the rows' columns come from a per-warp staging buffer in team scratch
    // (rows_staged_pass): loaded with coalesced reads instead of one dependent load after
    // another per thread. Compact accumulator (min/max in the ordinal type, only the sums the
    // statistics need: 31 registers of state instead of 5 full IntStats' 50) with a register cap
    // for occupancy (ncu, H100 session 5: the MultiStat<5> version used 128 registers per thread,
    // 25 % occupancy, and was latency bound at 375 us on a 10 M-nnz stencil).
    detail::rows_staged_pass<exec_t, Acc, 4>(
        "kkperm::features::rows", n, r.nnz, row_map, entries,
        KOKKOS_LAMBDA(const std::int64_t row, const detail::StagedSpan<O, F>& span, Acc& a)->int {
          const O i = static_cast<O>(row);
          const F b = row_map(i), e = row_map(i + 1);
          const auto cols = span.row(b);
          const F len = e - b;
          a.nnz.add(static_cast<O>(len));
          if (static_cast<std::int64_t>(len) > long_nnz) {
            long_ids(kkperm::atomic_fetch_add_int(&n_long(0), 1)) = row;
            ++a.n_long;
            return -1;
          }
          // One walk over the row for both sets: line firsts (set 1) and runs (set 2). (Two walks,
          // one per set, before: H100 run 83 has the comparison.) A staged row's distinct lines
          // overwrite its first entries as they are found (entry nb - 1 <= k, already read), so
          // the adjacent distance below merges line lists, not column lists.
          const bool compact = want_spmm && span.staged;
          const std::int64_t wslot = static_cast<std::int64_t>(i % nw);
          O last_line = -1, nb = 0;
          O runs = 0, run_len = 0, prev = 0;
          for (F k = 0; k < len; ++k) {
            const O c = cols[k];
            if (want_spmm) {
              const O l = lo(c);
              if (l != last_line) {
                if (compact) cols.put(nb, l);
                ++nb;
                last_line = l;
                rec(l, wslot);
              }
            }
            if (want_fmt) {
              if (k == 0 || c != prev + 1) {
                if (run_len > 0) a.run_size.add(run_len);
                ++runs;
                run_len = 1;
              } else {
                ++run_len;
              }
              prev = c;
            }
          }
          if (want_spmm) {
            blocks(i) = nb;
            a.blocks.add(nb);
          }
          if (want_fmt) {
            if (run_len > 0) a.run_size.add(run_len);
            a.runs.add(runs);
          }
          return static_cast<int>(nb);
        },
        // Adjacent distance of rows (i, i + 1), from row i's line list (compacted by the walk)
        // and row i + 1's: its line list when the next lane walked it (c_next >= 0), else its
        // columns. (Merging the two column lists, 70 entries each on the Kronecker mesh, was
        // most of set 1's cost there.)
        KOKKOS_LAMBDA(const std::int64_t row, const detail::StagedSpan<O, F>& span, Acc& a, const int c_own,
                      const int c_next) {
          if (!want_spmm || c_own < 0 || row + 1 >= n) return;
          const O i = static_cast<O>(row);
          const F b = row_map(i), e = row_map(i + 1), e2 = row_map(i + 2);
          if (static_cast<std::int64_t>(e2 - e) > long_nnz) return;  // the long row's team does it
          std::int64_t d;
          if (!span.staged)
            d = detail::line_mask_distance(span.row(b), e - b, span.row(e), e2 - e, lo);
          else if (c_next >= 0)
            d = detail::sorted_distance(span.row(b), c_own, span.row(e), c_next);
          else
            d = detail::line_mask_distance(span.row(b), F(c_own), detail::LineId{}, span.row(e), e2 - e, lo);
          a.adj.add(static_cast<O>(d));
          ++a.adj_count;
        },
        detail::stage_cols_for<exec_t, O>(p.row_stage_cols, n, r.nnz, 0, true),
        detail::PassGate{decide ? padded : nullptr, limit, false}, slots);
  }
  if (run_entries)
    detail::row_pass_entries<exec_t, Acc>(
        n, r.nnz, row_map, entries, lo, nw, long_nnz, want_spmm, want_fmt, rec, blocks, long_ids, n_long,
        detail::stage_cols_for<exec_t, O>(p.row_stage_cols, n, r.nnz, detail::entry_pass_extra_bytes<O>()),
        detail::PassGate{decide ? padded : nullptr, limit, true}, slots);
  if (lanes == 1) {  // the host waits here once
    constexpr int kAll = detail::kSlotCopies * detail::kSlotStride;
    std::int64_t h[kAll];
    Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h, kAll),
                      Kokkos::View<const std::int64_t*, mem_t, Kokkos::MemoryUnmanaged>(slots, kAll));
    acc.init();
    for (int c = 0; c < detail::kSlotCopies; ++c) acc.join(Acc::from_slots(h + c * detail::kSlotStride));
  } else {
    // `lanes` vector lanes per row (a thread of the team = `lanes` CUDA threads): lane j takes
    // entries j, j + lanes, ... of the row (coalesced), flags the first entry of each line and of
    // each run, and the row's counts are summed across the lanes. Each thread walks a range of
    // `rpt` consecutive rows; the pair (i - 1, i) is counted at row i (lines of row i found in row
    // i - 1 by binary search), so the first row of a range also counts the distinct lines of the
    // row before it. A run's length is found at its last entry (run_start). Run sizes stay per
    // lane and are joined across the lanes at the end: Kokkos' team reduction reads vector
    // lane 0 only, and every other total is the same on all lanes after the vector reductions.
    constexpr int kThreads = 128;
    constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, mem_t>::accessible;
    const int vlen = on_host ? 1 : lanes;
    const int team = on_host ? 1 : kThreads / lanes;
    // >= 4 rows per thread (the extra row before each range costs <= 1/4), at most 32768 teams
    const std::int64_t rpt = std::max<std::int64_t>(4, (std::int64_t(n) + std::int64_t(team) * 32768 - 1) /
                                                           (std::int64_t(team) * 32768));
    const std::int64_t n_thr = (std::int64_t(n) + rpt - 1) / rpt;
    const int league = static_cast<int>((n_thr + team - 1) / team);
    using lpolicy_t = kkperm::team_policy<exec_t, Kokkos::LaunchBounds<kThreads, 4>>;
    using lmember_t = typename lpolicy_t::member_type;
    using RS = detail::LaneRowSums;
    using PS = detail::PassStat<O>;
    acc.init();
    Kokkos::parallel_reduce(
        "kkperm::features::rows_lanes", lpolicy_t(league, team, vlen),
        KOKKOS_LAMBDA(const lmember_t& mb, Acc& a) {
          const std::int64_t s = (static_cast<std::int64_t>(mb.league_rank()) * mb.team_size() + mb.team_rank()) * rpt;
          if (s >= n) return;
          const std::int64_t e = s + rpt < n ? s + rpt : std::int64_t(n);
          PS rs;
          rs.init();
          F b = row_map(s);
          F pb = s > 0 ? row_map(s - 1) : F(0);  // begin of the previous row
          int prev_nb = -1;                        // its distinct lines; -1: no pair (none, or long)
          if (want_spmm && s > 0 && static_cast<std::int64_t>(b - pb) <= long_nnz) {
            int c = 0;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(mb, pb, b),
                [&](const F k, int& v) { v += (k == pb || lo(entries(k - 1)) != lo(entries(k))) ? 1 : 0; }, c);
            prev_nb = c;
          }
          for (std::int64_t i = s; i < e; ++i) {
            const F en = row_map(i + 1);
            const F len = en - b;
            a.nnz.add(static_cast<O>(len));
            if (static_cast<std::int64_t>(len) > long_nnz) {
              Kokkos::single(Kokkos::PerThread(mb),
                             [&]() { long_ids(kkperm::atomic_fetch_add_int(&n_long(0), 1)) = i; });
              ++a.n_long;
              prev_nb = -1;
              pb = b;
              b = en;
              continue;
            }
            const std::int64_t wslot = i % nw;
            RS rsum;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(mb, b, en),
                [&](const F k, RS& v) {
                  const O c = entries(k);
                  if (want_spmm) {
                    const O l = lo(c);
                    if (k == b || lo(entries(k - 1)) != l) {
                      ++v.nb;
                      rec(l, wslot);
                      if (prev_nb >= 0) {
                        const F q = detail::lower_bound_col(entries, pb, b, lo.first_col(l));
                        if (q < b && lo(entries(q)) == l) ++v.common;
                      }
                    }
                  }
                  if (want_fmt) {
                    const bool start = k == b || entries(k - 1) + 1 != c;
                    if (start) ++v.runs;
                    if (k + 1 == en || entries(k + 1) != c + 1)
                      rs.add(static_cast<O>(start ? F(1) : k - detail::run_start(entries, b, k) + 1));
                  }
                },
                rsum);
            if (want_spmm) {
              Kokkos::single(Kokkos::PerThread(mb), [&]() { blocks(i) = rsum.nb; });
              a.blocks.add(static_cast<O>(rsum.nb));
              if (prev_nb >= 0) {
                a.adj.add(static_cast<O>(prev_nb + rsum.nb - 2 * rsum.common));
                ++a.adj_count;
              }
              prev_nb = rsum.nb;
            }
            if (want_fmt) a.runs.add(static_cast<O>(rsum.runs));
            pb = b;
            b = en;
          }
          if (want_fmt) {
            PS tot;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(mb, vlen), [&](const int, PS& v) { v.join(rs); },
                detail::JoinReducer<PS, Kokkos::HostSpace>(tot));
            a.run_size.join(tot);
          }
        },
        detail::JoinReducer<Acc, Kokkos::HostSpace>(acc));
  }
  Stats stats = acc.to_stats(n);
  const int n_long_h = acc.n_long;
  if (n_long_h > 0 && (want_spmm || want_fmt))
    detail::long_row_features<Matrix>(A, long_ids, n_long_h, cpl, want_spmm, want_fmt, rec, blocks, nw,
                                      long_nnz, stats);
  r.nnz_row = stats.s[0];
  if (want_fmt) {
    r.runs_row = stats.s[3];
    r.run_size = stats.s[4];
  }
  if (!want_spmm) return r;
  r.blocks_row = stats.s[1];
  r.adj_dist = stats.s[2];

  // Per-stripe sums and line statistics in one kernel (detail::finish_spmm_set), read back with
  // one copy: 3 * Nw stripe totals and the line statistic.
  auto fin = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), detail::finish_spmm_set<exec_t>(n, nt, nw, n_lines, rec, row_map, blocks, finish));
  const int active = static_cast<int>(std::min<std::int64_t>(n, nw));
  for (int w = 0; w < active; ++w) {  // O(Nw) host work
    r.warp_load.add(fin(3 * w));
    r.total_lines_warp.add(fin(3 * w + 1));
    r.distinct_lines_warp.add(fin(3 * w + 2));
  }
  detail::IntStat ls;
  ls.init();
  const std::int64_t f0 = 3 * std::int64_t(nw);
  ls.count = n_lines;  // every line, requested or not
  if (n_lines > 0) {
    ls.min = static_cast<std::int64_t>(~static_cast<std::uint64_t>(fin(f0)));  // stored as ~min by a max
    ls.max = fin(f0 + 1);
    ls.sum = fin(f0 + 2);
    ls.sumsq = fin(f0 + 3);
  }
  r.same_line = ls;
  return r;
}

/// Serial reference twin of spmv_features_raw on a HostCsr (plain loops, std containers).
template <class V, class O, class F>
RawSpmvFeatures spmv_features_raw_serial(const HostCsr<V, O, F>& h, const FeatureParams& p,
                                         unsigned sets = kAllSpmvSets) {
  RawSpmvFeatures r;
  r.n_row = h.num_rows;
  r.n_col = h.num_cols;
  r.nnz = static_cast<std::int64_t>(h.nnz());
  r.cols_per_line = p.cols_per_line(sizeof(V));
  r.warp_size = p.warp_size;
  r.warps_per_block = p.warps_per_block;
  for (auto* s : {&r.nnz_row, &r.blocks_row, &r.warp_load, &r.same_line, &r.distinct_lines_warp,
                  &r.total_lines_warp, &r.adj_dist, &r.runs_row, &r.run_size})
    s->init();
  const std::int64_t n = h.num_rows;
  if (n == 0) return r;
  const std::int64_t cpl = r.cols_per_line;
  const std::int64_t n_lines = (static_cast<std::int64_t>(h.num_cols) + cpl - 1) / cpl;
  const int nw = p.warps_per_block;
  // Line set of every row.
  std::vector<std::vector<std::int64_t>> lines(n);
  for (std::int64_t i = 0; i < n; ++i) {
    for (F k = h.row_map[i]; k < h.row_map[i + 1]; ++k) lines[i].push_back(h.entries[k] / cpl);
    std::sort(lines[i].begin(), lines[i].end());
    lines[i].erase(std::unique(lines[i].begin(), lines[i].end()), lines[i].end());
  }
  for (std::int64_t i = 0; i < n; ++i) r.nnz_row.add(h.row_map[i + 1] - h.row_map[i]);
  if (sets & kSpmmSet) {
    std::vector<std::int64_t> per_line(n_lines, 0), load(nw, 0), total(nw, 0);
    std::vector<std::vector<bool>> touched(nw, std::vector<bool>(n_lines, false));
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t len = h.row_map[i + 1] - h.row_map[i];
      r.blocks_row.add(static_cast<std::int64_t>(lines[i].size()));
      const int w = static_cast<int>(i % nw);
      load[w] += (len + p.warp_size - 1) / p.warp_size;
      total[w] += static_cast<std::int64_t>(lines[i].size());
      for (auto l : lines[i]) {
        ++per_line[l];
        touched[w][l] = true;
      }
      if (i + 1 < n) {
        std::vector<std::int64_t> sym;
        std::set_symmetric_difference(lines[i].begin(), lines[i].end(), lines[i + 1].begin(),
                                      lines[i + 1].end(), std::back_inserter(sym));
        r.adj_dist.add(static_cast<std::int64_t>(sym.size()));
      }
    }
    for (int w = 0; w < nw && w < n; ++w) {
      r.warp_load.add(load[w]);
      r.total_lines_warp.add(total[w]);
      r.distinct_lines_warp.add(std::count(touched[w].begin(), touched[w].end(), true));
    }
    for (auto c : per_line) r.same_line.add(c);
  }
  if (sets & kFormatSet) {
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t runs = 0;
      F k = h.row_map[i];
      while (k < h.row_map[i + 1]) {
        F e = k + 1;
        while (e < h.row_map[i + 1] && h.entries[e] == h.entries[e - 1] + 1) ++e;
        r.run_size.add(static_cast<std::int64_t>(e - k));
        ++runs;
        k = e;
      }
      r.runs_row.add(runs);
    }
  }
  return r;
}

namespace detail {
template <class V, class O, class F>
void check_host_csr(const HostCsr<V, O, F>& h, const char* who) {
  KKPERM_REQUIRE(h.num_rows >= 0 && h.num_cols >= 0 &&
                     h.row_map.size() == static_cast<std::size_t>(h.num_rows) + 1 &&
                     h.row_map[0] == 0,
                 who << ": malformed HostCsr row_map (" << h.row_map.size() << " entries for "
                     << h.num_rows << " rows)");
  KKPERM_REQUIRE(h.entries.size() == static_cast<std::size_t>(h.nnz()) &&
                     h.values.size() == static_cast<std::size_t>(h.nnz()),
                 who << ": entries/values sizes differ from nnz " << h.nnz());
  for (O i = 0; i < h.num_rows; ++i) {
    KKPERM_REQUIRE(h.row_map[i] <= h.row_map[i + 1], who << ": row_map not monotone at row " << i);
    for (F k = h.row_map[i]; k < h.row_map[i + 1]; ++k) {
      KKPERM_REQUIRE(h.entries[k] >= 0 && h.entries[k] < h.num_cols,
                     who << ": row " << i << " has column " << h.entries[k] << " outside [0, "
                         << h.num_cols << ")");
      KKPERM_REQUIRE(k == h.row_map[i] || h.entries[k - 1] < h.entries[k],
                     who << ": row " << i << " has unsorted or duplicate columns");
    }
  }
}
}  // namespace detail

/**
 * @brief Feature sets 1 and 2 of A as one named, ordered vector (names == feature_names()).
 * Validates A (sorted unique columns, an O(nnz) pass) and params; throws std::invalid_argument
 * otherwise. validate_matrix = false skips the matrix check for callers that already ran
 * kkperm::validate(A) on this structure (params are still checked).
 */
template <class Matrix>
FeatureVector compute_features(const Matrix& A, const FeatureParams& params = FeatureParams{},
                               unsigned sets = kAllSpmvSets, bool validate_matrix = true) {
  params.check("kkperm::compute_features", sizeof(typename Matrix::non_const_value_type));
  if (validate_matrix) validate(A, "kkperm::compute_features");
  return finalize_features(spmv_features_raw(A, params, sets), sets);
}

/// Serial reference twin of compute_features on a HostCsr.
template <class V, class O, class F>
FeatureVector compute_features_serial(const HostCsr<V, O, F>& h,
                                      const FeatureParams& params = FeatureParams{},
                                      unsigned sets = kAllSpmvSets) {
  params.check("kkperm::compute_features_serial", sizeof(V));
  detail::check_host_csr(h, "kkperm::compute_features_serial");
  return finalize_features(spmv_features_raw_serial(h, params, sets), sets);
}

}  // namespace kkperm
