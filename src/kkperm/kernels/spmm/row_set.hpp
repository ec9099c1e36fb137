#pragma once
/**
 * @brief Builds the row set the SpMM kernels walk (see spmm_common.hpp) from a CrsMatrix, a
 * row order and the DCSR flag, on the matrix's execution space.
 *
 * Usage: `auto rs = kkperm::kernels::spmm::build_row_set(A, perm, dcsr, permuted_space);` then `c_stationary(exec, alpha, rs.row_map, rs.entries,
 *         rs.values, rs.row_ids, B, beta, Y); scale_rows(exec, beta, rs.empty_rows, Y);`
 * `perm` (extent 0 = identity) lists, for each stored position p, the original row perm(p); it
 * must be a bijection of [0, A.numRows()) (checked on the host, std::invalid_argument).
 * With the identity order nothing is copied: entries/values (and, without DCSR, row_map) are
 * A's own views. With a permutation, entries and values are gathered into permuted order.
 * permuted_space: outputs are written at the permuted position p instead of perm(p).
 */
#include <cstdint>
#include <string>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/row_search.hpp"
#include "kkperm/kernels/spmm/spmm_common.hpp"

namespace kkperm::kernels::spmm {

template <class Matrix>
struct RowSet {
  using device_type = typename Matrix::device_type;
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  using offset_t = typename Matrix::non_const_size_type;
  using value_t = typename Matrix::non_const_value_type;
  Kokkos::View<const offset_t*, device_type> row_map;
  Kokkos::View<const ordinal_t*, device_type> entries;
  Kokkos::View<const value_t*, device_type> values;
  Kokkos::View<ordinal_t*, device_type> row_ids;     ///< extent 0 = identity
  Kokkos::View<ordinal_t*, device_type> empty_rows;  ///< DCSR: output rows to scale by beta
  std::int64_t stored_rows = 0;
  /// Device bytes held beyond A's own views.
  double extra_bytes = 0.0;
};

/// A row set of some rows of A (`rows`: distinct rows of A, in the order they are stored): their
/// entries and values copied into a CSR of their own, row_ids = `rows` (results go to A's rows).
/// build_row_set's permuted row sets (rows = the permutation) and row_major_tiled's rows too wide
/// to stage use it.
template <class Matrix, class RowsView>
RowSet<Matrix> build_row_subset(const Matrix& A, const RowsView& rows) {
  using rs_t = RowSet<Matrix>;
  using exec_t = typename Matrix::execution_space;
  using ordinal_t = typename rs_t::ordinal_t;
  using offset_t = typename rs_t::offset_t;
  using value_t = typename rs_t::value_t;
  using device_type = typename rs_t::device_type;
  rs_t rs;
  const std::int64_t n = static_cast<std::int64_t>(rows.extent(0));
  Kokkos::View<offset_t*, device_type> rm("kkperm::spmm::subset_row_map", n + 1);  // rm(0) = 0
  const auto src_rm = A.graph.row_map;
  const auto src_e = A.graph.entries;
  const auto src_v = A.values;
  Kokkos::parallel_scan(
      "kkperm::spmm::subset_scan", kkperm::range_policy<exec_t>(0, n),
      KOKKOS_LAMBDA(const std::int64_t p, offset_t& acc, const bool final) {
        acc += src_rm(rows(p) + 1) - src_rm(rows(p));
        if (final) rm(p + 1) = acc;
      });
  offset_t nnz = 0;
  if (n > 0) Kokkos::deep_copy(nnz, Kokkos::subview(rm, n));
  Kokkos::View<ordinal_t*, device_type> ent(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kkperm::spmm::subset_entries")), nnz);
  Kokkos::View<value_t*, device_type> val(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kkperm::spmm::subset_values")), nnz);
  // a thread per chunk of kGatherChunk consecutive destination entries, its first row found by
  // binary search over rm: the copy is spread evenly however long the rows are (a thread a row
  // spent 0.2 s on the two 10^6-entry rows of the arrow matrix, H200 run 347)
  constexpr std::int64_t kGatherChunk = 8;
  const std::int64_t chunks = (static_cast<std::int64_t>(nnz) + kGatherChunk - 1) / kGatherChunk;
  kkperm::parallel_for(
      "kkperm::spmm::subset_gather", kkperm::range_policy<exec_t>(0, chunks), KOKKOS_LAMBDA(const std::int64_t c) {
        const std::int64_t k0 = c * kGatherChunk;
        const std::int64_t k1 = k0 + kGatherChunk < static_cast<std::int64_t>(rm(n)) ? k0 + kGatherChunk
                                                                                     : static_cast<std::int64_t>(rm(n));
        std::int64_t p = kkperm::row_of_nonzero(rm, n, k0);
        for (std::int64_t k = k0; k < k1; ++k) {
          while (static_cast<std::int64_t>(rm(p + 1)) <= k) ++p;  // past empty rows and the row's end
          const std::int64_t src = static_cast<std::int64_t>(src_rm(rows(p))) + (k - static_cast<std::int64_t>(rm(p)));
          ent(k) = src_e(src);
          val(k) = src_v(src);
        }
      });
  Kokkos::View<ordinal_t*, device_type> ids(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kkperm::spmm::subset_row_ids")), n);
  Kokkos::deep_copy(ids, rows);
  rs.row_map = rm;
  rs.entries = ent;
  rs.values = val;
  rs.row_ids = ids;
  rs.stored_rows = n;
  rs.extra_bytes = static_cast<double>(n + 1) * sizeof(offset_t) + static_cast<double>(n) * sizeof(ordinal_t) +
                   static_cast<double>(nnz) * (sizeof(ordinal_t) + sizeof(value_t));
  return rs;
}

template <class Matrix, class PermView>
RowSet<Matrix> build_row_set(const Matrix& A, const PermView& perm, bool dcsr,
                             bool permuted_space) {
  using rs_t = RowSet<Matrix>;
  using exec_t = typename Matrix::execution_space;
  using ordinal_t = typename rs_t::ordinal_t;
  using offset_t = typename rs_t::offset_t;
  using value_t = typename rs_t::value_t;
  using device_type = typename rs_t::device_type;
  rs_t rs;
  const ordinal_t n = A.numRows();
  const bool permuted = perm.extent(0) != 0;
  KKPERM_REQUIRE(!permuted || perm.extent(0) == static_cast<std::size_t>(n),
                 "kkperm::spmm::build_row_set: permutation has " << perm.extent(0)
                                                                 << " entries, A has " << n
                                                                 << " rows");
  if (permuted) {
    auto ph = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), perm);
    std::vector<char> seen(static_cast<std::size_t>(n), 0);
    for (ordinal_t p = 0; p < n; ++p) {
      const auto i = ph(p);
      KKPERM_REQUIRE(i >= 0 && i < n && !seen[static_cast<std::size_t>(i)],
                     "kkperm::spmm::build_row_set: permutation is not a bijection at position "
                         << p << " (row " << i << ")");
      seen[static_cast<std::size_t>(i)] = 1;
    }
  }
  auto src_rm = A.graph.row_map;
  if (n == 0) {
    rs.row_map = Kokkos::View<offset_t*, device_type>("kkperm::spmm::row_map", 1);
    rs.entries = A.graph.entries;
    rs.values = A.values;
    return rs;
  }
  // 1. Stored (permuted) row map, when rows move.
  Kokkos::View<const offset_t*, device_type> prm = src_rm;
  Kokkos::View<ordinal_t*, device_type> perm_ids;  // perm's copy: the row ids when needed
  if (permuted) {  // every row, in perm's order
    const auto sub = build_row_subset(A, perm);
    prm = sub.row_map;
    rs.entries = sub.entries;
    rs.values = sub.values;
    perm_ids = sub.row_ids;
    rs.extra_bytes += double(n + 1) * sizeof(offset_t) +
                      double(A.nnz()) * (sizeof(ordinal_t) + sizeof(value_t));
  } else {
    rs.entries = A.graph.entries;
    rs.values = A.values;
  }
  // Output row of stored position p.
  const bool ids_needed = permuted && !permuted_space;
  if (!dcsr) {
    rs.row_map = prm;
    rs.stored_rows = n;
    if (ids_needed) {
      rs.row_ids = perm_ids;
      rs.extra_bytes += double(n) * sizeof(ordinal_t);
    }
    return rs;
  }
  // 2. DCSR: keep the non-empty stored rows; list the empty ones for scale_rows.
  ordinal_t nonempty = 0;
  Kokkos::parallel_reduce(
      "kkperm::spmm::dcsr_count", kkperm::range_policy<exec_t>(0, n),
      KOKKOS_LAMBDA(const ordinal_t p, ordinal_t& c) { c += prm(p + 1) > prm(p) ? 1 : 0; },
      nonempty);
  Kokkos::View<offset_t*, device_type> drm("kkperm::spmm::dcsr_row_map", nonempty + 1);
  Kokkos::View<ordinal_t*, device_type> ids("kkperm::spmm::dcsr_row_ids", nonempty);
  Kokkos::View<ordinal_t*, device_type> empties("kkperm::spmm::dcsr_empty_rows", n - nonempty);
  Kokkos::parallel_scan(
      "kkperm::spmm::dcsr_scan", kkperm::range_policy<exec_t>(0, n),
      KOKKOS_LAMBDA(const ordinal_t p, ordinal_t& acc, const bool final) {
        const bool full = prm(p + 1) > prm(p);
        if (final) {
          const ordinal_t out = ids_needed ? perm(p) : p;
          if (full) {
            drm(acc) = prm(p);
            ids(acc) = out;
          } else {
            empties(p - acc) = out;
          }
        }
        if (full) acc += 1;
      });
  Kokkos::deep_copy(Kokkos::subview(drm, nonempty), Kokkos::subview(prm, n));
  rs.row_map = drm;
  rs.row_ids = ids;
  rs.empty_rows = empties;
  rs.stored_rows = nonempty;
  rs.extra_bytes += double(nonempty + 1) * sizeof(offset_t) + double(n) * sizeof(ordinal_t);
  return rs;
}

}  // namespace kkperm::kernels::spmm
