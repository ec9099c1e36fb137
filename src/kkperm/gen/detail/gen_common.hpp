#pragma once
// Internal helpers shared by the generator translation units (not part of the public API).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/gen/generators.hpp"
#include "kkperm/gen/random.hpp"

namespace kkperm::gen::detail {

constexpr std::int64_t max_ordinal = std::numeric_limits<int>::max();

/// Checks that `n` is a valid row/column count for GenCsr (0 <= n <= INT_MAX).
inline void require_dim(const char* who, const char* what, std::int64_t n, std::int64_t min = 0) {
  KKPERM_REQUIRE(n >= min, who << ": " << what << " = " << n << " must be >= " << min);
  KKPERM_REQUIRE(n <= max_ordinal, who << ": " << what << " = " << n << " exceeds the int "
                                       << "ordinal range (" << max_ordinal << ")");
}

/// Multiplies non-negative a*b, throwing when the product exceeds `limit`.
inline std::int64_t checked_mul(const char* who, const char* what, std::int64_t a, std::int64_t b,
                                std::int64_t limit = max_ordinal) {
  KKPERM_REQUIRE(a == 0 || b <= limit / a,
                 who << ": " << what << " = " << a << " * " << b << " exceeds " << limit);
  return a * b;
}

/// Starts a GenCsr of the given shape with room for `nnz_hint` entries.
inline GenCsr make_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz_hint) {
  GenCsr h;
  h.num_rows = static_cast<int>(rows);
  h.num_cols = static_cast<int>(cols);
  h.row_map.clear();
  h.row_map.reserve(static_cast<std::size_t>(rows) + 1);
  h.row_map.push_back(0);
  if (nnz_hint > 0) h.entries.reserve(static_cast<std::size_t>(nnz_hint));
  return h;
}

/// Closes the current row (entries pushed since the previous close).
inline void close_row(GenCsr& h) {
  h.row_map.push_back(static_cast<std::int64_t>(h.entries.size()));
}

/// Fills values with Rng::value() from one stream per row: deterministic and independent of
/// how the structure was drawn.
inline void fill_random_values(GenCsr& h, std::uint64_t seed) {
  h.values.resize(h.entries.size());
  for (std::int64_t i = 0; i < h.num_rows; ++i) {
    const std::int64_t b = h.row_map[i], e = h.row_map[i + 1];
    if (b == e) continue;
    Rng rng(seed, stream::values, static_cast<std::uint64_t>(i));
    for (std::int64_t k = b; k < e; ++k) h.values[k] = rng.value();
  }
}

/**
 * Appends k distinct uniformly random integers from [0, n), sorted ascending, to `out`.
 * Dense case (4k >= n): selection sampling (Knuth's Algorithm S), O(n), exact.
 * Sparse case: draw, sort, dedupe, top up the missing count; expected O(k log k).
 */
inline void sample_distinct_sorted(Rng& rng, std::int64_t k, std::int64_t n, std::vector<int>& out,
                                   std::vector<int>& scratch) {
  if (k <= 0) return;
  if (4 * k >= n) {
    std::int64_t need = k;
    for (std::int64_t c = 0; c < n && need > 0; ++c) {
      if (static_cast<std::int64_t>(rng.bounded(static_cast<std::uint64_t>(n - c))) < need) {
        out.push_back(static_cast<int>(c));
        --need;
      }
    }
    return;
  }
  scratch.clear();
  while (static_cast<std::int64_t>(scratch.size()) < k) {
    const std::int64_t missing = k - static_cast<std::int64_t>(scratch.size());
    for (std::int64_t t = 0; t < missing; ++t)
      scratch.push_back(static_cast<int>(rng.bounded(static_cast<std::uint64_t>(n))));
    std::sort(scratch.begin(), scratch.end());
    scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
  }
  out.insert(out.end(), scratch.begin(), scratch.end());
}

/// Structural check of a caller-provided GenCsr (sizes, monotone row_map, sorted unique
/// in-range columns); throws std::invalid_argument prefixed with `who`.
inline void require_valid(const char* who, const GenCsr& p) {
  KKPERM_REQUIRE(p.num_rows >= 0 && p.num_cols >= 0,
                 who << ": negative dimensions " << p.num_rows << " x " << p.num_cols);
  KKPERM_REQUIRE(
      p.row_map.size() == static_cast<std::size_t>(p.num_rows) + 1 && p.row_map.front() == 0,
      who << ": row_map has " << p.row_map.size() << " entries (expected " << p.num_rows + 1
          << ", starting at 0)");
  KKPERM_REQUIRE(p.entries.size() == static_cast<std::size_t>(p.row_map.back()),
                 who << ": entries has " << p.entries.size() << " elements but row_map ends at "
                     << p.row_map.back());
  for (std::int64_t i = 0; i < p.num_rows; ++i) {
    const std::int64_t b = p.row_map[i], e = p.row_map[i + 1];
    KKPERM_REQUIRE(b <= e, who << ": row_map decreases at row " << i);
    for (std::int64_t k = b; k < e; ++k) {
      const int c = p.entries[k];
      KKPERM_REQUIRE(c >= 0 && c < p.num_cols, who << ": row " << i << " has column " << c
                                                   << " outside [0, " << p.num_cols << ")");
      KKPERM_REQUIRE(k == b || p.entries[k - 1] < c,
                     who << ": row " << i << " has unsorted or duplicate column " << c);
    }
  }
}

}  // namespace kkperm::gen::detail
