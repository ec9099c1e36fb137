// Every available SpMV candidate of the registry against the serial double reference, on the
// real matrices, generated corner cases and random inputs; plus the format twins and the
// registry's error handling.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include "common/test_utils.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/formats/spmv_formats.hpp"
#include "kkperm/gen/generators.hpp"
#include "kkperm/io/matrix_market.hpp"
#include "kkperm/kernels/spmv/reference.hpp"
#include "kkperm/kernels/spmv/spmv_config.hpp"
#include "kkperm/select/spmv_candidates.hpp"

namespace {

using GenCsr = kkperm::HostCsr<double, int, std::int64_t>;

struct AlphaBeta {
  double alpha, beta;
};
// beta = 0 runs with a NaN-poisoned y: any read of y shows up as NaN.
const AlphaBeta kAlphaBeta[] = {{1.0, 0.0}, {-0.75, 0.0}, {1.0, 1.0}, {2.5, -1.5}, {0.0, 0.5}};

std::uint64_t seed_for_test() {
  static const std::uint64_t s = kkperm::test::fresh_seed();
  return s;
}

/**
 * The candidates this process checks: every available one, or the comma-separated names in
 * KKPERM_TEST_SPMV_CANDIDATES (unknown names are an error). The variable exists for GPU runs
 * that re-check one changed kernel on every matrix within a device call; CI never sets it.
 */
std::vector<kkperm::SpmvCandidate> candidates_under_test() {
  const char* env = std::getenv("KKPERM_TEST_SPMV_CANDIDATES");
  if (env == nullptr || *env == '\0') return kkperm::spmv_candidates();
  std::vector<kkperm::SpmvCandidate> out;
  std::istringstream is(env);
  std::string name;
  while (std::getline(is, name, ','))
    if (!name.empty()) out.push_back(kkperm::spmv_candidate_from_string(name));
  return out;
}

/**
 * Row lengths placed against the merge-path tile (CsrMergePathConfig: `team` threads x
 * `items_per_thread` steps, a row of length L takes L + 1 steps): rows ending exactly at thread
 * and tile borders, runs of empty rows longer than a thread's share, a row of exactly one tile,
 * rows spanning several tiles back to back, then random short rows.
 */
std::vector<std::int64_t> merge_path_border_lengths(std::uint64_t seed) {
  constexpr int ipt = kkperm::spmv::CsrMergePathConfig::items_per_thread;
  constexpr int tile = static_cast<int>(kkperm::spmv::CsrMergePathConfig::tile);
  std::vector<std::int64_t> len(300, ipt - 1);     // one row per thread share
  len.insert(len.end(), 3 * ipt + 2, 0);           // empty rows across thread borders
  len.push_back(tile - 1);                         // one whole tile
  len.push_back(3 * tile + 5);                     // several tiles
  len.push_back(2 * tile - 1);                     // long row right after a long row
  len.insert(len.end(), 2 * tile + 3, 0);          // empty rows across tile borders
  len.push_back(1);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 2000; ++i) len.push_back(static_cast<std::int64_t>(rng() % (2 * ipt + 1)));
  return len;
}

/**
 * SELL16 at its 16-bit limit: 300 rows (two sigma windows, rows of 2-22 entries so the window
 * sort moves them); rows i % 4 == 0 start at column 100, the others a little later, rows
 * i % 3 == 0 end at column 100 + extent, the others before, random columns in between. With
 * extent = sell16_max_offset a slice based at 100 holds offsets up to 65535 and no escape (a
 * signed or 15-bit offset fails the reference check); with extent + 1 its longest jumps take
 * escape slots.
 */
GenCsr sell16_extent_matrix(std::int64_t extent, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  GenCsr g;
  g.num_rows = 300;
  g.num_cols = static_cast<int>(100 + extent + 7);
  g.row_map = {0};
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (int i = 0; i < g.num_rows; ++i) {
    const std::int64_t first = i % 4 == 0 ? 100 : 100 + 1 + static_cast<std::int64_t>(rng() % 50);
    const std::int64_t last =
        i % 3 == 0 ? 100 + extent : 100 + extent - 1 - static_cast<std::int64_t>(rng() % 60000);
    std::vector<std::int64_t> cols = {first, last};
    const int inner = static_cast<int>(rng() % 21);
    for (int k = 0; k < inner; ++k)
      cols.push_back(first + 1 + static_cast<std::int64_t>(rng() % (last - first - 1)));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (auto c : cols) {
      g.entries.push_back(static_cast<int>(c));
      g.values.push_back(val(rng));
    }
    g.row_map.push_back(static_cast<std::int64_t>(g.entries.size()));
  }
  return g;
}

/// Columns far apart: every entry of a row jumps more than 65534 columns (escape slots).
GenCsr sell16_jumps_matrix(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  GenCsr g;
  g.num_rows = 200;
  g.num_cols = 6 * 70000;
  g.row_map = {0};
  for (int i = 0; i < g.num_rows; ++i) {
    const int len = static_cast<int>(rng() % 7);
    for (int k = 0; k < len; ++k) {
      g.entries.push_back(k * 70000 + static_cast<int>(rng() % 3000));
      g.values.push_back(static_cast<double>(rng() % 1000) / 500.0 - 1.0);
    }
    g.row_map.push_back(static_cast<std::int64_t>(g.entries.size()));
  }
  return g;
}

/// Generated corner cases (seeded; the seed is recorded by the test).
std::vector<std::pair<std::string, GenCsr>> corner_cases(std::uint64_t seed) {
  auto out = kkperm::test::tiny_corner_matrices();
  out.push_back({"empty_rows_hypersparse", kkperm::gen::hypersparse(3000, 0.05, 7, seed)});
  out.push_back({"one_dense_row_arrow", kkperm::gen::arrow(2500, 1, 0, seed + 1)});
  out.push_back({"arrow_rows_and_cols", kkperm::gen::arrow(1500, 3, 2, seed + 2)});
  out.push_back({"wide_20x5000", kkperm::gen::random_uniform(20, 5000, 1, 900, seed + 3)});
  out.push_back({"tall_6000x9", kkperm::gen::random_uniform(6000, 9, 0, 9, seed + 4)});
  out.push_back({"power_law", kkperm::gen::power_law(6000, 12.0, 2.1, seed + 5)});
  out.push_back({"banded_multi_tile", kkperm::gen::banded(9000, 1500, 1700, 0.01, seed + 6)});
  out.push_back({"laplace2d", kkperm::gen::laplace2d_5pt(70, 60)});
  out.push_back({"block_diag_varied", kkperm::gen::block_diagonal(40, 1, 90, seed + 7)});
  // > 4096 rows with >= k entries so HYB's histogram rule picks k > 0 with a COO tail.
  out.push_back({"hyb_tail", kkperm::gen::random_uniform(9000, 9000, 2, 40, seed + 8)});
  out.push_back({"merge_path_borders",
                 kkperm::gen::rows_of_lengths(merge_path_border_lengths(seed + 9), 4000,
                                              seed + 10)});
  out.push_back({"sell16_extent_limit",
                 sell16_extent_matrix(kkperm::formats::sell16_max_offset, seed + 11)});
  out.push_back({"sell16_escapes",
                 sell16_extent_matrix(kkperm::formats::sell16_max_offset + 1, seed + 12)});
  out.push_back({"sell16_all_jumps", sell16_jumps_matrix(seed + 13)});
  return out;
}

/// Real and pattern matrices of matrices_dir()/real (from INDEX.tsv), read once per process.
const std::vector<std::pair<std::string, GenCsr>>& real_matrices() {
  static std::vector<std::pair<std::string, GenCsr>> cache = [] {
    std::vector<std::pair<std::string, GenCsr>> out;
    std::ifstream idx(kkperm::test::matrices_dir() + "/real/INDEX.tsv");
    std::string line;
    std::getline(idx, line);  // header: kind file source path rows cols nnz field symmetry bytes
    while (std::getline(idx, line)) {
      std::istringstream is(line);
      std::vector<std::string> f;
      std::string cell;
      while (std::getline(is, cell, '\t')) f.push_back(cell);
      if (f.size() < 8 || f[0] != "ok" || (f[7] != "real" && f[7] != "pattern")) continue;
      // A few files listed "ok" are deliberately broken test inputs of their source (LAGraph's
      // mangled*.mtx): the reader rejects them with ParseError; they are reported, not run.
      try {
        out.push_back({f[1], kkperm::io::read_matrix_market(kkperm::test::matrices_dir() +
                                                            "/real/" + f[1])});
      } catch (const kkperm::io::ParseError& e) {
        std::cerr << "[spmv test] not run (reader rejects it): " << e.what() << "\n";
      }
    }
    return out;
  }();
  return cache;
}

template <class T>
class SpmvCandidates : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SpmvCandidates, ValueTypes);

/**
 * Runs every available candidate on `g` for every (alpha, beta) and checks each row against the
 * serial reference computed in double from the same T-rounded inputs.
 *
 * Tolerance, from the arithmetic: the candidate computes s_i = sum_j a_ij x_j in T in some order
 * (row order, lanes, chunks + atomics, ELL padding order...), then alpha*s_i (+ beta*y_i). For
 * any summation order of m_i = nnz_i terms, |fl(s_i) - s_i| <= gamma_{m_i} * sum_j |a_ij x_j|
 * with gamma_m ~ m*u, u = eps_T/2 (Higham, Thm 3.1/3.5; FMA only tightens it). The scaling by
 * alpha and the beta term add at most 3 more roundings. The double reference has the same bound
 * with u_double, so for T = double the two errors add (2 * u = eps), for T = float it is
 * negligible. Hence |y - y_ref| <= (nnz_i + 3) * eps_T * (|alpha| * sum_j |a_ij||x_j| +
 * |beta| * |y0_i|), plus the smallest normal of T for rows whose exact result underflows.
 */
template <class T>
void check_all(const std::string& name, const GenCsr& g, std::uint64_t seed,
               int* candidates_run) {
  using Matrix = kkperm::Crs<T, int, kkperm::DefaultDevice, int>;
  SCOPED_TRACE("matrix " + name + " (" + std::to_string(g.num_rows) + " x " +
               std::to_string(g.num_cols) + ", nnz " + std::to_string(g.nnz()) +
               "), seed " + std::to_string(seed));
  const Matrix A = kkperm::to_device<Matrix>(g);
  const auto h = kkperm::to_host(A);  // the T-rounded values the device sees
  const int n = h.num_rows, m = h.num_cols;
  std::mt19937_64 rng(seed ^ std::hash<std::string>{}(name));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);

  std::vector<std::unique_ptr<kkperm::SpmvPlan<Matrix>>> plans;
  for (auto c : candidates_under_test()) {
    auto plan = kkperm::make_spmv_plan<Matrix>(c);
    try {
      plan->prepare(A);
    } catch (const kkperm::CandidateNotApplicable& e) {
      // Only the padded formats have limits; check the refusal is the documented one.
      const std::int64_t nnz = h.nnz();
      if (c == kkperm::SpmvCandidate::ell) {
        const double slots = static_cast<double>(kkperm::formats::max_row_length(h)) * n;
        EXPECT_GT(slots, std::max(kkperm::spmv::EllConfig::max_fill * nnz,
                                  double(kkperm::spmv::EllConfig::min_slots)))
            << e.what();
      } else if (c == kkperm::SpmvCandidate::sell_c_sigma) {
        const double slots = static_cast<double>(kkperm::formats::sell_slots(
            h, kkperm::spmv::SellConfig::C, kkperm::spmv::SellConfig::sigma));
        EXPECT_GT(slots, std::max(kkperm::spmv::SellConfig::max_fill * nnz,
                                  double(kkperm::spmv::SellConfig::min_slots)))
            << e.what();
      } else if (c == kkperm::SpmvCandidate::sell_i16 ||
                 c == kkperm::SpmvCandidate::sell_i16_wide) {
        const int sigma = c == kkperm::SpmvCandidate::sell_i16
                              ? kkperm::spmv::Sell16Config::sigma
                              : kkperm::spmv::Sell16Config::sigma_wide;
        const auto l = kkperm::formats::build_sell16(h, kkperm::spmv::Sell16Config::C, sigma, true);
        const double slots = static_cast<double>(l.slice_ptr.back());
        EXPECT_TRUE(l.max_lane > kkperm::formats::sell16_max_lane ||
                    l.escapes > kkperm::spmv::Sell16Config::max_escape_fraction * nnz ||
                    slots > std::max(kkperm::spmv::Sell16Config::max_fill * nnz,
                                     double(kkperm::spmv::Sell16Config::min_slots)))
            << "max_lane " << l.max_lane << ", escapes " << l.escapes << ", slots " << slots
            << ": " << e.what();
      } else if (c == kkperm::SpmvCandidate::csr_warp_tiled) {
        // Recompute the staged span on the host: teams of team_size rows (1 on host spaces).
        const int ts = kkperm::spmv::is_gpu_space<kkperm::DefaultExecSpace>() ? -1 : 1;
        if (ts == 1) {
          const std::int64_t tile = kkperm::spmv::CsrWarpTiledConfig::tile_cols;
          double staged = 0;
          for (int i = 0; i < n; ++i)
            if (h.row_map[i + 1] > h.row_map[i])
              staged += double(h.entries[h.row_map[i + 1] - 1] / tile - h.entries[h.row_map[i]] / tile + 1) *
                        double(tile);
          EXPECT_GT(staged, std::max(kkperm::spmv::CsrWarpTiledConfig::max_stage_ratio * nnz,
                                     double(kkperm::spmv::CsrWarpTiledConfig::min_staged)))
              << e.what();
        }
      } else if (kkperm::info(c).row_permutation == kkperm::Permutation::rcm) {
        EXPECT_NE(n, m) << "RCM variants refuse only non-square matrices: " << e.what();
      } else {
        ADD_FAILURE() << kkperm::to_string(c) << " refused a matrix: " << e.what();
      }
      continue;
    }
    plans.push_back(std::move(plan));
  }

  Kokkos::View<T*, kkperm::DefaultDevice> x("x", m), y("y", n);
  auto hx = Kokkos::create_mirror_view(x);
  auto hy = Kokkos::create_mirror_view(y);
  const T eps = std::numeric_limits<T>::epsilon();
  for (const auto& ab : kAlphaBeta) {
    const T alpha = static_cast<T>(ab.alpha), beta = static_cast<T>(ab.beta);
    for (const auto& plan : plans) {
      SCOPED_TRACE(plan->name() + " alpha=" + std::to_string(ab.alpha) +
                   " beta=" + std::to_string(ab.beta));
      // Fresh x and y0 for every run.
      std::vector<double> xd(m), y0(n), yref(n);
      for (int j = 0; j < m; ++j) {
        hx(j) = static_cast<T>(dist(rng));
        xd[j] = hx(j);
      }
      for (int i = 0; i < n; ++i) {
        hy(i) = beta == T(0) ? kkperm::test::poison<T>() : static_cast<T>(dist(rng));
        y0[i] = beta == T(0) ? 0.0 : static_cast<double>(hy(i));
        yref[i] = y0[i];
      }
      Kokkos::deep_copy(x, hx);
      Kokkos::deep_copy(y, hy);
      plan->run(alpha, x, beta, y);
      Kokkos::fence();
      Kokkos::deep_copy(hy, y);
      kkperm::spmv::csr_reference<double>(h, static_cast<double>(alpha), xd,
                                          static_cast<double>(beta), yref);
      const auto mag = kkperm::spmv::abs_row_products<double>(h, xd);
      int bad = 0;
      for (int i = 0; i < n; ++i) {
        const double nnz_i = static_cast<double>(h.row_map[i + 1] - h.row_map[i]);
        const double tol =
            (nnz_i + 3.0) * eps *
                (std::abs(static_cast<double>(alpha)) * mag[i] +
                 std::abs(static_cast<double>(beta)) * std::abs(y0[i])) +
            static_cast<double>(std::numeric_limits<T>::min());
        const double got = static_cast<double>(hy(i));
        // A few real matrices store inf/nan values: then the row's exact result is that
        // non-finite value in any summation order (NaN stays NaN, +inf with finite terms stays
        // +inf, +inf with -inf is NaN everywhere), so it must match exactly.
        // With alpha == 0, BLAS semantics (KokkosSparse::spmv follows them) skip A entirely,
        // giving beta*y0 even where A*x is non-finite; both readings are accepted there.
        const bool blas_alpha0 =
            alpha == T(0) &&
            std::abs(got - static_cast<double>(beta) * y0[i]) <=
                2 * eps * std::abs(static_cast<double>(beta) * y0[i]);
        const bool ok = std::isfinite(yref[i])
                            ? std::abs(got - yref[i]) <= tol
                            : (std::isnan(yref[i]) ? std::isnan(got) : got == yref[i]) ||
                                  blas_alpha0;
        if (!ok) {
          if (++bad <= 3)
            ADD_FAILURE() << "row " << i << ": got " << got << ", reference " << yref[i]
                          << ", |diff| " << std::abs(got - yref[i]) << " > tol " << tol;
        }
      }
      EXPECT_EQ(bad, 0) << bad << " of " << n << " rows out of tolerance";
    }
  }
  *candidates_run += static_cast<int>(plans.size());
}

TYPED_TEST(SpmvCandidates, EveryCandidateMatchesReferenceOnCornerCases) {
  const auto seed = seed_for_test();
  this->RecordProperty("seed", std::to_string(seed));
  int runs = 0;
  for (const auto& [name, g] : corner_cases(seed)) check_all<TypeParam>(name, g, seed, &runs);
  EXPECT_GT(runs, 0);
}

TYPED_TEST(SpmvCandidates, EveryCandidateMatchesReferenceOnRealMatrices) {
  const auto seed = seed_for_test();
  this->RecordProperty("seed", std::to_string(seed));
  const auto& mats = real_matrices();
  ASSERT_GT(mats.size(), 100u) << "expected the shared real/pattern matrices under "
                               << kkperm::test::matrices_dir() << "/real";
  int runs = 0;
  for (const auto& [name, g] : mats) check_all<TypeParam>(name, g, seed, &runs);
  EXPECT_GE(runs, static_cast<int>(mats.size()));
}

/**
 * Row-permuted candidates in permuted space: x_p = P x (RCM only; the others keep columns),
 * y_p = P y0, run_permuted(), then y = P^T y_p must match the reference in the caller's
 * order with the same tolerance as check_all (same arithmetic, rows merely renamed). Also
 * checks that the plan's P is a bijection and that run() (caller order) meets the same bound.
 */
template <class T>
void check_permuted_space(const std::string& name, const GenCsr& g, std::uint64_t seed) {
  using Matrix = kkperm::Crs<T, int, kkperm::DefaultDevice, int>;
  SCOPED_TRACE("matrix " + name + ", seed " + std::to_string(seed));
  const Matrix A = kkperm::to_device<Matrix>(g);
  const auto h = kkperm::to_host(A);
  const int n = h.num_rows, m = h.num_cols;
  std::mt19937_64 rng(seed ^ 0x5eedull ^ std::hash<std::string>{}(name));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const T eps = std::numeric_limits<T>::epsilon();
  int permuted = 0;
  for (auto c : kkperm::spmv_candidates()) {
    if (kkperm::info(c).row_permutation == kkperm::Permutation::identity) {
      auto plan = kkperm::make_spmv_plan<Matrix>(c);
      if (c == kkperm::SpmvCandidate::csr_scalar) {
        plan->prepare(A);
        EXPECT_EQ(plan->permuted_matrix(), nullptr);
        Kokkos::View<T*, kkperm::DefaultDevice> x("x", m), y("y", n);
        EXPECT_THROW(plan->run_permuted(T(1), x, T(0), y), std::invalid_argument);
      }
      continue;
    }
    SCOPED_TRACE(kkperm::to_string(c));
    auto plan = kkperm::make_spmv_plan<Matrix>(c);
    if (kkperm::info(c).row_permutation == kkperm::Permutation::rcm && n != m) {
      EXPECT_THROW(plan->prepare(A), kkperm::CandidateNotApplicable);
      continue;
    }
    plan->prepare(A);
    ++permuted;
    const auto* P = plan->permuted_matrix();
    ASSERT_NE(P, nullptr);
    EXPECT_EQ(P->kind(), kkperm::info(c).row_permutation);
    auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), P->perm());
    std::vector<int> seen(n, 0);
    for (int q = 0; q < n; ++q) {
      ASSERT_TRUE(hp(q) >= 0 && hp(q) < n) << "perm(" << q << ") = " << hp(q);
      ++seen[hp(q)];
    }
    for (int i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "row " << i << " not hit once by P";

    Kokkos::View<T*, kkperm::DefaultDevice> x("x", m), y("y", n), xp("xp", m), yp("yp", n),
        yback("yback", n);
    auto hx = Kokkos::create_mirror_view(x);
    auto hy = Kokkos::create_mirror_view(y);
    std::vector<double> xd(m), y0(n), yref(n);
    for (int j = 0; j < m; ++j) xd[j] = hx(j) = static_cast<T>(dist(rng));
    for (int i = 0; i < n; ++i) yref[i] = y0[i] = hy(i) = static_cast<T>(dist(rng));
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(y, hy);
    const T alpha = T(1.25), beta = T(-0.5);
    if (P->symmetric()) P->to_permuted(x, xp);
    else Kokkos::deep_copy(xp, x);
    P->to_permuted(y, yp);
    plan->run_permuted(alpha, xp, beta, yp);
    P->from_permuted(yp, yback);
    plan->run(alpha, x, beta, y);  // caller order, same kernel
    Kokkos::fence();
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yback);
    Kokkos::deep_copy(hy, y);
    kkperm::spmv::csr_reference<double>(h, static_cast<double>(alpha), xd,
                                        static_cast<double>(beta), yref);
    const auto mag = kkperm::spmv::abs_row_products<double>(h, xd);
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      const double nnz_i = static_cast<double>(h.row_map[i + 1] - h.row_map[i]);
      const double tol = (nnz_i + 3.0) * eps *
                             (std::abs(double(alpha)) * mag[i] + std::abs(double(beta) * y0[i])) +
                         static_cast<double>(std::numeric_limits<T>::min());
      if (!(std::abs(double(hb(i)) - yref[i]) <= tol) && ++bad <= 3)
        ADD_FAILURE() << "permuted space row " << i << ": got " << hb(i) << ", reference "
                      << yref[i] << " tol " << tol;
      // Same kernel, same summation order, but the two paths are separate instantiations: nvcc
      // may contract alpha*s + beta*y into an FMA in one and not the other (seen on an H200,
      // 1-ulp differences in float), so each must meet the bound, not match bit for bit.
      if (!(std::abs(double(hy(i)) - yref[i]) <= tol) && ++bad <= 3)
        ADD_FAILURE() << "caller order row " << i << ": got " << hy(i) << ", reference "
                      << yref[i] << " tol " << tol;
    }
    EXPECT_EQ(bad, 0);
  }
  EXPECT_GT(permuted, 0);
}

TYPED_TEST(SpmvCandidates, PermutedSpaceMatchesReferenceAndCallerOrder) {
  const auto seed = seed_for_test();
  this->RecordProperty("seed", std::to_string(seed));
  for (const auto& [name, g] : corner_cases(seed))
    if (g.num_rows > 0) check_permuted_space<TypeParam>(name, g, seed);
}

TEST(SpmvRegistry, PermutedVariantsNameTheirKernelAndPermutation) {
  int permuted = 0;
  for (auto c : kkperm::all_spmv_candidates()) {
    const auto& inf = kkperm::info(c);
    const auto base = kkperm::spmv_base_candidate(c);
    if (inf.row_permutation == kkperm::Permutation::identity) {
      EXPECT_EQ(base, c) << inf.name;
      continue;
    }
    ++permuted;
    // "kernel@permutation", the kernel being an unpermuted candidate of the same family.
    EXPECT_EQ(std::string(inf.name),
              kkperm::to_string(base) + "@" + kkperm::to_string(inf.row_permutation));
    EXPECT_EQ(kkperm::info(base).row_permutation, kkperm::Permutation::identity);
    EXPECT_EQ(std::string(inf.kernel), kkperm::to_string(base));
    EXPECT_EQ(std::string(inf.permutation), kkperm::to_string(inf.row_permutation));
  }
  // csr_scalar and csr_vector carry every row permutation except identity and DCSR (which
  // is the separate dcsr candidate); csr_warp_dynamic the documented subset.
  for (auto k : {kkperm::SpmvCandidate::csr_scalar, kkperm::SpmvCandidate::csr_vector}) {
    for (auto p : kkperm::all_permutations()) {
      if (p == kkperm::Permutation::identity || p == kkperm::Permutation::dcsr) continue;
      const std::string nm = kkperm::to_string(k) + "@" + kkperm::to_string(p);
      EXPECT_NO_THROW(kkperm::spmv_candidate_from_string(nm)) << nm;
    }
  }
  for (const char* nm : {"csr_warp_dynamic@plain_sort", "csr_warp_dynamic@warp_aware",
                         "csr_warp_dynamic@cta_aware", "csr_warp_dynamic@rcm"})
    EXPECT_NO_THROW(kkperm::spmv_candidate_from_string(nm)) << nm;
  EXPECT_EQ(permuted, 24);
}

// The host twins of the formats agree with the CSR reference (so a kernel matching its twin
// and the twin matching CSR are two independent checks of the conversion).
TEST(SpmvFormats, TwinsMatchCsrReference) {
  const auto seed = seed_for_test();
  RecordProperty("seed", std::to_string(seed));
  auto cases = corner_cases(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (const auto& [name, g] : cases) {
    SCOPED_TRACE(name);
    std::vector<double> x(g.num_cols), y0(g.num_rows);
    for (auto& v : x) v = dist(rng);
    for (auto& v : y0) v = dist(rng);
    const double alpha = 1.5, beta = -0.5;
    std::vector<double> ref = y0;
    kkperm::spmv::csr_reference<double>(g, alpha, x, beta, ref);
    const auto mag = kkperm::spmv::abs_row_products<double>(g, x);
    auto check = [&](const std::vector<double>& got, const char* what) {
      for (int i = 0; i < g.num_rows; ++i) {
        const double nnz_i = static_cast<double>(g.row_map[i + 1] - g.row_map[i]);
        const double tol = (nnz_i + 3.0) * std::numeric_limits<double>::epsilon() *
                           (std::abs(alpha) * mag[i] + std::abs(beta * y0[i]));
        ASSERT_LE(std::abs(got[i] - ref[i]), tol) << what << " row " << i;
      }
    };
    std::vector<double> y;
    y = y0;
    kkperm::formats::spmv_reference(kkperm::formats::build_ell(g, kkperm::formats::max_row_length(g)),
                                    alpha, x, beta, y);
    check(y, "ell");
    y = y0;
    kkperm::formats::spmv_reference(kkperm::formats::build_coo(g), alpha, x, beta, y);
    check(y, "coo");
    for (std::int64_t k : {std::int64_t(0), std::int64_t(1), kkperm::formats::hyb_k_mean(g),
                           kkperm::formats::hyb_k_histogram(g, 3.0, 4096)}) {
      y = y0;
      kkperm::formats::spmv_reference(kkperm::formats::build_hyb(g, k), alpha, x, beta, y);
      check(y, "hyb");
    }
    y = y0;
    kkperm::formats::spmv_reference(kkperm::formats::build_sell(g, 32, 256), alpha, x, beta, y);
    check(y, "sell");
    for (const auto& [C, sigma] :
         {std::pair<int, int>{32, 256}, {32, 2048}, {4, 8}, {3, 7}, {32, 1}}) {
      y = y0;
      kkperm::formats::spmv_reference(kkperm::formats::build_sell16(g, C, sigma), alpha, x, beta,
                                      y);
      check(y, "sell16");
    }
    y = y0;
    kkperm::formats::spmv_reference(g, kkperm::formats::build_dcsr_rows(g), alpha, x, beta, y);
    check(y, "dcsr");
  }
}

TEST(SpmvFormats, Sell16OffsetsEscapesAndRefusals) {
  using Matrix = kkperm::Crs<double, int, kkperm::DefaultDevice, int>;
  const auto seed = seed_for_test();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int C = kkperm::spmv::Sell16Config::C, sigma = kkperm::spmv::Sell16Config::sigma;
  // Jumps of exactly sell16_max_offset stay plain slots holding offset 65535.
  const GenCsr limit = sell16_extent_matrix(kkperm::formats::sell16_max_offset, seed);
  const auto fits = kkperm::formats::build_sell16(limit, C, sigma);
  EXPECT_EQ(fits.escapes, 0);
  EXPECT_EQ(*std::max_element(fits.offs.begin(), fits.offs.end()), 65535);
  // One column more takes escapes: offset 0, the column in the value's bytes.
  const auto esc = kkperm::formats::build_sell16(
      sell16_extent_matrix(kkperm::formats::sell16_max_offset + 1, seed), C, sigma);
  EXPECT_GT(esc.escapes, 0);
  std::int64_t zero_offs = 0;
  for (std::int64_t q = 0; q < static_cast<std::int64_t>(esc.offs.size()); ++q)
    if (esc.offs[q] == 0 && esc.vals[q] != 0.0) {
      ++zero_offs;
      EXPECT_EQ((kkperm::formats::sell16_escape_column<double, int>(esc.vals[q])),
                100 + kkperm::formats::sell16_max_offset + 1);
    }
  EXPECT_EQ(zero_offs, esc.escapes);
  // Every entry of sell16_jumps_matrix escapes but the first of a row within 65534 of the base.
  auto plan = kkperm::make_spmv_plan<Matrix>(kkperm::SpmvCandidate::sell_i16);
  try {
    plan->prepare(kkperm::to_device<Matrix>(sell16_jumps_matrix(seed)));
    ADD_FAILURE() << "sell_i16 accepted a matrix whose entries are nearly all escapes";
  } catch (const kkperm::CandidateNotApplicable& e) {
    EXPECT_NE(std::string(e.what()).find("escape slots"), std::string::npos) << e.what();
  }
  // A row of 70000 entries (70001 slots: column 65535 is one jump past the base 0, an escape)
  // does not fit a 16-bit lane length.
  GenCsr wide;
  wide.num_rows = 1;
  wide.num_cols = 70000;
  wide.row_map = {0, 70000};
  for (int c = 0; c < 70000; ++c) {
    wide.entries.push_back(c);
    wide.values.push_back(1.0);
  }
  try {
    plan->prepare(kkperm::to_device<Matrix>(wide));
    ADD_FAILURE() << "sell_i16 accepted a row of 70001 slots";
  } catch (const kkperm::CandidateNotApplicable& e) {
    EXPECT_NE(std::string(e.what()).find("70001 slots"), std::string::npos) << e.what();
  }
  // A prepared plan reads fewer bytes than the CSR floor.
  plan->prepare(kkperm::to_device<Matrix>(limit));
  EXPECT_LT(plan->own_bytes(false), plan->bytes_moved(false));
}

TEST(SpmvFormats, HybHistogramRuleAndMeanK) {
  // 5000 rows of length 3 and 5000 of length 10: >= n/3 and >= 4096 rows have >= 10 entries.
  GenCsr g;
  g.num_rows = 10000;
  g.num_cols = 20;
  g.row_map = {0};
  for (int i = 0; i < g.num_rows; ++i) {
    const int len = i % 2 ? 10 : 3;
    for (int j = 0; j < len; ++j) {
      g.entries.push_back(j);
      g.values.push_back(1.0);
    }
    g.row_map.push_back(static_cast<std::int64_t>(g.entries.size()));
  }
  EXPECT_EQ(kkperm::formats::hyb_k_histogram(g, 3.0, 4096), 10);
  EXPECT_EQ(kkperm::formats::hyb_k_histogram(g, 3.0, 6000), 3);  // only 5000 rows have > 3
  EXPECT_EQ(kkperm::formats::hyb_k_mean(g), 7);                   // ceil(6.5)
}

// csr_warp_dynamic's rows per team thread and fetch: about nnz_per_fetch (512) entries per warp
// fetch at the mean row length, never fewer than rows_per_fetch (1); worked by hand.
TEST(SpmvKernels, WarpDynamicFetchSize) {
  using kkperm::spmv::warp_dynamic_rows_per_fetch;
  ASSERT_EQ(kkperm::spmv::CsrWarpDynamicConfig::nnz_per_fetch, 512);
  ASSERT_EQ(kkperm::spmv::CsrWarpDynamicConfig::rows_per_fetch, 1);
  // 2D 5-point 2000^2: 4e6 rows, ~2e7 entries (5 a row), 8 team threads a warp (vl = 4):
  // 512 / (8 * 5) = 12.8 -> 13 rows each, 104 rows a fetch: 38 462 fetches instead of 10^6
  EXPECT_EQ(warp_dynamic_rows_per_fetch(4000000, 20000000, 8), 13);
  // 16 entries a row, 2 team threads a warp (vl = 16): 512 / 32 = 16 exactly
  EXPECT_EQ(warp_dynamic_rows_per_fetch(1000000, 16000000, 2), 16);
  // rows longer than a fetch's worth: the floor of 1 row
  EXPECT_EQ(warp_dynamic_rows_per_fetch(1000, 1000000, 1), 1);
  // host backends (one team thread a "warp"), 4 entries a row: 128 rows a fetch
  EXPECT_EQ(warp_dynamic_rows_per_fetch(1000, 4000, 1), 128);
  // empty matrix or no entries: the floor
  EXPECT_EQ(warp_dynamic_rows_per_fetch(0, 0, 8), 1);
  EXPECT_EQ(warp_dynamic_rows_per_fetch(1000, 0, 8), 1);
  // large counts do not overflow: 2^31 rows of 1 entry, 32 a warp -> 16
  EXPECT_EQ(warp_dynamic_rows_per_fetch(std::int64_t(1) << 31, std::int64_t(1) << 31, 32), 16);
}

TEST(SpmvRegistry, NamesRoundTripAndUnknownNamesAreRejected) {
  for (auto c : kkperm::all_spmv_candidates()) {
    EXPECT_EQ(kkperm::spmv_candidate_from_string(kkperm::to_string(c)), c);
    EXPECT_EQ(kkperm::info(c).id, c);
  }
  try {
    kkperm::spmv_candidate_from_string("csr_bogus");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("csr_bogus"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("csr_vector"), std::string::npos);  // lists valid ones
  }
  bool any_cuda_only = false;
  for (auto c : kkperm::all_spmv_candidates()) {
    if (kkperm::info(c).cuda_only) {
      any_cuda_only = true;
#ifndef KKPERM_ENABLE_CUDA
      EXPECT_FALSE(kkperm::available(c)) << kkperm::to_string(c);
      EXPECT_THROW(kkperm::make_spmv_plan<kkperm::DefaultCrs>(c), std::invalid_argument);
#endif
    } else {
      EXPECT_TRUE(kkperm::available(c)) << kkperm::to_string(c);
    }
  }
  EXPECT_TRUE(any_cuda_only);
}

TEST(SpmvRegistry, RunChecksPreparationAndSizes) {
  using Matrix = kkperm::DefaultCrs;
  const auto A = kkperm::to_device<Matrix>(kkperm::gen::laplace2d_5pt(4, 5));  // 20 x 20
  auto plan = kkperm::make_spmv_plan<Matrix>(kkperm::SpmvCandidate::csr_vector);
  Kokkos::View<double*, kkperm::DefaultDevice> x("x", 20), y("y", 20), short_x("sx", 19);
  EXPECT_THROW(plan->run(1.0, x, 0.0, y), std::invalid_argument);  // not prepared
  plan->prepare(A);
  EXPECT_THROW(plan->run(1.0, short_x, 0.0, y), std::invalid_argument);
  EXPECT_THROW(plan->run(1.0, x, 0.0, short_x), std::invalid_argument);
  EXPECT_THROW(plan->run(1.0, y, 0.0, y), std::invalid_argument);  // aliasing
  EXPECT_NO_THROW(plan->run(1.0, x, 0.0, y));
  // byte floor: 82 nnz * (8 + 4) + 21 * 4 + 20 * 8 (x) + 20 * 8 (y written) [+ 20 * 8 y read]
  EXPECT_DOUBLE_EQ(plan->bytes_moved(false), 82.0 * 12 + 21 * 4 + 160 + 160);
  EXPECT_DOUBLE_EQ(plan->bytes_moved(true), 82.0 * 12 + 21 * 4 + 160 + 320);
}

}  // namespace
