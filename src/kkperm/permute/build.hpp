#pragma once
/**
 * @brief build_permutation(A, kind, params): every Permutation for a KokkosSparse::CrsMatrix, and
 * its serial reference build_permutation_serial(HostCsr, kind, params).
 *
 * Usage: `auto P = kkperm::build_permutation(A, kkperm::Permutation::lpt, kkperm::PermuteParams{});`
 * Preconditions: A valid with sorted unique columns (checked); RCM needs a square matrix.
 *
 * Where each part runs:
 *  - identity: host (iota).
 *  - plain_sort / flipped_sort: loads and unique keys ((maxload - load) << bits | row) on A's
 *    space, key sort on A's space (std::sort on host spaces, KokkosKernels bitonic sort on
 *    device), group flip on A's space. Equal to the stable host sort because keys are unique.
 *  - lpt: loads on A's space, the greedy assignment on the host (sequential by nature,
 *    O(n log n + n Nw)).
 *  - Hamming orders: HammingMode::exact (or automatic with n <= exact_max_rows) copies A to the
 *    host and runs the O(n^2) reference; windowed runs windowed_hamming.hpp on A's space.
 *  - rcm: host (rcm.hpp). dcsr: non-empty rows first, in order, then the empty rows, by a
 *    parallel scan on A's space (see dcsr.hpp for the compressed row pointer itself).
 * Only perm (new -> old) is copied back; inverse is filled on the host.
 */
#include <Kokkos_Core.hpp>
#include <numeric>
#include <vector>

#include "kkperm/core/crs_utils.hpp"
#include "kkperm/features/spmv_features.hpp"
#include "kkperm/permute/dcsr.hpp"
#include "kkperm/permute/permutation.hpp"
#include "kkperm/permute/rcm.hpp"
#include "kkperm/permute/reference.hpp"
#include "kkperm/permute/windowed_hamming.hpp"

namespace kkperm {

namespace detail {
template <class Matrix>
std::vector<typename Matrix::non_const_ordinal_type> device_sort_order(const Matrix& A, int nt, int nw,
                                                                       bool flip) {
  using exec_t = typename Matrix::execution_space;
  using mem_t = typename Matrix::memory_space;
  using O = typename Matrix::non_const_ordinal_type;
  const std::int64_t n = A.numRows();
  std::vector<O> result(n);
  if (n == 0) return result;
  auto load = device_loads(A, nt);
  std::int64_t max_load = 0;
  Kokkos::parallel_reduce(
      "kkperm::permute::max_load", Kokkos::RangePolicy<exec_t>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& m) { if (load(i) > m) m = load(i); },
      Kokkos::Max<std::int64_t>(max_load));
  const int ibits = std::max(1, bits_for(static_cast<std::uint64_t>(n - 1)));
  KKPERM_REQUIRE(ibits + bits_for(static_cast<std::uint64_t>(max_load)) <= 64,
                 "kkperm::build_permutation: sort key overflow (" << n << " rows, load " << max_load << ")");
  Kokkos::View<std::uint64_t*, mem_t> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::sort_keys"), n);
  Kokkos::parallel_for(
      "kkperm::permute::sort_keys", Kokkos::RangePolicy<exec_t>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        keys(i) = (static_cast<std::uint64_t>(max_load - load(i)) << ibits) | static_cast<std::uint64_t>(i);
      });
  sort_unique_keys<exec_t>(keys);
  const std::uint64_t mask = (1ull << ibits) - 1;
  Kokkos::View<O*, mem_t> order(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::order"), n);
  Kokkos::parallel_for(
      "kkperm::permute::sort_order", Kokkos::RangePolicy<exec_t>(0, n), KOKKOS_LAMBDA(const std::int64_t p) {
        std::int64_t src = p;
        if (flip) {
          const std::int64_t g = p / nw;
          if (g % 2 == 1) {
            const std::int64_t g0 = g * nw;
            const std::int64_t g1 = (g0 + nw < n ? g0 + nw : n);
            src = g0 + (g1 - 1 - p);
          }
        }
        order(p) = static_cast<O>(keys(src) & mask);
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), order);
  for (std::int64_t p = 0; p < n; ++p) result[p] = h(p);
  return result;
}

template <class Matrix>
std::vector<typename Matrix::non_const_ordinal_type> device_dcsr_order(const Matrix& A) {
  using exec_t = typename Matrix::execution_space;
  using O = typename Matrix::non_const_ordinal_type;
  const O n = A.numRows();
  std::vector<O> result(n);
  if (n == 0) return result;
  auto rm = A.graph.row_map;
  O nonempty = 0;
  Kokkos::parallel_reduce(
      "kkperm::dcsr::count", Kokkos::RangePolicy<exec_t>(0, n),
      KOKKOS_LAMBDA(const O i, O& c) { c += rm(i + 1) > rm(i) ? 1 : 0; }, nonempty);
  Kokkos::View<O*, typename Matrix::memory_space> order("kkperm::permute::dcsr_order", n);
  Kokkos::parallel_scan(
      "kkperm::dcsr::order", Kokkos::RangePolicy<exec_t>(0, n), KOKKOS_LAMBDA(const O i, O& upd, const bool final) {
        const bool ne = rm(i + 1) > rm(i);
        if (final) order(ne ? upd : nonempty + (i - upd)) = i;
        if (ne) ++upd;
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), order);
  for (O p = 0; p < n; ++p) result[p] = h(p);
  return result;
}

inline bool use_exact(const PermuteParams& p, std::int64_t n) {
  return p.hamming == HammingMode::exact || (p.hamming == HammingMode::automatic && n <= p.exact_max_rows);
}
}  // namespace detail

/// Serial reference of every permutation on a HostCsr (Hamming orders: exact greedy).
template <class V, class O, class F>
RowPermutation<O> build_permutation_serial(const HostCsr<V, O, F>& h, Permutation kind,
                                           const PermuteParams& params = PermuteParams{}) {
  params.feature.check("kkperm::build_permutation_serial", sizeof(V));
  detail::check_host_csr(h, "kkperm::build_permutation_serial");
  RowPermutation<O> r;
  r.kind = kind;
  if (kind == Permutation::rcm) {
    r.perm = rcm_order(h);
    r.symmetric = true;
  } else if (kind == Permutation::dcsr) {
    std::vector<F> offs;
    std::vector<O> ids;
    dcsr_serial(h, offs, ids);
    r.num_nonempty = static_cast<O>(ids.size());
    r.perm = ids;
    for (O i = 0; i < h.num_rows; ++i)
      if (h.row_map[i + 1] == h.row_map[i]) r.perm.push_back(i);
  } else {
    r.perm = reference_order(h, kind, params);
  }
  fill_inverse(r, "kkperm::build_permutation_serial");
  return r;
}

/// Every permutation for a CrsMatrix on its execution space (see the header for what runs where).
template <class Matrix>
RowPermutation<typename Matrix::non_const_ordinal_type> build_permutation(
    const Matrix& A, Permutation kind, const PermuteParams& params = PermuteParams{}) {
  using O = typename Matrix::non_const_ordinal_type;
  params.feature.check("kkperm::build_permutation", sizeof(typename Matrix::non_const_value_type));
  KKPERM_REQUIRE(params.window >= 2, "kkperm::build_permutation: window must be >= 2, got " << params.window);
  validate(A, "kkperm::build_permutation");
  RowPermutation<O> r;
  r.kind = kind;
  const std::int64_t n = A.numRows();
  const int nt = params.feature.warp_size, nw = params.feature.warps_per_block;
  switch (kind) {
    case Permutation::identity:
      r.perm.resize(n);
      std::iota(r.perm.begin(), r.perm.end(), O(0));
      break;
    case Permutation::plain_sort: r.perm = detail::device_sort_order(A, nt, nw, false); break;
    case Permutation::flipped_sort: r.perm = detail::device_sort_order(A, nt, nw, true); break;
    case Permutation::lpt: {
      auto lv = detail::device_loads(A, nt);
      auto hl = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv);
      std::vector<std::int64_t> load(hl.data(), hl.data() + n);
      r.perm = detail::lpt_order<O>(load, nw);
      break;
    }
    case Permutation::rcm:
      KKPERM_REQUIRE(A.numRows() == A.numCols(), "kkperm::build_permutation: RCM needs a square matrix, got "
                                                     << A.numRows() << " x " << A.numCols());
      r.perm = rcm_order(to_host(A));
      r.symmetric = true;
      break;
    case Permutation::dcsr: {
      r.perm = detail::device_dcsr_order(A);
      auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
      O ne = 0;
      for (O p = 0; p < n && rm(r.perm[p] + 1) > rm(r.perm[p]); ++p) ++ne;
      r.num_nonempty = ne;
      break;
    }
    default:
      if (detail::use_exact(params, n)) r.perm = reference_order(to_host(A), kind, params);
      else r.perm = detail::windowed_hamming_order(A, kind, params);
  }
  fill_inverse(r, "kkperm::build_permutation");
  return r;
}

}  // namespace kkperm
