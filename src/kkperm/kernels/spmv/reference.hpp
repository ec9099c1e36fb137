#pragma once
/**
 * @brief Serial reference SpMV on a HostCsr, the twin every CSR kernel is tested against, and
 * the per-row magnitude sum used to derive test tolerances.
 *
 * Usage: `kkperm::spmv::csr_reference(h, alpha, x, beta, y);` with `A` the accumulation type
 * (double in tests, whatever the matrix's value type). beta == 0 does not read y.
 */
#include <cmath>
#include <cstdint>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"

namespace kkperm::spmv {

template <class A, class V, class O, class F>
void csr_reference(const HostCsr<V, O, F>& h, A alpha, const std::vector<A>& x, A beta,
                   std::vector<A>& y) {
  KKPERM_REQUIRE(x.size() == static_cast<std::size_t>(h.num_cols) &&
                     y.size() == static_cast<std::size_t>(h.num_rows),
                 "kkperm::spmv::csr_reference: x/y sizes " << x.size() << "/" << y.size()
                                                           << " do not match " << h.num_rows
                                                           << " x " << h.num_cols);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(h.num_rows); ++i) {
    A s = 0;
    for (F p = h.row_map[i]; p < h.row_map[i + 1]; ++p)
      s += static_cast<A>(h.values[p]) * x[h.entries[p]];
    y[i] = beta == A(0) ? alpha * s : alpha * s + beta * y[i];
  }
}

/// m[i] = sum_j |a_ij| * |x_j| (the quantity rounding errors of row i are proportional to).
template <class A, class V, class O, class F>
std::vector<A> abs_row_products(const HostCsr<V, O, F>& h, const std::vector<A>& x) {
  std::vector<A> m(static_cast<std::size_t>(h.num_rows), A(0));
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(h.num_rows); ++i)
    for (F p = h.row_map[i]; p < h.row_map[i + 1]; ++p)
      m[i] += std::abs(static_cast<A>(h.values[p])) * std::abs(x[h.entries[p]]);
  return m;
}

}  // namespace kkperm::spmv
