#pragma once
/**
 * @brief Serial reference twin for every SpGEMM candidate: row-wise Gustavson with a dense
 * accumulator on HostCsr.
 *
 * Usage: `auto ref = kkperm::spgemm::reference_multiply(A, B); // ref.C, ref.abs_sum, ref.terms`
 *
 * Input policy (shared with the ESC kernel): columns of A and B may be unsorted and may repeat
 * inside a row; repeated entries are summed (C = A·B where A and B are the matrices whose
 * duplicates were merged). Columns must lie in range. Output rows are sorted and unique.
 * Structure: C has an entry (i, j) whenever some a_ik, b_kj are both stored, whatever their
 * values (explicit zeros kept), unless `drop_zeros`, which removes entries whose sum is exactly 0.
 *
 * Besides C, the reference returns for every entry of C the sum of |a_ik·b_kj| and the number of
 * terms; tests derive their tolerance from them (see spgemm_tolerance).
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"

namespace kkperm::spgemm {

template <class V, class O, class F>
struct ReferenceProduct {
  HostCsr<V, O, F> C;
  std::vector<double> abs_sum;     ///< Σ |a_ik b_kj| per entry of C
  std::vector<std::int64_t> terms; ///< number of products summed per entry of C
};

/// Row work F_i = Σ_{k ∈ row i of A} nnz(B row k) (duplicates in A counted each time).
template <class V, class O, class F>
std::vector<std::int64_t> reference_row_work(const HostCsr<V, O, F>& A, const HostCsr<V, O, F>& B) {
  std::vector<std::int64_t> w(static_cast<std::size_t>(A.num_rows), 0);
  for (O i = 0; i < A.num_rows; ++i)
    for (F p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
      const O k = A.entries[p];
      w[i] += static_cast<std::int64_t>(B.row_map[k + 1] - B.row_map[k]);
    }
  return w;
}

template <class V, class O, class F>
ReferenceProduct<V, O, F> reference_multiply(const HostCsr<V, O, F>& A, const HostCsr<V, O, F>& B,
                                             bool drop_zeros = false) {
  KKPERM_REQUIRE(A.num_cols == B.num_rows, "kkperm::spgemm::reference_multiply: A is "
                                               << A.num_rows << " x " << A.num_cols << " but B is "
                                               << B.num_rows << " x " << B.num_cols);
  for (const O c : A.entries)
    KKPERM_REQUIRE(c >= 0 && c < A.num_cols,
                   "kkperm::spgemm::reference_multiply: A has column " << c << " out of range");
  for (const O c : B.entries)
    KKPERM_REQUIRE(c >= 0 && c < B.num_cols,
                   "kkperm::spgemm::reference_multiply: B has column " << c << " out of range");
  ReferenceProduct<V, O, F> out;
  auto& C = out.C;
  C.num_rows = A.num_rows;
  C.num_cols = B.num_cols;
  C.row_map.assign(static_cast<std::size_t>(A.num_rows) + 1, 0);
  std::vector<V> acc(static_cast<std::size_t>(B.num_cols), V(0));
  std::vector<double> abs_acc(static_cast<std::size_t>(B.num_cols), 0.0);
  std::vector<std::int64_t> cnt(static_cast<std::size_t>(B.num_cols), 0);
  std::vector<char> used(static_cast<std::size_t>(B.num_cols), 0);
  std::vector<O> cols;
  for (O i = 0; i < A.num_rows; ++i) {
    cols.clear();
    for (F p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
      const O k = A.entries[p];
      const V a = A.values[p];
      for (F q = B.row_map[k]; q < B.row_map[k + 1]; ++q) {
        const O j = B.entries[q];
        if (!used[j]) {
          used[j] = 1;
          cols.push_back(j);
          acc[j] = V(0);
          abs_acc[j] = 0.0;
          cnt[j] = 0;
        }
        const V prod = a * B.values[q];
        acc[j] += prod;
        abs_acc[j] += std::abs(static_cast<double>(prod));
        ++cnt[j];
      }
    }
    std::sort(cols.begin(), cols.end());
    for (const O j : cols) {
      used[j] = 0;
      if (drop_zeros && acc[j] == V(0)) continue;
      C.entries.push_back(j);
      C.values.push_back(acc[j]);
      out.abs_sum.push_back(abs_acc[j]);
      out.terms.push_back(cnt[j]);
    }
    KKPERM_REQUIRE(C.entries.size() <= static_cast<std::size_t>(std::numeric_limits<F>::max()),
                   "kkperm::spgemm::reference_multiply: nnz(C) overflows the offset type");
    C.row_map[i + 1] = static_cast<F>(C.entries.size());
  }
  return out;
}

/**
 * Absolute tolerance for one entry of C when two implementations each sum `terms` products in
 * some order: each result carries an error ≤ γ_{terms+1}·Σ|a_ik b_kj| (Higham, recursive or
 * any-order summation plus one rounding per product; atomics only change the order), so two
 * results differ by at most twice that. γ_n = n·u / (1 − n·u), u = ε/2.
 */
template <class V>
double spgemm_tolerance(double abs_sum, std::int64_t terms) {
  const double u = std::numeric_limits<V>::epsilon() / 2;
  const double n = static_cast<double>(terms + 1);
  const double gamma = n * u / (1.0 - n * u);
  return 2.0 * gamma * abs_sum;
}

}  // namespace kkperm::spgemm
