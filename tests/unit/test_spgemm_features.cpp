// SpGEMM feature set (issue 3, set 3): hand-computed values, device vs serial twin on fresh
// random and real matrices, thresholds as parameters.
#include <gtest/gtest.h>

#include "kkperm/features/spgemm_features.hpp"
#include "kernels/spgemm_test_helpers.hpp"

namespace {
using namespace kkperm::test::spgemm;

void expect_same(const kkperm::FeatureVector& a, const kkperm::FeatureVector& b, const std::string& what) {
  ASSERT_EQ(a.names, b.names);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a.values[i], b.values[i]) << what << ": " << a.names[i];  // exact integer arithmetic
}
}  // namespace

// A = rows {0,1}, {}, {2}, {0,1,2}; B rows with 2, 1, 3 entries:
// B row0 {0,1}, row1 {1}, row2 {0,2,3}.
// F = {3, 0, 3, 6}; C rows: {0,1} (2), {} (0), {0,2,3} (3), {0,1,2,3} (4): nnz(C) = 9, ΣF = 12.
TEST(SpgemmFeatures, HandComputedSmallExample) {
  Host A;
  A.num_rows = 4;
  A.num_cols = 3;
  A.row_map = {0, 2, 2, 3, 6};
  A.entries = {0, 1, 2, 0, 1, 2};
  A.values = {1, 1, 1, 1, 1, 1};
  Host B;
  B.num_rows = 3;
  B.num_cols = 4;
  B.row_map = {0, 2, 3, 6};
  B.entries = {0, 1, 1, 0, 2, 3};
  B.values = {1, 1, 1, 1, 1, 1};
  kkperm::SpgemmFeatureParams p;
  p.thread_max = 2;
  p.warp_max = 3;
  p.team_max = 5;
  p.sample_work_max = 1000;  // no candidate capped here (cap 250 per row); the default is below
  const auto f = kkperm::spgemm_features(kkperm::to_device<Matrix>(A), kkperm::to_device<Matrix>(B), p);
  EXPECT_EQ(f.names, kkperm::spgemm_feature_names());
  EXPECT_EQ(f.at("spgemm_work_min"), 0);
  EXPECT_EQ(f.at("spgemm_work_max"), 6);
  EXPECT_EQ(f.at("spgemm_work_mean"), 3);
  EXPECT_DOUBLE_EQ(f.at("spgemm_work_std"), std::sqrt(4.5));  // deviations -3,0,0,3 → 18/4
  EXPECT_EQ(f.at("spgemm_work_total"), 12);
  EXPECT_EQ(f.at("spgemm_bin_thread_rows"), 1);  // F=0
  EXPECT_EQ(f.at("spgemm_bin_warp_rows"), 2);    // F=3,3
  EXPECT_EQ(f.at("spgemm_bin_block_rows"), 0);
  EXPECT_EQ(f.at("spgemm_bin_global_rows"), 1);  // F=6
  EXPECT_DOUBLE_EQ(f.at("spgemm_nnz_ratio_estimate"), 9.0 / 12.0);  // sample = all 4 rows
  EXPECT_EQ(f.at("spgemm_sample_rows"), 4);
  // sample of 2 rows: i = 0, 2 → nnz 2 + 3 over work 3 + 3
  p.sample_rows = 2;
  const auto g = kkperm::spgemm_features(kkperm::to_device<Matrix>(A), kkperm::to_device<Matrix>(B), p);
  EXPECT_DOUBLE_EQ(g.at("spgemm_nnz_ratio_estimate"), 5.0 / 6.0);
  expect_same(g, kkperm::spgemm_features_serial(A, B, p), "hand example, 2-row sample");
  // default budget nnz(A) + nnz(B) = 12 over 4 candidates: rows with F > 3 left out (row 3,
  // F = 6) → rows 0, 1, 2: nnz 2 + 0 + 3 over work 3 + 0 + 3, 3 rows kept
  p.sample_rows = 1024;
  p.sample_work_max = 0;
  const auto c = kkperm::spgemm_features(kkperm::to_device<Matrix>(A), kkperm::to_device<Matrix>(B), p);
  EXPECT_DOUBLE_EQ(c.at("spgemm_nnz_ratio_estimate"), 5.0 / 6.0);
  EXPECT_EQ(c.at("spgemm_sample_rows"), 3);
  expect_same(c, kkperm::spgemm_features_serial(A, B, p), "hand example, default work cap");
  // a budget below every nonzero row's work keeps only the empty row (F = 0): ratio 0
  p.sample_work_max = 11;  // cap 2
  const auto z = kkperm::spgemm_features(kkperm::to_device<Matrix>(A), kkperm::to_device<Matrix>(B), p);
  EXPECT_EQ(z.at("spgemm_nnz_ratio_estimate"), 0.0);
  EXPECT_EQ(z.at("spgemm_sample_rows"), 1);
  expect_same(z, kkperm::spgemm_features_serial(A, B, p), "hand example, cap 2");
}

TEST(SpgemmFeatures, DeviceMatchesSerialTwinOnRandomAndRealMatrices) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto A = random_csr(3000, 2000, 0, 40, seed);
  const auto B = random_csr(2000, 2500, 0, 60, seed + 1);
  for (std::int64_t sample : {std::int64_t(1), std::int64_t(97), std::int64_t(1024), std::int64_t(100000)}) {
    kkperm::SpgemmFeatureParams p;
    p.sample_rows = sample;
    expect_same(kkperm::spgemm_features(kkperm::to_device<Matrix>(A), kkperm::to_device<Matrix>(B), p),
                kkperm::spgemm_features_serial(A, B, p), "random sample " + std::to_string(sample));
  }
  int checked = 0;
  for (const auto& [file, h] : real_matrices(50000)) {
    if (h.num_rows != h.num_cols) continue;
    expect_same(kkperm::spgemm_features(kkperm::to_device<Matrix>(h), kkperm::to_device<Matrix>(h)),
                kkperm::spgemm_features_serial(h, h), file);
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

TEST(SpgemmFeatures, RejectsBadParametersAndShapes) {
  const auto A = kkperm::to_device<Matrix>(random_csr(5, 4, 1, 2, 1));
  kkperm::SpgemmFeatureParams p;
  p.warp_max = 10000;
  EXPECT_THROW(kkperm::spgemm_features(A, kkperm::to_device<Matrix>(random_csr(4, 4, 1, 2, 2)), p),
               std::invalid_argument);
  EXPECT_THROW(kkperm::spgemm_features(A, A), std::invalid_argument);  // 5x4 * 5x4
  kkperm::SpgemmFeatureParams q;
  q.sample_work_max = -1;
  EXPECT_THROW(kkperm::spgemm_features(A, kkperm::to_device<Matrix>(random_csr(4, 4, 1, 2, 2)), q),
               std::invalid_argument);
}

// Arrow pattern (dense row 0 and column 0, a diagonal): every row of A·A meets row 0, F_i >= n,
// so with the default budget (~4n over min(n, 1024) candidates) no candidate is kept and the
// estimate is 0 - the sample stays cheap instead of counting ~n per sampled row.
TEST(SpgemmFeatures, SampleWorkCapOnAnArrowMatrix) {
  const int n = 3000;
  Host A;
  A.num_rows = n;
  A.num_cols = n;
  A.row_map.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    if (i == 0) {
      for (int j = 0; j < n; ++j) A.entries.push_back(j);
    } else {
      A.entries.push_back(0);
      A.entries.push_back(i);
    }
    A.row_map[i + 1] = static_cast<std::int64_t>(A.entries.size());
  }
  A.values.assign(A.entries.size(), 1.0);
  const auto d = kkperm::to_device<Matrix>(A);
  const auto f = kkperm::spgemm_features(d, d);
  EXPECT_EQ(f.at("spgemm_sample_rows"), 0);
  EXPECT_EQ(f.at("spgemm_nnz_ratio_estimate"), 0.0);
  expect_same(f, kkperm::spgemm_features_serial(A, A), "arrow, default cap");
  kkperm::SpgemmFeatureParams p;
  p.sample_work_max = std::int64_t(1) << 40;  // uncapped: every candidate kept, as before the cap
  const auto g = kkperm::spgemm_features(d, d, p);
  EXPECT_EQ(g.at("spgemm_sample_rows"), 1024);
  EXPECT_GT(g.at("spgemm_nnz_ratio_estimate"), 0.0);
  expect_same(g, kkperm::spgemm_features_serial(A, A, p), "arrow, uncapped");
}
