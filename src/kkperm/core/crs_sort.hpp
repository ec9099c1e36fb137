#pragma once
/**
 * @brief Sorting columns within rows of a CSR matrix, and merging duplicate columns by summing.
 *
 * Usage: `kkperm::sort_crs(A);                        // in place, on A's execution space`
 *        `auto B = kkperm::sort_and_merge_crs(A);     // new matrix, duplicates summed`
 * Serial twins on HostCsr: `sort_crs_serial(h)`, `sort_and_merge_crs_serial(h)`.
 *
 * Preconditions: a structurally valid CSR (row_map(0) == 0, monotone, row_map(n) == nnz,
 * columns in [0, numCols)); checked with kkperm::validate(..., require_sorted=false), which
 * throws std::invalid_argument naming the function.
 * Order of equal columns: the serial twins are stable (duplicates summed in storage order).
 * The device sort is KokkosKernels::Impl::sort_crs_matrix (KK 3.4 keeps it in Impl): a radix
 * sort, stable, on host spaces; a team bitonic sort, NOT stable, on GPUs. So on a GPU duplicates
 * may be summed in another order than by the serial twin, and the sums may then
 * differ from the serial twin by rounding only.
 */
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"
#include "kkperm/core/launch_policy.hpp"

#include <KokkosKernels_SparseUtils.hpp>

namespace kkperm {

namespace detail {
template <class V, class O, class F>
void require_host_csr(const HostCsr<V, O, F>& h, const char* who) {
  KKPERM_REQUIRE(h.num_rows >= 0 && h.num_cols >= 0,
                 who << ": negative dimensions " << h.num_rows << " x " << h.num_cols);
  KKPERM_REQUIRE(h.row_map.size() == static_cast<std::size_t>(h.num_rows) + 1 && h.row_map[0] == 0,
                 who << ": row_map has " << h.row_map.size() << " entries, expected "
                     << static_cast<std::size_t>(h.num_rows) + 1 << " starting at 0");
  for (O i = 0; i < h.num_rows; ++i)
    KKPERM_REQUIRE(h.row_map[i] <= h.row_map[i + 1],
                   who << ": row_map is not monotone at row " << i);
  const auto nnz = static_cast<std::size_t>(h.row_map.back());
  KKPERM_REQUIRE(h.entries.size() == nnz && h.values.size() == nnz,
                 who << ": entries/values sizes (" << h.entries.size() << ", " << h.values.size()
                     << ") differ from row_map's nnz " << nnz);
  for (std::size_t k = 0; k < nnz; ++k)
    KKPERM_REQUIRE(h.entries[k] >= 0 && h.entries[k] < h.num_cols,
                   who << ": column " << h.entries[k] << " outside [0, " << h.num_cols << ")");
}

/// Stable sort of one row [b, e) by column using `scratch`; returns true when the row was
/// already strictly increasing (nothing moved).
template <class V, class O, class F>
bool sort_row(HostCsr<V, O, F>& h, F b, F e, std::vector<std::pair<O, V>>& scratch) {
  bool strictly_sorted = true;
  for (F k = b + 1; k < e && strictly_sorted; ++k)
    strictly_sorted = h.entries[k - 1] < h.entries[k];
  if (strictly_sorted) return true;
  scratch.clear();
  for (F k = b; k < e; ++k) scratch.emplace_back(h.entries[k], h.values[k]);
  std::stable_sort(scratch.begin(), scratch.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (F k = b; k < e; ++k) {
    h.entries[k] = scratch[k - b].first;
    h.values[k] = scratch[k - b].second;
  }
  return false;
}
}  // namespace detail

/// Serial twin of sort_crs: stable in-place sort of the columns (values follow) of every row.
template <class V, class O, class F>
void sort_crs_serial(HostCsr<V, O, F>& h) {
  detail::require_host_csr(h, "kkperm::sort_crs_serial");
  std::vector<std::pair<O, V>> scratch;
  for (O i = 0; i < h.num_rows; ++i) detail::sort_row(h, h.row_map[i], h.row_map[i + 1], scratch);
}

/**
 * Serial twin of sort_and_merge_crs: returns the matrix with sorted columns, repeated columns
 * of a row merged into one entry whose value is their sum (in storage order), or, when
 * `sum_duplicates` is false, the FIRST stored value (used for pattern matrices).
 */
template <class V, class O, class F>
HostCsr<V, O, F> sort_and_merge_crs_serial(HostCsr<V, O, F> h, bool sum_duplicates = true) {
  detail::require_host_csr(h, "kkperm::sort_and_merge_crs_serial");
  std::vector<std::pair<O, V>> scratch;
  F out = 0;
  F row_begin = 0;
  for (O i = 0; i < h.num_rows; ++i) {
    const F b = row_begin, e = h.row_map[i + 1];
    row_begin = e;
    detail::sort_row(h, b, e, scratch);
    const F row_out_begin = out;
    for (F k = b; k < e; ++k) {
      if (out > row_out_begin && h.entries[out - 1] == h.entries[k]) {
        if (sum_duplicates) h.values[out - 1] += h.values[k];
      } else {
        h.entries[out] = h.entries[k];
        h.values[out] = h.values[k];
        ++out;
      }
    }
    h.row_map[i + 1] = out;
  }
  h.entries.resize(static_cast<std::size_t>(out));
  h.values.resize(static_cast<std::size_t>(out));
  h.entries.shrink_to_fit();
  h.values.shrink_to_fit();
  return h;
}

/**
 * @brief Sorts the columns of every row of `A` in place (values follow) on A's execution space.
 * Duplicates are kept (adjacent after sorting). Throws std::invalid_argument for a structurally
 * invalid matrix.
 */
template <class Matrix>
void sort_crs(const Matrix& A) {
  validate(A, "kkperm::sort_crs", /*require_sorted=*/false);
  using exec_t = typename Matrix::execution_space;
  using rowmap_t = typename Matrix::row_map_type;
  using entries_t = typename Matrix::index_type::non_const_type;
  using values_t = typename Matrix::values_type::non_const_type;
  if (A.numRows() == 0 || A.nnz() == 0) return;
  KokkosKernels::Impl::sort_crs_matrix<exec_t, rowmap_t, entries_t, values_t>(
      A.graph.row_map, A.graph.entries, A.values);
  exec_t().fence();
}

namespace detail {
/// Counts the distinct columns of each row of a row-sorted matrix: counts(i) for i < n.
template <class RowMap, class Entries, class Counts, class Ordinal>
void count_distinct_per_row(const RowMap& row_map, const Entries& entries, const Counts& counts,
                            Ordinal n) {
  using exec_t = typename Counts::execution_space;
  using offset_t = typename Counts::non_const_value_type;
  kkperm::parallel_for(
      "kkperm::sort_and_merge_crs::count", kkperm::range_policy<exec_t>(0, n),
      KOKKOS_LAMBDA(const Ordinal i) {
        const offset_t b = row_map(i), e = row_map(i + 1);
        offset_t c = 0;
        for (offset_t k = b; k < e; ++k)
          if (k == b || entries(k) != entries(k - 1)) ++c;
        counts(i) = c;
      });
}
}  // namespace detail

/**
 * @brief Returns a copy of `A` with sorted columns and repeated columns of a row merged into
 * one entry holding their sum (summed in the order the sort leaves them), computed on A's
 * execution space. `A` itself is not modified. Throws std::invalid_argument for a structurally
 * invalid matrix.
 */
template <class Matrix>
Matrix sort_and_merge_crs(const Matrix& A) {
  validate(A, "kkperm::sort_and_merge_crs", /*require_sorted=*/false);
  using exec_t = typename Matrix::execution_space;
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  using offset_t = typename Matrix::non_const_size_type;
  using rowmap_t = typename Matrix::row_map_type::non_const_type;
  using entries_t = typename Matrix::index_type::non_const_type;
  using values_t = typename Matrix::values_type::non_const_type;
  const ordinal_t n = A.numRows();
  const std::size_t nnz_in = A.graph.entries.extent(0);

  // Sort copies so that A stays untouched.
  rowmap_t in_rows(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::sort_and_merge::in_rows"),
      static_cast<std::size_t>(n) + 1);
  entries_t in_cols(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::sort_and_merge::in_cols"), nnz_in);
  values_t in_vals(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::sort_and_merge::in_vals"), nnz_in);
  if (n > 0)
    Kokkos::deep_copy(in_rows, A.graph.row_map);
  else
    Kokkos::deep_copy(in_rows, offset_t(0));
  Kokkos::deep_copy(in_cols, A.graph.entries);
  Kokkos::deep_copy(in_vals, A.values);
  if (n > 0 && nnz_in > 0)
    KokkosKernels::Impl::sort_crs_matrix<exec_t, rowmap_t, entries_t, values_t>(in_rows, in_cols,
                                                                                in_vals);

  // Distinct count per row -> exclusive scan -> new row map (row_map(n) = new nnz).
  rowmap_t out_rows("kkperm::sort_and_merge::row_map", static_cast<std::size_t>(n) + 1);
  detail::count_distinct_per_row(in_rows, in_cols, out_rows, n);
  offset_t nnz_out = 0;
  Kokkos::parallel_scan(
      "kkperm::sort_and_merge_crs::scan", kkperm::range_policy<exec_t>(0, n + 1),
      KOKKOS_LAMBDA(const ordinal_t i, offset_t& update, const bool final) {
        const offset_t c = i < n ? out_rows(i) : offset_t(0);
        if (final) out_rows(i) = update;
        update += c;
      },
      nnz_out);

  entries_t out_cols(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::sort_and_merge::entries"),
      static_cast<std::size_t>(nnz_out));
  values_t out_vals(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::sort_and_merge::values"),
      static_cast<std::size_t>(nnz_out));
  kkperm::parallel_for(
      "kkperm::sort_and_merge_crs::merge", kkperm::range_policy<exec_t>(0, n),
      KOKKOS_LAMBDA(const ordinal_t i) {
        const offset_t b = in_rows(i), e = in_rows(i + 1);
        offset_t o = out_rows(i) - 1;
        for (offset_t k = b; k < e; ++k) {
          if (k == b || in_cols(k) != in_cols(k - 1)) {
            ++o;
            out_cols(o) = in_cols(k);
            out_vals(o) = in_vals(k);
          } else {
            out_vals(o) += in_vals(k);
          }
        }
      });
  exec_t().fence();
  return Matrix("kkperm::sort_and_merge_crs", n, A.numCols(), nnz_out, out_vals, out_rows,
                out_cols);
}

}  // namespace kkperm
