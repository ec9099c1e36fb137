#pragma once
/**
 * @brief Row-major-B SpMM (GNN-style), Y = alpha*A*B + beta*Y with B and Y row-major
 * (Kokkos::LayoutRight).
 *
 * One warp per stored row (stored row i of a team goes to warp i mod Nw); the warp's lanes run
 * across the K columns, so every nonzero a_ij reads row j of B with coalesced accesses. Each
 * lane keeps `cols_per_lane` accumulators in registers per pass; a pass covers
 * vector_length * cols_per_lane columns. On CUDA the vector length shrinks for small K (8 or 16
 * lanes when K <= 8 or 16) and the team keeps warps_per_team*32 threads, so small-K calls do
 * not leave 3/4 of the lanes idle.
 *
 * Usage: `kkperm::kernels::spmm::row_major(exec, alpha, row_map, entries, values, row_ids, B,
 *         beta, Y);` (row sets as in spmm_common.hpp).
 */
#include <cstdint>

#include "kkperm/kernels/spmm/spmm_common.hpp"

namespace kkperm::kernels::spmm {

/// Tuning constants of the row-major kernel (GPU values; host spaces use 1 lane x 1 warp).
struct RowMajorConfig {
  static constexpr int warp_size = 32;
  /// Warps (of 32 threads) per team.
  static constexpr int warps_per_team = 4;
  /// Register accumulators per lane per pass (pass width = lanes * cols_per_lane).
  static constexpr int cols_per_lane = 4;
};

template <class ExecSpace, class RowMap, class Entries, class Values, class RowIds, class BView,
          class YView>
void row_major(const ExecSpace& exec, typename YView::const_value_type alpha,
               const RowMap& row_map, const Entries& entries, const Values& values,
               const RowIds& row_ids, const BView& B, typename YView::const_value_type beta,
               const YView& Y) {
  using value_t = typename YView::non_const_value_type;
  using offset_t = typename std::remove_const<typename RowMap::value_type>::type;
  using policy_t = Kokkos::TeamPolicy<ExecSpace>;
  using member_t = typename policy_t::member_type;
  using Cfg = RowMajorConfig;
  constexpr int R = Cfg::cols_per_lane;

  const std::int64_t n_rows = stored_rows(row_map);
  const int K = static_cast<int>(Y.extent(1));
  if (n_rows == 0 || K == 0) return;
  constexpr bool gpu = is_gpu_space<ExecSpace>::value;
  const int vl = !gpu ? 1 : (K <= 8 ? 8 : (K <= 16 ? 16 : Cfg::warp_size));
  const int team_size = gpu ? Cfg::warps_per_team * (Cfg::warp_size / vl) : 1;
  const std::int64_t teams = (n_rows + team_size - 1) / team_size;
  const int pass = vl * R;
  const bool has_ids = row_ids.extent(0) != 0;
  const value_t a = alpha, b = beta;

  Kokkos::parallel_for(
      "kkperm::spmm::row_major", policy_t(exec, static_cast<int>(teams), team_size, vl),
      KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t p = team.league_rank() * std::int64_t(team_size) + team.team_rank();
        if (p >= n_rows) return;
        const offset_t beg = row_map(p), end = row_map(p + 1);
        const auto yr = has_ids ? row_ids(p) : p;
        for (int base = 0; base < K; base += pass) {
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, vl), [&](const int lane) {
            value_t acc[R];
            for (int r = 0; r < R; ++r) acc[r] = value_t(0);
            for (offset_t k = beg; k < end; ++k) {
              const auto col = entries(k);
              const value_t av = values(k);
              for (int r = 0; r < R; ++r) {
                const int c = base + lane + r * vl;
                if (c < K) acc[r] += av * B(col, c);
              }
            }
            for (int r = 0; r < R; ++r) {
              const int c = base + lane + r * vl;
              if (c < K) {
                const value_t ax = a * acc[r];
                Y(yr, c) = b == value_t(0) ? ax : value_t(ax + b * Y(yr, c));
              }
            }
          });
        }
      });
}

}  // namespace kkperm::kernels::spmm
