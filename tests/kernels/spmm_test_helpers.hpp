#pragma once
// Helpers for the SpMM tests: small seeded matrices (corner cases), dense random B, the
// double-precision reference on the unpermuted matrix and the error bound used to compare.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kkperm/core/host_csr.hpp"

namespace kkperm::test::spmm {

using HostD = HostCsr<double, int, std::int64_t>;

/// Random CSR: each row gets a length drawn from `lengths(rng)` (clamped to n_cols), distinct
/// sorted columns, values uniform in [-1, 1].
template <class LengthFn>
HostD random_rows(int n_rows, int n_cols, std::uint64_t seed, LengthFn lengths) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  HostD h;
  h.num_rows = n_rows;
  h.num_cols = n_cols;
  h.row_map.assign(1, 0);
  std::vector<int> cols;
  for (int i = 0; i < n_rows; ++i) {
    int len = std::min<int>(std::max(0, static_cast<int>(lengths(rng, i))), n_cols);
    cols.clear();
    if (len * 2 > n_cols) {  // dense-ish: sample by shuffling
      std::vector<int> all(n_cols);
      for (int c = 0; c < n_cols; ++c) all[c] = c;
      std::shuffle(all.begin(), all.end(), rng);
      cols.assign(all.begin(), all.begin() + len);
    } else {
      std::uniform_int_distribution<int> cd(0, n_cols - 1);
      while (static_cast<int>(cols.size()) < len) {
        int c = cd(rng);
        if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
      }
    }
    std::sort(cols.begin(), cols.end());
    for (int c : cols) {
      h.entries.push_back(c);
      h.values.push_back(val(rng));
    }
    h.row_map.push_back(static_cast<std::int64_t>(h.entries.size()));
  }
  return h;
}

/// Named corner cases (and a few general shapes) used by every SpMM test.
struct NamedMatrix {
  std::string name;
  HostD A;
};

inline std::vector<NamedMatrix> corner_cases(std::uint64_t seed) {
  std::vector<NamedMatrix> out;
  HostD empty;  // 0 x 0
  out.push_back({"0x0", empty});
  HostD one;
  one.num_rows = one.num_cols = 1;
  one.row_map = {0, 1};
  one.entries = {0};
  one.values = {0.75};
  out.push_back({"1x1", one});
  HostD one_empty;  // 1 x 1 with no entries: Y = beta*Y only
  one_empty.num_rows = one_empty.num_cols = 1;
  one_empty.row_map = {0, 0};
  out.push_back({"1x1_empty", one_empty});
  out.push_back({"empty_rows", random_rows(300, 200, seed + 1, [](auto& r, int) {
                   return std::uniform_int_distribution<int>(0, 3)(r) == 0
                              ? std::uniform_int_distribution<int>(1, 12)(r)
                              : 0;
                 })});
  out.push_back({"one_dense_row", random_rows(257, 700, seed + 2, [](auto& r, int i) {
                   return i == 100 ? 700 : std::uniform_int_distribution<int>(0, 4)(r);
                 })});
  out.push_back({"wide", random_rows(37, 3000, seed + 3, [](auto& r, int) {
                   return std::uniform_int_distribution<int>(0, 90)(r);
                 })});
  out.push_back({"tall", random_rows(2500, 19, seed + 4, [](auto& r, int) {
                   return std::uniform_int_distribution<int>(0, 6)(r);
                 })});
  out.push_back({"power_law", random_rows(1500, 1500, seed + 5, [](auto& r, int) {
                   // Pareto-like row lengths: P(len > x) ~ x^-1.3, capped by n_cols.
                   const double u = std::uniform_real_distribution<double>(1e-6, 1.0)(r);
                   return static_cast<int>(std::pow(u, -1.0 / 1.3));
                 })});
  out.push_back({"uniform", random_rows(1000, 800, seed + 6, [](auto& r, int) {
                   return std::uniform_int_distribution<int>(5, 40)(r);
                 })});
  return out;
}

/// Dense n x K row-major buffer (index r*K + c) of uniform [-1, 1] values.
inline std::vector<double> random_dense(std::int64_t n, int K, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n) * K);
  for (auto& x : v) x = d(rng);
  return v;
}

/**
 * Reference in double of Y = alpha*A*B + beta*Y0 on the unpermuted matrix, plus the per-entry
 * error bound for a kernel computing in type T. Inputs are first rounded to T (the kernel sees
 * exactly those values), so the only error is the kernel's arithmetic: for row i with n_i
 * nonzeros the result is n_i products, n_i - 1 additions (any order, any tree), one scaling by
 * alpha, one product beta*y and one addition: at most n_i + 3 roundings on every path, so
 * (Higham, Thm 3.1 / Lemma 3.1)
 *   |y_kernel - y_exact| <= gamma_{n_i+3}(u_T) * (|alpha| sum_k |a_ik b_kc| + |beta y0_ic|),
 *   gamma_m(u) = m u / (1 - m u).
 * The double reference itself carries gamma_{n_i+3}(u_double) of the same magnitude, added in.
 * FMA contraction only removes roundings, so the bound still holds.
 */
struct Reference {
  std::vector<double> y;      ///< row-major n_rows x K
  std::vector<double> bound;  ///< same shape
};

template <class T>
Reference reference_spmm(const HostD& A, double alpha, const std::vector<double>& B,
                         double beta, const std::vector<double>& Y0, int K) {
  auto rT = [](double x) { return static_cast<double>(static_cast<T>(x)); };
  const double uT = std::numeric_limits<T>::epsilon() / 2;
  const double ud = std::numeric_limits<double>::epsilon() / 2;
  auto gamma = [](double m, double u) { return m * u / (1.0 - m * u); };
  Reference ref;
  ref.y.assign(static_cast<std::size_t>(A.num_rows) * K, 0.0);
  ref.bound.assign(ref.y.size(), 0.0);
  const double a = rT(alpha), b = rT(beta);
  for (int i = 0; i < A.num_rows; ++i) {
    const double m = static_cast<double>(A.row_map[i + 1] - A.row_map[i]) + 3.0;
    for (int c = 0; c < K; ++c) {
      double s = 0.0, mag = 0.0;
      for (auto k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
        const double p = rT(A.values[k]) * rT(B[static_cast<std::size_t>(A.entries[k]) * K + c]);
        s += p;
        mag += std::abs(p);
      }
      const std::size_t idx = static_cast<std::size_t>(i) * K + c;
      const double y0 = rT(Y0[idx]);
      ref.y[idx] = b == 0.0 ? a * s : a * s + b * y0;
      const double scale = std::abs(a) * mag + (b == 0.0 ? 0.0 : std::abs(b * y0));
      ref.bound[idx] = (gamma(m, uT) + gamma(m, ud)) * scale;
    }
  }
  return ref;
}

}  // namespace kkperm::test::spmm
