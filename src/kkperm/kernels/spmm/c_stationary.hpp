#pragma once
/**
 * @brief C-stationary (output-stationary) SpMM, Y = alpha*A*B + beta*Y, B and Y column-major
 * (Kokkos::LayoutLeft), after the SpMM row-permutation paper.
 *
 * Work decomposition: the league is (column strips of C) x (row groups of A). A team (= a CUDA
 * block of `warps_per_team` warps) owns one strip of `strip` consecutive columns of C and walks
 * `warps_per_team * rows_per_warp` consecutive stored rows; stored row i of the group goes to
 * warp (i mod Nw). The 32 lanes of that warp split row i's nonzeros; each lane keeps its partial
 * sums for the strip's columns in registers (StripAccumulator) and the warp reduces them with a
 * ThreadVectorRange reduction (shuffles) -- no atomics, every Y entry is written exactly once.
 * Strips are the slow league index so that concurrently running teams share the same strip of
 * B (the reuse the row permutations are designed to improve).
 *
 * Usage: `kkperm::kernels::spmm::c_stationary(exec, alpha, A.graph.row_map, A.graph.entries,
 *         A.values, row_ids, B, beta, Y);` with row_ids as described in spmm_common.hpp.
 * Preconditions: see spmm_common.hpp; all views accessible from ExecSpace; B, Y LayoutLeft (any
 * layout works, LayoutLeft is the one this kernel is designed for).
 */
#include <cstdint>

#include "kkperm/kernels/spmm/spmm_common.hpp"

namespace kkperm::kernels::spmm {

/// Tuning constants of the C-stationary kernel (GPU values; host spaces use 1 lane x 1 warp).
struct CStationaryConfig {
  /// Lanes per warp = Kokkos vector length on CUDA.
  static constexpr int warp_size = 32;
  /// Nw, warps per team. Row permutations built for this kernel must use the same Nw.
  static constexpr int warps_per_team = 8;
  /// Rows each warp walks per team: a team covers warps_per_team * rows_per_warp rows.
  static constexpr int rows_per_warp = 4;
  /// Columns of C per strip (register accumulators per lane); narrower strips for small K.
  static constexpr int max_strip = 8;
};

namespace impl {

template <int S, class ExecSpace, class RowMap, class Entries, class Values, class RowIds,
          class BView, class YView>
void c_stationary_strip(const ExecSpace& exec, typename YView::const_value_type alpha,
                        const RowMap& row_map, const Entries& entries, const Values& values,
                        const RowIds& row_ids, const BView& B,
                        typename YView::const_value_type beta, const YView& Y) {
  using value_t = typename YView::non_const_value_type;
  using offset_t = typename std::remove_const<typename RowMap::value_type>::type;
  using policy_t = Kokkos::TeamPolicy<ExecSpace>;
  using member_t = typename policy_t::member_type;
  using acc_t = StripAccumulator<value_t, S>;
  using Cfg = CStationaryConfig;

  const std::int64_t n_rows = stored_rows(row_map);
  const int K = static_cast<int>(Y.extent(1));
  if (n_rows == 0 || K == 0) return;
  constexpr bool gpu = is_gpu_space<ExecSpace>::value;
  const int team_size = gpu ? Cfg::warps_per_team : 1;
  const int vector_length = gpu ? Cfg::warp_size : 1;
  const std::int64_t rows_per_team = std::int64_t(team_size) * Cfg::rows_per_warp;
  const std::int64_t row_teams = (n_rows + rows_per_team - 1) / rows_per_team;
  const std::int64_t strips = (K + S - 1) / S;
  const bool has_ids = row_ids.extent(0) != 0;
  const value_t a = alpha, b = beta;

  Kokkos::parallel_for(
      "kkperm::spmm::c_stationary",
      policy_t(exec, static_cast<int>(row_teams * strips), team_size, vector_length),
      KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t strip = team.league_rank() / row_teams;
        const std::int64_t group = team.league_rank() % row_teams;
        const int c0 = static_cast<int>(strip) * S;
        const int ncols = K - c0 < S ? K - c0 : S;
        const int warp = team.team_rank();
        for (int j = 0; j < Cfg::rows_per_warp; ++j) {
          // Row i of the group goes to warp i mod Nw.
          const std::int64_t p = group * rows_per_team + std::int64_t(j) * team_size + warp;
          if (p >= n_rows) break;
          const offset_t beg = row_map(p), end = row_map(p + 1);
          acc_t acc;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, end - beg),
              [&](const offset_t kk, acc_t& part) {
                const offset_t k = beg + kk;
                const auto col = entries(k);
                const value_t av = values(k);
                for (int c = 0; c < S; ++c)
                  if (c < ncols) part.v[c] += av * B(col, c0 + c);
              },
              acc);
          const auto yr = has_ids ? row_ids(p) : p;
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            for (int c = 0; c < S; ++c) {
              if (c < ncols) {
                const value_t ax = a * acc.v[c];
                Y(yr, c0 + c) = b == value_t(0) ? ax : value_t(ax + b * Y(yr, c0 + c));
              }
            }
          });
        }
      });
}

}  // namespace impl

/// C-stationary SpMM over a row set (see file comment). Strip width follows K: 1 for K == 1,
/// 4 for K <= 4, CStationaryConfig::max_strip otherwise (no idle register accumulators).
template <class ExecSpace, class RowMap, class Entries, class Values, class RowIds, class BView,
          class YView>
void c_stationary(const ExecSpace& exec, typename YView::const_value_type alpha,
                  const RowMap& row_map, const Entries& entries, const Values& values,
                  const RowIds& row_ids, const BView& B, typename YView::const_value_type beta,
                  const YView& Y) {
  const auto K = Y.extent(1);
  if (K <= 1)
    impl::c_stationary_strip<1>(exec, alpha, row_map, entries, values, row_ids, B, beta, Y);
  else if (K <= 4)
    impl::c_stationary_strip<4>(exec, alpha, row_map, entries, values, row_ids, B, beta, Y);
  else
    impl::c_stationary_strip<CStationaryConfig::max_strip>(exec, alpha, row_map, entries, values,
                                                           row_ids, B, beta, Y);
}

}  // namespace kkperm::kernels::spmm
