#pragma once
/**
 * @brief Sparse formats for SpMV candidates: ELL, COO, HYB (= ELL(k) + COO), SELL-C-sigma,
 * SELL16 (SELL-C-sigma with 16-bit column offsets) and DCSR. Host builders from a HostCsr
 * (the serial twins, each with its serial SpMV twin `spmv_reference(format, alpha, x, beta, y)`)
 * and device builders running on the matrix's execution space from its CSR views (device_*),
 * which produce the same arrays bit for bit.
 *
 * Usage: `auto e = kkperm::formats::build_hyb(h, k);` (host) or
 * `auto d = kkperm::formats::device_build_hyb<Exec, Device>(A.graph.row_map, A.graph.entries,
 *  A.values, A.numCols(), k);` (device).
 * Preconditions: h passes the HostCsr invariants (sorted unique columns). Padding slots hold
 * column -1 and value 0 (SELL16: offset 0, value 0, never read) and are skipped, never
 * multiplied (x may hold Inf/NaN).
 */
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "kkperm/core/atomics.hpp"
#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"
#include "kkperm/core/launch_policy.hpp"

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

/// Bell & Garland's k (see HybConfig) from the row-length histogram hist[len] = number of rows
/// of that length (hist.size() = max length + 1): the largest k such that the number of rows
/// with at least k entries is >= max(num_rows / relative_speed, breakeven_rows); 0 if none.
/// Shared by the host and the device builders (the histogram is the only part that differs).
inline std::int64_t hyb_k_from_histogram(const std::vector<std::int64_t>& hist,
                                         std::int64_t num_rows, double relative_speed,
                                         std::int64_t breakeven_rows) {
  const std::int64_t maxlen = static_cast<std::int64_t>(hist.size()) - 1;
  // rows_ge = number of rows with length >= k, for k = 1, 2, ...
  std::int64_t rows_ge = num_rows - (maxlen >= 0 ? hist[0] : 0);
  std::int64_t k = 0;
  for (std::int64_t kk = 1; kk <= maxlen; ++kk) {
    if (static_cast<double>(rows_ge) * relative_speed < static_cast<double>(num_rows) ||
        rows_ge < breakeven_rows)
      break;
    k = kk;
    rows_ge -= hist[kk];
  }
  return k;
}

/// Bell & Garland's k (see HybConfig and hyb_k_from_histogram).
template <class V, class O, class F>
std::int64_t hyb_k_histogram(const HostCsr<V, O, F>& h, double relative_speed,
                             std::int64_t breakeven_rows) {
  const std::int64_t maxlen = max_row_length(h);
  std::vector<std::int64_t> hist(static_cast<std::size_t>(maxlen) + 1, 0);
  for (std::int64_t i = 0; i < h.num_rows; ++i) ++hist[h.row_map[i + 1] - h.row_map[i]];
  return hyb_k_from_histogram(hist, h.num_rows, relative_speed, breakeven_rows);
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
  // A slice's width is its longest row (its first one only when sigma is a multiple of C).
  for (std::int64_t s0 = 0; s0 < h.num_rows; s0 += C)
    slots += *std::max_element(len.begin() + s0, len.begin() + std::min<std::int64_t>(h.num_rows, s0 + C)) * C;
  return slots;
}

/// SELL-C-sigma's lane order: rows sorted by decreasing length inside each window of sigma
/// rows (stable), padded with -1 to whole slices of C lanes.
template <class V, class O, class F>
std::vector<O> sell_perm(const HostCsr<V, O, F>& h, std::int64_t C, std::int64_t sigma) {
  std::vector<O> perm(static_cast<std::size_t>((h.num_rows + C - 1) / C * C), O(-1));
  std::iota(perm.begin(), perm.begin() + h.num_rows, O(0));
  auto len = [&](O i) { return h.row_map[i + 1] - h.row_map[i]; };
  for (std::int64_t w0 = 0; w0 < h.num_rows; w0 += sigma) {
    const std::int64_t w1 = std::min<std::int64_t>(h.num_rows, w0 + sigma);
    std::stable_sort(perm.begin() + w0, perm.begin() + w1,
                     [&](O a, O b) { return len(a) > len(b); });
  }
  return perm;
}

template <class V, class O, class F>
SellHost<V, O, F> build_sell(const HostCsr<V, O, F>& h, std::int64_t C, std::int64_t sigma) {
  SellHost<V, O, F> s;
  s.num_rows = h.num_rows;
  s.num_cols = h.num_cols;
  s.C = C;
  s.sigma = sigma;
  s.num_slices = (h.num_rows + C - 1) / C;
  s.perm = sell_perm(h, C, sigma);
  auto len = [&](O i) { return h.row_map[i + 1] - h.row_map[i]; };
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
// SELL16: SELL-C-sigma (rows sorted by length inside windows of sigma rows, slices of C rows
// stored column-major, perm as in SellHost) whose slots hold 16-bit column offsets. Each lane
// (row) starts from its slice's base column b (the slice's smallest column); an entry of
// column c with c - b <= sell16_max_offset is one slot with offset c - b + 1 (1..65535); a
// larger jump first takes an escape slot (offset 0, the value's bytes = the column c as an
// ordinal, which becomes the lane's base) and then the entry's slot (offset 1). Each lane
// stores its slot count (16 bits), so a lane reads exactly its own slots: padding is
// allocated, never read. An entry costs sizeof(V) + 2 bytes instead of sizeof(V) + sizeof(O)
// plus the escapes: few where rows hold runs of nearby columns (stencils, banded, blocks, FE
// and Kronecker meshes), one per entry for random columns (the candidate refuses those).
inline constexpr std::int64_t sell16_max_offset = 65534;  ///< largest c - b of a plain slot
inline constexpr std::int64_t sell16_max_lane = 65535;    ///< most slots of one lane

/// Escape slots carry a column in the first sizeof(O) bytes of the value (rest zero).
template <class V, class O>
KOKKOS_INLINE_FUNCTION V sell16_escape_value(O column) {
  static_assert(sizeof(O) <= sizeof(V), "SELL16: the ordinal must fit the value's bytes");
  V v = V(0);
  ::memcpy(static_cast<void*>(&v), &column, sizeof(O));
  return v;
}
template <class V, class O>
KOKKOS_INLINE_FUNCTION O sell16_escape_column(V value) {
  O c;
  ::memcpy(&c, static_cast<const void*>(&value), sizeof(O));
  return c;
}

/**
 * @brief The one place of SELL16's escape rule, for the host and the device builders: walks a
 * lane over its row's columns cols[p], p in [beg, end), from base column b, calling
 * slot(k, offset, p, c) for every slot k in order (offset 0: an escape to column c, placed before
 * entry p; else entry p, offset c - base + 1). Returns the lane's slot count; adds its escapes
 * to `escapes`. Column and slot access go through raw pointers (Sell16NoSlot, Sell16Store), so
 * the same code runs in the host twin and in device kernels.
 */
template <class O, class Slot>
KOKKOS_INLINE_FUNCTION std::int64_t sell16_walk_lane(const O* cols, std::int64_t beg,
                                                     std::int64_t end, std::int64_t b,
                                                     const Slot& slot, std::int64_t& escapes) {
  std::int64_t k = 0;
  for (std::int64_t p = beg; p < end; ++p) {
    const std::int64_t c = static_cast<std::int64_t>(cols[p]);
    if (c - b > sell16_max_offset) {
      slot(k++, 0, p, c);
      b = c;
      ++escapes;
    }
    slot(k++, static_cast<int>(c - b + 1), p, c);
  }
  return k;
}

/// Slot callback of sell16_walk_lane that only counts.
struct Sell16NoSlot {
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t, int, std::int64_t, std::int64_t) const {}
};

/// Slot callback of sell16_walk_lane that stores the lane starting at offs/vals[first], slots C
/// apart; escapes hold the column in the value's bytes, entries the value values[p].
template <class V, class O, class VIn>
struct Sell16Store {
  std::uint16_t* offs;
  V* vals;
  const VIn* values;
  std::int64_t first, C;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k, int off, std::int64_t p,
                                         std::int64_t c) const {
    offs[first + k * C] = static_cast<std::uint16_t>(off);
    vals[first + k * C] = off == 0 ? sell16_escape_value<V, O>(static_cast<O>(c))
                                   : static_cast<V>(values[p]);
  }
};

template <class V, class O, class F>
struct Sell16Host {
  std::int64_t num_rows = 0, num_cols = 0, C = 0, sigma = 0, num_slices = 0;
  std::int64_t escapes = 0;             ///< escape slots in all lanes
  std::int64_t max_lane = 0;            ///< most slots of one lane
  std::vector<F> slice_ptr;             ///< slice s: slots [slice_ptr[s], slice_ptr[s+1])
  std::vector<O> perm;                  ///< as SellHost (-1 = padding lane)
  std::vector<O> slice_base;            ///< smallest column of the slice (0 if it has none)
  std::vector<std::uint16_t> lane_len;  ///< slots of each lane (0 for padding lanes)
  std::vector<std::uint16_t> offs;      ///< 0 = escape, else column - lane base + 1; 0 in padding
  std::vector<V> vals;                  ///< 0 in padding slots
};

/**
 * @brief Builds SELL16. With `layout_only` it stops after the counts (escapes, max_lane,
 * slice_ptr) without filling offs/vals; a full build requires max_lane <= sell16_max_lane.
 */
template <class V, class O, class F>
Sell16Host<V, O, F> build_sell16(const HostCsr<V, O, F>& h, std::int64_t C, std::int64_t sigma,
                                 bool layout_only = false) {
  Sell16Host<V, O, F> t;
  t.num_rows = h.num_rows;
  t.num_cols = h.num_cols;
  t.C = C;
  t.sigma = sigma;
  t.num_slices = (h.num_rows + C - 1) / C;
  t.perm = sell_perm(h, C, sigma);
  t.slice_base.assign(static_cast<std::size_t>(t.num_slices), O(0));
  t.lane_len.assign(t.perm.size(), 0);
  t.slice_ptr.assign(static_cast<std::size_t>(t.num_slices) + 1, F(0));
  for (std::int64_t sl = 0; sl < t.num_slices; ++sl) {
    std::int64_t lo = -1;
    for (std::int64_t r = 0; r < C; ++r) {
      const O i = t.perm[sl * C + r];
      if (i >= 0 && h.row_map[i + 1] > h.row_map[i]) {
        const std::int64_t c = h.entries[h.row_map[i]];
        lo = lo < 0 ? c : std::min(lo, c);
      }
    }
    t.slice_base[sl] = static_cast<O>(lo < 0 ? 0 : lo);
    std::int64_t w = 0;
    for (std::int64_t r = 0; r < C; ++r) {
      const O i = t.perm[sl * C + r];
      if (i < 0) continue;
      const std::int64_t n = sell16_walk_lane(h.entries.data(), h.row_map[i], h.row_map[i + 1],
                                              t.slice_base[sl], Sell16NoSlot{}, t.escapes);
      t.lane_len[sl * C + r] = static_cast<std::uint16_t>(std::min(n, sell16_max_lane));
      w = std::max(w, n);
    }
    t.max_lane = std::max(t.max_lane, w);
    t.slice_ptr[sl + 1] = t.slice_ptr[sl] + static_cast<F>(w * C);
  }
  if (layout_only) return t;
  KKPERM_REQUIRE(t.max_lane <= sell16_max_lane, "kkperm::formats::build_sell16: a row takes "
                                                    << t.max_lane << " slots (at most "
                                                    << sell16_max_lane << ")");
  t.offs.assign(static_cast<std::size_t>(t.slice_ptr.back()), 0);
  t.vals.assign(static_cast<std::size_t>(t.slice_ptr.back()), V(0));
  std::int64_t escapes = 0;  // counted above already
  for (std::int64_t sl = 0; sl < t.num_slices; ++sl)
    for (std::int64_t r = 0; r < C; ++r) {
      const O i = t.perm[sl * C + r];
      if (i < 0) continue;
      const Sell16Store<V, O, V> store{t.offs.data(), t.vals.data(), h.values.data(),
                                       static_cast<std::int64_t>(t.slice_ptr[sl]) + r, C};
      sell16_walk_lane(h.entries.data(), h.row_map[i], h.row_map[i + 1], t.slice_base[sl], store,
                       escapes);
    }
  return t;
}

template <class V, class O, class F, class A>
void spmv_reference(const Sell16Host<V, O, F>& s, A alpha, const std::vector<A>& x, A beta,
                    std::vector<A>& y) {
  for (std::int64_t sl = 0; sl < s.num_slices; ++sl)
    for (std::int64_t r = 0; r < s.C; ++r) {
      const O i = s.perm[sl * s.C + r];
      if (i < 0) continue;
      A acc = 0;
      std::int64_t b = s.slice_base[sl];
      for (std::int64_t j = 0; j < s.lane_len[sl * s.C + r]; ++j) {
        const std::int64_t q = s.slice_ptr[sl] + j * s.C + r;
        if (s.offs[q] == 0) b = sell16_escape_column<V, O>(s.vals[q]);
        else acc += static_cast<A>(s.vals[q]) * x[b + s.offs[q] - 1];
      }
      y[i] = beta == A(0) ? alpha * acc : alpha * acc + beta * y[i];
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
// Device builders, run on the matrix's execution space from its CSR arrays, never through the
// host. Each produces exactly (bit for bit) what its host twin above produces:
//   device_expand_rows       ~ build_coo (rows; columns and values are the CSR arrays)
//   device_dcsr_rows         ~ build_dcsr_rows
//   device_max_row_length    ~ max_row_length
//   device_hyb_k_histogram   ~ hyb_k_histogram (device histogram, same k rule)
//   device_build_hyb         ~ build_hyb (ELL = device_build_hyb with k = max length)
//   device_sell_perm         ~ sell_perm
//   device_sell_layout + device_sell_fill ~ build_sell (sell_slots = slice_ptr's last entry)
//   device_sell16_layout + device_sell16_fill ~ build_sell16 (escapes, max_lane as well)
// tests/kernels/test_spmv_formats_device.cpp compares every array.

/// rows(k) = i for every nonzero k of row i (thread per row).
template <class Exec, class RowMap, class Rows>
void device_expand_rows(const RowMap& row_map, const Rows& rows) {
  using O = typename Rows::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  const std::int64_t n = row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  kkperm::parallel_for(
      "kkperm::formats::expand_rows", kkperm::range_policy<Exec>(0, n),
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
      "kkperm::formats::dcsr_count", kkperm::range_policy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& c) { c += row_map(i + 1) > row_map(i); },
      ne);
  nonempty = List(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::dcsr::rows"), ne);
  empty = List(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::dcsr::empty"), n - ne);
  const List a = nonempty, b = empty;
  Kokkos::parallel_scan(
      "kkperm::formats::dcsr_lists", kkperm::range_policy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& upd, const bool final) {
        const bool full = row_map(i + 1) > row_map(i);
        if (final) {
          if (full) a(upd) = static_cast<O>(i);
          else b(i - upd) = static_cast<O>(i);
        }
        if (full) ++upd;
      });
}

/// Largest row length of a CSR row_map (0 for no rows), computed on Exec.
template <class Exec, class RowMap>
std::int64_t device_max_row_length(const RowMap& row_map) {
  const std::int64_t n =
      row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  std::int64_t m = 0;
  Kokkos::parallel_reduce(
      "kkperm::formats::max_row_length",
      kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& acc) {
        const std::int64_t len = static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
        if (len > acc) acc = len;
      },
      Kokkos::Max<std::int64_t>(m));
  return n == 0 ? 0 : m;  // Max's identity is the lowest int64 when there is no row
}

/**
 * @brief HYB's k by Bell & Garland's rule (hyb_k_from_histogram) from a row-length histogram
 * built on Exec; only the histogram comes back to the host.
 *
 * Only the bins below B = floor(relative_speed * nnz / n) + 2 matter: the rows_ge(kk) rows of
 * length >= kk hold kk * rows_ge(kk) <= nnz entries, so rows_ge(kk) * relative_speed >= n
 * forces kk <= relative_speed * nnz / n, and the rule stops before kk = B. Longer rows are
 * counted in bin B (their exact length is never read), which keeps the histogram small even
 * with one dense row; beyond max_scratch_bins bins it is counted with global atomics. Teams count a chunk of rows in a scratch histogram first: on a stencil
 * every row has the same length and global atomics would all hit one address.
 */
template <class Exec, class RowMap>
std::int64_t device_hyb_k_histogram(const RowMap& row_map, double relative_speed,
                                    std::int64_t breakeven_rows) {
  using mem = typename Exec::memory_space;
  using team_policy = kkperm::team_policy<Exec>;
  using member = typename team_policy::member_type;
  using scratch = Kokkos::View<int*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr std::int64_t rows_per_team = 4096;  // scratch counts fit int
  constexpr std::int64_t max_scratch_bins = 8192;  // 32 KiB of team scratch
  const std::int64_t n =
      row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  if (n == 0) return 0;
  const std::int64_t maxlen = device_max_row_length<Exec>(row_map);
  typename RowMap::non_const_value_type first = 0, last = 0;
  Kokkos::deep_copy(first, Kokkos::subview(row_map, 0));
  Kokkos::deep_copy(last, Kokkos::subview(row_map, n));
  const double nnz = static_cast<double>(last) - static_cast<double>(first);
  // +2, not +1: one more bin absorbs any rounding of `cut` (the rule then stops before it).
  const double cut = relative_speed * nnz / static_cast<double>(n);
  const std::int64_t B = cut + 2.0 < static_cast<double>(maxlen)
                             ? static_cast<std::int64_t>(cut) + 2
                             : maxlen;
  Kokkos::View<std::int64_t*, mem> hist("kkperm::formats::hyb_hist",
                                        static_cast<std::size_t>(B) + 1);
  if (B + 1 <= max_scratch_bins) {
    const std::int64_t league = (n + rows_per_team - 1) / rows_per_team;
    const std::size_t shmem = scratch::shmem_size(static_cast<std::size_t>(B) + 1);
    kkperm::parallel_for(
        "kkperm::formats::hyb_hist",
        team_policy(static_cast<int>(league), Kokkos::AUTO)
            .set_scratch_size(0, Kokkos::PerTeam(shmem)),
        KOKKOS_LAMBDA(const member& team) {
          scratch sh(team.team_scratch(0), B + 1);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, B + 1),
                               [&](const std::int64_t b) { sh(b) = 0; });
          team.team_barrier();
          const std::int64_t r0 = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
          const std::int64_t m = n - r0 < rows_per_team ? n - r0 : rows_per_team;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const std::int64_t r) {
            const std::int64_t len =
                static_cast<std::int64_t>(row_map(r0 + r + 1) - row_map(r0 + r));
            Kokkos::atomic_add(&sh(len < B ? len : B), 1);
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, B + 1), [&](const std::int64_t b) {
            if (sh(b) != 0) kkperm::atomic_add_i64(&hist(b), static_cast<std::int64_t>(sh(b)));
          });
        });
  } else {
    kkperm::parallel_for(
        "kkperm::formats::hyb_hist_global",
        kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
        KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int64_t len = static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
          kkperm::atomic_add_i64(&hist(len < B ? len : B), std::int64_t(1));
        });
  }
  std::vector<std::int64_t> h(static_cast<std::size_t>(B) + 1);
  Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hh(
      h.data(), h.size());
  Kokkos::deep_copy(hh, hist);
  return hyb_k_from_histogram(h, n, relative_speed, breakeven_rows);
}

/// HYB (and ELL when k = max row length) on the device; same layout as HybHost: ELL slots
/// column-major (slot j of row i at j*num_rows + i; column -1 / value 0 padding), the entries
/// past the first k of each row as COO in row-major order.
template <class V, class O, class Device>
struct HybDevice {
  std::int64_t num_rows = 0, num_cols = 0, k = 0;
  Kokkos::View<O*, Device> ell_cols, coo_rows, coo_cols;
  Kokkos::View<V*, Device> ell_vals, coo_vals;
};

template <class Exec, class Device, class RowMap, class Entries, class Values>
HybDevice<typename Values::non_const_value_type, typename Entries::non_const_value_type, Device>
device_build_hyb(const RowMap& row_map, const Entries& entries, const Values& values,
                 std::int64_t num_cols, std::int64_t k) {
  using V = typename Values::non_const_value_type;
  using O = typename Entries::non_const_value_type;
  using policy = kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>;
  HybDevice<V, O, Device> d;
  const std::int64_t n =
      row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  d.num_rows = n;
  d.num_cols = num_cols;
  d.k = k;
  d.ell_cols = Kokkos::View<O*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::ell::cols"), n * k);
  d.ell_vals = Kokkos::View<V*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::ell::vals"), n * k);
  // ELL: thread per row writes all k of its slots (entries, then padding): one pass, and
  // consecutive rows write consecutive addresses.
  const auto ec = d.ell_cols;
  const auto ev = d.ell_vals;
  kkperm::parallel_for(
      "kkperm::formats::ell_fill", policy(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t beg = static_cast<std::int64_t>(row_map(i));
        const std::int64_t len = static_cast<std::int64_t>(row_map(i + 1)) - beg;
        for (std::int64_t j = 0; j < k; ++j) {
          const bool real = j < len;
          ec(j * n + i) = real ? static_cast<O>(entries(beg + j)) : O(-1);
          ev(j * n + i) = real ? static_cast<V>(values(beg + j)) : V(0);
        }
      });
  // COO tail: exclusive scan of max(0, len - k), then each row copies its tail.
  std::int64_t tail = 0;
  Kokkos::parallel_reduce(
      "kkperm::formats::hyb_tail_count", policy(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& c) {
        const std::int64_t len = static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
        c += len > k ? len - k : 0;
      },
      tail);
  d.coo_rows = Kokkos::View<O*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::coo::rows"), tail);
  d.coo_cols = Kokkos::View<O*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::coo::cols"), tail);
  d.coo_vals = Kokkos::View<V*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::coo::vals"), tail);
  if (tail > 0) {
    const auto cr = d.coo_rows;
    const auto cc = d.coo_cols;
    const auto cv = d.coo_vals;
    Kokkos::parallel_scan(
        "kkperm::formats::hyb_tail_fill", policy(0, n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& upd, const bool final) {
          const std::int64_t beg = static_cast<std::int64_t>(row_map(i));
          const std::int64_t len = static_cast<std::int64_t>(row_map(i + 1)) - beg;
          const std::int64_t t = len > k ? len - k : 0;
          if (final)
            for (std::int64_t q = 0; q < t; ++q) {
              cr(upd + q) = static_cast<O>(i);
              cc(upd + q) = static_cast<O>(entries(beg + k + q));
              cv(upd + q) = static_cast<V>(values(beg + k + q));
            }
          upd += t;
        });
  }
  return d;
}

/// SELL-C-sigma on the device; same layout as SellHost.
template <class V, class O, class F, class Device>
struct SellDevice {
  std::int64_t num_rows = 0, num_cols = 0, C = 0, sigma = 0, num_slices = 0;
  Kokkos::View<F*, Device> slice_ptr;
  Kokkos::View<O*, Device> perm, cols;
  Kokkos::View<V*, Device> vals;
  /// Padded slots (= sell_slots of the host twin); valid after device_sell_layout.
  std::int64_t slots = 0;
};

/**
 * @brief SELL-C-sigma's lane order on the device (= sell_perm): rows sorted by decreasing length
 * inside each window of sigma rows, stable, padded with -1 to whole slices of C lanes. A team per
 * window sorts the keys (longest first, ties by row index: unique keys, so the result is the
 * stable order) with a bitonic network in scratch, O(sigma log^2 sigma) per window.
 */
template <class Exec, class Device, class O, class RowMap>
Kokkos::View<O*, Device> device_sell_perm(const RowMap& row_map, std::int64_t C,
                                          std::int64_t sigma) {
  using team_policy = kkperm::team_policy<Exec>;
  using member = typename team_policy::member_type;
  using scratch = Kokkos::View<std::int64_t*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using policy = kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>;
  KKPERM_ASSERT(C > 0 && sigma > 0, "SELL: C and sigma must be positive");
  const std::int64_t n =
      row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  const std::int64_t ns = (n + C - 1) / C;
  Kokkos::View<O*, Device> perm(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell::perm"), ns * C);
  const std::int64_t windows = (n + sigma - 1) / sigma;
  // Bitonic sort of P = pow2 >= sigma unique keys (longest first, then row index) per window:
  // key = (max_len_key - len) * P + r, padding keys above every real one.
  std::int64_t P = 1;
  while (P < sigma) P *= 2;
  KKPERM_ASSERT(P <= (std::int64_t(1) << 24), "SELL: sigma " << sigma << " too large");
  if (sigma == 1) {  // windows of one row: the stable order is the identity, nothing to sort
    kkperm::parallel_for(
        "kkperm::formats::sell_perm_identity", policy(0, n),
        KOKKOS_LAMBDA(const std::int64_t q) { perm(q) = static_cast<O>(q); });
  } else if (windows > 0) {
    const std::size_t shmem = scratch::shmem_size(static_cast<std::size_t>(P));
    constexpr std::int64_t len_cap = std::int64_t(1) << 38;  // > any row length (offsets < 2^38)
    kkperm::parallel_for(
        "kkperm::formats::sell_sort",
        team_policy(static_cast<int>(windows), Kokkos::AUTO)
            .set_scratch_size(0, Kokkos::PerTeam(shmem)),
        KOKKOS_LAMBDA(const member& team) {
          const std::int64_t w0 = static_cast<std::int64_t>(team.league_rank()) * sigma;
          const std::int64_t m = n - w0 < sigma ? n - w0 : sigma;
          scratch key(team.team_scratch(0), P);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P), [&](const std::int64_t r) {
            const std::int64_t len =
                r < m ? static_cast<std::int64_t>(row_map(w0 + r + 1) - row_map(w0 + r)) : -1;
            key(r) = (len_cap - len) * P + r;
          });
          team.team_barrier();
          for (std::int64_t k = 2; k <= P; k *= 2) {
            for (std::int64_t j = k / 2; j > 0; j /= 2) {
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P), [&](const std::int64_t i) {
                const std::int64_t l = i ^ j;
                if (l > i) {
                  const std::int64_t ki = key(i), kl = key(l);
                  const bool up = (i & k) == 0;
                  if (up ? ki > kl : ki < kl) {
                    key(i) = kl;
                    key(l) = ki;
                  }
                }
              });
              team.team_barrier();
            }
          }
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const std::int64_t q) {
            perm(w0 + q) = static_cast<O>(w0 + key(q) % P);
          });
        });
  }
  // Padding lanes of the last slice; then slice widths (longest row of the slice) * C, scanned.
  kkperm::parallel_for(
      "kkperm::formats::sell_perm_pad", policy(n, ns * C),
      KOKKOS_LAMBDA(const std::int64_t q) { perm(q) = O(-1); });
  return perm;
}

/**
 * @brief First half of the SELL-C-sigma build: perm (device_sell_perm) and slice_ptr. Fill with
 * device_sell_fill after checking `slots` (nothing of the size of the padded arrays is
 * allocated here).
 */
template <class Exec, class Device, class V, class O, class RowMap>
SellDevice<V, O, typename RowMap::non_const_value_type, Device> device_sell_layout(
    const RowMap& row_map, std::int64_t num_cols, std::int64_t C, std::int64_t sigma) {
  using F = typename RowMap::non_const_value_type;
  using policy = kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>;
  SellDevice<V, O, F, Device> s;
  const std::int64_t n =
      row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  s.num_rows = n;
  s.num_cols = num_cols;
  s.C = C;
  s.sigma = sigma;
  s.num_slices = (n + C - 1) / C;
  const std::int64_t ns = s.num_slices;
  s.perm = device_sell_perm<Exec, Device, O>(row_map, C, sigma);
  s.slice_ptr = Kokkos::View<F*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell::ptr"), ns + 1);
  const auto perm = s.perm;
  const auto ptr = s.slice_ptr;
  std::int64_t slots = 0;
  Kokkos::parallel_scan(
      "kkperm::formats::sell_ptr", policy(0, ns + 1),
      KOKKOS_LAMBDA(const std::int64_t sl, std::int64_t& upd, const bool final) {
        if (final) ptr(sl) = static_cast<F>(upd);
        if (sl == ns) return;
        std::int64_t w = 0;
        for (std::int64_t r = 0; r < C; ++r) {
          const O i = perm(sl * C + r);
          if (i >= 0) {
            const std::int64_t len = static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
            if (len > w) w = len;
          }
        }
        upd += w * C;
      },
      slots);
  s.slots = slots;
  return s;
}

/// Second half: allocates and fills cols/vals (thread per slice lane; column -1 / value 0
/// padding) of a layout made by device_sell_layout from the same row_map.
template <class Exec, class SellDev, class RowMap, class Entries, class Values>
void device_sell_fill(SellDev& s, const RowMap& row_map, const Entries& entries,
                      const Values& values) {
  using O = typename decltype(s.cols)::non_const_value_type;
  using V = typename decltype(s.vals)::non_const_value_type;
  using Device = typename decltype(s.cols)::device_type;
  using policy = kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>;
  s.cols = Kokkos::View<O*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell::cols"), s.slots);
  s.vals = Kokkos::View<V*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell::vals"), s.slots);
  const auto perm = s.perm;
  const auto ptr = s.slice_ptr;
  const auto cols = s.cols;
  const auto vals = s.vals;
  const std::int64_t C = s.C;
  kkperm::parallel_for(
      "kkperm::formats::sell_fill", policy(0, s.num_slices * C),
      KOKKOS_LAMBDA(const std::int64_t q) {
        const std::int64_t sl = q / C, r = q % C;
        const std::int64_t base = static_cast<std::int64_t>(ptr(sl));
        const std::int64_t w = (static_cast<std::int64_t>(ptr(sl + 1)) - base) / C;
        const O i = perm(q);
        const std::int64_t beg = i >= 0 ? static_cast<std::int64_t>(row_map(i)) : 0;
        const std::int64_t len = i >= 0 ? static_cast<std::int64_t>(row_map(i + 1)) - beg : 0;
        for (std::int64_t j = 0; j < w; ++j) {
          const bool real = j < len;
          cols(base + j * C + r) = real ? static_cast<O>(entries(beg + j)) : O(-1);
          vals(base + j * C + r) = real ? static_cast<V>(values(beg + j)) : V(0);
        }
      });
}

/// SELL16 on the device; the same arrays as Sell16Host.
template <class V, class O, class F, class Device>
struct Sell16Device {
  std::int64_t num_rows = 0, num_cols = 0, C = 0, sigma = 0, num_slices = 0;
  std::int64_t escapes = 0, max_lane = 0;  ///< as Sell16Host
  std::int64_t slots = 0;                  ///< padded slots (= slice_ptr's last entry)
  Kokkos::View<F*, Device> slice_ptr;
  Kokkos::View<O*, Device> perm, slice_base;
  Kokkos::View<std::uint16_t*, Device> lane_len, offs;
  Kokkos::View<V*, Device> vals;
};

/**
 * @brief First half of the SELL16 build: the window sort (device_sell_perm), each slice's
 * base column, each lane's slot count (its row's entries plus escapes), slice_ptr, escapes and
 * max_lane. Check max_lane <= sell16_max_lane (lane lengths are clamped to 16 bits otherwise),
 * `slots` and `escapes` before device_sell16_fill.
 */
template <class Exec, class Device, class V, class RowMap, class Entries>
Sell16Device<V, typename Entries::non_const_value_type, typename RowMap::non_const_value_type,
             Device>
device_sell16_layout(const RowMap& row_map, const Entries& entries, std::int64_t num_cols,
                     std::int64_t C, std::int64_t sigma) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  using policy = kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>;
  Sell16Device<V, O, F, Device> s;
  s.num_rows = row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  s.num_cols = num_cols;
  s.C = C;
  s.sigma = sigma;
  s.num_slices = (s.num_rows + C - 1) / C;
  s.perm = device_sell_perm<Exec, Device, O>(row_map, C, sigma);
  const std::int64_t ns = s.num_slices;
  s.slice_ptr = Kokkos::View<F*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell16::ptr"), ns + 1);
  s.slice_base = Kokkos::View<O*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell16::base"), ns);
  s.lane_len = Kokkos::View<std::uint16_t*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell16::lane_len"), ns * C);
  Kokkos::View<std::int64_t*, Device> lane_slots(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell16::lane_slots"),
      ns * C);
  const auto perm = s.perm;
  const auto base = s.slice_base;
  const auto lane_len = s.lane_len;
  const auto ptr = s.slice_ptr;
  kkperm::parallel_for(
      "kkperm::formats::sell16_bases", policy(0, ns), KOKKOS_LAMBDA(const std::int64_t sl) {
        std::int64_t lo = -1;
        for (std::int64_t r = 0; r < C; ++r) {
          const O i = perm(sl * C + r);
          if (i < 0 || row_map(i + 1) == row_map(i)) continue;
          const std::int64_t c = entries(row_map(i));
          lo = (lo < 0 || c < lo) ? c : lo;
        }
        base(sl) = static_cast<O>(lo < 0 ? 0 : lo);
      });
  std::int64_t escapes = 0;
  Kokkos::parallel_reduce(
      "kkperm::formats::sell16_lanes", policy(0, ns * C),
      KOKKOS_LAMBDA(const std::int64_t q, std::int64_t& upd) {
        const O i = perm(q);
        const std::int64_t n = i < 0 ? 0
                                     : sell16_walk_lane(entries.data(), row_map(i),
                                                        row_map(i + 1), base(q / C),
                                                        Sell16NoSlot{}, upd);
        lane_slots(q) = n;
        lane_len(q) = static_cast<std::uint16_t>(n < sell16_max_lane ? n : sell16_max_lane);
      },
      escapes);
  s.escapes = escapes;
  std::int64_t slots = 0;
  Kokkos::parallel_scan(
      "kkperm::formats::sell16_ptr", policy(0, ns + 1),
      KOKKOS_LAMBDA(const std::int64_t sl, std::int64_t& upd, const bool final) {
        if (final) ptr(sl) = static_cast<F>(upd);
        if (sl == ns) return;
        std::int64_t w = 0;
        for (std::int64_t r = 0; r < C; ++r) {
          const std::int64_t n = lane_slots(sl * C + r);
          w = n > w ? n : w;
        }
        upd += w * C;
      },
      slots);
  s.slots = slots;
  std::int64_t widest = 0;
  Kokkos::parallel_reduce(
      "kkperm::formats::sell16_max_lane", policy(0, ns * C),
      KOKKOS_LAMBDA(const std::int64_t q, std::int64_t& upd) {
        if (lane_slots(q) > upd) upd = lane_slots(q);
      },
      Kokkos::Max<std::int64_t>(widest));
  s.max_lane = widest > 0 ? widest : 0;  // the Max identity when there are no lanes
  return s;
}

/// Second half: allocates and fills offs/vals (thread per slice lane; 0 / 0 padding) of a
/// layout made by device_sell16_layout from the same arrays.
template <class Exec, class Sell16Dev, class RowMap, class Entries, class Values>
void device_sell16_fill(Sell16Dev& s, const RowMap& row_map, const Entries& entries,
                        const Values& values) {
  using V = typename decltype(s.vals)::non_const_value_type;
  using O = typename decltype(s.perm)::non_const_value_type;
  using VIn = typename Values::non_const_value_type;
  using Device = typename decltype(s.vals)::device_type;
  using policy = kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>;
  KKPERM_ASSERT(s.max_lane <= sell16_max_lane,
                "SELL16: a lane of " << s.max_lane << " slots does not fit 16 bits");
  s.offs = Kokkos::View<std::uint16_t*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell16::offs"), s.slots);
  s.vals = Kokkos::View<V*, Device>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::sell16::vals"), s.slots);
  const auto perm = s.perm;
  const auto ptr = s.slice_ptr;
  const auto sbase = s.slice_base;
  const auto offs = s.offs;
  const auto vals = s.vals;
  const std::int64_t C = s.C;
  kkperm::parallel_for(
      "kkperm::formats::sell16_fill", policy(0, s.num_slices * C),
      KOKKOS_LAMBDA(const std::int64_t q) {
        const std::int64_t sl = q / C;
        const std::int64_t first = static_cast<std::int64_t>(ptr(sl));
        const std::int64_t w = (static_cast<std::int64_t>(ptr(sl + 1)) - first) / C;
        const std::int64_t end = first + w * C;
        const std::int64_t lane = first + q % C;
        const O i = perm(q);
        std::int64_t escapes = 0;  // counted by the layout already
        const Sell16Store<V, O, VIn> store{offs.data(), vals.data(), values.data(), lane, C};
        const std::int64_t n = i < 0 ? 0
                                     : sell16_walk_lane(entries.data(), row_map(i),
                                                        row_map(i + 1), sbase(sl), store,
                                                        escapes);
        for (std::int64_t t = lane + n * C; t < end; t += C) {
          offs(t) = 0;
          vals(t) = V(0);
        }
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
