// Every available SpMM candidate of the registry against the double reference (computed on the
// unpermuted matrix from the same T-rounded inputs), on generated corner cases and on every
// real/pattern matrix in ../shared/matrices/real/, with fresh seeded random B and Y.
//
// Tolerance (see spmm_test_helpers.hpp, reference_spmm): per output entry
//   |y - y_exact| <= (gamma_{n_i+3}(u_T) + gamma_{n_i+3}(u_double)) * (|alpha| sum|a_ik b_kc| + |beta y0|)
// with n_i the nonzeros of row i: n_i products, n_i - 1 additions in any order, the alpha
// scaling, the beta product and the final addition. This is a worst-case bound for any
// summation order (warp trees, cuSPARSE's splits, KK's unrolling), so no candidate is favoured;
// an entry outside it is a wrong answer, not round-off.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <iostream>
#include <numeric>
#include <random>

#include "common/test_utils.hpp"
#include "kernels/spmm_test_helpers.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/io/matrix_market.hpp"
#include "kkperm/select/spmm_candidates.hpp"
#include "kkperm/select/spmm_own_plan.hpp"

namespace {
namespace ts = kkperm::test::spmm;
using Device = kkperm::DefaultDevice;

/// Runs candidate c on A (as Matrix) and checks every entry of Y against the bound. Returns
/// false when the candidate declared itself not applicable.
template <class T, class Plan>
void check_plan(Plan& plan, const ts::HostD& A, int K, double alpha, double beta,
                std::uint64_t seed, const std::vector<int>& out_pos = {}) {
  SCOPED_TRACE(plan.name() + " K=" + std::to_string(K) + " alpha=" + std::to_string(alpha) +
               " beta=" + std::to_string(beta) + " seed=" + std::to_string(seed));
  const int n = A.num_rows, m = A.num_cols;
  const auto Bv = ts::random_dense(m, K, seed + 1);
  const auto Y0 = ts::random_dense(n, K, seed + 2);
  const auto ref = ts::reference_spmm<T>(A, alpha, Bv, beta, Y0, K);
  auto pos = [&](int i) { return out_pos.empty() ? i : out_pos[i]; };
  auto run_layout = [&](auto layout_tag) {
    using Layout = decltype(layout_tag);
    Kokkos::View<T**, Layout, Device> B("B", m, K), Y("Y", n, K);
    auto Bh = Kokkos::create_mirror_view(B);
    auto Yh = Kokkos::create_mirror_view(Y);
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < K; ++c) Bh(r, c) = static_cast<T>(Bv[std::size_t(r) * K + c]);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < K; ++c)
        Yh(pos(i), c) = beta == 0.0 ? kkperm::test::poison<T>()
                                    : static_cast<T>(Y0[std::size_t(i) * K + c]);
    Kokkos::deep_copy(B, Bh);
    Kokkos::deep_copy(Y, Yh);
    plan.run(T(alpha), B, T(beta), Y);
    Kokkos::fence();
    Kokkos::deep_copy(Yh, Y);
    int bad = 0;
    for (int i = 0; i < n && bad < 5; ++i)
      for (int c = 0; c < K && bad < 5; ++c) {
        const std::size_t idx = std::size_t(i) * K + c;
        const double got = static_cast<double>(Yh(pos(i), c));
        // Matrices with Inf/NaN values (some real files have them): the IEEE result is the
        // same in any summation order (NaN stays NaN, a lone Inf stays that Inf), so demand it.
        const double want = ref.y[idx];
        const bool ok = std::isfinite(want) ? std::abs(got - want) <= ref.bound[idx]
                                            : (std::isnan(want) ? std::isnan(got) : got == want);
        if (!ok) {
          ++bad;
          ADD_FAILURE() << "row " << i << " col " << c << ": got " << got << ", reference "
                        << ref.y[idx] << ", bound " << ref.bound[idx];
        }
      }
  };
  if (plan.layout() == kkperm::SpmmLayout::left) run_layout(Kokkos::LayoutLeft());
  else run_layout(Kokkos::LayoutRight());
}

template <class T>
bool check_candidate(kkperm::SpmmCandidate c, const ts::HostD& A, int K, double alpha,
                     double beta, std::uint64_t seed) {
  using Matrix = kkperm::Crs<T, int, Device, int>;
  const auto Ad = kkperm::to_device<Matrix>(A);
  auto plan = kkperm::make_spmm_plan<Matrix>(c);
  try {
    plan->prepare(Ad, K);
  } catch (const kkperm::CandidateNotApplicable& e) {
    // Only cuSPARSE (algorithm/layout pairs it does not implement) and RCM orders on
    // non-square matrices may decline.
    const bool rcm_rect = std::string(kkperm::info(c).permutation) == "rcm" && A.num_rows != A.num_cols;
    EXPECT_TRUE(kkperm::info(c).cuda_only || rcm_rect)
        << kkperm::to_string(c) << " declined: " << e.what();
    return false;
  }
  EXPECT_EQ(plan->flops(), 2.0 * double(A.nnz()) * K);
  check_plan<T>(*plan, A, K, alpha, beta, seed);
  return true;
}

template <class T>
class SpmmCandidates : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpmmCandidates, Scalars);

// The SpMM byte floor: A's row offsets, columns and values once, B (num_cols x K) read once, Y
// (num_rows x K) written once and read once more when beta != 0.
TEST(SpmmRegistry, ByteFloorCountsEachArrayOnce) {
  EXPECT_EQ(kkperm::spmm_byte_floor(100, 70, 900, 32, 8, 4, 4, false),
            101.0 * 4 + 900.0 * 12 + 70.0 * 32 * 8 + 100.0 * 32 * 8);
  EXPECT_EQ(kkperm::spmm_byte_floor(100, 70, 900, 32, 4, 4, 8, true),
            101.0 * 8 + 900.0 * 8 + 70.0 * 32 * 4 + 2 * 100.0 * 32 * 4);
  // the SpMV floor is the K = 1 case
  EXPECT_EQ(kkperm::spmv_byte_floor(100, 70, 900, 8, 4, 4, true),
            kkperm::spmm_byte_floor(100, 70, 900, 1, 8, 4, 4, true));
  EXPECT_EQ(kkperm::spmv_byte_floor(0, 0, 0, 8, 4, 4, false), 4.0);
}

TEST(SpmmRegistry, RegistryTableIsConsistent) {
  const auto all = kkperm::all_spmm_candidates();
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kkperm::SpmmCandidate::count_));
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(all[i]), i);
    EXPECT_EQ(kkperm::info(all[i]).id, all[i]);
    EXPECT_EQ(kkperm::spmm_candidate_from_string(kkperm::to_string(all[i])), all[i]);
  }
  EXPECT_THROW(kkperm::spmm_candidate_from_string("no_such_kernel"), std::invalid_argument);
  EXPECT_THROW(kkperm::spmm_layout_from_string("diagonal"), std::invalid_argument);
  for (auto c : kkperm::spmm_candidates()) EXPECT_TRUE(kkperm::available(c));
#ifndef KKPERM_ENABLE_CUDA
  for (auto c : all)
    if (kkperm::info(c).cuda_only) {
      EXPECT_FALSE(kkperm::available(c));
      EXPECT_THROW(kkperm::make_spmm_plan<kkperm::DefaultCrs>(c), std::invalid_argument);
    }
#endif
}

TEST(SpmmRegistry, RunRejectsWrongShapesLayoutAndUnpreparedPlans) {
  using Matrix = kkperm::DefaultCrs;
  const auto A = kkperm::to_device<Matrix>(ts::corner_cases(1)[8].A);  // "uniform" 1000 x 800
  auto plan = kkperm::make_spmm_plan<Matrix>(kkperm::SpmmCandidate::c_stationary);
  Kokkos::View<double**, Kokkos::LayoutLeft, Device> B("B", 800, 4), Y("Y", 1000, 4),
      Bbad("Bbad", 799, 4), Y5("Y5", 1000, 5);
  Kokkos::View<double**, Kokkos::LayoutRight, Device> Br("Br", 800, 4), Yr("Yr", 1000, 4);
  EXPECT_THROW(plan->run(1.0, B, 0.0, Y), std::invalid_argument);  // before prepare
  plan->prepare(A, 4);
  EXPECT_NO_THROW(plan->run(1.0, B, 0.0, Y));
  EXPECT_THROW(plan->run(1.0, Bbad, 0.0, Y), std::invalid_argument);
  EXPECT_THROW(plan->run(1.0, B, 0.0, Y5), std::invalid_argument);
  EXPECT_THROW(plan->run(1.0, Br, 0.0, Yr), std::invalid_argument);  // wrong layout
  EXPECT_THROW(plan->prepare(A, -1), std::invalid_argument);
}

TYPED_TEST(SpmmCandidates, EveryCandidateMatchesReferenceOnCornerCases) {
  using T = TypeParam;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  std::uint64_t s = seed;
  for (const auto& M : ts::corner_cases(seed)) {
    SCOPED_TRACE(M.name);
    for (auto c : kkperm::spmm_candidates())
      for (int K : {1, 3, 32, 33, 128}) {
        // Permuted candidates rebuild their order in every prepare(); the row-set handling
        // they add is K-independent, so two widths (one strip / several + remainder) suffice.
        if (std::string(kkperm::info(c).permutation) != "identity" && K != 1 && K != 33) continue;
        check_candidate<T>(c, M.A, K, 1.25, 0.0, s += 7);   // beta = 0, Y poisoned with NaN
        check_candidate<T>(c, M.A, K, -0.5, 2.0, s += 7);   // general alpha/beta
        check_candidate<T>(c, M.A, K, 0.0, -1.0, s += 7);   // alpha = 0: Y = -Y
      }
  }
}

TYPED_TEST(SpmmCandidates, EveryCandidateMatchesReferenceOnRealMatrices) {
  using T = TypeParam;
  const auto files = kkperm::test::list_files("real", ".mtx.gz");
  ASSERT_FALSE(files.empty()) << "no matrices in " << kkperm::test::matrices_dir() << "/real";
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  std::uint64_t s = seed;
  int used = 0;
  std::string skipped;
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    ts::HostD A;
    try {
      A = kkperm::io::read_matrix_market(kkperm::test::matrices_dir() + "/real/" + f);
    } catch (const kkperm::io::ParseError& e) {
      // Complex-valued files are outside kkperm's real f32/f64 scope; the reader names why.
      skipped += f + " (" + e.what() + ")\n";
      continue;
    }
    ++used;
    // Two widths per matrix keep the Serial run short while covering a partial strip (K = 3 <
    // strip of 4) and several strips plus a remainder (K = 33 = 4 x 8 + 1).
    for (auto c : kkperm::spmm_candidates()) {
      if (std::string(kkperm::info(c).permutation) != "identity") {
        // One call per matrix for permuted candidates (each prepare builds the order):
        // alternate beta = 0 (NaN-poisoned Y) and beta != 0 across matrices.
        check_candidate<T>(c, A, 33, -1.5, used % 2 ? 0.0 : 0.5, s += 7);
        continue;
      }
      check_candidate<T>(c, A, 3, 1.0, 0.0, s += 7);
      check_candidate<T>(c, A, 33, -1.5, 0.5, s += 7);
    }
  }
  this->RecordProperty("matrices_used", used);
  std::cerr << "[spmm candidates] " << used << " real/pattern matrices checked, skipped:\n"
            << skipped;
  EXPECT_GT(used, static_cast<int>(files.size()) / 2) << "reader rejected most files:\n" << skipped;
}

TYPED_TEST(SpmmCandidates, PermutedPlansMatchReferenceInCallerOrderAndPermutedSpace) {
  // OwnSpmmPlan with an explicit row order (the path kkperm::permute's orders take): random
  // bijections, results in the caller's order and in permuted space, CSR and DCSR rows.
  using T = TypeParam;
  using Matrix = kkperm::Crs<T, int, Device, int>;
  const std::uint64_t seed = kkperm::test::fresh_seed();
  this->RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& M : ts::corner_cases(seed)) {
    SCOPED_TRACE(M.name);
    const auto Ad = kkperm::to_device<Matrix>(M.A);
    std::vector<int> perm(M.A.num_rows);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Kokkos::View<int*, Device> pd("perm", perm.size());
    Kokkos::deep_copy(pd, Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                              perm.data(), perm.size()));
    std::vector<int> inv(perm.size());
    for (std::size_t p = 0; p < perm.size(); ++p) inv[perm[p]] = static_cast<int>(p);
    for (auto c : {kkperm::SpmmCandidate::c_stationary, kkperm::SpmmCandidate::c_stationary_dcsr,
                   kkperm::SpmmCandidate::row_major, kkperm::SpmmCandidate::row_major_dcsr})
      for (bool permuted_space : {false, true})
        for (int K : {1, 33}) {
          kkperm::OwnSpmmPlan<Matrix> plan(c, pd, permuted_space);
          plan.prepare(Ad, K);
          check_plan<T>(plan, M.A, K, 0.75, 0.0, rng(), permuted_space ? inv : std::vector<int>{});
          check_plan<T>(plan, M.A, K, 0.75, -1.0, rng(), permuted_space ? inv : std::vector<int>{});
        }
  }
  // Not a bijection -> clear error at prepare.
  const auto Ad = kkperm::to_device<Matrix>(ts::corner_cases(seed)[8].A);
  Kokkos::View<int*, Device> bad("bad", Ad.numRows());  // all zeros
  kkperm::OwnSpmmPlan<Matrix> plan(kkperm::SpmmCandidate::c_stationary, bad);
  EXPECT_THROW(plan.prepare(Ad, 4), std::invalid_argument);
}

}  // namespace
