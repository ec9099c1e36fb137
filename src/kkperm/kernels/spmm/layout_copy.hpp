#pragma once
/**
 * @brief dst = src for two rank-2 views of the same extents and different layouts (LayoutLeft
 * <-> LayoutRight), the copy a column-major caller needs to use the row-major SpMM kernel.
 *
 * Device backends: a team copies a 32 x 32 tile through team scratch (rows padded to 33 so the
 * transposed reads do not hit one bank), reading along src's contiguous index and writing along
 * dst's, so both the loads and the stores of a warp are coalesced. Bytes moved: one read and one
 * write of the view (2 x rows x cols x sizeof(value)); a transpose that is not tiled makes one
 * side strided (one 8-byte value per 32-byte sector at f64). Host backends: a row a thread.
 */
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kkperm/core/error.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/kernels/spmm/spmm_common.hpp"

namespace kkperm::kernels::spmm {

/// Tiling of layout_copy on GPUs.
struct LayoutCopyConfig {
  static constexpr int tile = 32;          ///< tile edge (one warp's width)
  static constexpr int team_threads = 256;  ///< each thread moves tile^2 / team_threads values
};

/// dst(i, k) = src(i, k) for all i, k; src and dst must have equal extents (checked) and may
/// have any layouts (the tiled path pays off only when they differ).
template <class ExecSpace, class Src, class Dst>
void layout_copy(const ExecSpace& exec, const Src& src, const Dst& dst) {
  using value_t = typename Dst::non_const_value_type;
  KKPERM_ASSERT(src.extent(0) == dst.extent(0) && src.extent(1) == dst.extent(1),
                "kkperm::spmm::layout_copy: extents differ (" << src.extent(0) << " x " << src.extent(1) << " vs "
                                                              << dst.extent(0) << " x " << dst.extent(1) << ")");
  const std::int64_t n = static_cast<std::int64_t>(src.extent(0));
  const std::int64_t m = static_cast<std::int64_t>(src.extent(1));
  if (n == 0 || m == 0) return;
  if constexpr (is_gpu_space<ExecSpace>::value) {
    constexpr int T = LayoutCopyConfig::tile, P = T + 1, threads = LayoutCopyConfig::team_threads;
    static_assert((T * T) % threads == 0, "layout_copy: threads tile the tile");
    // contiguous index of each side: 0 = the row index i (LayoutLeft), 1 = the column index k
    constexpr bool src_left = std::is_same<typename Src::array_layout, Kokkos::LayoutLeft>::value;
    constexpr bool dst_left = std::is_same<typename Dst::array_layout, Kokkos::LayoutLeft>::value;
    const std::int64_t tiles_i = (n + T - 1) / T, tiles_k = (m + T - 1) / T;
    using policy_t = kkperm::team_policy<ExecSpace>;
    using member_t = typename policy_t::member_type;
    const std::size_t bytes = sizeof(value_t) * T * P;
    kkperm::parallel_for(
        "kkperm::spmm::layout_copy",
        policy_t(exec, static_cast<int>(tiles_i * tiles_k), threads).set_scratch_size(0, Kokkos::PerTeam(bytes)),
        KOKKOS_LAMBDA(const member_t& team) {
          value_t* tile = static_cast<value_t*>(team.team_shmem().get_shmem(bytes));
          const std::int64_t i0 = (team.league_rank() / tiles_k) * T;
          const std::int64_t k0 = (team.league_rank() % tiles_k) * T;
          for (int t = team.team_rank(); t < T * T; t += threads) {
            const int fast = t % T, slow = t / T;
            const int ii = src_left ? fast : slow, kk = src_left ? slow : fast;
            if (i0 + ii < n && k0 + kk < m) tile[ii * P + kk] = src(i0 + ii, k0 + kk);
          }
          team.team_barrier();
          for (int t = team.team_rank(); t < T * T; t += threads) {
            const int fast = t % T, slow = t / T;
            const int ii = dst_left ? fast : slow, kk = dst_left ? slow : fast;
            if (i0 + ii < n && k0 + kk < m) dst(i0 + ii, k0 + kk) = tile[ii * P + kk];
          }
        });
  } else {
    kkperm::parallel_for(
        "kkperm::spmm::layout_copy_host", kkperm::range_policy<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
          for (std::int64_t k = 0; k < m; ++k) dst(i, k) = src(i, k);
        });
  }
}

}  // namespace kkperm::kernels::spmm
