#pragma once
/**
 * @brief Row lookups in a CSR row map, callable in device code.
 *
 * Usage: `const auto r = kkperm::row_of_nonzero(row_map, n, k);`
 * Preconditions: n >= 1 rows, row_map has n + 1 offsets (non-decreasing, row_map(0) == 0) and
 * 0 <= k < row_map(n).
 */
#include <Kokkos_Core.hpp>

namespace kkperm {

/// Largest r in [0, n) with row_map(r) <= k (k < nnz): the row holding nonzero k (empty rows
/// before it are skipped).
template <class RowMap, class O, class F>
KOKKOS_INLINE_FUNCTION O row_of_nonzero(const RowMap& row_map, O n, F k) {
  O lo = 0, hi = n - 1;
  while (lo < hi) {
    const O mid = lo + (hi - lo + 1) / 2;
    if (row_map(mid) <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace kkperm
