#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <type_traits>

#include "common/test_utils.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/io/matrix_market.hpp"

namespace {
using Matrix = kkperm::DefaultCrs;

kkperm::HostCsr<double, int, int> small() {
  // 3 x 4: row 0 {0, 2}, row 1 {}, row 2 {1, 3}
  kkperm::HostCsr<double, int, int> h;
  h.num_rows = 3;
  h.num_cols = 4;
  h.row_map = {0, 2, 2, 4};
  h.entries = {0, 2, 1, 3};
  h.values = {1.0, 2.0, 3.0, 4.0};
  return h;
}
}  // namespace

TEST(CrsUtils, RoundTripHostDeviceHost) {
  const auto h = small();
  const auto A = kkperm::to_device<Matrix>(h);
  EXPECT_EQ(A.numRows(), 3);
  EXPECT_EQ(A.numCols(), 4);
  EXPECT_EQ(A.nnz(), 4);
  const auto back = kkperm::to_host(A);
  EXPECT_EQ(back.row_map, h.row_map);
  EXPECT_EQ(back.entries, h.entries);
  EXPECT_EQ(back.values, h.values);
  EXPECT_TRUE(kkperm::check_crs(A).ok());
}

TEST(CrsUtils, ValidateNamesUnsortedDuplicateAndOutOfRangeRows) {
  auto h = small();
  h.entries = {2, 0, 1, 3};
  auto c = kkperm::check_crs(kkperm::to_device<Matrix>(h));
  EXPECT_EQ(c.first_bad_row, 0);
  EXPECT_NE(c.problem.find("unsorted"), std::string::npos) << c.problem;
  EXPECT_TRUE(kkperm::check_crs(kkperm::to_device<Matrix>(h), /*require_sorted=*/false).ok());

  h = small();
  h.entries = {0, 2, 3, 3};
  c = kkperm::check_crs(kkperm::to_device<Matrix>(h));
  EXPECT_EQ(c.first_bad_row, 2);
  EXPECT_NE(c.problem.find("duplicate"), std::string::npos) << c.problem;

  h = small();
  h.entries = {0, 2, 1, 4};
  c = kkperm::check_crs(kkperm::to_device<Matrix>(h));
  EXPECT_EQ(c.first_bad_row, 2);
  EXPECT_NE(c.problem.find("outside"), std::string::npos) << c.problem;
  EXPECT_THROW(kkperm::validate(kkperm::to_device<Matrix>(h), "kkperm::test"),
               std::invalid_argument);
}

TEST(CrsUtils, ToDeviceRejectsOffsetOverflowAndBadSizes) {
  auto h = small();
  h.row_map.pop_back();
  EXPECT_THROW(kkperm::to_device<Matrix>(h), std::invalid_argument);
  h = small();
  h.values.pop_back();
  EXPECT_THROW(kkperm::to_device<Matrix>(h), std::invalid_argument);
  kkperm::HostCsr<double, std::int64_t, std::int64_t> big;
  big.num_rows = std::int64_t(1) << 32;  // does not fit an int ordinal
  big.num_cols = 1;
  big.row_map.assign(1, 0);
  EXPECT_THROW(kkperm::to_device<Matrix>(big), std::invalid_argument);
}

// ---- more shapes, types (via kkperm::io) and every check_crs problem --------------------------
namespace {
template <class M>
void expect_round_trip(const kkperm::HostCsr<double, int, std::int64_t>& h) {
  const auto A = kkperm::to_device<M>(h);
  EXPECT_EQ(A.numRows(), h.num_rows);
  EXPECT_EQ(A.numCols(), h.num_cols);
  EXPECT_EQ(static_cast<std::int64_t>(A.nnz()), h.nnz());
  const auto back = kkperm::to_host(A);
  ASSERT_EQ(back.row_map.size(), h.row_map.size());
  for (std::size_t i = 0; i < h.row_map.size(); ++i)
    ASSERT_EQ(static_cast<std::int64_t>(back.row_map[i]), h.row_map[i]);
  ASSERT_EQ(back.entries.size(), h.entries.size());
  for (std::size_t k = 0; k < h.entries.size(); ++k) {
    ASSERT_EQ(static_cast<int>(back.entries[k]), h.entries[k]);
    // float targets round each value once: |fl(v) - v| <= 2^-24 |v|.
    using V = typename M::non_const_value_type;
    const double tol = std::is_same_v<V, float> ? std::ldexp(std::fabs(h.values[k]), -24) : 0.0;
    ASSERT_NEAR(static_cast<double>(back.values[k]), h.values[k], tol);
  }
  EXPECT_TRUE(kkperm::check_crs(A).ok()) << kkperm::check_crs(A).problem;
}
}  // namespace

TEST(CrsUtils, RoundTripRealMatricesAcrossTypes) {
  using F32I64 = kkperm::Crs<float, int, kkperm::DefaultDevice, std::int64_t>;
  using L64 = kkperm::Crs<double, std::int64_t, kkperm::DefaultDevice, std::int64_t>;
  using HostSide = kkperm::Crs<double, int, kkperm::HostDevice, int>;
  const std::string dir = kkperm::test::matrices_dir() + "/real/";
  for (const char* f : {"bcsstk13.mtx.gz", "lp_e226.mtx.gz", "a00.mtx.gz", "a01.mtx.gz",
                        "a10.mtx.gz", "empty.mtx.gz", "arrow__suitesparse.mtx.gz"}) {
    SCOPED_TRACE(f);
    const auto h = kkperm::io::read_matrix_market(dir + f);
    expect_round_trip<Matrix>(h);
    expect_round_trip<F32I64>(h);
    expect_round_trip<L64>(h);
    expect_round_trip<HostSide>(h);
  }
}

TEST(CrsUtils, CheckCrsNamesEveryStructuralProblem) {
  // Build matrices whose arrays are inconsistent directly (to_device refuses most of these).
  using rowmap_t = Matrix::row_map_type::non_const_type;
  using entries_t = Matrix::index_type::non_const_type;
  using values_t = Matrix::values_type::non_const_type;
  auto make = [](std::vector<int> rm, std::vector<int> ent, int ncols) {
    rowmap_t r("r", rm.size());
    entries_t e("e", ent.size());
    values_t v("v", ent.size());
    auto hr = Kokkos::create_mirror_view(r);
    auto he = Kokkos::create_mirror_view(e);
    for (std::size_t i = 0; i < rm.size(); ++i) hr(i) = rm[i];
    for (std::size_t i = 0; i < ent.size(); ++i) he(i) = ent[i];
    Kokkos::deep_copy(r, hr);
    Kokkos::deep_copy(e, he);
    return Matrix("m", static_cast<int>(rm.size()) - 1, ncols, static_cast<int>(ent.size()), v, r,
                  e);
  };
  auto c = kkperm::check_crs(make({1, 2, 3}, {0, 1, 2}, 3));
  EXPECT_NE(c.problem.find("row_map(0) is 1"), std::string::npos) << c.problem;
  c = kkperm::check_crs(make({0, 2, 2}, {0, 1, 2}, 3));
  EXPECT_NE(c.problem.find("row_map(n) = 2 but entries has 3"), std::string::npos) << c.problem;
  c = kkperm::check_crs(make({0, 3, 1, 3}, {0, 1, 2}, 3));
  EXPECT_EQ(c.first_bad_row, 1);
  EXPECT_NE(c.problem.find("not monotone at row 1"), std::string::npos) << c.problem;
  c = kkperm::check_crs(make({0, 2, 3}, {1, -1, 0}, 3));
  EXPECT_EQ(c.first_bad_row, 0);
  EXPECT_NE(c.problem.find("column -1 outside [0, 3)"), std::string::npos) << c.problem;
  EXPECT_TRUE(kkperm::check_crs(make({0, 0, 0}, {}, 0)).ok());  // 2 x 0, no entries
  try {
    kkperm::validate(make({0, 2, 3}, {1, 1, 0}, 3), "kkperm::caller");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind(
            "kkperm::caller: invalid matrix (2 x 3, nnz 3): row 0 has a duplicate column 1", 0),
        0u)
        << e.what();
  }
}

namespace {
// n x m, each entry present with probability 1 / one_in (sorted, unique, values 1)
kkperm::HostCsr<double, int, int> bernoulli_csr(int n, int m, int one_in, std::mt19937_64& rng) {
  kkperm::HostCsr<double, int, int> h;
  h.num_rows = n;
  h.num_cols = m;
  h.row_map.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j)
      if (rng() % one_in == 0) {
        h.entries.push_back(j);
        h.values.push_back(1.0);
      }
    h.row_map.push_back(static_cast<int>(h.entries.size()));
  }
  return h;
}
}  // namespace

// validate_pair (one wait for two matrices): both valid passes; a bad A, a bad B, both bad, a
// shape problem and an empty matrix give exactly validate's message for the right matrix (A's
// first when both are bad); the sortedness flag applies to both.
TEST(CrsUtils, ValidatePairReportsLikeValidate) {
  const auto seed = kkperm::test::fresh_seed();
  RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto random = [&](int n, int m) { return bernoulli_csr(n, m, 7, rng); };
  const auto message = [](const auto& f) -> std::string {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  auto hA = random(200, 150), hB = random(150, 90);
  ASSERT_GT(hA.entries.size(), 10u);
  ASSERT_GT(hB.entries.size(), 10u);
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  EXPECT_NO_THROW(kkperm::validate_pair(A, "who A", B, "who B"));
  EXPECT_NO_THROW(kkperm::validate_pair(A, "who A", A, "who B"));  // the same matrix twice (A²)
  auto badA = hA, badB = hB;
  badA.entries[badA.entries.size() / 2] = 150;  // out of range
  const int r = badB.num_rows / 2;
  int k = -1;
  for (int i = r; i < badB.num_rows && k < 0; ++i)
    if (badB.row_map[i + 1] - badB.row_map[i] >= 2) k = badB.row_map[i];
  ASSERT_GE(k, 0);
  std::swap(badB.entries[k], badB.entries[k + 1]);  // unsorted (fine when unsorted is allowed)
  const auto dA = kkperm::to_device<Matrix>(badA), dB = kkperm::to_device<Matrix>(badB);
  const std::string wantA = message([&] { kkperm::validate(dA, "who A"); });
  const std::string wantB = message([&] { kkperm::validate(dB, "who B"); });
  EXPECT_NE(wantA, "accepted");
  EXPECT_NE(wantB.find("unsorted"), std::string::npos) << wantB;
  EXPECT_EQ(message([&] { kkperm::validate_pair(dA, "who A", B, "who B"); }), wantA);
  EXPECT_EQ(message([&] { kkperm::validate_pair(A, "who A", dB, "who B"); }), wantB);
  EXPECT_EQ(message([&] { kkperm::validate_pair(dA, "who A", dB, "who B"); }), wantA);
  EXPECT_EQ(message([&] { kkperm::validate_pair(dA, "who A", dA, "who B"); }), wantA);
  EXPECT_NO_THROW(kkperm::validate_pair(A, "who A", dB, "who B", /*require_sorted=*/false));
  EXPECT_EQ(message([&] { kkperm::validate_pair(dA, "who A", dB, "who B", false); }), wantA);
  // Without the sorted check the rows and entries of both matrices share one launch: a bad row
  // and a bad column in each matrix, each found and named as validate names it.
  auto colB = hB, rowA = hA, rowB = hB;
  colB.entries[colB.entries.size() - 1] = -3;  // B's last entry: out of range
  const int ra = rowA.num_rows / 3, rb = rowB.num_rows - 2;
  rowA.row_map[ra + 1] = rowA.row_map[ra] - 1;  // A's row map decreases at ra
  rowB.row_map[rb + 1] = static_cast<int>(rowB.entries.size()) + 5;  // past nnz at rb
  const auto dColB = kkperm::to_device<Matrix>(colB), dRowA = kkperm::to_device<Matrix>(rowA),
             dRowB = kkperm::to_device<Matrix>(rowB);
  for (const bool sorted : {false, true}) {
    SCOPED_TRACE(sorted ? "sorted" : "unsorted");
    const std::string wColB = message([&] { kkperm::validate(dColB, "who B", sorted); });
    const std::string wRowA = message([&] { kkperm::validate(dRowA, "who A", sorted); });
    const std::string wRowB = message([&] { kkperm::validate(dRowB, "who B", sorted); });
    EXPECT_NE(wColB.find("column -3"), std::string::npos) << wColB;
    EXPECT_NE(wRowA.find("not monotone at row " + std::to_string(ra)), std::string::npos) << wRowA;
    EXPECT_NE(wRowB.find("row " + std::to_string(rb)), std::string::npos) << wRowB;
    EXPECT_EQ(message([&] { kkperm::validate_pair(A, "who A", dColB, "who B", sorted); }), wColB);
    EXPECT_EQ(message([&] { kkperm::validate_pair(dRowA, "who A", B, "who B", sorted); }), wRowA);
    EXPECT_EQ(message([&] { kkperm::validate_pair(A, "who A", dRowB, "who B", sorted); }), wRowB);
    EXPECT_EQ(message([&] { kkperm::validate_pair(dRowA, "who A", dColB, "who B", sorted); }), wRowA);
  }
  // a shape problem (values one shorter than entries) and an empty matrix
  const auto shortB = Matrix("short", B.numRows(), B.numCols(), B.nnz(),
                             Kokkos::subview(B.values, std::make_pair(0, B.nnz() - 1)), B.graph.row_map,
                             B.graph.entries);
  const std::string wantShort = message([&] { kkperm::validate(shortB, "who B"); });
  EXPECT_NE(wantShort.find("but values has"), std::string::npos) << wantShort;
  EXPECT_EQ(message([&] { kkperm::validate_pair(A, "who A", shortB, "who B"); }), wantShort);
  const auto E = kkperm::to_device<Matrix>(random(0, 0));
  EXPECT_NO_THROW(kkperm::validate_pair(E, "who A", E, "who B"));
  EXPECT_EQ(message([&] { kkperm::validate_pair(E, "who A", dB, "who B"); }), wantB);
}

// PairCheck: the structure hash its checks add from their reads equals the formula of
// core/structure_hash.hpp summed on the host (both matrices' arrays, their salts, xor mix64 of
// the length), with and without the sorted check (one launch or two) and for B = A (one read,
// both matrices' terms); the verdicts read back by the caller (check(words)) decide as check()
// does; shape problems and empty matrices are decided at once and not hashed.
TEST(CrsUtils, PairCheckHashesWhatItReadsAndDecidesLate) {
  using kkperm::detail::PairCheck;
  const auto seed = kkperm::test::fresh_seed();
  RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  using exec_t = Matrix::execution_space;
  const auto host_hash = [](const kkperm::HostCsr<double, int, int>& a, const kkperm::HostCsr<double, int, int>& b) {
    std::uint64_t h = 0;
    const auto add = [&](const std::vector<int>& arr, std::uint32_t salt) {
      for (std::size_t q = 0; q < arr.size(); ++q)
        h += kkperm::detail::index_hash(q, static_cast<std::uint64_t>(arr[q]), salt);
    };
    add(a.entries, kkperm::detail::kSaltEntriesA);
    add(a.row_map, kkperm::detail::kSaltRowMapA);
    add(b.entries, kkperm::detail::kSaltEntriesB);
    add(b.row_map, kkperm::detail::kSaltRowMapB);
    const std::uint64_t len = a.entries.size() + a.row_map.size() + b.entries.size() + b.row_map.size();
    return h ^ kkperm::detail::mix64(len);
  };
  Kokkos::View<std::int64_t*, Matrix::device_type> slots("kkperm::test::hash_slots", kkperm::detail::kHashSlots);
  const auto device_hash = [&](const kkperm::HostCsr<double, int, int>& a, const kkperm::HostCsr<double, int, int>& b) {
    std::int64_t hs[kkperm::detail::kHashSlots];
    kkperm::detail::read_back<exec_t>(hs, slots.data(), kkperm::detail::kHashSlots, "test");
    return kkperm::detail::structure_hash_finish(
        hs, static_cast<std::int64_t>(a.entries.size() + a.row_map.size() + b.entries.size() + b.row_map.size()));
  };
  // several teams of 256 threads on CUDA: 3 000 rows, ~430 k entries
  const auto hA = bernoulli_csr(3000, 1000, 7, rng), hB = bernoulli_csr(1000, 700, 5, rng);
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  for (const bool sorted : {false, true}) {
    SCOPED_TRACE(sorted ? "sorted" : "unsorted");
    Kokkos::deep_copy(slots, 0);
    PairCheck<Matrix> pc(A, "who A", B, "who B", sorted, slots.data());
    EXPECT_TRUE(pc.hashed());
    ASSERT_NE(pc.verdict_words(), nullptr);
    std::uint64_t words[4] = {9, 9, 9, 9};
    kkperm::detail::read_back<exec_t>(words, pc.verdict_words(), 4, "test");
    EXPECT_EQ(words[0] | words[1] | words[2] | words[3], 0u);
    EXPECT_NO_THROW(pc.check(words));
    EXPECT_EQ(pc.verdict_words(), nullptr);
    EXPECT_NO_THROW(pc.check());  // decided: a no-op
    EXPECT_EQ(device_hash(hA, hB), host_hash(hA, hB));
    Kokkos::deep_copy(slots, 0);
    PairCheck<Matrix> same(A, "who A", A, "who B", sorted, slots.data());  // A²: one read, both terms
    EXPECT_TRUE(same.hashed());
    same.check();
    EXPECT_EQ(device_hash(hA, hA), host_hash(hA, hA));
  }
  {  // without slots: no hash, the same verdicts
    PairCheck<Matrix> pc(A, "who A", B, "who B", false);
    EXPECT_FALSE(pc.hashed());
    EXPECT_NO_THROW(pc.check());
  }
  // a bad B decided late: the caller's words carry the verdict, the message is validate's
  auto badB = hB;
  badB.entries[badB.entries.size() - 2] = 700;  // out of range
  const auto dB = kkperm::to_device<Matrix>(badB);
  std::string want;
  try {
    kkperm::validate(dB, "who B", false);
  } catch (const std::invalid_argument& e) {
    want = e.what();
  }
  ASSERT_FALSE(want.empty());
  Kokkos::deep_copy(slots, 0);
  PairCheck<Matrix> late(A, "who A", dB, "who B", false, slots.data());
  std::uint64_t words[4] = {0, 0, 0, 0};
  kkperm::detail::read_back<exec_t>(words, late.verdict_words(), 4, "test");
  EXPECT_NE(words[2] | words[3], 0u);
  try {
    late.check(words);
    ADD_FAILURE() << "a column outside B accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), want);
  }
  // an empty A: decided in the constructor, nothing pending, not hashed
  const auto E = kkperm::to_device<Matrix>(bernoulli_csr(0, 0, 7, rng));
  PairCheck<Matrix> empty(E, "who A", E, "who B", false, slots.data());
  EXPECT_FALSE(empty.hashed());
  EXPECT_EQ(empty.verdict_words(), nullptr);
  EXPECT_THROW(PairCheck<Matrix>(E, "who A", dB, "who B", false, slots.data()), std::invalid_argument);
}

TEST(CrsUtils, CheckCrsFindsTheFirstBadRowOfRandomMatrices) {
  const auto seed = kkperm::test::fresh_seed();
  RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " trial " + std::to_string(trial));
    const int n = 1 + static_cast<int>(rng() % 300), m = 1 + static_cast<int>(rng() % 300);
    auto h = bernoulli_csr(n, m, 10, rng);
    ASSERT_TRUE(kkperm::check_crs(kkperm::to_device<Matrix>(h)).ok());
    if (h.entries.size() < 2) continue;
    // Damage one entry; the reported row must be the row holding the first damaged position.
    const auto k = static_cast<int>(rng() % h.entries.size());
    int row = 0;
    while (h.row_map[row + 1] <= k) ++row;
    const int len = h.row_map[row + 1] - h.row_map[row];
    const bool out_of_range = len < 2 || rng() % 2 == 0;
    if (out_of_range)
      h.entries[k] = m + static_cast<int>(rng() % 5);
    else
      h.entries[k] = h.entries[k == h.row_map[row] ? k + 1 : k - 1];  // duplicate a neighbour
    const auto c = kkperm::check_crs(kkperm::to_device<Matrix>(h));
    EXPECT_EQ(c.first_bad_row, row);
    EXPECT_NE(c.problem.find(out_of_range ? "outside" : "duplicate"), std::string::npos)
        << c.problem;
  }
}
