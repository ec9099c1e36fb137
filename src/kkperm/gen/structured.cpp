// Structured families: banded, block-diagonal dense blocks, arrow.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kkperm/gen/detail/gen_common.hpp"

namespace kkperm::gen {

GenCsr banded(std::int64_t n, std::int64_t lower, std::int64_t upper, double fill,
              std::uint64_t seed) {
  constexpr const char* who = "kkperm::gen::banded";
  detail::require_dim(who, "n", n);
  KKPERM_REQUIRE(lower >= 0 && upper >= 0, who << ": bandwidths lower = " << lower
                                               << ", upper = " << upper << " must be >= 0");
  KKPERM_REQUIRE(fill > 0.0 && fill <= 1.0, who << ": fill = " << fill << " must be in (0, 1]");
  const std::int64_t lo_bw = std::min(lower, n > 0 ? n - 1 : 0);
  const std::int64_t up_bw = std::min(upper, n > 0 ? n - 1 : 0);
  const double width = 1.0 + fill * static_cast<double>(lo_bw + up_bw);
  GenCsr h = detail::make_csr(n, n, static_cast<std::int64_t>(width * static_cast<double>(n)) + 16);
  for (std::int64_t i = 0; i < n; ++i) {
    Rng rng(seed, stream::structure, static_cast<std::uint64_t>(i));
    const std::int64_t b = std::max<std::int64_t>(0, i - lo_bw);
    const std::int64_t e = std::min<std::int64_t>(n - 1, i + up_bw);
    for (std::int64_t j = b; j <= e; ++j)
      if (j == i || rng.bernoulli(fill)) h.entries.push_back(static_cast<int>(j));
    detail::close_row(h);
  }
  detail::fill_random_values(h, seed);
  return h;
}

namespace {

GenCsr block_diagonal_from_sizes(const char* who, const std::vector<std::int64_t>& sizes,
                                 std::uint64_t seed) {
  std::int64_t n = 0, nnz = 0;
  for (const std::int64_t s : sizes) {
    n += s;
    KKPERM_REQUIRE(n <= detail::max_ordinal, who << ": total size exceeds the int ordinal range ("
                                                 << detail::max_ordinal << ")");
    nnz += s * s;
  }
  GenCsr h = detail::make_csr(n, n, nnz);
  std::int64_t start = 0;
  for (const std::int64_t s : sizes) {
    for (std::int64_t r = 0; r < s; ++r) {
      for (std::int64_t c = 0; c < s; ++c) h.entries.push_back(static_cast<int>(start + c));
      detail::close_row(h);
    }
    start += s;
  }
  detail::fill_random_values(h, seed);
  return h;
}

}  // namespace

GenCsr block_diagonal(std::int64_t n_blocks, std::int64_t block_size, std::uint64_t seed) {
  constexpr const char* who = "kkperm::gen::block_diagonal";
  detail::require_dim(who, "n_blocks", n_blocks);
  detail::require_dim(who, "block_size", block_size, 1);
  detail::checked_mul(who, "n_blocks*block_size", n_blocks, block_size);
  return block_diagonal_from_sizes(who, std::vector<std::int64_t>(n_blocks, block_size), seed);
}

GenCsr block_diagonal(std::int64_t n_blocks, std::int64_t min_size, std::int64_t max_size,
                      std::uint64_t seed) {
  constexpr const char* who = "kkperm::gen::block_diagonal";
  detail::require_dim(who, "n_blocks", n_blocks);
  detail::require_dim(who, "min_size", min_size, 1);
  detail::require_dim(who, "max_size", max_size, min_size);
  detail::checked_mul(who, "n_blocks*min_size", n_blocks, min_size);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(n_blocks));
  Rng rng(seed, stream::global, 2);
  for (auto& s : sizes) s = rng.uniform_int(min_size, max_size);
  return block_diagonal_from_sizes(who, sizes, seed);
}

GenCsr arrow(std::int64_t n, std::int64_t dense_rows, std::int64_t dense_cols, std::uint64_t seed) {
  constexpr const char* who = "kkperm::gen::arrow";
  detail::require_dim(who, "n", n);
  KKPERM_REQUIRE(0 <= dense_rows && dense_rows <= n && 0 <= dense_cols && dense_cols <= n,
                 who << ": dense_rows = " << dense_rows << " and dense_cols = " << dense_cols
                     << " must be in [0, n = " << n << "]");
  GenCsr h = detail::make_csr(n, n, dense_rows * n + (n - dense_rows) * (dense_cols + 1));
  for (std::int64_t i = 0; i < n; ++i) {
    if (i < dense_rows) {
      for (std::int64_t j = 0; j < n; ++j) h.entries.push_back(static_cast<int>(j));
    } else {
      for (std::int64_t j = 0; j < dense_cols; ++j) h.entries.push_back(static_cast<int>(j));
      if (i >= dense_cols) h.entries.push_back(static_cast<int>(i));
    }
    detail::close_row(h);
  }
  detail::fill_random_values(h, seed);
  return h;
}

}  // namespace kkperm::gen
