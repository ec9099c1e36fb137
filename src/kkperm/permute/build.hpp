#pragma once
/**
 * @brief build_permutation(A, kind, params): every Permutation for a KokkosSparse::CrsMatrix, and
 * its serial reference build_permutation_serial(HostCsr, kind, params).
 *
 * Usage: `auto P = kkperm::build_permutation(A, kkperm::Permutation::lpt, kkperm::PermuteParams{});`
 * Preconditions: A valid with sorted unique columns (checked); RCM needs a square matrix.
 *
 * Where each part runs:
 *  - identity: iota on A's space.
 *  - plain_sort / flipped_sort: loads and unique keys ((maxload - load) << bits | row) on A's
 *    space, key sort on A's space (sort_unique_keys: std::sort on host spaces, cub radix sort
 *    on the significant bits for CUDA), group flip on A's space. Equal to the stable host sort
 *    because keys are unique.
 *  - lpt: device_lpt_order (lpt_device.hpp): plain-sort order on A's space, per-load-group warp
 *    schedule on the host (O(Nw log Nw) per distinct load), row placement on A's space; equal
 *    to the serial greedy lpt_order.
 *  - Hamming orders: HammingMode::exact (or automatic with n <= exact_max_rows) copies A to the
 *    host and runs the O(n^2) reference; windowed runs the chunk-exact greedy of
 *    windowed_hamming.hpp on A's space (the exact rule within chunks of chunk_rows rows).
 *  - rcm: host (rcm.hpp). dcsr: non-empty rows first, in order, then the empty rows, by a
 *    parallel scan on A's space (see dcsr.hpp for the compressed row pointer itself).
 * The result is a DeviceRowPermutation in A's memory space: inverse and the bijection check run
 * on A's space (orders built on the host, RCM and exact greedy, are copied over once).
 */
#include <Kokkos_Core.hpp>
#include <numeric>
#include <vector>

#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/features/spmv_features.hpp"
#include "kkperm/permute/dcsr.hpp"
#include "kkperm/permute/device_sort.hpp"
#include "kkperm/permute/lpt_device.hpp"
#include "kkperm/permute/permutation.hpp"
#include "kkperm/permute/rcm.hpp"
#include "kkperm/permute/reference.hpp"
#include "kkperm/permute/windowed_hamming.hpp"

namespace kkperm {

namespace detail {
/// Rows by load descending, ties by row index (plain sort), optionally with odd groups of Nw
/// positions reversed (flipped sort), written to `order` (length n) on A's space. `load` (length
/// n) receives the row loads; `keys` and `alt` (length n) are scratch. Returns the largest load.
template <class Matrix, class OrderView, class LoadView, class KeyView>
std::int64_t device_sort_order_into(const Matrix& A, int nt, int nw, bool flip, const OrderView& order,
                                    const LoadView& load, const KeyView& keys, const KeyView& alt) {
  using exec_t = typename Matrix::execution_space;
  using O = typename Matrix::non_const_ordinal_type;
  const std::int64_t n = A.numRows();
  if (n == 0) return 0;
  const std::int64_t max_load = fill_loads(A, nt, load);  // loads and their maximum: one pass
  const int ibits = std::max(1, bits_for(static_cast<std::uint64_t>(n - 1)));
  const int lbits = bits_for(static_cast<std::uint64_t>(max_load));
  KKPERM_REQUIRE(ibits + lbits <= 64,
                 "kkperm::build_permutation: sort key overflow (" << n << " rows, load " << max_load << ")");
  kkperm::parallel_for(
      "kkperm::permute::sort_keys", kkperm::range_policy<exec_t>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        keys(i) = (static_cast<std::uint64_t>(max_load - load(i)) << ibits) | static_cast<std::uint64_t>(i);
      });
  const KeyView sorted = sort_unique_keys<exec_t>(keys, alt, ibits + lbits);
  const std::uint64_t mask = ibits == 64 ? ~0ull : (1ull << ibits) - 1;
  kkperm::parallel_for(
      "kkperm::permute::sort_order", kkperm::range_policy<exec_t>(0, n), KOKKOS_LAMBDA(const std::int64_t p) {
        std::int64_t src = p;
        if (flip) {
          const std::int64_t g = p / nw;
          if (g % 2 == 1) {
            const std::int64_t g0 = g * nw;
            const std::int64_t g1 = (g0 + nw < n ? g0 + nw : n);
            src = g0 + (g1 - 1 - p);
          }
        }
        order(p) = static_cast<O>(sorted(src) & mask);
      });
  return max_load;
}

/// Plain / flipped sort order (new -> old) in a new View on A's space; scratch from the workspace.
template <class Matrix>
Kokkos::View<typename Matrix::non_const_ordinal_type*, typename Matrix::memory_space> device_sort_order(
    const Matrix& A, int nt, int nw, bool flip) {
  using mem_t = typename Matrix::memory_space;
  using O = typename Matrix::non_const_ordinal_type;
  using ws_t = Workspace<mem_t>;
  const std::int64_t n = A.numRows();
  Kokkos::View<O*, mem_t> order(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::order"), n);
  if (n == 0) return order;
  ws_t ws(ws_t::template bytes_for<std::int64_t>(n) + 2 * ws_t::template bytes_for<std::uint64_t>(n));
  auto load = ws.template take<std::int64_t>(n);
  auto keys = ws.template take<std::uint64_t>(n);
  auto alt = ws.template take<std::uint64_t>(n);
  device_sort_order_into(A, nt, nw, flip, order, load, keys, alt);
  return order;
}

/// LPT on A's space (lpt_device.hpp); equals the serial greedy lpt_order. The plain-sort order,
/// loads and sort keys live in the workspace; only the result is allocated.
template <class Matrix>
Kokkos::View<typename Matrix::non_const_ordinal_type*, typename Matrix::memory_space> device_lpt_order(
    const Matrix& A, int nt, int nw) {
  using mem_t = typename Matrix::memory_space;
  using O = typename Matrix::non_const_ordinal_type;
  using ws_t = Workspace<mem_t>;
  const std::int64_t n = A.numRows();
  if (n == 0) return Kokkos::View<O*, mem_t>("kkperm::permute::lpt", 0);
  ws_t ws(ws_t::template bytes_for<O>(n) + ws_t::template bytes_for<std::int64_t>(n) +
          2 * ws_t::template bytes_for<std::uint64_t>(n));
  auto sorted = ws.template take<O>(n);
  auto load = ws.template take<std::int64_t>(n);
  auto keys = ws.template take<std::uint64_t>(n);
  auto alt = ws.template take<std::uint64_t>(n);
  const std::int64_t max_load = device_sort_order_into(A, nt, nw, false, sorted, load, keys, alt);
  return device_lpt_place<typename Matrix::execution_space>(sorted, load, max_load, nw);
}

/// Non-empty rows first (in order), then the empty ones; on A's space. Returns perm and sets
/// `nonempty` to the number of non-empty rows.
template <class Matrix>
Kokkos::View<typename Matrix::non_const_ordinal_type*, typename Matrix::memory_space> device_dcsr_order(
    const Matrix& A, typename Matrix::non_const_ordinal_type& nonempty) {
  using exec_t = typename Matrix::execution_space;
  using O = typename Matrix::non_const_ordinal_type;
  const O n = A.numRows();
  Kokkos::View<O*, typename Matrix::memory_space> order(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::dcsr_order"), n);
  nonempty = 0;
  if (n == 0) return order;
  auto rm = A.graph.row_map;
  O ne = 0;
  Kokkos::parallel_reduce(
      "kkperm::dcsr::count", kkperm::range_policy<exec_t>(0, n),
      KOKKOS_LAMBDA(const O i, O& c) { c += rm(i + 1) > rm(i) ? 1 : 0; }, ne);
  Kokkos::parallel_scan(
      "kkperm::dcsr::order", kkperm::range_policy<exec_t>(0, n), KOKKOS_LAMBDA(const O i, O& upd, const bool final) {
        const bool is_ne = rm(i + 1) > rm(i);
        if (final) order(is_ne ? upd : ne + (i - upd)) = i;
        if (is_ne) ++upd;
      });
  nonempty = ne;
  return order;
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

/**
 * @brief Every permutation for a CrsMatrix on its execution space (see the header for what runs
 * where). The result stays in A's memory space; inverse and the bijection check run there too.
 * params.validate_matrix = false skips kkperm::validate(A) for callers that validated A already.
 */
template <class Matrix>
DeviceRowPermutation<typename Matrix::non_const_ordinal_type, typename Matrix::memory_space> build_permutation(
    const Matrix& A, Permutation kind, const PermuteParams& params = PermuteParams{}) {
  using O = typename Matrix::non_const_ordinal_type;
  using exec_t = typename Matrix::execution_space;
  using mem_t = typename Matrix::memory_space;
  using PView = Kokkos::View<O*, mem_t>;
  const char* who = "kkperm::build_permutation";
  params.feature.check(who, sizeof(typename Matrix::non_const_value_type));
  if (params.validate_matrix) validate(A, who);
  const std::int64_t n = A.numRows();
  const int nt = params.feature.warp_size, nw = params.feature.warps_per_block;
  PView perm;
  O nonempty = 0;
  bool symmetric = false;
  auto from_host = [](const std::vector<O>& v) {  // host-built orders (RCM, exact greedy)
    PView d(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::perm"), v.size());
    Kokkos::deep_copy(d, Kokkos::View<const O*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size()));
    return d;
  };
  switch (kind) {
    case Permutation::identity:
      perm = PView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::identity"), n);
      kkperm::parallel_for(
          "kkperm::permute::identity", kkperm::range_policy<exec_t>(0, n),
          KOKKOS_LAMBDA(const std::int64_t i) { perm(i) = static_cast<O>(i); });
      break;
    case Permutation::plain_sort: perm = detail::device_sort_order(A, nt, nw, false); break;
    case Permutation::flipped_sort: perm = detail::device_sort_order(A, nt, nw, true); break;
    case Permutation::lpt: perm = detail::device_lpt_order(A, nt, nw); break;
    case Permutation::rcm:
      KKPERM_REQUIRE(A.numRows() == A.numCols(), who << ": RCM needs a square matrix, got "
                                                     << A.numRows() << " x " << A.numCols());
      perm = from_host(rcm_order(to_host(A)));
      symmetric = true;
      break;
    case Permutation::dcsr: perm = detail::device_dcsr_order(A, nonempty); break;
    default:
      if (detail::use_exact(params, n))
        perm = from_host(reference_order(to_host(A), kind, params));
      else
        perm = detail::windowed_hamming_order(A, kind, params);
  }
  auto r = make_device_permutation<exec_t>(kind, perm, who);
  r.num_nonempty = nonempty;
  r.symmetric = symmetric;
  return r;
}

}  // namespace kkperm
