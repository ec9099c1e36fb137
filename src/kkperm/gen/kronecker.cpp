// Kronecker expansion P ⊗ K_1 ⊗ ... ⊗ K_r of a pattern, with optional column jitter.
#include <algorithm>
#include <vector>

#include "kkperm/gen/detail/gen_common.hpp"

namespace kkperm::gen {
namespace {

/// Dense-indexed pattern of a square block: per row, sorted column list.
struct BlockPattern {
  std::int64_t size = 1;
  std::vector<std::int64_t> row_map{0, 1};
  std::vector<int> cols{0};
  std::int64_t nnz() const { return row_map.back(); }
};

/// k x k seed block for level `level`: full diagonal + off-diagonals with prob `density`.
BlockPattern seed_block(int k, double density, std::uint64_t seed, std::uint64_t level) {
  BlockPattern b;
  b.size = k;
  b.row_map.assign(1, 0);
  b.cols.clear();
  Rng rng(seed, stream::global, 0x4B524F4E00000000ull + level);
  for (int r = 0; r < k; ++r) {
    for (int c = 0; c < k; ++c)
      if (c == r || rng.bernoulli(density)) b.cols.push_back(c);
    b.row_map.push_back(static_cast<std::int64_t>(b.cols.size()));
  }
  return b;
}

/// Kronecker product of two block patterns (A ⊗ B), rows sorted by construction.
BlockPattern kron(const BlockPattern& a, const BlockPattern& b) {
  BlockPattern out;
  out.size = a.size * b.size;
  out.row_map.assign(1, 0);
  out.cols.clear();
  out.cols.reserve(static_cast<std::size_t>(a.nnz() * b.nnz()));
  for (std::int64_t ra = 0; ra < a.size; ++ra)
    for (std::int64_t rb = 0; rb < b.size; ++rb) {
      for (std::int64_t ka = a.row_map[ra]; ka < a.row_map[ra + 1]; ++ka)
        for (std::int64_t kb = b.row_map[rb]; kb < b.row_map[rb + 1]; ++kb)
          out.cols.push_back(static_cast<int>(a.cols[ka] * b.size + b.cols[kb]));
      out.row_map.push_back(static_cast<std::int64_t>(out.cols.size()));
    }
  return out;
}

/// Moves each entry of the sorted row [first, last) with probability `jitter` to a random
/// column within `window` of it that the row does not hold yet (32 tries, else it stays).
void jitter_row(std::vector<int>::iterator first, std::vector<int>::iterator last, double jitter,
                std::int64_t window, std::int64_t n_cols, Rng& rng, std::vector<int>& original,
                std::vector<int>& moved) {
  moved.clear();
  original.assign(first, last);
  auto held = [&](std::int64_t c) {
    return std::binary_search(original.begin(), original.end(), static_cast<int>(c)) ||
           std::find(moved.begin(), moved.end(), static_cast<int>(c)) != moved.end();
  };
  for (auto it = first; it != last; ++it) {
    if (!rng.bernoulli(jitter)) continue;
    for (int attempt = 0; attempt < 32; ++attempt) {
      const std::int64_t cand =
          *it - window +
          static_cast<std::int64_t>(rng.bounded(static_cast<std::uint64_t>(2 * window + 1)));
      if (cand < 0 || cand >= n_cols || held(cand)) continue;
      moved.push_back(static_cast<int>(cand));
      *it = static_cast<int>(cand);
      break;
    }
  }
  std::sort(first, last);
}

}  // namespace

GenCsr kronecker(const GenCsr& pattern, std::int64_t target_nnz, std::uint64_t seed,
                 const KroneckerOptions& opts) {
  constexpr const char* who = "kkperm::gen::kronecker";
  constexpr std::int64_t max_nnz = std::int64_t(1) << 33;
  detail::require_valid(who, pattern);
  KKPERM_REQUIRE(pattern.nnz() >= 1, who << ": the pattern has no entries");
  KKPERM_REQUIRE(target_nnz >= 1, who << ": target_nnz = " << target_nnz << " must be >= 1");
  KKPERM_REQUIRE(opts.block >= 2 && opts.block <= 16,
                 who << ": block = " << opts.block << " must be in [2, 16]");
  KKPERM_REQUIRE(opts.density >= 0.0 && opts.density <= 1.0,
                 who << ": density = " << opts.density << " must be in [0, 1]");
  KKPERM_REQUIRE(opts.jitter >= 0.0 && opts.jitter <= 1.0,
                 who << ": jitter = " << opts.jitter << " must be in [0, 1]");

  // Compose the levels into one block K = K_1 ⊗ ... ⊗ K_r (associativity of ⊗), so the final
  // matrix is produced in a single row-wise pass: row a*kc + b = (P row a) x (K row b).
  // Draw the (small) seed blocks and check the final shape before composing anything.
  const std::int64_t p_rows = pattern.num_rows, p_cols = pattern.num_cols;
  std::vector<BlockPattern> levels;
  std::int64_t nnz = pattern.nnz(), span = 1;
  for (std::uint64_t level = 0; nnz < target_nnz; ++level) {
    levels.push_back(seed_block(opts.block, opts.density, seed, level));
    span *= opts.block;
    KKPERM_REQUIRE(std::max(p_rows, p_cols) * span <= detail::max_ordinal,
                   who << ": reaching target_nnz = " << target_nnz << " from nnz " << pattern.nnz()
                       << " needs " << level + 1 << " levels, giving " << p_rows * span << " x "
                       << p_cols * span
                       << ", beyond the int ordinal range; use a larger block or pattern");
    nnz *= levels.back().nnz();  // <= rows*cols of the result < 2^62: no overflow
    KKPERM_REQUIRE(nnz <= max_nnz, who << ": reaching target_nnz = " << target_nnz << " gives nnz "
                                       << nnz << ", above the generator limit " << max_nnz
                                       << " (2^33, ~100 GB as CSR)");
  }
  BlockPattern K;
  for (const auto& kl : levels) K = kron(K, kl);
  const std::int64_t kc = K.size;
  const std::int64_t rows = p_rows * kc, cols = p_cols * kc;
  const std::int64_t window = std::max<std::int64_t>(kc, 8);

  GenCsr h = detail::make_csr(rows, cols, nnz);
  std::vector<int> original, moved;
  for (std::int64_t a = 0; a < p_rows; ++a)
    for (std::int64_t b = 0; b < kc; ++b) {
      const auto row_begin = static_cast<std::ptrdiff_t>(h.entries.size());
      for (std::int64_t ka = pattern.row_map[a]; ka < pattern.row_map[a + 1]; ++ka) {
        const std::int64_t base = static_cast<std::int64_t>(pattern.entries[ka]) * kc;
        for (std::int64_t kb = K.row_map[b]; kb < K.row_map[b + 1]; ++kb)
          h.entries.push_back(static_cast<int>(base + K.cols[kb]));
      }
      if (opts.jitter > 0.0) {
        const std::int64_t row = a * kc + b;
        Rng rng(seed, stream::jitter, static_cast<std::uint64_t>(row));
        jitter_row(h.entries.begin() + row_begin, h.entries.end(), opts.jitter, window, cols, rng,
                   original, moved);
      }
      detail::close_row(h);
    }
  KKPERM_ASSERT(h.nnz() == nnz, who << ": produced " << h.nnz() << " entries, expected " << nnz);
  detail::fill_random_values(h, seed);
  return h;
}

}  // namespace kkperm::gen
