// Smoothed-aggregation pieces (MIS-2 aggregation, tentative P, Jacobi smoothing, R = Pᵀ) vs
// their serial twins, and the Galerkin products AP and R(AP) for every SpGEMM candidate vs the
// serial reference.
#include <gtest/gtest.h>

#include "kkperm/kernels/spgemm/amg.hpp"
#include "kkperm/select/spgemm_candidates.hpp"
#include "kernels/spgemm_test_helpers.hpp"

namespace {
using namespace kkperm::test::spgemm;
using kkperm::spgemm::reference_multiply;

/// 2D 5-point Laplacian (nx x ny), with a seeded random diagonal shift so values vary.
Host laplace2d(int nx, int ny, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> shift(0.0, 0.5);
  Host h;
  h.num_rows = h.num_cols = nx * ny;
  h.row_map.assign(static_cast<std::size_t>(nx) * ny + 1, 0);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const int i = y * nx + x;
      auto add = [&](int j, double v) {
        h.entries.push_back(j);
        h.values.push_back(v);
      };
      if (y > 0) add(i - nx, -1.0);
      if (x > 0) add(i - 1, -1.0);
      add(i, 4.0 + shift(rng));
      if (x + 1 < nx) add(i + 1, -1.0);
      if (y + 1 < ny) add(i + nx, -1.0);
      h.row_map[i + 1] = static_cast<int>(h.entries.size());
    }
  return h;
}

struct Hierarchy {
  Host A, Pt, P, R;
  std::vector<int> labels;
  int n_agg = 0;
  double omega = 0;
};

Hierarchy build(const Host& hA) {
  Hierarchy H;
  H.A = hA;
  const auto A = kkperm::to_device<Matrix>(hA);
  const auto agg = kkperm::amg::aggregate_mis2(A);
  H.n_agg = agg.num_aggregates;
  auto hl = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), agg.labels);
  H.labels.assign(hl.data(), hl.data() + hl.extent(0));
  const auto Pt = kkperm::amg::tentative_prolongator<Matrix>(agg.labels, agg.num_aggregates, A.numRows());
  H.Pt = kkperm::to_host(Pt);
  H.omega = kkperm::amg::jacobi_omega(A);
  const auto P = kkperm::amg::smooth_prolongator(A, Pt, H.omega);
  H.P = kkperm::to_host(P);
  H.R = kkperm::to_host(kkperm::amg::transpose(P));
  return H;
}
}  // namespace

TEST(SpgemmAmg, AggregationTentativeSmoothedAndTransposeMatchSerialTwins) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hA = laplace2d(23, 17, seed);
  const auto H = build(hA);
  // aggregation: every row in a non-empty aggregate, fewer aggregates than rows
  ASSERT_EQ(H.labels.size(), static_cast<std::size_t>(hA.num_rows));
  ASSERT_GT(H.n_agg, 0);
  EXPECT_LT(H.n_agg, hA.num_rows / 2);
  std::vector<int> size(H.n_agg, 0);
  for (int l : H.labels) {
    ASSERT_GE(l, 0);
    ASSERT_LT(l, H.n_agg);
    ++size[l];
  }
  for (int s : size) EXPECT_GT(s, 0);
  // tentative P: exact (one division and one sqrt, correctly rounded on both sides)
  const auto Pt_ref = kkperm::amg::tentative_prolongator_serial<double, int, int>(H.labels, H.n_agg);
  EXPECT_EQ(H.Pt.row_map, Pt_ref.row_map);
  EXPECT_EQ(H.Pt.entries, Pt_ref.entries);
  EXPECT_EQ(H.Pt.values, Pt_ref.values);
  // ω: Gershgorin bound, computed on the host the same way
  double rho = 0;
  for (int i = 0; i < hA.num_rows; ++i) {
    double d = 0, s = 0;
    for (int p = hA.row_map[i]; p < hA.row_map[i + 1]; ++p) {
      s += std::abs(hA.values[p]);
      if (hA.entries[p] == i) d += std::abs(hA.values[p]);
    }
    rho = std::max(rho, s / d);
  }
  EXPECT_DOUBLE_EQ(H.omega, (4.0 / 3.0) / rho);
  // smoothed P: structure exact; values Pt − ω·(AP)/d where AP sums ≤ 5 products with
  // Σ|a·pt| ≤ 5·4.5 (|a| ≤ 4.5, |pt| ≤ 1) and d ≥ 4: AP differs by ≤ tol(22.5, 5), scaled by
  // ω/d ≤ ω/4, plus ≤ 3 roundings of the combination on each side (6u·(|P| + 2), |ω AP/d| ≤ 2).
  const auto P_ref = kkperm::amg::smooth_prolongator_serial(hA, H.Pt, H.omega);
  ASSERT_EQ(H.P.row_map, P_ref.row_map);
  ASSERT_EQ(H.P.entries, P_ref.entries);
  const double u = std::numeric_limits<double>::epsilon() / 2;
  for (std::size_t k = 0; k < P_ref.values.size(); ++k) {
    const double bound = kkperm::spgemm::spgemm_tolerance<double>(22.5, 5) * H.omega / 4.0 +
                         6 * u * (std::abs(P_ref.values[k]) + 2.0);
    EXPECT_NEAR(H.P.values[k], P_ref.values[k], bound) << k;
  }
  // R = Pᵀ: pure data movement, exact
  const auto R_ref = transpose(H.P);
  EXPECT_EQ(H.R.row_map, R_ref.row_map);
  EXPECT_EQ(H.R.entries, R_ref.entries);
  EXPECT_EQ(H.R.values, R_ref.values);
}

TEST(SpgemmAmg, GalerkinProductsEveryCandidateMatchesReference) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto H = build(laplace2d(31, 29, seed));
  const auto A = kkperm::to_device<Matrix>(H.A);
  const auto P = kkperm::to_device<Matrix>(H.P);
  const auto R = kkperm::to_device<Matrix>(H.R);
  const auto ap_ref = reference_multiply(H.A, H.P);
  for (auto c : kkperm::spgemm_candidates()) {
    auto ap = kkperm::make_spgemm_plan<Matrix>(c);
    ap->symbolic(A, P);
    Kokkos::deep_copy(ap->C().values, kkperm::test::poison<double>());
    ap->numeric(A, P);
    const auto hAP = kkperm::to_host(ap->C());
    ASSERT_TRUE(matches_reference(hAP, ap_ref, "AP [" + kkperm::to_string(c) + "]"));
    // R(AP) against the reference applied to this candidate's AP (so only this product's
    // rounding is compared)
    Host hAPc;
    hAPc.num_rows = hAP.num_rows;
    hAPc.num_cols = hAP.num_cols;
    hAPc.row_map.assign(hAP.row_map.begin(), hAP.row_map.end());
    hAPc.entries = hAP.entries;
    hAPc.values = hAP.values;
    const auto rap_ref = reference_multiply(H.R, hAPc);
    auto rap = kkperm::make_spgemm_plan<Matrix>(c);
    rap->symbolic(R, ap->C());
    Kokkos::deep_copy(rap->C().values, kkperm::test::poison<double>());
    rap->numeric(R, ap->C());
    EXPECT_TRUE(matches_reference(kkperm::to_host(rap->C()), rap_ref, "RAP [" + kkperm::to_string(c) + "]"));
    // coarse operator is symmetric (R = Pᵀ, A symmetric) up to rounding
  }
}
