#pragma once
/**
 * @brief SpMV kernels over the formats of kkperm/formats/spmv_formats.hpp. Serial twins: the
 * `spmv_reference` overloads in that header. beta == 0 never reads y.
 */
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kkperm/kernels/spmv/csr_kernels.hpp"
#include "kkperm/kernels/spmv/spmv_config.hpp"

namespace kkperm::spmv {

/// ELL, thread per row; slots column-major; column -1 = padding (skipped).
template <class Exec, class Cols, class Vals, class XView, class YView, class V>
void ell(const char* label, V alpha, std::int64_t k, const Cols& cols, const Vals& vals,
         const XView& x, V beta, const YView& y) {
  using O = typename Cols::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(y.extent(0));
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        V s = V(0);
        for (std::int64_t j = 0; j < k; ++j) {
          const O c = cols(j * n + i);
          if (c >= 0) s += vals(j * n + i) * x(c);
        }
        y(i) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(i));
      });
}

/**
 * @brief COO segmented reduction, accumulating: y(row) += alpha * sum over the entries. Each
 * thread reduces `chunk_nnz` consecutive entries segment by segment (rows are sorted); the first
 * and last segment of a chunk may continue in a neighbouring chunk and are added atomically,
 * inner segments are whole rows owned by the thread and are added plainly.
 */
template <class Exec, class Rows, class Cols, class Vals, class XView, class YView, class V>
void coo_accumulate(const char* label, V alpha, const Rows& rows, const Cols& cols,
                    const Vals& vals, const XView& x, const YView& y) {
  using O = typename Rows::non_const_value_type;
  const std::int64_t nnz = static_cast<std::int64_t>(vals.extent(0));
  if (nnz == 0) return;
  const std::int64_t chunk = CooConfig::chunk_nnz;
  const std::int64_t nchunks = (nnz + chunk - 1) / chunk;
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, nchunks),
      KOKKOS_LAMBDA(const std::int64_t c) {
        const std::int64_t k0 = c * chunk;
        const std::int64_t k1 = (k0 + chunk < nnz) ? k0 + chunk : nnz;
        std::int64_t k = k0;
        while (k < k1) {
          const O r = rows(k);
          const std::int64_t seg0 = k;
          V s = V(0);
          for (; k < k1 && rows(k) == r; ++k) s += vals(k) * x(cols(k));
          const bool cut_left = seg0 == k0 && k0 > 0 && rows(k0 - 1) == r;
          const bool cut_right = k == k1 && k1 < nnz && rows(k1) == r;
          if (cut_left || cut_right) Kokkos::atomic_add(&y(r), V(alpha * s));
          else y(r) += alpha * s;
        }
      });
}

/// COO SpMV: y = beta*y, then the segmented reduction.
template <class Exec, class Rows, class Cols, class Vals, class XView, class YView, class V>
void coo(V alpha, const Rows& rows, const Cols& cols, const Vals& vals, const XView& x, V beta,
         const YView& y) {
  scale_y<Exec>("kkperm::spmv::coo::scale", beta, y);
  coo_accumulate<Exec>("kkperm::spmv::coo", alpha, rows, cols, vals, x, y);
}

/**
 * @brief SELL-C-sigma: thread t handles lane t % C of slice t / C, i.e. original row
 * perm(t); a warp reads one slice column-major (coalesced). Padding lanes (perm -1) exit; a
 * lane stops at its first padding slot (its row is sorted to be no longer than the slice).
 */
template <class Exec, class SlicePtr, class Perm, class Cols, class Vals, class XView,
          class YView, class V>
void sell(V alpha, std::int64_t C, const SlicePtr& slice_ptr, const Perm& perm, const Cols& cols,
          const Vals& vals, const XView& x, V beta, const YView& y) {
  using O = typename Cols::non_const_value_type;
  using F = typename SlicePtr::non_const_value_type;
  const std::int64_t nslots = static_cast<std::int64_t>(perm.extent(0));
  Kokkos::parallel_for(
      "kkperm::spmv::sell_c_sigma",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, nslots),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const O i = perm(t);
        if (i < 0) return;
        const std::int64_t sl = t / C, r = t % C;
        const F base = slice_ptr(sl);
        const std::int64_t w = static_cast<std::int64_t>(slice_ptr(sl + 1) - base) / C;
        V s = V(0);
        for (std::int64_t j = 0; j < w; ++j) {
          const O c = cols(base + j * C + r);
          if (c < 0) break;
          s += vals(base + j * C + r) * x(c);
        }
        y(i) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(i));
      });
}

/// y(rows(t)) = beta*y(rows(t)) for a row list (DCSR's empty rows); beta == 0 writes 0.
template <class Exec, class RowList, class YView, class V>
void scale_rows(const char* label, V beta, const RowList& rows, const YView& y) {
  if (beta == V(1)) return;
  const std::int64_t m = static_cast<std::int64_t>(rows.extent(0));
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, m),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const auto i = rows(t);
        y(i) = (beta == V(0)) ? V(0) : V(beta * y(i));
      });
}

}  // namespace kkperm::spmv
