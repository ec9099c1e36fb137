#pragma once
// Seeded random HostCsr matrices for the feature/permutation tests: empty rows, one dense row,
// heavy-tailed row lengths and runs of contiguous columns, so every feature has something to see.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kkperm/core/host_csr.hpp"

namespace kkperm::test {

using TestCsr = HostCsr<double, int, std::int64_t>;

inline TestCsr random_feature_matrix(int n_rows, int n_cols, std::uint64_t seed,
                                     double empty_fraction = 0.15, bool dense_row = true) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  TestCsr h;
  h.num_rows = n_rows;
  h.num_cols = n_cols;
  h.row_map.assign(1, 0);
  const int dense = (dense_row && n_rows > 0) ? static_cast<int>(rng() % n_rows) : -1;
  std::vector<int> cols;
  for (int i = 0; i < n_rows; ++i) {
    cols.clear();
    if (i == dense) {
      for (int c = 0; c < n_cols; ++c)
        if (u(rng) < 0.7) cols.push_back(c);
    } else if (n_cols > 0 && u(rng) >= empty_fraction) {
      // heavy-tailed length, columns in a few runs around random anchors
      const int len = std::min(n_cols, 1 + static_cast<int>(std::pow(u(rng), 3.0) * 40));
      while (static_cast<int>(cols.size()) < len) {
        int c = static_cast<int>(rng() % n_cols);
        const int run = 1 + static_cast<int>(rng() % 5);
        for (int r = 0; r < run && c < n_cols && static_cast<int>(cols.size()) < len; ++r, ++c)
          cols.push_back(c);
      }
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    }
    for (int c : cols) {
      h.entries.push_back(c);
      h.values.push_back(u(rng) * 2.0 - 1.0);
    }
    h.row_map.push_back(static_cast<std::int64_t>(h.entries.size()));
  }
  return h;
}

}  // namespace kkperm::test
