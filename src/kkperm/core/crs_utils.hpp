#pragma once
/**
 * @brief CrsMatrix utilities: host <-> device conversion, structural validation.
 *
 * Usage: `auto A = kkperm::to_device<kkperm::DefaultCrs>(host_csr); kkperm::validate(A, "who");`
 * Preconditions: none for validate (it is the check); to_device requires a HostCsr whose sizes
 * fit the target ordinal/offset types (checked, std::invalid_argument otherwise).
 */
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"
#include "kkperm/core/types.hpp"

namespace kkperm {

/// Copies a HostCsr into a KokkosSparse::CrsMatrix of type `Matrix` (any memory space),
/// converting value/ordinal/offset types. Throws when a size does not fit the target types
/// (e.g. nnz > INT_MAX for int offsets).
template <class Matrix, class V, class O, class F>
Matrix to_device(const HostCsr<V, O, F>& h, const std::string& label = "kkperm::A") {
  using value_t = typename Matrix::non_const_value_type;
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  using offset_t = typename Matrix::non_const_size_type;
  using rowmap_t = typename Matrix::row_map_type::non_const_type;
  using entries_t = typename Matrix::index_type::non_const_type;
  using values_t = typename Matrix::values_type::non_const_type;

  KKPERM_REQUIRE(h.num_rows >= 0 && h.num_cols >= 0,
                 "kkperm::to_device: negative dimensions " << h.num_rows << " x " << h.num_cols);
  KKPERM_REQUIRE(h.row_map.size() == static_cast<std::size_t>(h.num_rows) + 1,
                 "kkperm::to_device: row_map has " << h.row_map.size() << " entries, expected "
                                                   << (static_cast<std::size_t>(h.num_rows) + 1));
  const auto nnz = static_cast<std::uint64_t>(h.nnz());
  KKPERM_REQUIRE(h.entries.size() == nnz && h.values.size() == nnz,
                 "kkperm::to_device: entries/values sizes (" << h.entries.size() << ", "
                                                             << h.values.size()
                                                             << ") differ from nnz " << nnz);
  KKPERM_REQUIRE(static_cast<std::uint64_t>(h.num_rows) <=
                         static_cast<std::uint64_t>(std::numeric_limits<ordinal_t>::max()) &&
                     static_cast<std::uint64_t>(h.num_cols) <=
                         static_cast<std::uint64_t>(std::numeric_limits<ordinal_t>::max()),
                 "kkperm::to_device: dimensions " << h.num_rows << " x " << h.num_cols
                                                  << " overflow the ordinal type ("
                                                  << sizeof(ordinal_t) << " bytes)");
  KKPERM_REQUIRE(nnz <= static_cast<std::uint64_t>(std::numeric_limits<offset_t>::max()),
                 "kkperm::to_device: nnz " << nnz << " overflows the offset type ("
                                           << sizeof(offset_t) << " bytes); use 64-bit offsets");

  rowmap_t row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::row_map"),
                   h.num_rows + 1);
  entries_t entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::entries"), nnz);
  values_t values(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), nnz);
  auto hr = Kokkos::create_mirror_view(row_map);
  auto he = Kokkos::create_mirror_view(entries);
  auto hv = Kokkos::create_mirror_view(values);
  for (std::size_t i = 0; i < h.row_map.size(); ++i) hr(i) = static_cast<offset_t>(h.row_map[i]);
  for (std::uint64_t k = 0; k < nnz; ++k) {
    he(k) = static_cast<ordinal_t>(h.entries[k]);
    hv(k) = static_cast<value_t>(h.values[k]);
  }
  Kokkos::deep_copy(row_map, hr);
  Kokkos::deep_copy(entries, he);
  Kokkos::deep_copy(values, hv);
  return Matrix(label, static_cast<ordinal_t>(h.num_rows), static_cast<ordinal_t>(h.num_cols),
                static_cast<offset_t>(nnz), values, row_map, entries);
}

/// Copies a CrsMatrix (any memory space) into a HostCsr with the matrix's own types.
template <class Matrix>
HostCsr<typename Matrix::non_const_value_type, typename Matrix::non_const_ordinal_type,
        typename Matrix::non_const_size_type>
to_host(const Matrix& A) {
  HostCsr<typename Matrix::non_const_value_type, typename Matrix::non_const_ordinal_type,
          typename Matrix::non_const_size_type>
      h;
  h.num_rows = A.numRows();
  h.num_cols = A.numCols();
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  h.row_map.assign(hr.data(), hr.data() + hr.extent(0));
  if (h.row_map.empty()) h.row_map.assign(1, 0);  // KK allows a 0-length row_map for 0 rows
  h.entries.assign(he.data(), he.data() + he.extent(0));
  h.values.assign(hv.data(), hv.data() + hv.extent(0));
  return h;
}

/// Result of a structural check: `first_bad_row` is -1 when the matrix is valid.
struct CrsCheck {
  std::int64_t first_bad_row = -1;
  std::string problem;  ///< human-readable description of the first problem found
  bool ok() const { return first_bad_row < 0 && problem.empty(); }
};

/**
 * @brief Checks a CrsMatrix's structure on its own execution space: row_map(0) == 0, row_map
 * monotone, row_map(n) == entries.extent(0) == values.extent(0), columns in [0, numCols) and,
 * when `require_sorted`, strictly increasing (sorted and unique) within every row.
 * The scan runs on the device; only the first offending row is inspected on the host.
 */
template <class Matrix>
CrsCheck check_crs(const Matrix& A, bool require_sorted = true) {
  using exec_t = typename Matrix::execution_space;
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  using offset_t = typename Matrix::non_const_size_type;
  CrsCheck out;
  const ordinal_t n = A.numRows();
  const ordinal_t m = A.numCols();
  auto row_map = A.graph.row_map;
  auto entries = A.graph.entries;
  if (n == 0) {
    if (entries.extent(0) != 0 || A.values.extent(0) != 0)
      out.problem = "a matrix with 0 rows has entries";
    return out;
  }
  if (row_map.extent(0) != static_cast<std::size_t>(n) + 1) {
    out.problem = "row_map has " + std::to_string(row_map.extent(0)) + " entries, expected " +
                  std::to_string(static_cast<std::size_t>(n) + 1);
    return out;
  }
  offset_t first_offset = 0, last = 0;
  Kokkos::deep_copy(first_offset, Kokkos::subview(row_map, 0));
  Kokkos::deep_copy(last, Kokkos::subview(row_map, n));
  if (first_offset != 0) {
    out.problem = "row_map(0) is " + std::to_string(first_offset) + ", expected 0";
    return out;
  }
  if (static_cast<std::size_t>(last) != entries.extent(0) ||
      entries.extent(0) != A.values.extent(0)) {
    out.problem = "row_map(n) = " + std::to_string(last) + " but entries has " +
                  std::to_string(entries.extent(0)) + " and values " +
                  std::to_string(A.values.extent(0)) + " elements";
    return out;
  }
  const auto nnz_total = static_cast<offset_t>(entries.extent(0));
  // Balanced over rows and nonzeros (a thread per row stalled on the hub rows of power-law
  // matrices: 15 ms for 10 M nonzeros on an H100, as long as a slow SpMV):
  // 1. row_map monotone and within [0, nnz], O(1) per row;
  std::int64_t first = n;
  decltype(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map)) hr;  // host row_map, made once on failure
  Kokkos::parallel_reduce(
      "kkperm::check_crs::row_map", Kokkos::RangePolicy<exec_t>(0, n),
      KOKKOS_LAMBDA(const ordinal_t i, std::int64_t& lmin) {
        const offset_t b = row_map(i), e = row_map(i + 1);
        if ((e < b || e > nnz_total) && i < lmin) lmin = i;
      },
      Kokkos::Min<std::int64_t>(first));
  if (first >= n && nnz_total > 0) {
    // 2. a bitmap marks the first entry of every non-empty row; then one thread per nonzero
    //    checks its column range and, unless it starts a row, that it exceeds its predecessor.
    Kokkos::View<std::uint32_t*, typename Matrix::memory_space> starts("kkperm::check_crs::row_starts",
                                                                      (static_cast<std::int64_t>(nnz_total) + 31) / 32);
    Kokkos::parallel_for(
        "kkperm::check_crs::mark_starts", Kokkos::RangePolicy<exec_t>(0, n), KOKKOS_LAMBDA(const ordinal_t i) {
          const offset_t b = row_map(i);
          if (row_map(i + 1) > b) Kokkos::atomic_fetch_or(&starts(b / 32), std::uint32_t(1u) << (b % 32));
        });
    std::int64_t first_k = static_cast<std::int64_t>(nnz_total);
    Kokkos::parallel_reduce(
        "kkperm::check_crs::entries", Kokkos::RangePolicy<exec_t>(0, static_cast<std::int64_t>(nnz_total)),
        KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& lmin) {
          const ordinal_t c = entries(k);
          bool bad = c < 0 || c >= m;
          if (!bad && require_sorted && ((starts(k / 32) >> (k % 32)) & 1u) == 0 && entries(k - 1) >= c) bad = true;
          if (bad && k < lmin) lmin = k;
        },
        Kokkos::Min<std::int64_t>(first_k));
    if (first_k < static_cast<std::int64_t>(nnz_total)) {
      // the row holding entry first_k: the last row whose offset is <= first_k
      hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
      first = static_cast<std::int64_t>(std::upper_bound(hr.data(), hr.data() + n + 1,
                                                         static_cast<offset_t>(first_k)) - hr.data()) - 1;
    }
  }
  if (first >= n) return out;
  out.first_bad_row = first;
  // Describe the offending row on the host.
  if (hr.extent(0) == 0) hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
  const offset_t b = hr(first), e = hr(first + 1);
  if (e < b || e > nnz_total) {
    out.problem = "row_map is not monotone at row " + std::to_string(first) + " (" +
                  std::to_string(b) + " -> " + std::to_string(e) + ")";
    return out;
  }
  auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), entries);
  for (offset_t k = b; k < e; ++k) {
    const ordinal_t c = he(k);
    if (c < 0 || c >= m) {
      out.problem = "row " + std::to_string(first) + " has column " + std::to_string(c) +
                    " outside [0, " + std::to_string(m) + ")";
      return out;
    }
    if (k > b && he(k - 1) >= c) {
      out.problem = "row " + std::to_string(first) + " has " +
                    (he(k - 1) == c ? "a duplicate column " : "unsorted columns at ") +
                    std::to_string(c);
      return out;
    }
  }
  out.problem = "row " + std::to_string(first) + " is malformed";
  return out;
}

/// Throws std::invalid_argument "`who`: invalid matrix: <problem>" when check_crs fails.
template <class Matrix>
void validate(const Matrix& A, const char* who, bool require_sorted = true) {
  const CrsCheck c = check_crs(A, require_sorted);
  KKPERM_REQUIRE(c.ok(), who << ": invalid matrix (" << A.numRows() << " x " << A.numCols()
                             << ", nnz " << A.nnz() << "): " << c.problem);
}

}  // namespace kkperm
