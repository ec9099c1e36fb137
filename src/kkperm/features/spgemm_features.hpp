#pragma once
/**
 * @brief SpGEMM feature set (issue 3, set 3) for C = A·B: per-row work F_i = Σ_{k ∈ row i of A}
 * nnz(B row k), its min/max/mean/std/total, the number of rows per work bin, and a cheap
 * estimate of nnz(C)/ΣF_i (the compression ratio of the contraction).
 *
 * Usage: `auto f = kkperm::spgemm_features(A, B); f.at("spgemm_work_max");`
 * Definitions (also what the serial twin spgemm_features_serial computes on HostCsr):
 *  - F_i counts duplicate entries of A each time; std is the population standard deviation.
 *  - bins use F_i alone: ≤ thread_max, ≤ warp_max, ≤ team_max, above (parameters; defaults are
 *    the ESC kernel's thresholds; the ESC kernel itself bins by max(F_i, nnz(A row i))).
 *  - nnz ratio estimate: exact on the kept rows of the candidates i_s = ⌊s·n/S⌋, s = 0..S-1,
 *    S = min(n, sample_rows): Σ nnz(C row i_s) / Σ F_{i_s} over the candidates with F_{i_s} ≤
 *    ⌊budget / S⌋, budget = sample_work_max or, when 0, nnz(A) + nnz(B) (0 when the kept work
 *    is 0). spgemm_sample_rows reports how many candidates were kept. The cap keeps the
 *    estimate cheap: on an arrow matrix every row of A·A meets the dense rows (F_i ~ 2n), and
 *    the uncapped 1024-row sample took 11 s per call for n = 1e5 on the CPU (Serial build,
 *    `kkperm_features --gen arrow:n=100000,dense_rows=2,dense_cols=2,seed=12 --repeat 1 --warmup 0
 *    --perms none`), and the 1e6-row arrow's `kkperm_features` run did not finish within its
 *    90 s limit on an H100 (run 90); there it now keeps no row. On the device the kept rows
 *    are gathered and counted by the ESC symbolic count pass (exact, integer).
 * Preconditions: A.numCols() == B.numRows(); columns in range (checked).
 */
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/features/feature_params.hpp"
#include "kkperm/features/int_stats.hpp"
#include "kkperm/kernels/spgemm/esc_spgemm.hpp"
#include "kkperm/kernels/spgemm/spgemm_reference.hpp"

namespace kkperm {

struct SpgemmFeatureParams {
  std::int64_t thread_max = 32;
  std::int64_t warp_max = 736;
  std::int64_t team_max = 6144;
  std::int64_t sample_rows = 1024;  ///< rows sampled for the nnz(C)/ΣF estimate
  /// Work budget of that sample (0 = nnz(A) + nnz(B)): candidate rows with F_i above budget /
  /// sample count are left out.
  std::int64_t sample_work_max = 0;

  void check(const char* who) const {
    KKPERM_REQUIRE(thread_max >= 0 && thread_max <= warp_max && warp_max <= team_max,
                   who << ": bin thresholds must satisfy 0 <= thread_max <= warp_max <= team_max");
    KKPERM_REQUIRE(sample_rows >= 1 && sample_rows <= (std::int64_t(1) << 31),
                   who << ": sample_rows must be in [1, 2^31], got " << sample_rows);
    KKPERM_REQUIRE(sample_work_max >= 0, who << ": sample_work_max must be >= 0 (0 = automatic), got " << sample_work_max);
  }
};

/// Feature names in output order.
inline std::vector<std::string> spgemm_feature_names() {
  return {"spgemm_work_min",        "spgemm_work_max",        "spgemm_work_mean",
          "spgemm_work_std",        "spgemm_work_total",      "spgemm_bin_thread_rows",
          "spgemm_bin_warp_rows",   "spgemm_bin_block_rows",  "spgemm_bin_global_rows",
          "spgemm_nnz_ratio_estimate", "spgemm_sample_rows"};
}

namespace detail {
inline FeatureVector make_spgemm_vector(const IntStat& w, const std::int64_t bins[4],
                                        double ratio, std::int64_t sample) {
  FeatureVector f;
  f.names = spgemm_feature_names();
  f.values = {w.min_value(), w.max_value(), w.mean(), w.sigma(), static_cast<double>(w.sum),
              static_cast<double>(bins[0]), static_cast<double>(bins[1]),
              static_cast<double>(bins[2]), static_cast<double>(bins[3]), ratio,
              static_cast<double>(sample)};
  return f;
}

/// i_s = ⌊s·n/S⌋; s < S ≤ 2^31 and n < 2^31 keep s·n below 2^62 (exact in int64, device-safe).
KOKKOS_INLINE_FUNCTION std::int64_t sample_row(std::int64_t s, std::int64_t n, std::int64_t S) {
  return (s * n) / S;
}
/// Largest work of a kept sample row: ⌊budget / S⌋ (see spgemm_features).
inline std::int64_t sample_row_cap(const SpgemmFeatureParams& p, std::int64_t nnz_a, std::int64_t nnz_b,
                                   std::int64_t S) {
  const std::int64_t budget = p.sample_work_max > 0 ? p.sample_work_max : nnz_a + nnz_b;
  return S > 0 ? budget / S : 0;
}
}  // namespace detail

template <class Matrix>
FeatureVector spgemm_features(const Matrix& A, const Matrix& B, const SpgemmFeatureParams& p = {}) {
  using exec = typename Matrix::execution_space;
  using offset_t = typename Matrix::non_const_size_type;
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  p.check("kkperm::spgemm_features");
  KKPERM_REQUIRE(A.numCols() == B.numRows(), "kkperm::spgemm_features: A is "
                                                 << A.numRows() << " x " << A.numCols()
                                                 << " but B is " << B.numRows() << " x "
                                                 << B.numCols());
  validate_pair(A, "kkperm::spgemm_features: A", B, "kkperm::spgemm_features: B", false);
  const std::int64_t n = A.numRows();
  const auto rowA = A.graph.row_map;
  const auto entA = A.graph.entries;
  const auto rowB = B.graph.row_map;
  const std::int64_t t0 = p.thread_max, t1 = p.warp_max, t2 = p.team_max;
  // s[0]: work stats; s[1..4]: bin counts (count field)
  const auto acc = detail::reduce_stats<exec, 5>(
      "kkperm::features::spgemm_work", n, KOKKOS_LAMBDA(const std::int64_t i, detail::MultiStat<5>& a) {
        std::int64_t f = 0;
        for (auto q = rowA(i); q < rowA(i + 1); ++q) {
          const auto k = entA(q);
          f += static_cast<std::int64_t>(rowB(k + 1) - rowB(k));
        }
        a.s[0].add(f);
        a.s[1 + spgemm::esc_impl::bin_of(f, t0, t1, t2)].add(f);
      });
  std::int64_t bins[4];
  for (int b = 0; b < 4; ++b) bins[b] = acc.s[1 + b].count;

  // nnz(C)/ΣF on a deterministic row sample: the candidates' work, the kept rows (host, S
  // values), gathered and counted with the ESC count pass.
  const std::int64_t S0 = n < p.sample_rows ? n : p.sample_rows;
  std::int64_t S = 0;
  double ratio = 0.0;
  Kokkos::View<std::int64_t*, typename Matrix::memory_space> kept("kkperm::features::sample_rows", S0);
  if (S0 > 0) {
    Kokkos::View<std::int64_t*, typename Matrix::memory_space> cw("kkperm::features::sample_work", S0);
    kkperm::parallel_for(
        "kkperm::features::sample_work", kkperm::range_policy<exec>(0, S0), KOKKOS_LAMBDA(const std::int64_t s) {
          const std::int64_t i = detail::sample_row(s, n, S0);
          std::int64_t f = 0;
          for (auto q = rowA(i); q < rowA(i + 1); ++q) f += static_cast<std::int64_t>(rowB(entA(q) + 1) - rowB(entA(q)));
          cw(s) = f;
        });
    const auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cw);
    const std::int64_t cap = detail::sample_row_cap(p, static_cast<std::int64_t>(A.nnz()),
                                                    static_cast<std::int64_t>(B.nnz()), S0);
    auto hk = Kokkos::create_mirror_view(kept);
    for (std::int64_t s = 0; s < S0; ++s)  // O(S) host work
      if (hw(s) <= cap) hk(S++) = detail::sample_row(s, n, S0);
    Kokkos::deep_copy(kept, hk);
  }
  if (S > 0) {
    using rowmap_t = typename Matrix::row_map_type::non_const_type;
    using entries_t = typename Matrix::index_type::non_const_type;
    using values_t = typename Matrix::values_type::non_const_type;
    rowmap_t rs("kkperm::features::sample_row_map", S + 1);
    Kokkos::parallel_scan(
        "kkperm::features::sample_scan", kkperm::range_policy<exec>(0, S),
        KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& upd, const bool final) {
          const std::int64_t i = kept(s);
          upd += static_cast<std::int64_t>(rowA(i + 1) - rowA(i));
          if (final) rs(s + 1) = static_cast<offset_t>(upd);
        });
    offset_t snnz = 0;
    Kokkos::deep_copy(snnz, Kokkos::subview(rs, S));
    entries_t es(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::features::sample_entries"), snnz);
    values_t vs("kkperm::features::sample_values", snnz);
    kkperm::parallel_for(
        "kkperm::features::sample_gather", kkperm::range_policy<exec>(0, S),
        KOKKOS_LAMBDA(const std::int64_t s) {
          const std::int64_t i = kept(s);
          const auto b = rowA(i);
          for (auto q = b; q < rowA(i + 1); ++q) es(rs(s) + (q - b)) = entA(q);
        });
    Matrix As("kkperm::features::A_sample", static_cast<ordinal_t>(S), A.numCols(), snnz, vs, rs, es);
    spgemm::EscConfig cfg;
    cfg.check_reuse = false;
    spgemm::EscSpgemm<Matrix> esc(cfg);
    esc.symbolic(As, B);
    if (esc.stats().sum_work > 0)
      ratio = static_cast<double>(esc.stats().nnz_c) / static_cast<double>(esc.stats().sum_work);
  }
  return detail::make_spgemm_vector(acc.s[0], bins, ratio, S);
}

/// Serial twin of spgemm_features on HostCsr (same definitions, exact integers).
template <class V, class O, class F>
FeatureVector spgemm_features_serial(const HostCsr<V, O, F>& A, const HostCsr<V, O, F>& B,
                                     const SpgemmFeatureParams& p = {}) {
  p.check("kkperm::spgemm_features_serial");
  KKPERM_REQUIRE(A.num_cols == B.num_rows, "kkperm::spgemm_features_serial: A is "
                                               << A.num_rows << " x " << A.num_cols << " but B is "
                                               << B.num_rows << " x " << B.num_cols);
  const auto w = spgemm::reference_row_work(A, B);
  detail::IntStat st;
  st.init();
  std::int64_t bins[4] = {0, 0, 0, 0};
  for (const auto f : w) {
    st.add(f);
    ++bins[spgemm::esc_impl::bin_of(f, p.thread_max, p.warp_max, p.team_max)];
  }
  const std::int64_t n = A.num_rows;
  const std::int64_t S0 = n < p.sample_rows ? n : p.sample_rows;
  const std::int64_t cap = detail::sample_row_cap(p, static_cast<std::int64_t>(A.nnz()),
                                                  static_cast<std::int64_t>(B.nnz()), S0);
  std::vector<std::int64_t> kept;
  for (std::int64_t s = 0; s < S0; ++s)
    if (w[detail::sample_row(s, n, S0)] <= cap) kept.push_back(detail::sample_row(s, n, S0));
  const std::int64_t S = static_cast<std::int64_t>(kept.size());
  double ratio = 0.0;
  if (S > 0) {
    HostCsr<V, O, F> As;
    As.num_rows = static_cast<O>(S);
    As.num_cols = A.num_cols;
    As.row_map.assign(static_cast<std::size_t>(S) + 1, 0);
    for (std::int64_t s = 0; s < S; ++s) {
      const std::int64_t i = kept[s];
      for (F q = A.row_map[i]; q < A.row_map[i + 1]; ++q) {
        As.entries.push_back(A.entries[q]);
        As.values.push_back(V(0));
      }
      As.row_map[s + 1] = static_cast<F>(As.entries.size());
    }
    const auto ref = spgemm::reference_multiply(As, B);
    const auto ws = spgemm::reference_row_work(As, B);
    std::int64_t tot = 0;
    for (const auto f : ws) tot += f;
    if (tot > 0) ratio = static_cast<double>(ref.C.nnz()) / static_cast<double>(tot);
  }
  return detail::make_spgemm_vector(st, bins, ratio, S);
}

}  // namespace kkperm
