#pragma once
// Helpers shared by the SpGEMM tests: seeded random CSR builders, the device-vs-reference
// comparison (exact structure, values within the arithmetic's bound) and real-matrix loading.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/test_utils.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/io/matrix_market.hpp"
#include "kkperm/kernels/spgemm/spgemm_reference.hpp"

namespace kkperm::test::spgemm {

using Host = kkperm::HostCsr<double, int, int>;
using Matrix = kkperm::Crs<double, int, kkperm::DefaultDevice, int>;

/// n x m, each row with a uniform number of nonzeros in [lo, hi] at distinct random columns,
/// values uniform in [-1, 1]. Sorted, unique.
inline Host random_csr(int n, int m, int lo, int hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Host h;
  h.num_rows = n;
  h.num_cols = m;
  h.row_map.assign(static_cast<std::size_t>(n) + 1, 0);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<int> cols;
  for (int i = 0; i < n; ++i) {
    const int want = m == 0 ? 0 : std::min(m, lo + static_cast<int>(rng() % (hi - lo + 1)));
    cols.clear();
    while (static_cast<int>(cols.size()) < want) {
      const int c = static_cast<int>(rng() % static_cast<std::uint64_t>(m));
      if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    for (int c : cols) {
      h.entries.push_back(c);
      h.values.push_back(val(rng));
    }
    h.row_map[i + 1] = static_cast<int>(h.entries.size());
  }
  return h;
}

/// Same structure, fresh values.
inline Host revalue(Host h, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (auto& v : h.values) v = val(rng);
  return h;
}

/// A (m x k) and B (k x n) random, with 0..max_a / 0..max_b entries a row, and copies of both
/// with other values and the same structure (a numeric re-setup's inputs), seeded from `seed`.
struct RevaluedPair {
  Host A, B, A2, B2;
};
inline RevaluedPair revalued_pair(int m, int k, int n, int max_a, int max_b, std::uint64_t seed) {
  RevaluedPair p;
  p.A = random_csr(m, k, 0, max_a, seed);
  p.B = random_csr(k, n, 0, max_b, seed + 1);
  p.A2 = revalue(p.A, seed + 2);
  p.B2 = revalue(p.B, seed + 3);
  return p;
}

/// Shuffles the columns inside every row and splits some entries into two duplicates whose
/// values add up to the original (x = x/2 + x/2 exactly in binary floating point).
inline Host scramble(const Host& h, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Host o;
  o.num_rows = h.num_rows;
  o.num_cols = h.num_cols;
  o.row_map.assign(h.row_map.size(), 0);
  for (int i = 0; i < h.num_rows; ++i) {
    std::vector<std::pair<int, double>> row;
    for (int p = h.row_map[i]; p < h.row_map[i + 1]; ++p) {
      if (rng() % 3 == 0) {
        row.emplace_back(h.entries[p], h.values[p] / 2);
        row.emplace_back(h.entries[p], h.values[p] / 2);
      } else {
        row.emplace_back(h.entries[p], h.values[p]);
      }
    }
    std::shuffle(row.begin(), row.end(), rng);
    for (auto& e : row) {
      o.entries.push_back(e.first);
      o.values.push_back(e.second);
    }
    o.row_map[i + 1] = static_cast<int>(o.entries.size());
  }
  return o;
}

inline Host transpose(const Host& h) {
  Host t;
  t.num_rows = h.num_cols;
  t.num_cols = h.num_rows;
  t.row_map.assign(static_cast<std::size_t>(t.num_rows) + 1, 0);
  for (int c : h.entries) ++t.row_map[c + 1];
  for (int i = 0; i < t.num_rows; ++i) t.row_map[i + 1] += t.row_map[i];
  t.entries.resize(h.entries.size());
  t.values.resize(h.values.size());
  std::vector<int> next(t.row_map.begin(), t.row_map.end() - 1);
  for (int i = 0; i < h.num_rows; ++i)
    for (int p = h.row_map[i]; p < h.row_map[i + 1]; ++p) {
      const int q = next[h.entries[p]]++;
      t.entries[q] = i;
      t.values[q] = h.values[p];
    }
  return t;
}

/// Exact structure, values within spgemm_tolerance of the reference (per entry).
template <class HostC>
::testing::AssertionResult matches_reference(const HostC& got,
                                             const kkperm::spgemm::ReferenceProduct<double, int, int>& ref,
                                             const std::string& what) {
  const auto& C = ref.C;
  if (got.num_rows != C.num_rows || got.num_cols != C.num_cols)
    return ::testing::AssertionFailure() << what << ": dims " << got.num_rows << "x" << got.num_cols
                                         << " vs " << C.num_rows << "x" << C.num_cols;
  for (std::size_t i = 0; i < C.row_map.size(); ++i)
    if (static_cast<std::int64_t>(got.row_map[i]) != C.row_map[i])
      return ::testing::AssertionFailure() << what << ": row_map[" << i << "] = " << got.row_map[i]
                                           << ", expected " << C.row_map[i];
  for (std::size_t k = 0; k < C.entries.size(); ++k) {
    if (static_cast<int>(got.entries[k]) != C.entries[k])
      return ::testing::AssertionFailure() << what << ": entries[" << k << "] = " << got.entries[k]
                                           << ", expected " << C.entries[k];
    if (!std::isfinite(C.values[k])) {  // inf/NaN inputs (real files): same class expected
      const bool same = std::isnan(C.values[k]) ? std::isnan(static_cast<double>(got.values[k]))
                                                : static_cast<double>(got.values[k]) == C.values[k];
      if (!same)
        return ::testing::AssertionFailure() << what << ": values[" << k << "] = " << got.values[k]
                                             << ", expected " << C.values[k];
      continue;
    }
    const double tol = kkperm::spgemm::spgemm_tolerance<double>(ref.abs_sum[k], ref.terms[k]);
    const double d = std::abs(static_cast<double>(got.values[k]) - C.values[k]);
    if (!(d <= tol))
      return ::testing::AssertionFailure() << what << ": values[" << k << "] = " << got.values[k]
                                           << ", expected " << C.values[k] << " (|diff| " << d
                                           << " > tol " << tol << ")";
  }
  return ::testing::AssertionSuccess();
}

/// Real square/rectangular matrices from ../shared/matrices/real small enough for the serial
/// reference (nnz ≤ max_nnz); complex/unreadable files are skipped.
inline std::vector<std::pair<std::string, Host>> real_matrices(std::int64_t max_nnz) {
  std::vector<std::pair<std::string, Host>> out;
  for (const auto& f : kkperm::test::list_files("real", ".mtx.gz")) {
    try {
      const auto h = kkperm::io::read_matrix_market(kkperm::test::matrices_dir() + "/real/" + f);
      if (h.nnz() > max_nnz) continue;
      Host c;
      c.num_rows = h.num_rows;
      c.num_cols = h.num_cols;
      c.row_map.assign(h.row_map.begin(), h.row_map.end());
      c.entries = h.entries;
      c.values = h.values;
      out.emplace_back(f, std::move(c));
    } catch (const std::exception&) {
      // complex / malformed files are the I/O tests' business
    }
  }
  return out;
}

}  // namespace kkperm::test::spgemm
