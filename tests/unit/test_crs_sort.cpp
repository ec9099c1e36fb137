// sort_crs / sort_and_merge_crs on the default execution space vs their serial twins, on
// seeded random matrices (unsorted, duplicated columns, empty rows, one dense row, 0x0, 1x1,
// rectangular) and on real matrices with shuffled rows and split entries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "common/test_utils.hpp"
#include "kkperm/core/crs_sort.hpp"
#include "kkperm/io/matrix_market.hpp"

namespace {
using Host = kkperm::HostCsr<double, int, int>;
using Host64 = kkperm::HostCsr<double, int, std::int64_t>;
using Matrix = kkperm::DefaultCrs;
using Matrix64 = kkperm::Crs<double, int, kkperm::DefaultDevice, std::int64_t>;

/// Random CSR whose rows hold columns drawn with repetition from a small range (so duplicates
/// are common) in random order; row `dense_row` (if >= 0) holds `dense_len` entries.
Host random_unsorted(std::uint64_t seed, int rows, int cols, int max_per_row, int dense_row = -1,
                     int dense_len = 0) {
  std::mt19937_64 rng(seed);
  Host h;
  h.num_rows = rows;
  h.num_cols = cols;
  h.row_map.assign(1, 0);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (int i = 0; i < rows; ++i) {
    int k = (rng() % 5 == 0) ? 0 : static_cast<int>(rng() % (max_per_row + 1));
    if (i == dense_row) k = dense_len;
    if (cols == 0) k = 0;
    for (int t = 0; t < k; ++t) {
      h.entries.push_back(static_cast<int>(rng() % cols));
      h.values.push_back(val(rng));
    }
    h.row_map.push_back(static_cast<int>(h.entries.size()));
  }
  return h;
}

/// Per row, the (column, value) multiset in canonical order: equal after a correct sort
/// regardless of the order of equal columns (the GPU sort is not stable).
std::vector<std::vector<std::pair<int, double>>> row_sets(const Host& h) {
  std::vector<std::vector<std::pair<int, double>>> out(h.num_rows);
  for (int i = 0; i < h.num_rows; ++i) {
    for (int k = h.row_map[i]; k < h.row_map[i + 1]; ++k)
      out[i].push_back({h.entries[k], h.values[k]});
    std::sort(out[i].begin(), out[i].end());
  }
  return out;
}

void expect_sort_matches_twin(const Host& h) {
  Host twin = h;
  kkperm::sort_crs_serial(twin);
  // Twin: columns non-decreasing, same multiset per row as the input.
  for (int i = 0; i < twin.num_rows; ++i)
    for (int k = twin.row_map[i] + 1; k < twin.row_map[i + 1]; ++k)
      ASSERT_LE(twin.entries[k - 1], twin.entries[k]);
  EXPECT_EQ(row_sets(twin), row_sets(h));

  const auto A = kkperm::to_device<Matrix>(h);
  kkperm::sort_crs(A);
  const auto got = kkperm::to_host(A);
  EXPECT_EQ(got.row_map, twin.row_map);
  EXPECT_EQ(got.entries, twin.entries);      // columns: fully determined
  EXPECT_EQ(row_sets(got), row_sets(twin));  // values: same multiset per row
  EXPECT_TRUE(kkperm::check_crs(A, /*require_sorted=*/false).ok());
}

/// Compares device sort_and_merge_crs to the twin. Entries equal exactly; a merged value is a
/// sum of m stored values, and two summation orders each lie within (m-1) u sum|v| of the exact
/// sum (u = eps/2), so they differ by at most (m-1) eps sum|v|.
template <class M, class H>
void expect_merge_matches_twin(const H& h) {
  const H twin = kkperm::sort_and_merge_crs_serial(h);
  // Per output entry: number of merged inputs and sum of their magnitudes, from the input.
  std::vector<std::int64_t> mult(twin.entries.size(), 0);
  std::vector<double> mag(twin.entries.size(), 0.0);
  for (int i = 0; i < h.num_rows; ++i)
    for (auto k = h.row_map[i]; k < h.row_map[i + 1]; ++k) {
      const auto b = twin.entries.begin() + twin.row_map[i],
                 e = twin.entries.begin() + twin.row_map[i + 1];
      const auto it = std::lower_bound(b, e, h.entries[k]);
      ASSERT_TRUE(it != e && *it == h.entries[k])
          << "twin lost column " << h.entries[k] << " of row " << i;
      const auto o = static_cast<std::size_t>(it - twin.entries.begin());
      ++mult[o];
      mag[o] += std::fabs(h.values[k]);
    }
  for (int i = 0; i < twin.num_rows; ++i)
    for (auto k = twin.row_map[i] + 1; k < twin.row_map[i + 1]; ++k)
      ASSERT_LT(twin.entries[k - 1], twin.entries[k]);

  const auto A = kkperm::to_device<M>(h);
  const auto before = kkperm::to_host(A);
  const auto B = kkperm::sort_and_merge_crs(A);
  EXPECT_TRUE(kkperm::check_crs(B).ok()) << kkperm::check_crs(B).problem;
  const auto got = kkperm::to_host(B);
  const auto after = kkperm::to_host(A);
  EXPECT_EQ(after.entries, before.entries) << "input modified";
  EXPECT_EQ(after.values, before.values) << "input modified";
  ASSERT_EQ(got.num_rows, twin.num_rows);
  EXPECT_EQ(got.num_cols, twin.num_cols);
  ASSERT_EQ(got.row_map.size(), twin.row_map.size());
  for (std::size_t i = 0; i < got.row_map.size(); ++i)
    ASSERT_EQ(got.row_map[i], twin.row_map[i]) << i;
  ASSERT_EQ(got.entries, twin.entries);
  const double eps = std::numeric_limits<double>::epsilon();
  for (std::size_t k = 0; k < got.values.size(); ++k)
    ASSERT_NEAR(got.values[k], twin.values[k], static_cast<double>(mult[k] - 1) * eps * mag[k])
        << "entry " << k << " merges " << mult[k];
}

TEST(CrsSort, SortMatchesSerialTwinOnRandomShapes) {
  const auto seed = kkperm::test::fresh_seed();
  RecordProperty("seed", std::to_string(seed));
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (auto [r, c, m, dense] : {std::tuple<int, int, int, int>{0, 0, 0, 0},
                                {1, 1, 3, 0},
                                {0, 7, 0, 0},
                                {7, 0, 0, 0},
                                {50, 9, 12, 0},
                                {300, 5000, 30, 0},
                                {200, 3000, 8, 20000}}) {
    SCOPED_TRACE(std::to_string(r) + "x" + std::to_string(c));
    expect_sort_matches_twin(random_unsorted(seed + r + c, r, c, m, dense ? r / 2 : -1, dense));
  }
}

TEST(CrsSort, MergeMatchesSerialTwinOnRandomShapes) {
  const auto seed = kkperm::test::fresh_seed();
  RecordProperty("seed", std::to_string(seed));
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (auto [r, c, m, dense] : {std::tuple<int, int, int, int>{0, 0, 0, 0},
                                {1, 1, 3, 0},
                                {0, 7, 0, 0},
                                {7, 0, 0, 0},
                                {50, 9, 12, 0},
                                {300, 5000, 30, 0},
                                {200, 300, 8, 20000}}) {
    SCOPED_TRACE(std::to_string(r) + "x" + std::to_string(c));
    expect_merge_matches_twin<Matrix>(
        random_unsorted(seed + r + c, r, c, m, dense ? r / 2 : -1, dense));
  }
}

TEST(CrsSort, SerialTwinsOnAHandExample) {
  Host h;
  h.num_rows = 3;
  h.num_cols = 4;
  h.row_map = {0, 4, 4, 7};
  h.entries = {3, 1, 3, 0, 2, 2, 0};
  h.values = {1, 2, 3, 4, 5, 6, 7};
  Host s = h;
  kkperm::sort_crs_serial(s);
  EXPECT_EQ(s.entries, (std::vector<int>{0, 1, 3, 3, 0, 2, 2}));
  EXPECT_EQ(s.values, (std::vector<double>{4, 2, 1, 3, 7, 5, 6}));  // stable
  const Host m = kkperm::sort_and_merge_crs_serial(h);
  EXPECT_EQ(m.row_map, (std::vector<int>{0, 3, 3, 5}));
  EXPECT_EQ(m.entries, (std::vector<int>{0, 1, 3, 0, 2}));
  EXPECT_EQ(m.values, (std::vector<double>{4, 2, 4, 7, 11}));
  const Host p = kkperm::sort_and_merge_crs_serial(h, /*sum_duplicates=*/false);
  EXPECT_EQ(p.values, (std::vector<double>{4, 2, 1, 7, 5}));  // first stored value kept
}

/// Real matrix with rows shuffled and some entries split into two stored parts (a + b).
Host64 scramble(const Host64& a, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Host64 h;
  h.num_rows = a.num_rows;
  h.num_cols = a.num_cols;
  h.row_map.assign(1, 0);
  std::vector<std::pair<int, double>> row;
  for (int i = 0; i < a.num_rows; ++i) {
    row.clear();
    for (auto k = a.row_map[i]; k < a.row_map[i + 1]; ++k) {
      if (rng() % 3 == 0) {
        const double part = a.values[k] * 0.375;
        row.push_back({a.entries[k], part});
        row.push_back({a.entries[k], a.values[k] - part});
      } else {
        row.push_back({a.entries[k], a.values[k]});
      }
    }
    std::shuffle(row.begin(), row.end(), rng);
    for (auto& [c, v] : row) {
      h.entries.push_back(c);
      h.values.push_back(v);
    }
    h.row_map.push_back(static_cast<std::int64_t>(h.entries.size()));
  }
  return h;
}

TEST(CrsSort, RealMatricesScrambledThenMergedMatchTwin) {
  const auto seed = kkperm::test::fresh_seed();
  RecordProperty("seed", std::to_string(seed));
  const auto files = kkperm::test::list_files("real", ".mtx.gz");
  std::size_t done = 0;
  for (const auto& f : files) {
    kkperm::io::HostMatrix a;
    try {
      a = kkperm::io::read_matrix_market(kkperm::test::matrices_dir() + "/real/" + f);
    } catch (const kkperm::io::ParseError&) {
      continue;  // rejected files: covered by test_matrix_market
    }
    if (a.nnz() > 300000) continue;  // keep the suite quick; NotreDame is covered by the reader
    // nan/inf entries (comments_west0067, skew_fp*) cannot be split into finite parts.
    if (!std::all_of(a.values.begin(), a.values.end(), [](double v) { return std::isfinite(v); }))
      continue;
    SCOPED_TRACE(f + " seed " + std::to_string(seed));
    const auto h = scramble(a, seed + done);
    expect_merge_matches_twin<Matrix64>(h);
    // Sorting+merging restores the structure of the original exactly.
    const auto m = kkperm::sort_and_merge_crs_serial(h);
    ASSERT_EQ(m.row_map, a.row_map);
    ASSERT_EQ(m.entries, a.entries);
    ++done;
  }
  EXPECT_GT(done, 200u);
}

TEST(CrsSort, RejectsInvalidMatrices) {
  Host h;
  h.num_rows = 2;
  h.num_cols = 3;
  h.row_map = {0, 2, 3};
  h.entries = {2, 3, 0};  // column 3 out of range
  h.values = {1, 2, 3};
  const auto A = kkperm::to_device<Matrix>(h);
  try {
    kkperm::sort_crs(A);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kkperm::sort_crs: invalid matrix"), std::string::npos)
        << e.what();
  }
  try {
    kkperm::sort_and_merge_crs(A);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kkperm::sort_and_merge_crs: invalid matrix"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(kkperm::sort_crs_serial(h), std::invalid_argument);
  h.entries = {2, 1, 0};
  h.row_map = {0, 3, 2};  // not monotone
  EXPECT_THROW(kkperm::sort_and_merge_crs_serial(h), std::invalid_argument);
}

}  // namespace
