// Feature sets 1 (SpMM/SpMV, permutation paper) and 2 (format selection, decision-tree paper):
// hand-computed values on small matrices, the documented CHOICEs, parameter checks, and the
// device computation against its serial twin on fresh seeded inputs and the real matrices.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "common/test_utils.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/features/spmv_features.hpp"
#include "kkperm/gen/generators.hpp"
#include "kkperm/io/matrix_market.hpp"
#include "unit/feature_test_matrices.hpp"

namespace {
using kkperm::test::TestCsr;
using Matrix = kkperm::Crs<double, int, kkperm::DefaultDevice, std::int64_t>;

TestCsr make(int n, int m, std::vector<std::vector<int>> rows) {
  TestCsr h;
  h.num_rows = n;
  h.num_cols = m;
  for (auto& r : rows) {
    for (int c : r) {
      h.entries.push_back(c);
      h.values.push_back(1.0 + c);
    }
    h.row_map.push_back(static_cast<std::int64_t>(h.entries.size()));
  }
  return h;
}

// Both paths (device kernel and serial twin) must give the hand-computed values exactly: every
// quantity is an integer count or a ratio of small integers, so the only rounding is the final
// division/sqrt, reproduced here by the same expression.
void expect_both(const TestCsr& h, const kkperm::FeatureParams& p,
                 const std::vector<std::pair<std::string, double>>& expected) {
  const auto dev = kkperm::compute_features(kkperm::to_device<Matrix>(h), p);
  const auto ser = kkperm::compute_features_serial(h, p);
  ASSERT_EQ(dev.names, kkperm::feature_names());
  ASSERT_EQ(ser.names, kkperm::feature_names());
  for (const auto& [name, v] : expected) {
    EXPECT_DOUBLE_EQ(dev.at(name), v) << "device " << name;
    EXPECT_DOUBLE_EQ(ser.at(name), v) << "serial " << name;
  }
}
}  // namespace

TEST(FeatureParams, ColumnsPerLineFollowValueSize) {
  kkperm::FeatureParams p;
  EXPECT_EQ(p.cols_per_line(sizeof(float)), 32);
  EXPECT_EQ(p.cols_per_line(sizeof(double)), 16);
  p.value_bytes = 4;
  EXPECT_EQ(p.cols_per_line(sizeof(double)), 32);
  const auto f = kkperm::compute_features(kkperm::to_device<Matrix>(make(1, 1, {{0}})));
  EXPECT_EQ(f.cols_per_line, 16);
  EXPECT_EQ(f.warp_size, 32);
  EXPECT_EQ(f.warps_per_block, 32);
}

TEST(Features, NamesAreOrderedAndComplete) {
  const auto n = kkperm::feature_names();
  ASSERT_EQ(kkperm::spmm_feature_names().size(), 24u);
  ASSERT_EQ(kkperm::format_feature_names().size(), 15u);
  ASSERT_EQ(n.size(), 39u);
  EXPECT_EQ(n.front(), "spmm_n_row");
  EXPECT_EQ(n[24], "fmt_nnz_tot");
  EXPECT_EQ(n.back(), "fmt_snzb_sigma");
}

// The 4x4 example: rows {a01, a03}, {}, {}, {a30}; cpl = 2 (16-byte lines of doubles),
// Nt = 1, Nw = 2. Lines: {0,1} -> 0, {2,3} -> 1.
TEST(Features, HandComputedFourByFourExample) {
  kkperm::FeatureParams p;
  p.warp_size = 1;
  p.warps_per_block = 2;
  p.cache_line_bytes = 16;
  const auto h = make(4, 4, {{1, 3}, {}, {}, {0}});
  expect_both(h, p,
              {{"spmm_n_row", 4}, {"spmm_n_col", 4}, {"spmm_density", 3.0 / 16},
               {"spmm_nnz_row_min", 0}, {"spmm_nnz_row_mean", 0.75}, {"spmm_nnz_row_max", 2},
               {"spmm_blocks_row_min", 0}, {"spmm_blocks_row_mean", 0.75},
               {"spmm_blocks_row_max", 2},
               // warp 0 = rows {0, 2}: 2 + 0; warp 1 = rows {1, 3}: 0 + 1
               {"spmm_warp_load_min", 1}, {"spmm_warp_load_mean", 1.5}, {"spmm_warp_load_max", 2},
               // line 0 requested by rows 0 and 3, line 1 by row 0
               {"spmm_same_line_min", 1}, {"spmm_same_line_mean", 1.5}, {"spmm_same_line_max", 2},
               {"spmm_distinct_lines_warp_min", 1}, {"spmm_distinct_lines_warp_mean", 1.5},
               {"spmm_distinct_lines_warp_max", 2},
               {"spmm_total_lines_warp_min", 1}, {"spmm_total_lines_warp_mean", 1.5},
               {"spmm_total_lines_warp_max", 2},
               // d(0,1) = 2, d(1,2) = 0, d(2,3) = 1
               {"spmm_adj_dist_min", 0}, {"spmm_adj_dist_mean", 1}, {"spmm_adj_dist_max", 2},
               {"fmt_nnz_tot", 3}, {"fmt_nnz_frac", 100.0 * 3 / 16}, {"fmt_nnz_min", 0},
               {"fmt_nnz_max", 2}, {"fmt_nnz_mu", 0.75}, {"fmt_nnz_sigma", std::sqrt(0.6875)},
               // runs: row 0 {1},{3}; row 3 {0}
               {"fmt_nnzb_tot", 3}, {"fmt_nnzb_min", 0}, {"fmt_nnzb_max", 2},
               {"fmt_nnzb_mu", 0.75}, {"fmt_nnzb_sigma", std::sqrt(0.6875)},
               {"fmt_snzb_min", 1}, {"fmt_snzb_max", 1}, {"fmt_snzb_mu", 1}, {"fmt_snzb_sigma", 0}});
}

// 3 x 8, cpl = 4, Nt = 2, Nw = 2: rows {0,1,2,5}, {3,4}, {6,7}. Shows distinct < total lines per
// warp (warp 0 = rows 0 and 2 both touch line 1) and runs longer than one column.
TEST(Features, HandComputedRunsAndIntraWarpReuse) {
  kkperm::FeatureParams p;
  p.warp_size = 2;
  p.warps_per_block = 2;
  p.cache_line_bytes = 32;
  const auto h = make(3, 8, {{0, 1, 2, 5}, {3, 4}, {6, 7}});
  expect_both(h, p,
              {{"spmm_density", 8.0 / 24}, {"spmm_nnz_row_mean", 8.0 / 3},
               {"spmm_blocks_row_min", 1}, {"spmm_blocks_row_mean", 5.0 / 3},
               {"spmm_blocks_row_max", 2},
               {"spmm_warp_load_min", 1}, {"spmm_warp_load_mean", 2}, {"spmm_warp_load_max", 3},
               {"spmm_same_line_min", 2}, {"spmm_same_line_mean", 2.5}, {"spmm_same_line_max", 3},
               {"spmm_distinct_lines_warp_min", 2}, {"spmm_distinct_lines_warp_mean", 2},
               {"spmm_distinct_lines_warp_max", 2},
               {"spmm_total_lines_warp_min", 2}, {"spmm_total_lines_warp_mean", 2.5},
               {"spmm_total_lines_warp_max", 3},
               {"spmm_adj_dist_min", 0}, {"spmm_adj_dist_mean", 0.5}, {"spmm_adj_dist_max", 1},
               {"fmt_nnz_tot", 8}, {"fmt_nnz_frac", 100.0 * 8 / 24}, {"fmt_nnz_sigma", std::sqrt(8.0 / 9)},
               {"fmt_nnzb_tot", 4}, {"fmt_nnzb_min", 1}, {"fmt_nnzb_max", 2},
               {"fmt_nnzb_mu", 4.0 / 3}, {"fmt_nnzb_sigma", std::sqrt(2.0 / 9)},
               {"fmt_snzb_min", 1}, {"fmt_snzb_max", 3}, {"fmt_snzb_mu", 2},
               {"fmt_snzb_sigma", std::sqrt(0.5)}});
}

// CHOICE: warps that own no row (n_row < Nw) are not part of the per-warp statistics, and lines
// nobody requests count as 0 in same_line.
TEST(Features, FewerRowsThanWarpsAndUnrequestedLines) {
  kkperm::FeatureParams p;  // Nw = 32, cpl = 16
  const auto h = make(2, 64, {{0, 1}, {17}});
  expect_both(h, p,
              {{"spmm_warp_load_min", 1}, {"spmm_warp_load_mean", 1}, {"spmm_warp_load_max", 1},
               {"spmm_distinct_lines_warp_min", 1}, {"spmm_distinct_lines_warp_max", 1},
               {"spmm_same_line_min", 0}, {"spmm_same_line_mean", 0.5}, {"spmm_same_line_max", 1},
               {"spmm_adj_dist_min", 2}, {"spmm_adj_dist_max", 2}});
}

TEST(Features, EmptyAndDegenerateShapesReportZeros) {
  for (const auto& h : {make(0, 0, {}), make(1, 1, {{}}), make(3, 0, {{}, {}, {}})}) {
    const auto dev = kkperm::compute_features(kkperm::to_device<Matrix>(h));
    const auto ser = kkperm::compute_features_serial(h);
    ASSERT_EQ(dev.values.size(), 39u);
    for (std::size_t i = 0; i < dev.values.size(); ++i) {
      EXPECT_EQ(dev.values[i], ser.values[i]) << dev.names[i];
      EXPECT_FALSE(std::isnan(dev.values[i])) << dev.names[i];
    }
    EXPECT_EQ(dev.at("spmm_n_row"), h.num_rows);
    EXPECT_EQ(dev.at("spmm_density"), 0.0);
  }
}

TEST(Features, RejectsBadParamsAndUnsortedColumns) {
  const auto h = make(2, 4, {{0, 1}, {2}});
  kkperm::FeatureParams p;
  p.warp_size = 0;
  EXPECT_THROW(kkperm::compute_features(kkperm::to_device<Matrix>(h), p), std::invalid_argument);
  p = kkperm::FeatureParams{};
  p.cache_line_bytes = 4;  // narrower than a double
  EXPECT_THROW(kkperm::compute_features(kkperm::to_device<Matrix>(h), p), std::invalid_argument);
  for (int cols : {-1, 32, 4097}) {  // row_stage_cols: 0 or [33, 4096]
    p = kkperm::FeatureParams{};
    p.row_stage_cols = cols;
    EXPECT_THROW(kkperm::compute_features(kkperm::to_device<Matrix>(h), p), std::invalid_argument) << cols;
  }
  for (int lanes : {0, 3, 64}) {  // row_lanes: a power of two from 1 to 32
    p = kkperm::FeatureParams{};
    p.row_lanes = lanes;
    EXPECT_THROW(kkperm::compute_features(kkperm::to_device<Matrix>(h), p), std::invalid_argument) << lanes;
    EXPECT_THROW(kkperm::spmv_features_raw(kkperm::to_device<Matrix>(h), p), std::invalid_argument) << lanes;
  }
  for (double b : {-1.0, std::nan("")}) {  // stripe_count_bytes_per_nnz: >= 0
    p = kkperm::FeatureParams{};
    p.stripe_count_bytes_per_nnz = b;
    EXPECT_THROW(kkperm::compute_features(kkperm::to_device<Matrix>(h), p), std::invalid_argument) << b;
  }
  auto bad = make(2, 4, {{1, 0}, {2}});
  try {
    kkperm::compute_features(kkperm::to_device<Matrix>(bad));
    FAIL() << "unsorted columns accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kkperm::compute_features"), std::string::npos);
  }
  EXPECT_THROW(kkperm::compute_features_serial(bad), std::invalid_argument);
}

namespace {
void expect_raw_equal(const kkperm::RawSpmvFeatures& a, const kkperm::RawSpmvFeatures& b,
                      const std::string& what) {
  auto eq = [&](const kkperm::detail::IntStat& x, const kkperm::detail::IntStat& y, const char* n) {
    EXPECT_EQ(x.count, y.count) << what << " " << n;
    EXPECT_EQ(x.sum, y.sum) << what << " " << n;
    EXPECT_EQ(x.sumsq, y.sumsq) << what << " " << n;
    if (x.count) {
      EXPECT_EQ(x.min, y.min) << what << " " << n;
      EXPECT_EQ(x.max, y.max) << what << " " << n;
    }
  };
  EXPECT_EQ(a.n_row, b.n_row);
  EXPECT_EQ(a.nnz, b.nnz);
  eq(a.nnz_row, b.nnz_row, "nnz_row");
  eq(a.blocks_row, b.blocks_row, "blocks_row");
  eq(a.warp_load, b.warp_load, "warp_load");
  eq(a.same_line, b.same_line, "same_line");
  eq(a.distinct_lines_warp, b.distinct_lines_warp, "distinct_lines_warp");
  eq(a.total_lines_warp, b.total_lines_warp, "total_lines_warp");
  eq(a.adj_dist, b.adj_dist, "adj_dist");
  eq(a.runs_row, b.runs_row, "runs_row");
  eq(a.run_size, b.run_size, "run_size");
}
}  // namespace

// Integer intermediates are order independent, so device == twin exactly, bit for bit.
TEST(Features, DeviceMatchesSerialTwinOnFreshRandomMatrices) {
  for (int trial = 0; trial < 6; ++trial) {
    const std::uint64_t seed = kkperm::test::fresh_seed();
    const int n = 1 + static_cast<int>(seed % 700);
    const int m = 1 + static_cast<int>((seed >> 12) % 900);
    const auto h = kkperm::test::random_feature_matrix(n, m, seed);
    kkperm::FeatureParams p;
    p.warps_per_block = 1 + static_cast<int>((seed >> 24) % 40);
    p.warp_size = 1 + static_cast<int>((seed >> 32) % 32);
    p.cache_line_bytes = 8 * (1 + static_cast<int>((seed >> 40) % 32));
    // half the trials send rows with more than a few nonzeros down the long-row (team) path
    if (trial % 2 == 1) p.long_row_nnz = 1 + static_cast<int>((seed >> 48) % 12);
    const auto A = kkperm::to_device<Matrix>(h);
    // every row pass: the staged one-lane-per-row pass in each mode (automatic, lanes walking the
    // entries, a thread per row) and lanes sharing a row (2..32; host runs them with one lane, same code path)
    using RP = kkperm::FeatureParams::RowPass;
    const std::pair<int, RP> passes[] = {
        {1, RP::automatic}, {1, RP::entries}, {1, RP::rows}, {2, RP::automatic}, {32, RP::automatic}};
    using LC = kkperm::FeatureParams::LineCounts;
    for (const auto& [lanes, pass] : passes) {
      p.row_lanes = lanes;
      p.row_pass = pass;
      // per-(line, stripe) counters, counts + stripe bitmap, or automatic, rotating over the passes
      const LC modes[] = {LC::stripes, LC::bitmap, LC::automatic};
      p.line_counts = modes[(trial + lanes + static_cast<int>(pass)) % 3];
      // the staged passes with the fewest staged columns (most ranges read in place) and the default
      p.row_stage_cols = (trial % 2 == 0 && lanes == 1) ? 33 : 0;
      for (unsigned sets : {1u, 2u, 3u}) {
        const auto what = "seed " + std::to_string(seed) + " sets " + std::to_string(sets) + " long_row_nnz " +
                          std::to_string(p.long_row_nnz) + " row_lanes " + std::to_string(lanes) + " row_pass " +
                          (pass == RP::rows ? "rows" : pass == RP::entries ? "entries" : "automatic") + " row_stage_cols " +
                          std::to_string(p.row_stage_cols) + " line_counts " +
                          std::to_string(static_cast<int>(p.line_counts));
        const auto dev = kkperm::spmv_features_raw(A, p, sets);
        const auto ser = kkperm::spmv_features_raw_serial(h, p, sets);
        expect_raw_equal(dev, ser, what);
        const auto fd = kkperm::finalize_features(dev, sets);
        const auto fs = kkperm::finalize_features(ser, sets);
        EXPECT_EQ(fd.values, fs.values) << what;
      }
    }
  }
}

namespace {
// detail::row_padded_work added to a device scalar, read back. The scalar starts at an odd
// offset, not zero, so a result written instead of added (or a missing add) fails.
std::int64_t padded_work(std::int64_t n, const Matrix& A, int W) {
  constexpr std::int64_t kStart = 1000003;
  Kokkos::View<std::int64_t, Matrix::memory_space> out("padded");
  Kokkos::deep_copy(out, kStart);
  kkperm::detail::row_padded_work<Matrix::execution_space>(n, A.graph.row_map, W, out.data());
  std::int64_t h = -1;
  Kokkos::deep_copy(h, out);
  return h - kStart;
}
}  // namespace

// Hand-computed: row lengths 1 3 0 2 | 5 in chunks of W = 4 rows -> 4 * 3 + 4 * 5 = 32 (an
// imbalance of 32 / 11); W = 1 -> every row its own chunk -> exactly nnz = 11; no rows -> 0.
TEST(Features, RowImbalanceOfChunks) {
  kkperm::test::TestCsr h;
  h.num_rows = 5;
  h.num_cols = 6;
  h.row_map = {0, 1, 4, 4, 6, 11};
  h.entries = {0, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4};
  h.values.assign(11, 1.0);
  const auto A = kkperm::to_device<Matrix>(h);
  EXPECT_EQ(padded_work(5, A, 4), 32);
  EXPECT_EQ(padded_work(5, A, 1), 11);
  EXPECT_EQ(padded_work(0, A, 4), 0);
  // W = 32 (the chunk width of the device's decision) on a fresh random matrix with a partial
  // last chunk, against the definition evaluated on the host
  const auto seed = kkperm::test::fresh_seed();
  const auto r = kkperm::test::random_feature_matrix(4099 + static_cast<int>(seed % 3000), 700, seed);
  std::int64_t padded = 0;
  for (int c = 0; c * 32 < r.num_rows; ++c) {
    std::int64_t longest = 0;
    for (int i = c * 32; i < std::min(r.num_rows, c * 32 + 32); ++i)
      longest = std::max<std::int64_t>(longest, r.row_map[i + 1] - r.row_map[i]);
    padded += 32 * longest;
  }
  EXPECT_EQ(padded_work(r.num_rows, kkperm::to_device<Matrix>(r), 32), padded) << "seed " << seed;
}

// Hub rows (power-law, dense rows, contiguous runs) on both paths: default threshold and a
// threshold that sends the hubs - and the pairs around them - to the long-row teams.
TEST(Features, LongRowPathMatchesSerialTwin) {
  const auto seed = kkperm::test::fresh_seed();
  std::vector<std::pair<std::string, kkperm::test::TestCsr>> mats = {
      {"power_law", kkperm::gen::power_law(3000, 12.0, 1.9, seed)},
      {"banded", kkperm::gen::banded(2000, 40, 40, 1.0, seed)},
      {"random", kkperm::test::random_feature_matrix(900, 5000, seed, 0.3)}};
  for (const auto& [name, h] : mats) {
    const auto A = kkperm::to_device<Matrix>(h);
    for (int L : {1, 7, 64, 2048}) {
      for (int variant = 0; variant < 3; ++variant) {  // lanes walking entries, a thread per row, 8 lanes per row
        kkperm::FeatureParams p;
        p.long_row_nnz = L;
        p.row_lanes = variant == 2 ? 8 : 1;
        p.row_pass = variant == 1 ? kkperm::FeatureParams::RowPass::rows : kkperm::FeatureParams::RowPass::entries;
        using LC = kkperm::FeatureParams::LineCounts;
        for (auto lc : {LC::stripes, LC::bitmap}) {
          p.line_counts = lc;
          for (unsigned sets : {1u, 2u, 3u}) {
            const auto what = name + " seed " + std::to_string(seed) + " L " + std::to_string(L) + " sets " +
                              std::to_string(sets) + " variant " + std::to_string(variant) + " line_counts " +
                              std::to_string(static_cast<int>(lc));
            expect_raw_equal(kkperm::spmv_features_raw(A, p, sets), kkperm::spmv_features_raw_serial(h, p, sets),
                             what);
          }
        }
      }
    }
  }
}

TEST(Features, DeviceMatchesSerialTwinOnRealMatrices) {
  const auto files = kkperm::test::list_files("real", ".mtx.gz");
  ASSERT_FALSE(files.empty()) << "no real matrices under " << kkperm::test::matrices_dir();
  int done = 0;
  for (const auto& f : files) {
    kkperm::test::TestCsr h;
    try {
      h = kkperm::io::read_matrix_market(kkperm::test::matrices_dir() + "/real/" + f);
    } catch (const kkperm::io::ParseError& e) {  // the reader's own tests own its verdicts
      std::cerr << "[skipped] " << e.what() << "\n";
      continue;
    }
    if (h.nnz() > 2000000) continue;  // keep the serial twin's O(Nw * n_lines) bitmaps small
    const auto A = kkperm::to_device<Matrix>(h);
    const auto ser = kkperm::spmv_features_raw_serial(h, kkperm::FeatureParams{});
    expect_raw_equal(kkperm::spmv_features_raw(A, kkperm::FeatureParams{}), ser, f);
    kkperm::FeatureParams lp;  // every row with more than 4 nonzeros through the long-row path
    lp.long_row_nnz = 4;
    expect_raw_equal(kkperm::spmv_features_raw(A, lp), ser, f + " long_row_nnz 4");
    for (int lanes : {1, 4, 32}) {  // each row pass
      kkperm::FeatureParams vp;
      vp.row_lanes = lanes;
      expect_raw_equal(kkperm::spmv_features_raw(A, vp), ser, f + " row_lanes " + std::to_string(lanes));
    }
    using LC = kkperm::FeatureParams::LineCounts;
    for (auto lc : {LC::stripes, LC::bitmap}) {
      kkperm::FeatureParams cp;  // each way of recording line requests, whatever automatic picks here
      cp.line_counts = lc;
      expect_raw_equal(kkperm::spmv_features_raw(A, cp), ser,
                       f + " line_counts " + std::to_string(static_cast<int>(lc)));
    }
    for (auto pass : {kkperm::FeatureParams::RowPass::entries, kkperm::FeatureParams::RowPass::rows}) {
      const std::string pn = pass == kkperm::FeatureParams::RowPass::rows ? " rows" : " entries";
      kkperm::FeatureParams rp;
      rp.row_pass = pass;
      expect_raw_equal(kkperm::spmv_features_raw(A, rp), ser, f + pn);
      kkperm::FeatureParams sp;  // 33 staged columns: most ranges read in place
      sp.row_pass = pass;
      sp.row_stage_cols = 33;
      expect_raw_equal(kkperm::spmv_features_raw(A, sp), ser, f + pn + " row_stage_cols 33");
    }
    ++done;
  }
  EXPECT_GT(done, 0);
}
