#pragma once
/**
 * @brief Sparse formats for SpMV candidates, built on the host from a HostCsr: ELL, COO,
 * HYB (= ELL(k) + COO), SELL-C-sigma and DCSR (COO rows and DCSR row lists also on the device:
 * device_expand_rows, device_dcsr_rows); each with its serial SpMV twin
 * (`spmv_reference(format, alpha, x, beta, y)`) and a device copy (`to_device`).
 *
 * Usage: `auto e = kkperm::formats::build_ell(h, k); auto d = kkperm::formats::to_device<Dev>(e);`
 * Preconditions: h passes the HostCsr invariants (sorted unique columns). Padding slots hold
 * column -1 and value 0 and are skipped, never multiplied (x may hold Inf/NaN).
 */
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"

namespace kkperm::formats {

// ------------------------------------------------------------------------------------------
// ELL: num_rows x k slots, column-major (slot j of row i at j*num_rows + i) so that a thread
// per row reads consecutive addresses across a warp.
template <class V, class O>
struct EllHost {
  std::int64_t num_rows = 0, num_cols = 0, k = 0;
  std::vector<O> cols;  ///< -1 = padding
  std::vector<V> vals;
};

/// Largest row length of h.
template <class V, class O, class F>
std::int64_t max_row_length(const HostCsr<V, O, F>& h) {
  std::int64_t m = 0;
  for (std::int64_t i = 0; i < h.num_rows; ++i)
    m = std::max<std::int64_t>(m, static_cast<std::int64_t>(h.row_map[i + 1] - h.row_map[i]));
  return m;
}

/// The first min(k, len(i)) entries of each row go to ELL; `rest` (if given) receives the
/// remaining entries as COO (row, col, val), in row-major order.
template <class V, class O, class F>
EllHost<V, O> build_ell(const HostCsr<V, O, F>& h, std::int64_t k,
                        std::vector<O>* rest_rows = nullptr, std::vector<O>* rest_cols = nullptr,
                        std::vector<V>* rest_vals = nullptr) {
  EllHost<V, O> e;
  e.num_rows = h.num_rows;
  e.num_cols = h.num_cols;
  e.k = k;
  const std::size_t slots = static_cast<std::size_t>(h.num_rows) * static_cast<std::size_t>(k);
  e.cols.assign(slots, O(-1));
  e.vals.assign(slots, V(0));
  for (std::int64_t i = 0; i < h.num_rows; ++i) {
    std::int64_t j = 0;
    for (F p = h.row_map[i]; p < h.row_map[i + 1]; ++p, ++j) {
      if (j < k) {
        e.cols[j * h.num_rows + i] = h.entries[p];
        e.vals[j * h.num_rows + i] = h.values[p];
      } else {
        KKPERM_ASSERT(rest_rows != nullptr, "ELL: row " << i << " longer than k=" << k);
        rest_rows->push_back(static_cast<O>(i));
        rest_cols->push_back(h.entries[p]);
        rest_vals->push_back(h.values[p]);
      }
    }
  }
  return e;
}

template <class V, class O, class A>
void spmv_reference(const EllHost<V, O>& e, A alpha, const std::vector<A>& x, A beta,
                    std::vector<A>& y) {
  for (std::int64_t i = 0; i < e.num_rows; ++i) {
    A s = 0;
    for (std::int64_t j = 0; j < e.k; ++j) {
      const O c = e.cols[j * e.num_rows + i];
      if (c >= 0) s += static_cast<A>(e.vals[j * e.num_rows + i]) * x[c];
    }
    y[i] = beta == A(0) ? alpha * s : alpha * s + beta * y[i];
  }
}

// ------------------------------------------------------------------------------------------
// COO sorted by row (CSR order).
template <class V, class O>
struct CooHost {
  std::int64_t num_rows = 0, num_cols = 0;
  std::vector<O> rows, cols;
  std::vector<V> vals;
};

template <class V, class O, class F>
CooHost<V, O> build_coo(const HostCsr<V, O, F>& h) {
  CooHost<V, O> c;
  c.num_rows = h.num_rows;
  c.num_cols = h.num_cols;
  c.rows.resize(h.entries.size());
  for (std::int64_t i = 0; i < h.num_rows; ++i)
    for (F p = h.row_map[i]; p < h.row_map[i + 1]; ++p) c.rows[p] = static_cast<O>(i);
  c.cols = h.entries;
  c.vals = h.values;
  return c;
}

/// y = alpha*A_coo*x + beta*y; with `accumulate` y += alpha*A_coo*x (HYB's second half).
template <class V, class O, class A>
void spmv_reference(const CooHost<V, O>& c, A alpha, const std::vector<A>& x, A beta,
                    std::vector<A>& y, bool accumulate = false) {
  if (!accumulate)
    for (std::int64_t i = 0; i < c.num_rows; ++i) y[i] = beta == A(0) ? A(0) : beta * y[i];
  for (std::size_t p = 0; p < c.vals.size(); ++p)
    y[c.rows[p]] += alpha * static_cast<A>(c.vals[p]) * x[c.cols[p]];
}

// ------------------------------------------------------------------------------------------
// HYB = ELL(k) + COO(rest).
template <class V, class O>
struct HybHost {
  EllHost<V, O> ell;
  CooHost<V, O> coo;
};

/// Bell & Garland's k (see HybConfig): the largest k such that the number of rows with at
/// least k entries is >= max(num_rows / relative_speed, breakeven_rows); 0 if none.
template <class V, class O, class F>
std::int64_t hyb_k_histogram(const HostCsr<V, O, F>& h, double relative_speed,
                             std::int64_t breakeven_rows) {
  const std::int64_t maxlen = max_row_length(h);
  std::vector<std::int64_t> hist(static_cast<std::size_t>(maxlen) + 1, 0);
  for (std::int64_t i = 0; i < h.num_rows; ++i) ++hist[h.row_map[i + 1] - h.row_map[i]];
  // rows_ge = number of rows with length >= k, for k = 1, 2, ...
  std::int64_t rows_ge = h.num_rows - (maxlen >= 0 ? hist[0] : 0);
  std::int64_t k = 0;
  for (std::int64_t kk = 1; kk <= maxlen; ++kk) {
    if (static_cast<double>(rows_ge) * relative_speed < static_cast<double>(h.num_rows) ||
        rows_ge < breakeven_rows)
      break;
    k = kk;
    rows_ge -= hist[kk];
  }
  return k;
}

/// HYB-MU's k: ceil(nnz / num_rows) (0 for an empty matrix).
template <class V, class O, class F>
std::int64_t hyb_k_mean(const HostCsr<V, O, F>& h) {
  if (h.num_rows == 0) return 0;
  const std::int64_t nnz = static_cast<std::int64_t>(h.nnz());
  return (nnz + h.num_rows - 1) / h.num_rows;
}

template <class V, class O, class F>
HybHost<V, O> build_hyb(const HostCsr<V, O, F>& h, std::int64_t k) {
  HybHost<V, O> out;
  out.ell = build_ell(h, k, &out.coo.rows, &out.coo.cols, &out.coo.vals);
  out.coo.num_rows = h.num_rows;
  out.coo.num_cols = h.num_cols;
  return out;
}

template <class V, class O, class A>
void spmv_reference(const HybHost<V, O>& hy, A alpha, const std::vector<A>& x, A beta,
                    std::vector<A>& y) {
  spmv_reference(hy.ell, alpha, x, beta, y);
  spmv_reference(hy.coo, alpha, x, beta, y, /*accumulate=*/true);
}

// ------------------------------------------------------------------------------------------
// SELL-C-sigma: rows sorted by decreasing length inside windows of sigma rows, cut into slices
// of C rows; slice s holds width(s) = its longest row, stored column-major inside the slice
// (slot j of lane r at slice_ptr[s] + j*C + r). perm[slot row] = original row (-1 = padding).
template <class V, class O, class F>
struct SellHost {
  std::int64_t num_rows = 0, num_cols = 0, C = 0, sigma = 0, num_slices = 0;
  std::vector<F> slice_ptr;
  std::vector<O> perm, cols;
  std::vector<V> vals;
};

/// Number of slots SELL-C-sigma would allocate (for the applicability check before building).
template <class V, class O, class F>
std::int64_t sell_slots(const HostCsr<V, O, F>& h, std::int64_t C, std::int64_t sigma) {
  std::vector<std::int64_t> len(static_cast<std::size_t>(h.num_rows));
  for (std::int64_t i = 0; i < h.num_rows; ++i) len[i] = h.row_map[i + 1] - h.row_map[i];
  std::int64_t slots = 0;
  for (std::int64_t w0 = 0; w0 < h.num_rows; w0 += sigma) {
    const std::int64_t w1 = std::min(h.num_rows * std::int64_t(1), w0 + sigma);
    std::sort(len.begin() + w0, len.begin() + w1, std::greater<std::int64_t>());
  }
  for (std::int64_t s0 = 0; s0 < h.num_rows; s0 += C) slots += len[s0] * C;
  return slots;
}

template <class V, class O, class F>
SellHost<V, O, F> build_sell(const HostCsr<V, O, F>& h, std::int64_t C, std::int64_t sigma) {
  SellHost<V, O, F> s;
  s.num_rows = h.num_rows;
  s.num_cols = h.num_cols;
  s.C = C;
  s.sigma = sigma;
  s.num_slices = (h.num_rows + C - 1) / C;
  std::vector<O> order(static_cast<std::size_t>(h.num_rows));
  std::iota(order.begin(), order.end(), O(0));
  auto len = [&](O i) { return h.row_map[i + 1] - h.row_map[i]; };
  for (std::int64_t w0 = 0; w0 < h.num_rows; w0 += sigma) {
    const std::int64_t w1 = std::min<std::int64_t>(h.num_rows, w0 + sigma);
    std::stable_sort(order.begin() + w0, order.begin() + w1,
                     [&](O a, O b) { return len(a) > len(b); });
  }
  s.perm.assign(static_cast<std::size_t>(s.num_slices * C), O(-1));
  std::copy(order.begin(), order.end(), s.perm.begin());
  s.slice_ptr.assign(static_cast<std::size_t>(s.num_slices) + 1, F(0));
  for (std::int64_t sl = 0; sl < s.num_slices; ++sl) {
    std::int64_t w = 0;
    for (std::int64_t r = 0; r < C; ++r) {
      const O i = s.perm[sl * C + r];
      if (i >= 0) w = std::max<std::int64_t>(w, len(i));
    }
    s.slice_ptr[sl + 1] = s.slice_ptr[sl] + static_cast<F>(w * C);
  }
  s.cols.assign(static_cast<std::size_t>(s.slice_ptr.back()), O(-1));
  s.vals.assign(static_cast<std::size_t>(s.slice_ptr.back()), V(0));
  for (std::int64_t sl = 0; sl < s.num_slices; ++sl)
    for (std::int64_t r = 0; r < C; ++r) {
      const O i = s.perm[sl * C + r];
      if (i < 0) continue;
      std::int64_t j = 0;
      for (F p = h.row_map[i]; p < h.row_map[i + 1]; ++p, ++j) {
        s.cols[s.slice_ptr[sl] + j * C + r] = h.entries[p];
        s.vals[s.slice_ptr[sl] + j * C + r] = h.values[p];
      }
    }
  return s;
}

template <class V, class O, class F, class A>
void spmv_reference(const SellHost<V, O, F>& s, A alpha, const std::vector<A>& x, A beta,
                    std::vector<A>& y) {
  for (std::int64_t sl = 0; sl < s.num_slices; ++sl) {
    const std::int64_t w = (s.slice_ptr[sl + 1] - s.slice_ptr[sl]) / s.C;
    for (std::int64_t r = 0; r < s.C; ++r) {
      const O i = s.perm[sl * s.C + r];
      if (i < 0) continue;
      A acc = 0;
      for (std::int64_t j = 0; j < w; ++j) {
        const O c = s.cols[s.slice_ptr[sl] + j * s.C + r];
        if (c >= 0) acc += static_cast<A>(s.vals[s.slice_ptr[sl] + j * s.C + r]) * x[c];
      }
      y[i] = beta == A(0) ? alpha * acc : alpha * acc + beta * y[i];
    }
  }
}

// ------------------------------------------------------------------------------------------
// DCSR: the CSR arrays plus the list of non-empty rows (visited by the kernel) and of empty
// rows (which only get y = beta*y).
template <class O>
struct DcsrRows {
  std::vector<O> nonempty, empty;
};

template <class V, class O, class F>
DcsrRows<O> build_dcsr_rows(const HostCsr<V, O, F>& h) {
  DcsrRows<O> d;
  for (std::int64_t i = 0; i < h.num_rows; ++i)
    (h.row_map[i + 1] > h.row_map[i] ? d.nonempty : d.empty).push_back(static_cast<O>(i));
  return d;
}

template <class V, class O, class F, class A>
void spmv_reference(const HostCsr<V, O, F>& h, const DcsrRows<O>& d, A alpha,
                    const std::vector<A>& x, A beta, std::vector<A>& y) {
  for (O i : d.nonempty) {
    A s = 0;
    for (F p = h.row_map[i]; p < h.row_map[i + 1]; ++p)
      s += static_cast<A>(h.values[p]) * x[h.entries[p]];
    y[i] = beta == A(0) ? alpha * s : alpha * s + beta * y[i];
  }
  for (O i : d.empty) y[i] = beta == A(0) ? A(0) : beta * y[i];
}

// ------------------------------------------------------------------------------------------
// Device builders (run on the matrix's execution space; twins: build_coo / build_dcsr_rows).
// COO on the device needs only the row index of every nonzero (columns and values are the CSR
// arrays themselves); DCSR needs the two row lists. ELL/HYB/SELL are still built on the host
// (see spmv_candidates.cpp) -- their padding layout is a histogram + scatter that is not worth
// a device version until the GPU numbers say the prep time matters.

/// rows(k) = i for every nonzero k of row i (thread per row).
template <class Exec, class RowMap, class Rows>
void device_expand_rows(const RowMap& row_map, const Rows& rows) {
  using O = typename Rows::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  const std::int64_t n = row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  Kokkos::parallel_for(
      "kkperm::formats::expand_rows", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        for (F k = row_map(i); k < row_map(i + 1); ++k) rows(k) = static_cast<O>(i);
      });
}

/// Non-empty rows (ascending) and empty rows (ascending) of a CSR row_map, built on Exec.
template <class Exec, class RowMap, class List>
void device_dcsr_rows(const RowMap& row_map, List& nonempty, List& empty) {
  using O = typename List::non_const_value_type;
  const std::int64_t n = row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  std::int64_t ne = 0;
  Kokkos::parallel_reduce(
      "kkperm::formats::dcsr_count", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& c) { c += row_map(i + 1) > row_map(i); },
      ne);
  nonempty = List(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::dcsr::rows"), ne);
  empty = List(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::dcsr::empty"), n - ne);
  const List a = nonempty, b = empty;
  Kokkos::parallel_scan(
      "kkperm::formats::dcsr_lists", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& upd, const bool final) {
        const bool full = row_map(i + 1) > row_map(i);
        if (final) {
          if (full) a(upd) = static_cast<O>(i);
          else b(i - upd) = static_cast<O>(i);
        }
        if (full) ++upd;
      });
}

// ------------------------------------------------------------------------------------------
/// Copies a std::vector into a new device view of `Device` (label given).
template <class Device, class T>
Kokkos::View<T*, Device> vector_to_device(const std::vector<T>& v, const std::string& label) {
  Kokkos::View<T*, Device> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), v.size());
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hv(
      v.data(), v.size());
  Kokkos::deep_copy(d, hv);
  return d;
}

}  // namespace kkperm::formats
