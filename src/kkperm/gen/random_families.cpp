// Random families: uniform rows, Chung–Lu power law, hypersparse.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kkperm/gen/detail/gen_common.hpp"

namespace kkperm::gen {

GenCsr random_uniform(std::int64_t n_rows, std::int64_t n_cols, std::int64_t nnz_per_row,
                      std::uint64_t seed) {
  return random_uniform(n_rows, n_cols, nnz_per_row, nnz_per_row, seed);
}

GenCsr random_uniform(std::int64_t n_rows, std::int64_t n_cols, std::int64_t min_nnz_per_row,
                      std::int64_t max_nnz_per_row, std::uint64_t seed) {
  constexpr const char* who = "kkperm::gen::random_uniform";
  detail::require_dim(who, "n_rows", n_rows);
  detail::require_dim(who, "n_cols", n_cols);
  KKPERM_REQUIRE(
      0 <= min_nnz_per_row && min_nnz_per_row <= max_nnz_per_row && max_nnz_per_row <= n_cols,
      who << ": need 0 <= min_nnz_per_row (" << min_nnz_per_row << ") <= max_nnz_per_row ("
          << max_nnz_per_row << ") <= n_cols (" << n_cols << ")");
  const std::int64_t hint = n_rows * ((min_nnz_per_row + max_nnz_per_row) / 2 + 1);
  GenCsr h = detail::make_csr(n_rows, n_cols, hint);
  std::vector<int> scratch;
  for (std::int64_t i = 0; i < n_rows; ++i) {
    Rng rng(seed, stream::structure, static_cast<std::uint64_t>(i));
    const std::int64_t k = min_nnz_per_row == max_nnz_per_row
                               ? min_nnz_per_row
                               : rng.uniform_int(min_nnz_per_row, max_nnz_per_row);
    detail::sample_distinct_sorted(rng, k, n_cols, h.entries, scratch);
    detail::close_row(h);
  }
  detail::fill_random_values(h, seed);
  return h;
}

GenCsr rows_of_lengths(const std::vector<std::int64_t>& lengths, std::int64_t n_cols,
                       std::uint64_t seed) {
  constexpr const char* who = "kkperm::gen::rows_of_lengths";
  const auto n_rows = static_cast<std::int64_t>(lengths.size());
  detail::require_dim(who, "rows (lengths.size())", n_rows);
  detail::require_dim(who, "n_cols", n_cols);
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < n_rows; ++i) {
    KKPERM_REQUIRE(0 <= lengths[i] && lengths[i] <= n_cols,
                   who << ": lengths[" << i << "] = " << lengths[i] << " is not in [0, n_cols = "
                       << n_cols << "]");
    total += lengths[i];
  }
  GenCsr h = detail::make_csr(n_rows, n_cols, total);
  std::vector<int> scratch;
  for (std::int64_t i = 0; i < n_rows; ++i) {
    Rng rng(seed, stream::structure, static_cast<std::uint64_t>(i));
    detail::sample_distinct_sorted(rng, lengths[i], n_cols, h.entries, scratch);
    detail::close_row(h);
  }
  detail::fill_random_values(h, seed);
  return h;
}

// ---- Chung–Lu -------------------------------------------------------------------------------
namespace {

/// Expected nnz of the Chung–Lu matrix with probabilities min(1, c*w_i*w_j), for weights w
/// sorted descending with prefix sums pre (pre[t] = w_0 + ... + w_{t-1}). For row i the capped
/// columns form a prefix j < t_i, and t_i shrinks as i grows: one two-pointer sweep, O(n).
double expected_nnz(const std::vector<float>& w, const std::vector<double>& pre, double c) {
  const std::size_t n = w.size();
  const double total = pre[n];
  std::size_t t = n;
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    while (t > 0 && c * w[i] * w[t - 1] < 1.0) --t;
    sum += static_cast<double>(t) + c * w[i] * (total - pre[t]);
  }
  return sum;
}

}  // namespace

GenCsr power_law(std::int64_t n, double avg_deg, double gamma, std::uint64_t seed, bool shuffle) {
  constexpr const char* who = "kkperm::gen::power_law";
  detail::require_dim(who, "n", n, 1);
  KKPERM_REQUIRE(std::isfinite(gamma) && gamma > 1.0,
                 who << ": gamma = " << gamma << " must be a finite number > 1");
  KKPERM_REQUIRE(std::isfinite(avg_deg) && avg_deg > 0.0 && avg_deg <= 0.5 * static_cast<double>(n),
                 who << ": avg_deg = " << avg_deg << " must be in (0, n/2] with n = " << n);

  // Weights, descending in i, stored as float: the sampling loop reads w[j] at random j once
  // per entry, so its footprint decides the cache-miss rate (measured: with 6.25e6 doubles,
  // 50 MB, the loop was memory-latency bound). The float-rounded weights ARE the model's
  // weights (bisection and sampling both use them), so nothing is inconsistent.
  const double expo = -1.0 / (gamma - 1.0);
  std::vector<float> w(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    w[i] = static_cast<float>(det_pow(static_cast<double>(i + 1), expo));
  std::vector<double> pre(w.size() + 1, 0.0);
  for (std::size_t i = 0; i < w.size(); ++i) pre[i + 1] = pre[i] + w[i];

  // Solve E(c) = n * avg_deg. E is continuous and increasing in c, E(c) <= c * S^2, so
  // c >= target / S^2; double the upper end until it brackets, then bisect.
  const double target = static_cast<double>(n) * avg_deg;
  double lo = target / (pre.back() * pre.back());
  double hi = lo;
  while (expected_nnz(w, pre, hi) < target) {
    lo = hi;
    hi *= 2.0;
    // Only reachable when weights underflow to 0 (gamma very close to 1 and huge n).
    KKPERM_REQUIRE(std::isfinite(hi), who << ": avg_deg = " << avg_deg
                                          << " is unreachable with gamma = " << gamma
                                          << " and n = " << n << " (weights underflow)");
  }
  for (int it = 0; it < 200 && (hi - lo) > 1e-12 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (expected_nnz(w, pre, mid) < target)
      lo = mid;
    else
      hi = mid;
    if (hi - lo <= 1e-9 * hi) break;  // 1e-9 relative in c is far below sampling noise
  }
  const double c = 0.5 * (lo + hi);
  std::vector<double>().swap(pre);  // free before sampling

  // Miller–Hagberg geometric skipping over the descending weights, row by row.
  GenCsr g = detail::make_csr(n, n, static_cast<std::int64_t>(target * 1.05) + 16);
  for (std::int64_t i = 0; i < n; ++i) {
    Rng rng(seed, stream::structure, static_cast<std::uint64_t>(i));
    const double wi = c * w[i];
    std::int64_t j = 0;
    double p = 1.0;  // upper bound of the probability of every column >= j
    while (j < n) {
      if (p <= 0.0) break;  // remaining weights underflowed to 0
      if (p < 1.0) {
        const double skip = std::floor(det_log(rng.uniform_open01()) / det_log1m(p));
        if (skip >= static_cast<double>(n - j)) break;
        j += static_cast<std::int64_t>(skip);
      }
      const double q = std::min(1.0, wi * w[j]);
      if (q >= p || rng.uniform01() * p < q) g.entries.push_back(static_cast<int>(j));
      p = q;
      ++j;
    }
    detail::close_row(g);
  }
  if (!shuffle) {
    detail::fill_random_values(g, seed);
    return g;
  }

  // One random permutation relabels rows and columns (Fisher–Yates with our bounded()).
  std::vector<int> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  Rng prng(seed, stream::global, 1);
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(perm[i], perm[prng.bounded(static_cast<std::uint64_t>(i) + 1)]);

  // Old row i becomes new row perm[i]: count, scan, scatter, relabel and sort each row.
  GenCsr h;
  h.num_rows = h.num_cols = static_cast<int>(n);
  h.row_map.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) h.row_map[perm[i] + 1] = g.row_map[i + 1] - g.row_map[i];
  for (std::int64_t i = 0; i < n; ++i) h.row_map[i + 1] += h.row_map[i];
  h.entries.resize(g.entries.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const auto dst = h.entries.begin() + h.row_map[perm[i]];
    auto it = dst;
    for (std::int64_t k = g.row_map[i]; k < g.row_map[i + 1]; ++k) *it++ = perm[g.entries[k]];
    std::sort(dst, it);
  }
  detail::fill_random_values(h, seed);
  return h;
}

// ---- hypersparse ----------------------------------------------------------------------------

GenCsr hypersparse(std::int64_t n, double nonempty_fraction, std::int64_t nnz_per_row,
                   std::uint64_t seed) {
  constexpr const char* who = "kkperm::gen::hypersparse";
  detail::require_dim(who, "n", n);
  KKPERM_REQUIRE(nonempty_fraction >= 0.0 && nonempty_fraction <= 1.0,
                 who << ": nonempty_fraction = " << nonempty_fraction << " must be in [0, 1]");
  KKPERM_REQUIRE(nnz_per_row >= 1, who << ": nnz_per_row = " << nnz_per_row << " must be >= 1");
  const std::int64_t k = std::min(nnz_per_row, n);
  const auto n_nonempty =
      static_cast<std::int64_t>(std::floor(nonempty_fraction * static_cast<double>(n) + 0.5));
  GenCsr h = detail::make_csr(n, n, n_nonempty * k);
  // Which rows are non-empty: selection sampling, exactly n_nonempty of n, in order.
  Rng pick(seed, stream::global, 0);
  std::int64_t need = n_nonempty;
  std::vector<int> scratch;
  for (std::int64_t i = 0; i < n; ++i) {
    if (need > 0 &&
        static_cast<std::int64_t>(pick.bounded(static_cast<std::uint64_t>(n - i))) < need) {
      --need;
      Rng rng(seed, stream::structure, static_cast<std::uint64_t>(i));
      detail::sample_distinct_sorted(rng, k, n, h.entries, scratch);
    }
    detail::close_row(h);
  }
  detail::fill_random_values(h, seed);
  return h;
}

}  // namespace kkperm::gen
