// Every SpGEMM candidate of the registry vs the serial reference, numeric reuse, input policy,
// runaway guard and registry names.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "kkperm/core/launch_trace.hpp"
#include "kkperm/select/spgemm_candidates.hpp"
#include "kernels/spgemm_test_helpers.hpp"

namespace {
using namespace kkperm::test::spgemm;
using kkperm::SpgemmCandidate;
using kkperm::spgemm::reference_multiply;

void check_all(const Host& hA, const Host& hB, const std::string& what, const kkperm::SpgemmPlanOptions& o = {}) {
  const auto ref = reference_multiply(hA, hB);
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  for (auto c : kkperm::spgemm_candidates()) {
    auto plan = kkperm::make_spgemm_plan<Matrix>(c, o);
    plan->symbolic(A, B);
    Kokkos::deep_copy(plan->C().values, kkperm::test::poison<double>());
    plan->numeric(A, B);
    EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), ref,
                                  what + " [" + kkperm::to_string(c) + "]"));
  }
}
}  // namespace

TEST(SpgemmCandidates, EveryCandidateMatchesReference) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto A = random_csr(250, 250, 0, 15, seed);
  check_all(A, A, "A^2");
  const auto R = random_csr(90, 250, 0, 40, seed + 1);
  const auto P = random_csr(250, 60, 1, 3, seed + 2);
  check_all(A, P, "AP");
  check_all(R, A, "RA");
  check_all(random_csr(40, 30, 0, 2, seed + 3), random_csr(30, 20, 0, 1, seed + 4), "sparse");
  check_all(random_csr(6, 5, 0, 0, 1), random_csr(5, 4, 1, 2, seed), "empty A");
  check_all(random_csr(0, 0, 0, 0, 1), random_csr(0, 0, 0, 0, 1), "0x0");
  // Zero inner / outer dimensions (KK's CUDA symbolic divides by the row count: KkSpgemm answers
  // these itself).
  check_all(random_csr(0, 7, 0, 0, 1), random_csr(7, 5, 1, 2, seed + 5), "0 rows");
  check_all(random_csr(6, 0, 0, 0, 1), random_csr(0, 5, 0, 0, 1), "k = 0");
  check_all(random_csr(6, 5, 1, 3, seed + 6), random_csr(5, 0, 0, 0, 1), "0 columns");
}

// The byte floor of C = A·B counts each of A, B and C once (row offsets, columns, values): here
// against the byte sizes of the host arrays of a product made by the candidates' reference.
TEST(SpgemmCandidates, ByteFloorCountsEachMatrixOnce) {
  const auto seed = kkperm::test::fresh_seed();
  const Host hA = random_csr(70, 40, 0, 9, seed), hB = random_csr(40, 55, 1, 6, seed + 1);
  const Host hC = reference_multiply(hA, hB).C;
  const auto bytes = [](const Host& h) {
    return static_cast<double>(h.row_map.size() * sizeof(int) + h.entries.size() * sizeof(int) +
                               h.values.size() * sizeof(double));
  };
  const double want = bytes(hA) + bytes(hB) + bytes(hC);
  EXPECT_EQ(kkperm::spgemm_byte_floor(kkperm::to_device<Matrix>(hA), kkperm::to_device<Matrix>(hB),
                                      kkperm::to_device<Matrix>(hC)),
            want);
  // 64-bit offsets count 8 bytes a row offset; empty operands still count their row offsets
  EXPECT_EQ(kkperm::spgemm_byte_floor(70, 100, 40, 50, 30, 8, 4, 8), 71.0 * 8 + 100 * 12 + 41.0 * 8 + 50 * 12 + 71.0 * 8 + 30 * 12);
  EXPECT_EQ(kkperm::spgemm_byte_floor(0, 0, 0, 0, 0, 8, 4, 4), 12.0);
}

TEST(SpgemmCandidates, KkCandidatesAreOfferedOnThisBuild) {
  // KK 3.4's SpGEMM is part of the menu on Serial and, with cmake/patches/0005 in KK, on CUDA
  // (configure with -DKKPERM_DISABLE_KK_SPGEMM_ON_CUDA=ON only for comparison runs).
  bool kk = false, kk_memory = false;
  for (auto c : kkperm::spgemm_candidates()) {
    kk = kk || c == SpgemmCandidate::kk_spgemm_kk;
    kk_memory = kk_memory || c == SpgemmCandidate::kk_spgemm_kk_memory;
  }
  EXPECT_TRUE(kk) << "kk_spgemm_kk is not offered on this build";
  EXPECT_TRUE(kk_memory) << "kk_spgemm_kk_memory is not offered on this build";
}

TEST(SpgemmCandidates, NumericReuseAfterValueChangeEqualsFreshProduct) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto [hA, hB, hA2, hB2] = revalued_pair(180, 160, 170, 12, 12, seed);
  const auto ref2 = reference_multiply(hA2, hB2);
  for (auto c : kkperm::spgemm_candidates()) {
    auto plan = kkperm::make_spgemm_plan<Matrix>(c);
    plan->symbolic(kkperm::to_device<Matrix>(hA), kkperm::to_device<Matrix>(hB));
    plan->numeric(kkperm::to_device<Matrix>(hA), kkperm::to_device<Matrix>(hB));
    Kokkos::deep_copy(plan->C().values, kkperm::test::poison<double>());
    plan->numeric(kkperm::to_device<Matrix>(hA2), kkperm::to_device<Matrix>(hB2));
    EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), ref2, "reuse " + kkperm::to_string(c)));
  }
}

// setup() = symbolic + first numeric in one call (the numeric without the structure check; for
// cuSPARSE ALG1-3 the symbolic pipeline alone): C right after it, and numeric reuse after it.
TEST(SpgemmCandidates, SetupEqualsSymbolicThenNumeric) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto [hA, hB, hA2, hB2] = revalued_pair(210, 190, 150, 14, 11, seed);
  const auto ref = reference_multiply(hA, hB), ref2 = reference_multiply(hA2, hB2);
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  for (auto c : kkperm::spgemm_candidates()) {
    const std::string name = kkperm::to_string(c);
    auto plan = kkperm::make_spgemm_plan<Matrix>(c);
    plan->setup(A, B);
    EXPECT_TRUE(plan->has_symbolic()) << name;
    EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), ref, "setup " + name));
    for (int round = 0; round < 3; ++round) {  // reuse paths after setup (search, slots, gather)
      Kokkos::deep_copy(plan->C().values, kkperm::test::poison<double>());
      plan->numeric(kkperm::to_device<Matrix>(round % 2 ? hA : hA2), kkperm::to_device<Matrix>(round % 2 ? hB : hB2));
      EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), round % 2 ? ref : ref2,
                                    "numeric " + std::to_string(round) + " after setup " + name));
    }
    // the hash recorded by setup()'s symbolic still guards later numerics (same nnz: 4 a row)
    auto fixed = kkperm::make_spgemm_plan<Matrix>(c);
    const auto F1 = kkperm::to_device<Matrix>(random_csr(40, 40, 4, 4, seed + 4));
    const auto F2 = kkperm::to_device<Matrix>(random_csr(40, 40, 4, 4, seed + 5));
    fixed->setup(F1, F1);
    EXPECT_THROW(fixed->numeric(F2, F2), std::invalid_argument) << name;
    // bad input is refused by setup() as by symbolic()
    auto plan2 = kkperm::make_spgemm_plan<Matrix>(c);
    EXPECT_THROW(plan2->setup(B, B), std::invalid_argument) << name;  // 190x150 times 190x150
  }
}

TEST(SpgemmCandidates, UnsortedInputsMergedByEscRejectedByOthers) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hA = random_csr(70, 50, 1, 8, seed), hB = random_csr(50, 60, 1, 8, seed + 1);
  const auto sA = scramble(hA, seed + 2), sB = scramble(hB, seed + 3);
  const auto ref = reference_multiply(sA, sB);
  const auto A = kkperm::to_device<Matrix>(sA), B = kkperm::to_device<Matrix>(sB);
  for (auto c : kkperm::spgemm_candidates()) {
    auto plan = kkperm::make_spgemm_plan<Matrix>(c);
    if (kkperm::info(c).accepts_unsorted) {
      plan->symbolic(A, B);
      plan->numeric(A, B);
      EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), ref, kkperm::to_string(c)));
    } else {
      try {
        plan->symbolic(A, B);
        ADD_FAILURE() << kkperm::to_string(c) << " accepted unsorted/duplicate input";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("kkperm::spgemm_symbolic"), std::string::npos);
      }
    }
  }
}

TEST(SpgemmCandidates, NumericRejectsChangedStructure) {
  const auto A = kkperm::to_device<Matrix>(random_csr(30, 30, 2, 2, 11));
  const auto A2 = kkperm::to_device<Matrix>(random_csr(30, 30, 2, 2, 12));  // same nnz
  for (auto c : kkperm::spgemm_candidates()) {
    auto plan = kkperm::make_spgemm_plan<Matrix>(c);
    EXPECT_THROW(plan->numeric(A, A), std::invalid_argument);
    plan->symbolic(A, A);
    EXPECT_THROW(plan->numeric(A2, A2), std::invalid_argument) << kkperm::to_string(c);
  }
}

// The structure check on matrices spanning many hash teams (2048 indices a team): a change of
// one index near the end of each of the four arrays is seen; the enqueued check agrees with the
// one-shot hash; the same structure with other values passes.
TEST(SpgemmCandidates, StructureCheckSeesLateSingleIndexChanges) {
  const Host hA = random_csr(3000, 3000, 3, 6, 31), hB = random_csr(3000, 3000, 3, 6, 32);
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  using Check = kkperm::spgemm::esc_impl::StructureCheck<Matrix::device_type>;
  Check check;
  EXPECT_FALSE(check.matches(A, B));  // nothing recorded
  check.record(A, B);
  EXPECT_TRUE(check.matches(A, B));
  EXPECT_TRUE(check.matches(kkperm::to_device<Matrix>(revalue(hA, 33)), kkperm::to_device<Matrix>(revalue(hB, 34))));
  const auto h1 = kkperm::spgemm::esc_impl::structure_hash2<Matrix::execution_space>(
      A.graph.row_map, A.graph.entries, A.numRows(), B.graph.row_map, B.graph.entries, B.numRows());
  const auto h2 = kkperm::spgemm::esc_impl::structure_hash2<Matrix::execution_space>(
      A.graph.row_map, A.graph.entries, A.numRows(), B.graph.row_map, B.graph.entries, B.numRows());
  EXPECT_EQ(h1, h2);
  // one, two and five teams walking all the chunks (18 of 2048 indices on CUDA; grid stride) give
  // the same hash
  const auto capped = [&](int teams) {
    return kkperm::spgemm::esc_impl::structure_hash2<Matrix::execution_space>(
        A.graph.row_map, A.graph.entries, A.numRows(), B.graph.row_map, B.graph.entries, B.numRows(), teams);
  };
  EXPECT_EQ(capped(1), h1);
  EXPECT_EQ(capped(2), h1);
  EXPECT_EQ(capped(5), h1);
  // the two-step form: no verdict without an enqueue; work enqueued between the steps is fine
  EXPECT_FALSE(check.verdict());
  check.enqueue(A, B);
  Kokkos::deep_copy(Kokkos::View<double*, Matrix::device_type>("kkperm::test::between", 1000), 1.0);
  EXPECT_TRUE(check.verdict());
  EXPECT_FALSE(check.verdict());  // consumed
  check.enqueue(kkperm::to_device<Matrix>(revalue(hA, 35)), B);
  EXPECT_TRUE(check.verdict());
  {  // the device hash (chunks of 2048 indices of one array, partial sums in 32 slots) equals the
     // formula summed on the host
    using kkperm::spgemm::esc_impl::index_hash;
    std::uint64_t want = 0;
    const auto add = [&](const std::vector<int>& arr, std::size_t n, std::uint32_t salt) {
      for (std::size_t q = 0; q < n; ++q) want += index_hash(q, static_cast<std::uint64_t>(arr[q]), salt);
    };
    add(hA.entries, hA.entries.size(), 0x1u);
    add(hA.row_map, hA.row_map.size(), 0x2B7E1516u);
    add(hB.entries, hB.entries.size(), 0x28AED2A6u);
    add(hB.row_map, hB.row_map.size(), 0xABF71588u);
    const std::uint64_t len = hA.entries.size() + hA.row_map.size() + hB.entries.size() + hB.row_map.size();
    EXPECT_EQ(h1, want ^ kkperm::spgemm::esc_impl::mix64(len));
  }
  // one column index of the last row of A or B moved within its row's gap (stays sorted); one
  // row boundary near the end moved by one
  const auto col_change = [](Host h) {
    for (int r = h.num_rows - 1; r >= 0; --r) {
      const auto b = h.row_map[r], e = h.row_map[r + 1];
      for (auto p = e - 1; p >= b; --p) {
        const int next = p + 1 < e ? h.entries[p + 1] : h.num_cols;
        if (h.entries[p] + 1 < next) {
          ++h.entries[p];
          return h;
        }
      }
    }
    ADD_FAILURE() << "no column could move";
    return h;
  };
  const auto row_change = [](Host h) {
    for (int r = h.num_rows - 2; r >= 0; --r) {
      const auto b = h.row_map[r], m = h.row_map[r + 1], e = h.row_map[r + 2];
      if (e > m + 1 && (m == b || h.entries[m - 1] < h.entries[m])) {
        ++h.row_map[r + 1];
        return h;
      }
    }
    ADD_FAILURE() << "no row boundary could move";
    return h;
  };
  EXPECT_FALSE(check.matches(kkperm::to_device<Matrix>(col_change(hA)), B));
  EXPECT_FALSE(check.matches(kkperm::to_device<Matrix>(row_change(hA)), B));
  EXPECT_FALSE(check.matches(A, kkperm::to_device<Matrix>(col_change(hB))));
  EXPECT_FALSE(check.matches(A, kkperm::to_device<Matrix>(row_change(hB))));
  EXPECT_FALSE(check.matches(B, A));  // the two matrices swapped
  EXPECT_TRUE(check.matches(A, B));
}

// Single-index changes of B with A, dims and nnz unchanged: one column index moved (entries
// only) and one nonzero moved to the next row (row_map only, same entries array). The structure
// hash of A and B together (one fused kernel) must see both.
TEST(SpgemmCandidates, NumericRejectsOneIndexChangeOfB) {
  const Host hA = random_csr(40, 40, 2, 5, 21);
  Host hB = random_csr(40, 40, 2, 5, 22);
  // a column change that keeps the row sorted and duplicate-free: the last entry of some row
  // whose last column is below n - 1, moved one column right
  Host hCol = hB;
  bool moved = false;
  for (int r = 0; r < hCol.num_rows && !moved; ++r) {
    const auto e = hCol.row_map[r + 1];
    if (e > hCol.row_map[r] && hCol.entries[e - 1] + 1 < hCol.num_cols) {
      ++hCol.entries[e - 1];
      moved = true;
    }
  }
  ASSERT_TRUE(moved);
  // a row_map change: the first entry of row r + 1 becomes the last entry of row r (valid when
  // it lies right of row r's last column and row r + 1 keeps it sorted)
  Host hRow = hB;
  bool shifted = false;
  for (int r = 0; r + 1 < hRow.num_rows && !shifted; ++r) {
    const auto b = hRow.row_map[r], m = hRow.row_map[r + 1], e = hRow.row_map[r + 2];
    if (e > m && (m == b || hRow.entries[m - 1] < hRow.entries[m])) {
      ++hRow.row_map[r + 1];
      shifted = true;
    }
  }
  ASSERT_TRUE(shifted);
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  const auto ref = reference_multiply(hA, hB);
  // symbolic() hashes A and B in its validation pass (the default) or in a kernel of its own
  for (const bool in_validation : {true, false})
  for (const Host* changed : {&hCol, &hRow}) {
    const auto B2 = kkperm::to_device<Matrix>(*changed);
    kkperm::SpgemmPlanOptions o;
    o.hash_in_validation = in_validation;
    for (auto c : kkperm::spgemm_candidates()) {
      const std::string what = kkperm::to_string(c) + (changed == &hCol ? " (column moved)" : " (row_map moved)") +
                               (in_validation ? "" : " (separate hash)");
      {  // after setup() (symbolic + first numeric, what an AMG setup calls)
        auto fresh = kkperm::make_spgemm_plan<Matrix>(c, o);
        fresh->setup(A, B);
        EXPECT_THROW(fresh->numeric(A, B2), std::invalid_argument) << what << " after setup()";
        EXPECT_NO_THROW(fresh->numeric(A, B)) << what << " after setup()";
      }
      auto plan = kkperm::make_spgemm_plan<Matrix>(c, o);
      plan->symbolic(A, B);
      EXPECT_TRUE(plan->numeric_reads_indices()) << what;  // the first numeric searches
      EXPECT_NO_THROW(plan->numeric(A, B)) << what;
      EXPECT_THROW(plan->numeric(A, B2), std::invalid_argument) << what;
      // later numerics: ESC's gather plan reads no index of A or B, so its check's verdict comes
      // after the numeric kernel (late check); it must still reject, and a valid numeric after
      // the rejection must give the right values again
      EXPECT_NO_THROW(plan->numeric(A, B)) << what;
      EXPECT_NO_THROW(plan->numeric(A, B)) << what;
      const bool late = !plan->numeric_reads_indices();
      if (c == SpgemmCandidate::esc || c == SpgemmCandidate::esc_permuted) EXPECT_TRUE(late) << what;
      EXPECT_THROW(plan->numeric(A, B2), std::invalid_argument) << what << (late ? " (late check)" : "");
      Kokkos::deep_copy(plan->C().values, kkperm::test::poison<double>());
      EXPECT_NO_THROW(plan->numeric(A, B)) << what;
      EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), ref, what + " after a rejected numeric"));
    }
  }
}

// Invalid A or B are named before anything uses them, also when a candidate's analysis is
// enqueued before the verdicts are read (SpgemmPlanOptions::late_verdict, ESC on CUDA: its key
// kernel must not follow a column far outside B or a row_map past A's entries): the message is
// validate's for the first bad matrix, with either setting and through symbolic() and setup().
TEST(SpgemmCandidates, InvalidInputsAreNamedBeforeTheyAreUsed) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const Host hA = random_csr(300, 200, 1, 12, seed), hB = random_csr(200, 150, 1, 9, seed + 1);
  Host colA = hA, colB = hB, rowA = hA, rowB = hB;
  colA.entries[colA.entries.size() / 2] = 1 << 29;   // a column of A far outside B's rows
  colB.entries[colB.entries.size() / 3] = -(1 << 29);  // a negative column of B
  rowA.row_map[150] = static_cast<int>(rowA.entries.size()) + 100000;  // past A's entries
  rowB.row_map[100] = rowB.row_map[99] - 1;                            // B's row_map decreases
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  struct Case {
    const char* name;
    Host a, b;
    bool bad_a;
  };
  const std::vector<Case> cases = {{"column of A", colA, hB, true},
                                   {"column of B", hA, colB, false},
                                   {"row_map of A", rowA, hB, true},
                                   {"row_map of B", hA, rowB, false},
                                   {"both", colA, rowB, true}};
  for (const auto& cs : cases) {
    const auto dA = kkperm::to_device<Matrix>(cs.a), dB = kkperm::to_device<Matrix>(cs.b);
    for (auto c : kkperm::spgemm_candidates()) {
      const std::string who = "kkperm::spgemm_symbolic(" + kkperm::to_string(c) + ")";
      std::string want;
      try {
        kkperm::validate(cs.bad_a ? dA : dB, (who + (cs.bad_a ? ": A" : ": B")).c_str(),
                         !kkperm::info(c).accepts_unsorted);
      } catch (const std::invalid_argument& e) {
        want = e.what();
      }
      ASSERT_FALSE(want.empty()) << cs.name;
      for (const bool late : {true, false})
        for (const bool setup : {false, true}) {
          const std::string what = std::string(cs.name) + " [" + kkperm::to_string(c) + "]" +
                                   (late ? " late verdict" : " verdict first") + (setup ? ", setup" : ", symbolic");
          kkperm::SpgemmPlanOptions o;
          o.late_verdict = late;
          auto plan = kkperm::make_spgemm_plan<Matrix>(c, o);
          try {
            if (setup)
              plan->setup(dA, dB);
            else
              plan->symbolic(dA, dB);
            ADD_FAILURE() << what << ": accepted";
          } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), want) << what;
          }
          EXPECT_FALSE(plan->has_symbolic()) << what;
          // the plan works on valid input afterwards
          plan->setup(A, B);
          EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), reference_multiply(hA, hB), what + ", then valid"));
        }
    }
  }
}

// Guard: a KK candidate is skipped with a reason when the row work exceeds its limit; ESC
// always runs; cuSPARSE limits follow the documented memory behaviour.
TEST(SpgemmCandidates, GuardSkipsRunawayCandidatesWithReason) {
  Host A = random_csr(50, 50, 1, 3, 5);
  // one heavy row: row 0 touches every row of B
  Host H = A;
  H.row_map.assign(51, 0);
  H.entries.clear();
  H.values.clear();
  for (int i = 0; i < 50; ++i) {
    const int lo = i == 0 ? 0 : i, hi = i == 0 ? 50 : i + 1;
    for (int k = lo; k < hi; ++k) {
      H.entries.push_back(k);
      H.values.push_back(1.0);
    }
    H.row_map[i + 1] = static_cast<int>(H.entries.size());
  }
  const auto dH = kkperm::to_device<Matrix>(H), dA = kkperm::to_device<Matrix>(A);
  const auto est = kkperm::estimate_spgemm_work(dH, dA);
  const auto w = kkperm::spgemm::reference_row_work(H, A);
  EXPECT_EQ(est.max_work, *std::max_element(w.begin(), w.end()));
  EXPECT_EQ(est.sum_work, std::accumulate(w.begin(), w.end(), std::int64_t(0)));
  kkperm::SpgemmPlanOptions o;
  o.guard.kk_max_row_work = est.max_work - 1;
  for (auto c : {SpgemmCandidate::kk_spgemm_kk, SpgemmCandidate::kk_spgemm_kk_memory}) {
    if (!kkperm::available(c)) continue;  // not offered on CUDA builds (see available())
    auto plan = kkperm::make_spgemm_plan<Matrix>(c, o);
    try {
      plan->symbolic(dH, dA);
      ADD_FAILURE() << "guard did not skip " << kkperm::to_string(c);
    } catch (const kkperm::CandidateNotApplicable& e) {
      EXPECT_NE(std::string(e.what()).find("max row work"), std::string::npos) << e.what();
    }
  }
  auto esc = kkperm::make_spgemm_plan<Matrix>(SpgemmCandidate::esc, o);
  EXPECT_NO_THROW(esc->symbolic(dH, dA));
  // cuSPARSE rules (evaluated on the estimate; the candidates exist in CUDA builds only)
  kkperm::SpgemmWorkEstimate big;
  big.sum_work = std::int64_t(3) << 30;
  big.max_work = 1000;
  kkperm::SpgemmGuardLimits lim;
  lim.device_bytes = std::size_t(80) << 30;
  EXPECT_FALSE(kkperm::spgemm_guard_reason(SpgemmCandidate::cusparse_alg1, big, 8, lim).empty());
  EXPECT_FALSE(kkperm::spgemm_guard_reason(SpgemmCandidate::cusparse_reuse, big, 8, lim).empty());
  EXPECT_TRUE(kkperm::spgemm_guard_reason(SpgemmCandidate::cusparse_alg3, big, 8, lim).empty());
  EXPECT_TRUE(kkperm::spgemm_guard_reason(SpgemmCandidate::esc, big, 8, lim).empty());
  kkperm::SpgemmWorkEstimate mid;
  mid.sum_work = std::int64_t(1) << 30;
  lim.device_bytes = std::size_t(8) << 30;
  EXPECT_FALSE(kkperm::spgemm_guard_reason(SpgemmCandidate::cusparse_alg1, mid, 8, lim).empty());
  EXPECT_TRUE(kkperm::spgemm_guard_reason(SpgemmCandidate::cusparse_alg3, mid, 8, lim).empty());
}

// SpgemmPlanOptions::trusted_inputs: no validation pass and no runaway guard, same products.
TEST(SpgemmCandidates, TrustedInputsSkipValidationAndGuardWithSameProducts) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto [hA, hB, hA2, hB2] = revalued_pair(150, 140, 120, 10, 9, seed);
  const auto ref = reference_multiply(hA, hB), ref2 = reference_multiply(hA2, hB2);
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  const auto w = kkperm::spgemm::reference_row_work(hA, hB);
  const std::int64_t sum = std::accumulate(w.begin(), w.end(), std::int64_t(0));
  kkperm::SpgemmPlanOptions trusted;
  trusted.trusted_inputs = true;
  trusted.guard.kk_max_row_work = 1;  // would skip KK on this product (and cuSPARSE has no room):
  trusted.guard.device_bytes = 1;     // the guard is not consulted when inputs are trusted
  for (auto c : kkperm::spgemm_candidates()) {
    const std::string name = kkperm::to_string(c);
    const bool esc = c == SpgemmCandidate::esc || c == SpgemmCandidate::esc_permuted;
    std::vector<std::string> kernels;
    {
      kkperm::detail::LaunchTrace trace;
      auto plan = kkperm::make_spgemm_plan<Matrix>(c, trusted);
      plan->setup(A, B);
      for (const auto& e : trace.stop())
        if (e.kind == kkperm::detail::TraceEvent::Kind::kernel) kernels.push_back(e.name);
      EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), ref, "trusted setup " + name));
      // ESC's analysis is its plan (the real work sums); the others made no estimate
      EXPECT_EQ(plan->estimate().sum_work, esc ? sum : -1) << name;
      Kokkos::deep_copy(plan->C().values, kkperm::test::poison<double>());
      plan->numeric(kkperm::to_device<Matrix>(hA2), kkperm::to_device<Matrix>(hB2));
      EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), ref2, "trusted numeric " + name));
    }
    for (const auto& k : kernels) {
      EXPECT_EQ(k.find("check_crs"), std::string::npos) << name << " validated its inputs: " << k;
      EXPECT_EQ(k.find("row_work_sum_max"), std::string::npos) << name << " ran the guard's estimate: " << k;
    }
    // the same plan untrusted validates (and, for all but ESC, estimates for the guard)
    std::vector<std::string> checked;
    {
      kkperm::detail::LaunchTrace trace;
      auto plan = kkperm::make_spgemm_plan<Matrix>(c);
      plan->setup(A, B);
      for (const auto& e : trace.stop())
        if (e.kind == kkperm::detail::TraceEvent::Kind::kernel) checked.push_back(e.name);
      EXPECT_EQ(plan->estimate().sum_work, sum) << name;
    }
    const auto has = [&checked](const char* s) {
      return std::any_of(checked.begin(), checked.end(), [s](const std::string& k) { return k.find(s) != std::string::npos; });
    };
    EXPECT_TRUE(has("check_crs")) << name;
    EXPECT_EQ(has("row_work_sum_max"), !esc) << name;
    // a dimension mismatch is still refused (a host check, no device pass)
    auto bad = kkperm::make_spgemm_plan<Matrix>(c, trusted);
    EXPECT_THROW(bad->setup(B, B), std::invalid_argument) << name;  // 140x120 times 140x120
  }
  // the corner cases, trusted (no estimate: each candidate must see an empty product itself)
  check_all(random_csr(6, 5, 0, 0, 1), random_csr(5, 4, 1, 2, seed), "empty A, trusted", trusted);
  check_all(random_csr(0, 0, 0, 0, 1), random_csr(0, 0, 0, 0, 1), "0x0, trusted", trusted);
  check_all(random_csr(0, 7, 0, 0, 1), random_csr(7, 5, 1, 2, seed + 5), "0 rows, trusted", trusted);
  check_all(random_csr(6, 0, 0, 0, 1), random_csr(0, 5, 0, 0, 1), "k = 0, trusted", trusted);
  check_all(random_csr(6, 5, 1, 3, seed + 6), random_csr(5, 0, 0, 0, 1), "0 columns, trusted", trusted);
  // A's entries all in columns whose rows of B are empty: no products, nnz(C) = 0
  Host Z = random_csr(8, 3, 1, 3, seed + 7);  // columns 0..2 only
  Z.num_cols = 6;
  Host E = random_csr(6, 5, 1, 2, seed + 8);  // rows 0..2 emptied below
  const int cut = E.row_map[3];
  for (int i = 0; i <= 6; ++i) E.row_map[i] = i <= 3 ? 0 : E.row_map[i] - cut;
  E.entries.erase(E.entries.begin(), E.entries.begin() + cut);
  E.values.erase(E.values.begin(), E.values.begin() + cut);
  ASSERT_GT(E.nnz(), 0);
  check_all(Z, E, "no products, trusted", trusted);
  check_all(Z, E, "no products");
}

TEST(SpgemmCandidates, NamesRoundTripAndUnknownNamesAreRejected) {
  for (auto c : kkperm::all_spgemm_candidates()) {
    EXPECT_EQ(kkperm::spgemm_candidate_from_string(kkperm::to_string(c)), c);
  }
  EXPECT_THROW(kkperm::spgemm_candidate_from_string("SPGEMM_DEFAULT"), std::invalid_argument);
#ifndef KKPERM_ENABLE_CUDA
  EXPECT_FALSE(kkperm::available(SpgemmCandidate::cusparse_alg1));
  EXPECT_THROW(kkperm::make_spgemm_plan<Matrix>(SpgemmCandidate::cusparse_alg1),
               std::invalid_argument);
#endif
}

TEST(SpgemmCandidates, RealMatricesEveryCandidateMatchesReference) {
  const auto mats = real_matrices(20000);
  int checked = 0;
  for (const auto& [file, h] : mats) {
    if (h.num_rows != h.num_cols) continue;
    const auto w = kkperm::spgemm::reference_row_work(h, h);
    if (std::accumulate(w.begin(), w.end(), std::int64_t(0)) > 1000000) continue;
    bool finite = true;
    for (double v : h.values) finite = finite && std::isfinite(v) && std::abs(v) < 1e150;
    if (!finite) continue;
    check_all(h, h, file);
    ++checked;
  }
  ::testing::Test::RecordProperty("real_matrices_checked", std::to_string(checked));
  EXPECT_GT(checked, 10);
}

// 64-bit offsets: esc / esc_permuted run (and reuse) through Crs<double, int, Device, int64>;
// every other candidate is skipped with a reason, never run on a type it was not built for.
TEST(SpgemmCandidates, Offset64PlansRunEscAndSkipOthers) {
  using Matrix64 = kkperm::Crs<double, int, kkperm::DefaultDevice, std::int64_t>;
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hA = random_csr(160, 160, 0, 12, seed);
  const auto hA2 = revalue(hA, seed + 1);
  const auto A = kkperm::to_device<Matrix64>(hA), A2 = kkperm::to_device<Matrix64>(hA2);
  int ran = 0;
  for (auto c : kkperm::spgemm_candidates()) {
    const bool esc = c == SpgemmCandidate::esc || c == SpgemmCandidate::esc_permuted;
    try {
      auto plan = kkperm::make_spgemm_plan<Matrix64>(c);
      plan->symbolic(A, A);
      Kokkos::deep_copy(plan->C().values, kkperm::test::poison<double>());
      plan->numeric(A, A);
      EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), reference_multiply(hA, hA),
                                    "int64 " + kkperm::to_string(c)));
      plan->numeric(A2, A2);
      EXPECT_TRUE(matches_reference(kkperm::to_host(plan->C()), reference_multiply(hA2, hA2),
                                    "int64 reuse " + kkperm::to_string(c)));
      EXPECT_TRUE(esc) << kkperm::to_string(c) << " ran with 64-bit offsets";
      ++ran;
    } catch (const kkperm::CandidateNotApplicable& e) {
      EXPECT_FALSE(esc) << e.what();
      EXPECT_NE(std::string(e.what()).find("64-bit offsets"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(ran, 2);
}

// The ESC memory guard: with the device memory given as too small for C, the plan is skipped
// (CandidateNotApplicable) with the estimated bytes in the reason, not an error or a crash.
TEST(SpgemmCandidates, EscSkippedWithEstimateWhenProductDoesNotFitMemory) {
  const auto A = kkperm::to_device<Matrix>(random_csr(200, 200, 5, 10, 21));
  kkperm::SpgemmPlanOptions o;
  o.guard.device_bytes = 4096;  // 0.8 x 4 KiB usable: C alone needs more
  for (auto c : {SpgemmCandidate::esc, SpgemmCandidate::esc_permuted}) {
    auto plan = kkperm::make_spgemm_plan<Matrix>(c, o);
    try {
      plan->symbolic(A, A);
      ADD_FAILURE() << kkperm::to_string(c) << " not refused";
    } catch (const kkperm::CandidateNotApplicable& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find("needs"), std::string::npos) << w;
      EXPECT_NE(w.find("memory limit of 3276 bytes"), std::string::npos) << w;
    }
  }
  o.guard.device_bytes = std::size_t(1) << 30;  // fits
  auto plan = kkperm::make_spgemm_plan<Matrix>(SpgemmCandidate::esc, o);
  EXPECT_NO_THROW(plan->symbolic(A, A));
}
