#pragma once
/**
 * @brief Serial reference twins of the SpMM kernels: same arguments as the device kernels
 * (minus the execution space instance), plain host loops, one sequential sum per output entry.
 * All views must be host-accessible. Tests compare the device kernels against these and
 * against a double-precision evaluation on the unpermuted matrix.
 *
 * Usage: `c_stationary_reference(alpha, row_map, entries, values, row_ids, B, beta, Y);`
 */
#include <cstdint>

#include "kkperm/kernels/spmm/spmm_common.hpp"

namespace kkperm::kernels::spmm {

namespace impl {
template <class RowMap, class Entries, class Values, class RowIds, class BView, class YView>
void spmm_rows_reference(typename YView::const_value_type alpha, const RowMap& row_map,
                         const Entries& entries, const Values& values, const RowIds& row_ids,
                         const BView& B, typename YView::const_value_type beta, const YView& Y) {
  using value_t = typename YView::non_const_value_type;
  const std::int64_t n = stored_rows(row_map);
  const std::int64_t K = static_cast<std::int64_t>(Y.extent(1));
  const bool has_ids = row_ids.extent(0) != 0;
  for (std::int64_t p = 0; p < n; ++p) {
    const std::int64_t yr = has_ids ? static_cast<std::int64_t>(row_ids(p)) : p;
    for (std::int64_t c = 0; c < K; ++c) {
      value_t sum = 0;
      for (auto k = row_map(p); k < row_map(p + 1); ++k) sum += values(k) * B(entries(k), c);
      Y(yr, c) = beta == value_t(0) ? value_t(alpha * sum) : value_t(alpha * sum + beta * Y(yr, c));
    }
  }
}
}  // namespace impl

/// Serial twin of c_stationary (B, Y column-major).
template <class RowMap, class Entries, class Values, class RowIds, class BView, class YView>
void c_stationary_reference(typename YView::const_value_type alpha, const RowMap& row_map,
                            const Entries& entries, const Values& values, const RowIds& row_ids,
                            const BView& B, typename YView::const_value_type beta,
                            const YView& Y) {
  impl::spmm_rows_reference(alpha, row_map, entries, values, row_ids, B, beta, Y);
}

/// Serial twin of row_major (B, Y row-major).
template <class RowMap, class Entries, class Values, class RowIds, class BView, class YView>
void row_major_reference(typename YView::const_value_type alpha, const RowMap& row_map,
                         const Entries& entries, const Values& values, const RowIds& row_ids,
                         const BView& B, typename YView::const_value_type beta, const YView& Y) {
  impl::spmm_rows_reference(alpha, row_map, entries, values, row_ids, B, beta, Y);
}

/// Serial twin of scale_rows.
template <class RowList, class YView>
void scale_rows_reference(typename YView::const_value_type beta, const RowList& rows,
                          const YView& Y) {
  using value_t = typename YView::non_const_value_type;
  for (std::size_t r = 0; r < rows.extent(0); ++r)
    for (std::size_t c = 0; c < Y.extent(1); ++c)
      Y(rows(r), c) = beta == value_t(0) ? value_t(0) : value_t(beta * Y(rows(r), c));
}

}  // namespace kkperm::kernels::spmm
