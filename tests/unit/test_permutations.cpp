// Serial reference permutations: definitions on crafted inputs (ties, LPT vs brute force, DCSR
// example, RCM), bijection on fresh random inputs, enum round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "common/test_utils.hpp"
#include "kkperm/permute/build.hpp"
#include "unit/feature_test_matrices.hpp"

namespace {
using kkperm::Permutation;
using kkperm::test::TestCsr;

TestCsr make(int n, int m, std::vector<std::vector<int>> rows) {
  TestCsr h;
  h.num_rows = n;
  h.num_cols = m;
  for (auto& r : rows) {
    for (int c : r) {
      h.entries.push_back(c);
      h.values.push_back(1.0);
    }
    h.row_map.push_back(static_cast<std::int64_t>(h.entries.size()));
  }
  return h;
}
// Row i with `len[i]` nonzeros in columns 0..len-1.
TestCsr by_lengths(const std::vector<int>& len, int m) {
  std::vector<std::vector<int>> rows;
  for (int l : len) {
    rows.emplace_back(l);
    std::iota(rows.back().begin(), rows.back().end(), 0);
  }
  return make(static_cast<int>(len.size()), m, rows);
}
kkperm::PermuteParams params(int nt, int nw, int line_bytes = 128) {
  kkperm::PermuteParams p;
  p.feature.warp_size = nt;
  p.feature.warps_per_block = nw;
  p.feature.cache_line_bytes = line_bytes;
  p.hamming = kkperm::HammingMode::exact;
  return p;
}
using Perm = std::vector<int>;
}  // namespace

TEST(Permutation, NamesRoundTripAndRejectUnknown) {
  for (auto p : kkperm::all_permutations()) EXPECT_EQ(kkperm::permutation_from_string(kkperm::to_string(p)), p);
  EXPECT_EQ(kkperm::all_permutations().size(), 12u);
  EXPECT_THROW(kkperm::permutation_from_string("plain"), std::invalid_argument);
}

TEST(Permutation, EveryKindIsABijectionOnFreshRandomInputs) {
  for (int trial = 0; trial < 4; ++trial) {
    const auto seed = kkperm::test::fresh_seed();
    const int n = 1 + static_cast<int>(seed % 150);
    const auto h = kkperm::test::random_feature_matrix(n, n, seed);
    for (auto kind : kkperm::all_permutations()) {
      const auto r = kkperm::build_permutation_serial(h, kind, params(4, 1 + static_cast<int>((seed >> 20) % 9)));
      ASSERT_EQ(r.perm.size(), static_cast<std::size_t>(n)) << kkperm::to_string(kind);
      std::vector<int> sorted = r.perm;
      std::sort(sorted.begin(), sorted.end());
      for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i) << kkperm::to_string(kind) << " seed " << seed;
      for (int i = 0; i < n; ++i) ASSERT_EQ(r.perm[r.inverse[i]], i);
    }
  }
}

TEST(Permutation, PlainSortIsStableDescendingAndFlippedReversesOddGroups) {
  // loads with Nt = 2: 1, 2, 1, 3, 2, 1, 2
  const auto h = by_lengths({1, 4, 2, 6, 3, 1, 4}, 8);
  const auto plain = kkperm::build_permutation_serial(h, Permutation::plain_sort, params(2, 3)).perm;
  EXPECT_EQ(plain, (Perm{3, 1, 4, 6, 0, 2, 5}));
  const auto flip = kkperm::build_permutation_serial(h, Permutation::flipped_sort, params(2, 3)).perm;
  EXPECT_EQ(flip, (Perm{3, 1, 4, 2, 0, 6, 5}));  // group 1 (positions 3..5) reversed
}

namespace {
std::int64_t max_warp_load(const std::vector<std::int64_t>& load, const Perm& perm, int nw) {
  const auto w = kkperm::warp_loads_of(load, perm, nw);
  return *std::max_element(w.begin(), w.end());
}
}  // namespace

// For n <= 2 Nw every stripe holds at most two rows; then LPT's pairing (largest rows alone,
// remaining ones paired largest-with-smallest) is optimal, so it must match brute force over all
// n! orders exactly. For larger n LPT is only a heuristic: it can never beat brute force.
TEST(Permutation, LptMaxWarpLoadEqualsBruteForceOnTinyInputs) {
  for (int trial = 0; trial < 30; ++trial) {
    const auto seed = kkperm::test::fresh_seed();
    const int nw = 2 + static_cast<int>(seed % 3);
    const int n = 1 + static_cast<int>((seed >> 8) % 8);
    std::vector<int> len(n);
    for (int i = 0; i < n; ++i) len[i] = static_cast<int>((seed >> (3 * i + 16)) % 8);
    const auto h = by_lengths(len, 8);
    const auto load = kkperm::row_loads(h, 1);
    const auto lpt = kkperm::build_permutation_serial(h, Permutation::lpt, params(1, nw)).perm;
    Perm p(n);
    std::iota(p.begin(), p.end(), 0);
    std::int64_t best = max_warp_load(load, p, nw);
    do best = std::min(best, max_warp_load(load, p, nw));
    while (std::next_permutation(p.begin(), p.end()));
    const auto got = max_warp_load(load, lpt, nw);
    if (n <= 2 * nw) EXPECT_EQ(got, best) << "seed " << seed << " n " << n << " nw " << nw;
    else EXPECT_GE(got, best);
  }
}

TEST(Permutation, LptPlacesEachWarpsRowsOnItsStripe) {
  // loads 5,4,3,3,2,2,1 with Nw = 3 (B = 3, r = 1): greedy -> warps {5,2,1}? check stripes
  const auto h = by_lengths({5, 4, 3, 3, 2, 2, 1}, 8);
  const auto lpt = kkperm::build_permutation_serial(h, Permutation::lpt, params(1, 3)).perm;
  const auto load = kkperm::row_loads(h, 1);
  const auto w = kkperm::warp_loads_of(load, lpt, 3);
  // total 20 over 3 warps: optimum max 7 (5+2, 4+3, 3+2+1 -> 6 with 3 rows on warp 0)
  EXPECT_LE(*std::max_element(w.begin(), w.end()), 7);
  EXPECT_EQ(std::accumulate(w.begin(), w.end(), std::int64_t(0)), 20);
}

// cpl = 1 (8-byte lines of doubles) so masks are the column sets themselves.
TEST(Permutation, CtaAwareFollowsNearestRowAndSeedsEachCluster) {
  const auto h = make(5, 6, {{0, 1}, {4, 5}, {3, 4, 5}, {0, 1, 2}, {2}});
  const auto p = kkperm::build_permutation_serial(h, Permutation::cta_aware, params(32, 3, 8)).perm;
  // cluster 0: seed 0; nearest to {0,1}: row 3 (d=1); nearest to {0,1,2}: row 4 (d=2) vs row 1
  // (d=5) vs row 2 (d=6); cluster 1: seed = lowest unplaced = 1, then row 2.
  EXPECT_EQ(p, (Perm{0, 3, 4, 1, 2}));
}

TEST(Permutation, WarpAwareStartsWithLowestLoadsAndFollowsRowMinusNw) {
  const auto h = make(5, 6, {{0, 1, 2}, {5}, {0, 1, 2, 3}, {4}, {4, 5}});
  // Nt = 1: loads 3,1,4,1,2; Nw = 2: first rows 1 (load 1), 3 (load 1); position 2 near row 1 {5}:
  // row 4 (d=1); position 3 near row 3 {4}: unplaced {0,2}: d=4 vs 5 -> row 0; position 4: row 2
  const auto p = kkperm::build_permutation_serial(h, Permutation::warp_aware, params(1, 2, 8)).perm;
  EXPECT_EQ(p, (Perm{1, 3, 4, 0, 2}));
}

TEST(Permutation, HybridTieBreaksDoWhatTheirDefinitionsSay) {
  // cpl = 1, Nt = 1 (load = row length). Rows 1 {1}, 2 {2}, 3 {0,5,6} are all at distance 2
  // from row 0 {0}.
  const auto h = make(5, 8, {{0}, {1}, {2}, {0, 5, 6}, {1, 7}});
  // cta_aware, one cluster (Nw = 5): seed 0, then the 3-way tie goes to the lowest index (1).
  EXPECT_EQ(kkperm::build_permutation_serial(h, Permutation::cta_aware, params(1, 5, 8)).perm[1], 1);
  // hybrid_2_1: the same tie goes to the larger load: row 3 (load 3).
  EXPECT_EQ(kkperm::build_permutation_serial(h, Permutation::hybrid_2_1, params(1, 5, 8)).perm[1], 3);

  // hybrid_2_2, Nw = 2: rows 0 {0}, 1 {3}, 2 {3,5}, 3 {0,9}, 4 {3,9}. p0 seed 0; p1 nearest to
  // {0}: row 3 (d=1); p2 seeds cluster 1 with the lowest unplaced row 1 {3}; p3: rows 2 and 4 are
  // both at d=1 from {3}. cta_aware takes the lower index (2); hybrid_2_2 compares with the
  // intra-warp row p3-Nw = p1 = row 3 {0,9}: d(row 2) = 4, d(row 4) = 2 -> row 4.
  const auto w = make(5, 10, {{0}, {3}, {3, 5}, {0, 9}, {3, 9}});
  EXPECT_EQ(kkperm::build_permutation_serial(w, Permutation::cta_aware, params(1, 2, 8)).perm,
            (Perm{0, 3, 1, 2, 4}));
  EXPECT_EQ(kkperm::build_permutation_serial(w, Permutation::hybrid_2_2, params(1, 2, 8)).perm,
            (Perm{0, 3, 1, 4, 2}));

  // hybrid_2_3, Nw = 1: p0 = lowest load (row 0 {0}, load 1, lower index than row 1); p1: rows 1
  // {1} and 3 {0,1,5} are both at d=2 from {0} -> warp_aware takes row 1 (index), hybrid_2_3
  // row 3 (load 3 > 1).
  const auto y = make(4, 10, {{0}, {1}, {2, 3, 4}, {0, 1, 5}});
  EXPECT_EQ(kkperm::build_permutation_serial(y, Permutation::warp_aware, params(1, 1, 8)).perm[1], 1);
  EXPECT_EQ(kkperm::build_permutation_serial(y, Permutation::hybrid_2_3, params(1, 1, 8)).perm[1], 3);
}

TEST(Permutation, Hybrid1SortsByLoadAndBreaksLoadTiesByAdjacentDistance) {
  // Nt = 1. loads: row0 2 {0,1}, row1 1 {7}, row2 2 {6,7}, row3 1 {0}, row4 2 {0,2}
  const auto h = make(5, 8, {{0, 1}, {7}, {6, 7}, {0}, {0, 2}});
  const auto p = kkperm::build_permutation_serial(h, Permutation::hybrid_1, params(1, 32, 8)).perm;
  // load 2 group: first = row 0; next nearest to {0,1}: row4 {0,2} d=2 vs row2 d=4 -> 4; then 2.
  // load 1 group: nearest to row 2 {6,7}: row1 {7} d=1 vs row3 {0} d=3 -> 1; then 3.
  EXPECT_EQ(p, (Perm{0, 4, 2, 1, 3}));
  const auto plain = kkperm::build_permutation_serial(h, Permutation::plain_sort, params(1, 32, 8)).perm;
  EXPECT_EQ(plain, (Perm{0, 2, 4, 1, 3}));
}

TEST(Permutation, DcsrOfTheFourByFourExample) {
  const auto h = make(4, 4, {{1, 3}, {}, {}, {0}});
  std::vector<std::int64_t> offs;
  std::vector<int> ids;
  kkperm::dcsr_serial(h, offs, ids);
  EXPECT_EQ(h.row_map, (std::vector<std::int64_t>{0, 2, 2, 2, 3}));
  EXPECT_EQ(offs, (std::vector<std::int64_t>{0, 2, 3}));
  EXPECT_EQ(ids, (Perm{0, 3}));
  const auto r = kkperm::build_permutation_serial(h, Permutation::dcsr);
  EXPECT_EQ(r.perm, (Perm{0, 3, 1, 2}));
  EXPECT_EQ(r.num_nonempty, 2);
}

TEST(Permutation, RcmRecoversABandFromAShuffledBandedMatrix) {
  const auto seed = kkperm::test::fresh_seed();
  const int n = 300;
  std::vector<int> shuffle(n);
  std::iota(shuffle.begin(), shuffle.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(shuffle.begin(), shuffle.end(), rng);
  std::vector<std::vector<int>> rows(n);
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - 2); j <= std::min(n - 1, i + 2); ++j) rows[shuffle[i]].push_back(shuffle[j]);
  for (auto& r : rows) std::sort(r.begin(), r.end());
  const auto h = make(n, n, rows);
  const auto r = kkperm::build_permutation_serial(h, Permutation::rcm);
  EXPECT_TRUE(r.symmetric);
  Perm id(n);
  std::iota(id.begin(), id.end(), 0);
  EXPECT_GT(kkperm::permuted_bandwidth(h, id), 20) << "seed " << seed;
  EXPECT_LE(kkperm::permuted_bandwidth(h, r.perm), 4) << "seed " << seed;
  EXPECT_THROW(kkperm::build_permutation_serial(make(1, 2, {{0}}), Permutation::rcm), std::invalid_argument);
}
