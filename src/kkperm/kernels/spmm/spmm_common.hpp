#pragma once
/**
 * @brief Pieces shared by the kkperm SpMM kernels (Y = alpha*A*B + beta*Y).
 *
 * Row sets. Every SpMM kernel walks a list of *stored* rows given as CSR arrays (row_map,
 * entries, values) and writes stored row p to output row `row_ids(p)`; an empty `row_ids` view
 * (extent 0) means the identity. This one shape covers:
 *  - plain CSR:                        row_ids empty, stored rows = A's rows;
 *  - a row permutation (results in the caller's order): stored rows = P*A, row_ids = P
 *    (row_ids(p) = original row of permuted row p);
 *  - permuted space (results stay permuted): stored rows = P*A, row_ids empty;
 *  - DCSR: stored rows = the non-empty rows only, row_ids = their original indices; the empty
 *    rows' outputs (Y = beta*Y) are written by scale_rows() over the complement list.
 * Preconditions (checked by the public entry points, not here): row_map has n_stored+1
 * entries (or 0 when n_stored == 0), columns in [0, B.extent(0)), row_ids a injective map into
 * [0, Y.extent(0)), B.extent(1) == Y.extent(1).
 */
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kkperm/core/launch_policy.hpp"

namespace kkperm::kernels::spmm {

/// True on execution spaces where a team maps onto GPU warps (vector lanes are real lanes).
template <class ExecSpace>
struct is_gpu_space : std::false_type {};
#ifdef KOKKOS_ENABLE_CUDA
template <>
struct is_gpu_space<Kokkos::Cuda> : std::true_type {};
#endif

/// Teams of `team_threads` threads the device keeps resident at once (at least 1): one full
/// wave. Below that many teams a launch leaves SMs idle, and the kernels below shorten each
/// team's serial work instead (small matrices, where every chained load's latency shows).
template <class ExecSpace>
inline std::int64_t resident_teams(int team_threads) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(ExecSpace().concurrency()) /
                                       std::max(1, team_threads));
}

/// Number of stored rows of a row_map view (a 0-length row_map means 0 rows, as KK allows).
template <class RowMap>
inline std::int64_t stored_rows(const RowMap& row_map) {
  return row_map.extent(0) == 0 ? 0 : static_cast<std::int64_t>(row_map.extent(0)) - 1;
}

/**
 * @brief Y(rows(r), :) = beta * Y(rows(r), :) for every listed row; beta == 0 writes exact
 * zeros (NaN/Inf in Y do not propagate, BLAS semantics). Used for the rows a DCSR matrix skips.
 */
template <class ExecSpace, class RowList, class YView>
void scale_rows(const ExecSpace& exec, typename YView::const_value_type beta, const RowList& rows,
                const YView& Y) {
  using value_t = typename YView::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(rows.extent(0));
  const std::int64_t k = static_cast<std::int64_t>(Y.extent(1));
  if (n == 0 || k == 0) return;
  const value_t b = beta;
  kkperm::parallel_for(
      "kkperm::spmm::scale_rows", kkperm::range_policy<ExecSpace>(exec, 0, n * k),
      KOKKOS_LAMBDA(const std::int64_t idx) {
        const std::int64_t r = idx / k, c = idx % k;
        const auto row = rows(r);
        Y(row, c) = b == value_t(0) ? value_t(0) : value_t(b * Y(row, c));
      });
}

/// Fixed-size accumulator strip kept in registers by one vector lane; reduced across the warp.
template <class T, int S>
struct StripAccumulator {
  T v[S];
  KOKKOS_INLINE_FUNCTION StripAccumulator() {
    for (int c = 0; c < S; ++c) v[c] = T(0);
  }
  KOKKOS_INLINE_FUNCTION StripAccumulator& operator+=(const StripAccumulator& o) {
    for (int c = 0; c < S; ++c) v[c] += o.v[c];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile StripAccumulator& o) volatile {
    for (int c = 0; c < S; ++c) v[c] += o.v[c];
  }
};

}  // namespace kkperm::kernels::spmm

namespace Kokkos {
template <class T, int S>
struct reduction_identity<kkperm::kernels::spmm::StripAccumulator<T, S>> {
  KOKKOS_FORCEINLINE_FUNCTION static kkperm::kernels::spmm::StripAccumulator<T, S> sum() {
    return kkperm::kernels::spmm::StripAccumulator<T, S>();
  }
};
}  // namespace Kokkos

namespace kkperm::kernels::spmm {
/// Y = beta * Y over all of Y (beta == 0 writes exact zeros); for A without rows/nonzeros.
template <class ExecSpace, class YView>
void scale_all(const ExecSpace& exec, typename YView::const_value_type beta, const YView& Y) {
  using value_t = typename YView::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(Y.extent(0));
  const std::int64_t k = static_cast<std::int64_t>(Y.extent(1));
  if (n == 0 || k == 0) return;
  const value_t b = beta;
  kkperm::parallel_for(
      "kkperm::spmm::scale_all", kkperm::range_policy<ExecSpace>(exec, 0, n * k),
      KOKKOS_LAMBDA(const std::int64_t idx) {
        const std::int64_t r = idx / k, c = idx % k;
        Y(r, c) = b == value_t(0) ? value_t(0) : value_t(b * Y(r, c));
      });
}
}  // namespace kkperm::kernels::spmm
