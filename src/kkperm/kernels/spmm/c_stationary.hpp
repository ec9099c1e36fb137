#pragma once
/**
 * @brief C-stationary (output-stationary) SpMM, Y = alpha*A*B + beta*Y, B and Y column-major
 * (Kokkos::LayoutLeft), after the SpMM row-permutation paper.
 *
 * Work decomposition: the league is (column strips of C) x (row groups of A). A team (= a CUDA
 * block of `warps_per_team` warps) owns one strip of consecutive columns of C and walks
 * `warps_per_team * rows_per_warp` consecutive stored rows; stored row i of the group goes to
 * warp (i mod Nw). The warp's 32 lanes split row i's nonzeros and keep partial sums in
 * registers (StripAccumulator), reduced across lanes with shuffles (ThreadVectorRange
 * reduction) -- no atomics, every Y entry is written exactly once. Strips are the slow league
 * index so that concurrently running teams share the same strip of B.
 *
 * Register tile (why, from the H200 run of 2026-11-21 where the first version was 6-16x slower
 * than cuSPARSE on stencils at K = 32/128): a whole warp on one row and one 8-column strip left
 * 27 of 32 lanes idle on 5-nonzero rows, re-read A K/8 times, and paid a 5-step shuffle
 * reduction of 8 values per row and strip. Now the warp is split into `groups` = 32 / G groups
 * of G lanes (G = lanes per row, from the mean row length: ~`nnz_per_lane` nonzeros per lane,
 * and at least 32 / ceil(K / T) so no group is left without columns): all groups work on the
 * same row i, the G lanes of a group split its nonzeros, and group g accumulates a tile of T
 * columns (c0 + g*T ... c0 + g*T + T-1). A strip is therefore groups * T columns (32 for G = 4,
 * T = 4 at K = 32: one pass over A instead of four), the reduction runs over G lanes only
 * (log2 G shuffle steps), and the groups of a warp read the same A entries (one broadcast
 * transaction). On host spaces (one lane, one thread per team) the single thread loops over
 * the groups, so the same index arithmetic runs in the Serial tests.
 *
 * Usage: `kkperm::kernels::spmm::c_stationary(exec, alpha, A.graph.row_map, A.graph.entries,
 *         A.values, row_ids, B, beta, Y);` with row_ids as described in spmm_common.hpp.
 * Preconditions: see spmm_common.hpp; all views accessible from ExecSpace; B, Y LayoutLeft (any
 * layout works, LayoutLeft is the one this kernel is designed for).
 */
#include <cstdint>

#include "kkperm/core/launch_policy.hpp"
#include "kkperm/kernels/spmm/spmm_common.hpp"

namespace kkperm::kernels::spmm {

/// Tuning constants of the C-stationary kernel (GPU values; host spaces use 1 lane x 1 warp).
struct CStationaryConfig {
  /// Lanes per warp.
  static constexpr int warp_size = 32;
  /// Nw, warps per team. Row permutations built for this kernel must use the same Nw.
  static constexpr int warps_per_team = 8;
  /// Rows each warp walks per team: a team covers warps_per_team * rows_per_warp rows. Halved
  /// (down to 1) while the launch would have fewer teams than the device keeps resident: each
  /// row is a chain of dependent loads (row_map, entries, B), so on a small matrix four rows a
  /// warp cost four chains' latency with most SMs idle (H100 run 156: 1138_bus, 1138 rows,
  /// K = 32: 17.4 us against 9.7 us for cuSPARSE ALG3).
  static constexpr int rows_per_warp = 4;
  /// Register tile: columns of C per lane group (T); 1 for K == 1, wide_tile for K > 64.
  static constexpr int tile = 4;
  static constexpr int wide_tile = 8;
  /// Lanes per row G: smallest power of two with G * nnz_per_lane >= mean nnz/row (<= 32).
  static constexpr int nnz_per_lane = 2;
  /// Column groups per strip on host spaces (the one thread loops over them; > 1 so the
  /// group arithmetic of the GPU path is exercised by the Serial tests).
  static constexpr int host_groups = 2;
};

namespace impl {

template <int T, class ExecSpace, class RowMap, class Entries, class Values, class RowIds,
          class BView, class YView>
void c_stationary_tile(const ExecSpace& exec, typename YView::const_value_type alpha,
                       const RowMap& row_map, const Entries& entries, const Values& values,
                       const RowIds& row_ids, const BView& B,
                       typename YView::const_value_type beta, const YView& Y) {
  using value_t = typename YView::non_const_value_type;
  using offset_t = typename std::remove_const<typename RowMap::value_type>::type;
  using policy_t = kkperm::team_policy<ExecSpace>;
  using member_t = typename policy_t::member_type;
  using acc_t = StripAccumulator<value_t, T>;
  using Cfg = CStationaryConfig;

  const std::int64_t n_rows = stored_rows(row_map);
  const int K = static_cast<int>(Y.extent(1));
  if (n_rows == 0 || K == 0) return;
  constexpr bool gpu = is_gpu_space<ExecSpace>::value;
  // G lanes per row and group; `groups` column groups of T columns per strip.
  int G = 1;
  if (gpu) {
    const double mean = static_cast<double>(entries.extent(0)) / static_cast<double>(n_rows);
    while (G < Cfg::warp_size && static_cast<double>(G) * Cfg::nnz_per_lane < mean) G *= 2;
    const int tiles = (K + T - 1) / T;  // column groups that have work
    while (G < Cfg::warp_size && Cfg::warp_size / G > tiles) G *= 2;
  }
  const int groups = gpu ? Cfg::warp_size / G : Cfg::host_groups;
  const int threads_per_warp = gpu ? groups : 1;  // Kokkos threads (of G lanes) per warp
  const int team_size = gpu ? Cfg::warps_per_team * threads_per_warp : 1;
  const int warps = gpu ? Cfg::warps_per_team : 1;
  const int strip_cols = groups * T;
  const std::int64_t strips = (K + strip_cols - 1) / strip_cols;
  // rows a warp walks: rows_per_warp, halved while that leaves fewer teams than one full wave
  int rpw = Cfg::rows_per_warp;
  if (gpu) {
    const std::int64_t wave = resident_teams<ExecSpace>(team_size * G);
    while (rpw > 1 && ((n_rows + std::int64_t(warps) * rpw - 1) / (std::int64_t(warps) * rpw)) * strips < wave)
      rpw /= 2;
  }
  const std::int64_t rows_per_team = std::int64_t(warps) * rpw;
  const std::int64_t row_teams = (n_rows + rows_per_team - 1) / rows_per_team;
  const bool has_ids = row_ids.extent(0) != 0;
  const value_t a = alpha, b = beta;

  kkperm::parallel_for(
      "kkperm::spmm::c_stationary",
      policy_t(exec, static_cast<int>(row_teams * strips), team_size, G),
      KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t strip = team.league_rank() / row_teams;
        const std::int64_t group = team.league_rank() % row_teams;
        const int warp = team.team_rank() / threads_per_warp;
        const int sub = team.team_rank() % threads_per_warp;
        for (int j = 0; j < rpw; ++j) {
          // Row i of the group goes to warp i mod Nw.
          const std::int64_t p = group * rows_per_team + std::int64_t(j) * warps + warp;
          if (p >= n_rows) break;
          const offset_t beg = row_map(p), end = row_map(p + 1);
          const auto yr = has_ids ? row_ids(p) : p;
          for (int g = sub; g < groups; g += threads_per_warp) {
            const int c0 = static_cast<int>(strip) * strip_cols + g * T;
            if (c0 >= K) break;
            const int ncols = K - c0 < T ? K - c0 : T;
            acc_t acc;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, end - beg),
                [&](const offset_t kk, acc_t& part) {
                  const offset_t k = beg + kk;
                  const auto col = entries(k);
                  const value_t av = values(k);
                  for (int c = 0; c < T; ++c)
                    if (c < ncols) part.v[c] += av * B(col, c0 + c);
                },
                acc);
            Kokkos::single(Kokkos::PerThread(team), [&]() {
              for (int c = 0; c < T; ++c) {
                if (c < ncols) {
                  const value_t ax = a * acc.v[c];
                  Y(yr, c0 + c) = b == value_t(0) ? ax : value_t(ax + b * Y(yr, c0 + c));
                }
              }
            });
          }
        }
      });
}

}  // namespace impl

/// C-stationary SpMM over a row set (see file comment). Tile width T follows K: 1 for K == 1,
/// CStationaryConfig::tile for K <= 64, wide_tile beyond (no idle register accumulators).
template <class ExecSpace, class RowMap, class Entries, class Values, class RowIds, class BView,
          class YView>
void c_stationary(const ExecSpace& exec, typename YView::const_value_type alpha,
                  const RowMap& row_map, const Entries& entries, const Values& values,
                  const RowIds& row_ids, const BView& B, typename YView::const_value_type beta,
                  const YView& Y) {
  const auto K = Y.extent(1);
  if (K <= 1)
    impl::c_stationary_tile<1>(exec, alpha, row_map, entries, values, row_ids, B, beta, Y);
  else if (K <= 64)
    impl::c_stationary_tile<CStationaryConfig::tile>(exec, alpha, row_map, entries, values,
                                                     row_ids, B, beta, Y);
  else
    impl::c_stationary_tile<CStationaryConfig::wide_tile>(exec, alpha, row_map, entries, values,
                                                          row_ids, B, beta, Y);
}

}  // namespace kkperm::kernels::spmm
