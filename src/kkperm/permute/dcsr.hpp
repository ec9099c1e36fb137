#pragma once
/**
 * @brief DCSR: compress away empty rows. `row_offsets` has one entry per non-empty row plus one
 * (the paper calls it "rowidx"), `row_ids` the original index of every non-empty row (the paper's
 * "rowptr"); entries/values are shared with the CSR matrix unchanged. Example: rows {a01, a03},
 * {}, {}, {a30}: CSR row_map (0 2 2 2 3) -> row_offsets (0 2 3), row_ids (0 3).
 * Built on the matrix's execution space by one parallel_scan; serial twin dcsr_serial.
 * Usage: `auto d = kkperm::make_dcsr(A); // SpMV: y(d.row_ids(r)) = sum over [row_offsets(r), row_offsets(r+1))`
 */
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "kkperm/core/host_csr.hpp"
#include "kkperm/core/launch_policy.hpp"

namespace kkperm {

template <class Matrix>
struct Dcsr {
  using O = typename Matrix::non_const_ordinal_type;
  using F = typename Matrix::non_const_size_type;
  Kokkos::View<F*, typename Matrix::memory_space> row_offsets;  ///< num_nonempty + 1
  Kokkos::View<O*, typename Matrix::memory_space> row_ids;      ///< num_nonempty
  O num_nonempty = 0;
  Matrix matrix;  ///< the CSR matrix whose entries/values the offsets index
};

template <class Matrix>
Dcsr<Matrix> make_dcsr(const Matrix& A) {
  using exec_t = typename Matrix::execution_space;
  using O = typename Matrix::non_const_ordinal_type;
  using F = typename Matrix::non_const_size_type;
  Dcsr<Matrix> d;
  d.matrix = A;
  const O n = A.numRows();
  auto rm = A.graph.row_map;
  O count = 0;
  if (n > 0)
    Kokkos::parallel_reduce(
        "kkperm::dcsr::count", kkperm::range_policy<exec_t>(0, n),
        KOKKOS_LAMBDA(const O i, O& c) { c += rm(i + 1) > rm(i) ? 1 : 0; }, count);
  d.num_nonempty = count;
  d.row_offsets = decltype(d.row_offsets)("kkperm::dcsr::row_offsets", count + 1);
  d.row_ids = decltype(d.row_ids)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::dcsr::row_ids"), count);
  auto offs = d.row_offsets;
  auto ids = d.row_ids;
  if (n > 0)
    Kokkos::parallel_scan(
        "kkperm::dcsr::scan", kkperm::range_policy<exec_t>(0, n),
        KOKKOS_LAMBDA(const O i, O& upd, const bool final) {
          const bool ne = rm(i + 1) > rm(i);
          if (final && ne) {
            ids(upd) = i;
            offs(upd + 1) = rm(i + 1);
          }
          if (ne) ++upd;
        });
  return d;
}

/// Serial twin: (row_offsets, row_ids) of a HostCsr.
template <class V, class O, class F>
void dcsr_serial(const HostCsr<V, O, F>& h, std::vector<F>& row_offsets, std::vector<O>& row_ids) {
  row_offsets.assign(1, F(0));
  row_ids.clear();
  for (O i = 0; i < h.num_rows; ++i)
    if (h.row_map[i + 1] > h.row_map[i]) {
      row_ids.push_back(i);
      row_offsets.push_back(h.row_map[i + 1]);
    }
}

}  // namespace kkperm
