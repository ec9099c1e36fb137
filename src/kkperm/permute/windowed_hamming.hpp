#pragma once
/**
 * @brief Scalable greedy Hamming orders (warp_aware, cta_aware, hybrid_1, hybrid_2_x) on the
 * matrix's execution space (HammingMode::windowed: the order is exact within windows of
 * `chunk_rows` consecutive rows of a locality-sorted order).
 *
 * 1. (device) every row gets a key (first cache line scaled, MinHash of its line set, row) - for
 *    hybrid_1 (load descending, first line, MinHash, row) - and rows are sorted by it, so rows
 *    that share lines sit close together (first line keeps banded/stencil locality, which a
 *    pure MinHash order destroyed: 778 vs exact 452 / identity 588 on laplace2d 40x40). Sort:
 *    sort_unique_keys (std::sort on host spaces, cub radix sort on CUDA).
 * 2. (device) the sorted order is cut into chunks of C = k*Nw positions (chunk_rows rounded up);
 *    one team per chunk (a warp on GPUs, one thread on host spaces) runs the exact greedy rule of
 *    the reference (reference.hpp) restricted to the chunk's rows: every unplaced row of the
 *    chunk is a candidate at every step (ChunkGreedy). Chunk c fills output positions
 *    [c*C, (c+1)*C), so clusters of Nw never straddle chunks; warp_aware seeds each chunk with
 *    its Nw lowest-load rows; hybrid_1 is exactly load-sorted (the chunk's candidates are
 *    restricted to its largest remaining load).
 * With one chunk (chunk_rows >= n) and the identity order (or the stable load-sorted order for
 * hybrid_1) the result equals the exact greedy; the tests use that to check this kernel against
 * the reference. Cost: O(C * n * line-list length) work, n / C teams, C / team-size lanes each.
 */
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kkperm/features/int_stats.hpp"
#include "kkperm/permute/device_sort.hpp"
#include "kkperm/permute/permutation.hpp"
#include "kkperm/permute/reference.hpp"

namespace kkperm::detail {

KOKKOS_INLINE_FUNCTION std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

enum GreedyMode : int { kWarpAware = 0, kCta = 1, kHyb1 = 2, kHyb21 = 3, kHyb22 = 4, kHyb23 = 5 };

inline int greedy_mode_of(Permutation p) {
  switch (p) {
    case Permutation::warp_aware: return kWarpAware;
    case Permutation::cta_aware: return kCta;
    case Permutation::hybrid_1: return kHyb1;
    case Permutation::hybrid_2_1: return kHyb21;
    case Permutation::hybrid_2_2: return kHyb22;
    case Permutation::hybrid_2_3: return kHyb23;
    default: KKPERM_THROW(std::invalid_argument, "kkperm: " << to_string(p) << " is not a Hamming order");
  }
}

/// Tuning constants of ChunkGreedy.
struct ChunkGreedyConfig {
  /// Lanes per chunk: one warp on GPUs (capped further by team_size_max; 1 on Serial).
  static constexpr int max_team_size = 32;
  /// Per-team scratch up to this many bytes stays in level 0 (on-chip on GPUs): Kokkos 3.4's
  /// CUDA level-0 limit (40 KB, the rest of the 48 KB is kept for its team reductions).
  static constexpr std::size_t level0_bytes = 40 * 1024;
  /// The line cache is sized to the heaviest chunk when that fits level 0. When it does not, a
  /// level-0 cache that still holds this many lines per chunk row on average is kept (heavier
  /// chunks compute distances from global memory); below that the whole scratch goes to level 1
  /// (global memory too, but compact, and every chunk cached). Distinct lines per row with
  /// double values and 128-byte lines (computed): 3.1 for a 2D 5-point stencil (300 x 300), 5.0
  /// for 3D 7-point, 9.6 for 3D 27-point (40^3); below 4 per row even the 2D stencil's chunks
  /// would not fit.
  static constexpr int min_level0_lines_per_row = 4;
};

/// Distance of two sorted lists of distinct line ids: |a| + |b| - 2 |a ∩ b|, the same value as
/// line_mask_distance on the rows' column lists.
template <class O>
KOKKOS_INLINE_FUNCTION std::int64_t sorted_line_distance(const O* a, std::int32_t na, const O* b,
                                                         std::int32_t nb) {
  std::int32_t i = 0, j = 0, common = 0;
  while (i < na && j < nb) {
    const O x = a[i], y = b[j];
    common += x == y;
    i += x <= y;
    j += y <= x;
  }
  return static_cast<std::int64_t>(na) + nb - 2 * static_cast<std::int64_t>(common);
}

/**
 * Chunk-exact greedy: one team per chunk of C sorted positions. Team scratch (level `level`)
 * holds, per local position t (0 <= t < C): the packed key of the current step, the row id, its
 * load, the output order as local positions (`at`), a placed flag, the offsets of its line list,
 * and the rows' sorted distinct line ids (`cap` lines in all), filled cooperatively from the
 * per-row line counts of the pre-pass. A chunk whose line total exceeds `cap` computes its
 * distances from global `entries` (line_mask_distance, same values) instead.
 *
 * Every step q picks among all unplaced rows of the chunk: lanes compute the candidates' keys
 * (TeamThreadRange), a Min reduction finds the smallest key, a MinLoc reduction the smallest row
 * id among the candidates holding it (row ids are unique, so the location is determined), and
 * one lane marks the winner placed. The packed keys (see operator()) order exactly as the
 * reference's (primary, tie) pairs; the row id breaks the remaining ties, as in the reference.
 * MinLoc (rather than a Min over row ids) also yields the winner's local position.
 */
template <class Matrix>
struct ChunkGreedy {
  using O = typename Matrix::non_const_ordinal_type;
  using exec_t = typename Matrix::execution_space;
  using mem_t = typename Matrix::memory_space;
  using row_map_t = typename Matrix::row_map_type;
  using entries_t = typename Matrix::index_type;
  using IView = Kokkos::View<std::int64_t*, mem_t>;
  using member_t = typename Kokkos::TeamPolicy<exec_t>::member_type;
  template <class T>
  using SView = Kokkos::View<T*, typename exec_t::scratch_memory_space,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using minloc_t = Kokkos::MinLoc<O, std::int32_t>;

  row_map_t row_map;
  entries_t entries;
  IView load, ord;
  Kokkos::View<O*, mem_t> out;  ///< the result, perm (new -> old)
  Kokkos::View<O*, mem_t> row_lines;  ///< distinct lines of every row (by row id)
  std::int64_t n = 0, chunk = 0, cap = 0;
  int nw = 1, mode = 0, level = 0;
  O cpl = 1;

  /// Scratch bytes of one team; the views are carved in operator() in the same order.
  static std::size_t scratch_bytes(std::int64_t c, std::int64_t cap_lines) {
    const auto C = static_cast<std::size_t>(c);
    return SView<std::uint64_t>::shmem_size(C) + 2 * SView<O>::shmem_size(C) +
           SView<std::int32_t>::shmem_size(C) + SView<std::int32_t>::shmem_size(C + 1) +
           SView<std::int64_t>::shmem_size(2) +
           SView<O>::shmem_size(static_cast<std::size_t>(cap_lines)) + SView<char>::shmem_size(C);
  }

  static KOKKOS_INLINE_FUNCTION std::uint64_t sat32(std::int64_t v) {
    return v < 0xFFFFFFFFll ? static_cast<std::uint64_t>(v) : 0xFFFFFFFFull;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_t& m) const {
    const std::int64_t c0 = static_cast<std::int64_t>(m.league_rank()) * chunk;
    const int len = static_cast<int>((c0 + chunk < n ? c0 + chunk : n) - c0);
    const auto scr = m.team_scratch(level);
    SView<std::uint64_t> key(scr, chunk);
    SView<O> row(scr, chunk), ld(scr, chunk);
    SView<std::int32_t> at(scr, chunk);       // at(q): local position placed at output q
    SView<std::int32_t> off(scr, chunk + 1);  // line list of t: lines[off(t), off(t+1))
    SView<std::int64_t> misc(scr, 2);         // 0: chunk line total, 1: first unplaced position
    SView<O> lines(scr, cap);
    SView<char> placed(scr, chunk);

    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const int t) {
      const std::int64_t r = ord(c0 + t);
      row(t) = static_cast<O>(r);
      ld(t) = static_cast<O>(load(r));
      placed(t) = 0;
    });
    // Offsets of the line lists (clamped to cap: they are read only when the total fits).
    auto scan = [&](const int t, std::int64_t& part, const bool final) {
      if (final) off(t) = static_cast<std::int32_t>(part < cap ? part : cap);
      part += row_lines(ord(c0 + t));
      if (final && t == len - 1) {
        off(len) = static_cast<std::int32_t>(part < cap ? part : cap);
        misc(0) = part;
      }
    };
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(m, len), scan);
    Kokkos::single(Kokkos::PerTeam(m), [&]() { misc(1) = 0; });
    m.team_barrier();
    const bool cached = misc(0) <= cap;
    if (cached) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const int t) {
        const O r = row(t);
        std::int32_t w = off(t);
        O last = -1;
        for (auto k = row_map(r); k < row_map(r + 1); ++k) {
          const O l = entries(k) / cpl;
          if (l != last) {
            lines(w++) = l;
            last = l;
          }
        }
      });
      m.team_barrier();
    }
    // The list a distance reads for local position t: its cached distinct lines, or (chunk not
    // cached) its columns in global memory, which line_mask_distance merges into lines.
    struct List {
      const O* p;
      std::int64_t len;
    };
    auto list_of = [&](const int t) -> List {
      if (cached) return {lines.data() + off(t), static_cast<std::int64_t>(off(t + 1) - off(t))};
      const auto b = row_map(row(t));
      return {entries.data() + b, static_cast<std::int64_t>(row_map(row(t) + 1) - b)};
    };
    auto dist = [&](const List& a, const List& b) -> std::int64_t {
      if (cached)
        return sorted_line_distance(a.p, static_cast<std::int32_t>(a.len), b.p,
                                    static_cast<std::int32_t>(b.len));
      return line_mask_distance(a.p, a.len, b.p, b.len, cpl);
    };

    const bool warp_mode = mode == kWarpAware || mode == kHyb23;
    for (int q = 0; q < len; ++q) {
      // Cluster starts (cta_aware, hybrid_2_1, hybrid_2_2) and hybrid_1's first row take the
      // first unplaced position of the chunk (the reference's lowest-index unplaced row when the
      // order is the identity).
      const bool first_pick =
          (!warp_mode && mode != kHyb1 && q % nw == 0) || (mode == kHyb1 && q == 0);
      std::int32_t win = 0;
      if (first_pick) {
        win = static_cast<std::int32_t>(misc(1));
      } else {
        const bool seed = warp_mode && q < nw;  // lowest (load, row)
        const List ref = seed ? List{nullptr, 0} : list_of(at(warp_mode ? q - nw : q - 1));
        const bool tie2 = mode == kHyb22 && q >= nw;
        const List ref2 = tie2 ? list_of(at(q - nw)) : List{nullptr, 0};
        // hybrid_1: the order is load-sorted (its key starts with the load), so the first
        // unplaced position holds the chunk's largest remaining load.
        const O big = mode == kHyb1 ? ld(misc(1)) : O(0);
        auto candidate = [&](const int t) { return !placed(t) && (mode != kHyb1 || ld(t) == big); };
        // Packed key, high 32 bits: distance to the reference row; low 32 bits: the tie (load
        // ascending for seeds, -load as 0xFFFFFFFF - load for hybrid_2_1/2_3, distance to
        // out[p-Nw] for hybrid_2_2). Both halves saturate at 2^32 - 1, which keeps the order and
        // is never reached: a distance is at most the two rows' distinct line counts (< 2^31
        // each, as the columns of a row are unique), a load at most the row length.
        std::uint64_t kmin = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, len),
            [&](const int t, std::uint64_t& v) {
              if (!candidate(t)) return;
              std::uint64_t k;
              if (seed) {
                k = sat32(ld(t));
              } else {
                const List own = list_of(t);
                k = sat32(dist(own, ref)) << 32;
                if (mode == kHyb21 || mode == kHyb23)
                  k |= 0xFFFFFFFFull - sat32(ld(t));
                else if (tie2)
                  k |= sat32(dist(own, ref2));
              }
              key(t) = k;
              if (k < v) v = k;
            },
            Kokkos::Min<std::uint64_t>(kmin));
        m.team_barrier();
        typename minloc_t::value_type best;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, len),
            [&](const int t, typename minloc_t::value_type& v) {
              if (candidate(t) && key(t) == kmin && row(t) < v.val) {
                v.val = row(t);
                v.loc = t;
              }
            },
            minloc_t(best));
        win = best.loc;
      }
      Kokkos::single(Kokkos::PerTeam(m), [&]() {
        placed(win) = 1;
        at(q) = win;
        out(c0 + q) = row(win);
        if (win == misc(1)) {
          std::int64_t f = win + 1;
          while (f < len && placed(f)) ++f;
          misc(1) = f;
        }
      });
      m.team_barrier();
    }
  }
};

/// Positions per chunk: chunk_rows rounded up to a multiple of Nw (at least Nw).
inline std::int64_t chunk_positions(int chunk_rows, int nw) {
  return std::max<std::int64_t>(
      nw, (static_cast<std::int64_t>(std::max(chunk_rows, 1)) + nw - 1) / nw * nw);
}

/// Team scratch of ChunkGreedy: level, line cache capacity (lines) and bytes per team.
struct ChunkGreedyPlan {
  int level = 0;
  std::int64_t cap = 0;
  std::size_t bytes = 0;
};

/**
 * Sizes ChunkGreedy's scratch for chunks of `chunk` positions whose heaviest chunk holds
 * `max_chunk_lines` distinct row lines: level 0 with a cache for every chunk when that fits;
 * else level 0 with the largest cache that fits, if it still averages
 * ChunkGreedyConfig::min_level0_lines_per_row (chunks above it read global memory); else level 1
 * with a cache for every chunk (capped by the level-1 limit).
 */
template <class Matrix>
ChunkGreedyPlan plan_chunk_greedy(std::int64_t chunk, std::int64_t max_chunk_lines) {
  using greedy_t = ChunkGreedy<Matrix>;
  using policy_t = Kokkos::TeamPolicy<typename Matrix::execution_space>;
  using O = typename Matrix::non_const_ordinal_type;
  // Largest cache (in lines) whose scratch fits `limit` bytes, -1 if not even an empty one does.
  auto lines_fitting = [&](std::size_t limit) -> std::int64_t {
    const std::size_t fixed = greedy_t::scratch_bytes(chunk, 0);
    if (fixed > limit) return -1;
    std::int64_t c = static_cast<std::int64_t>((limit - fixed) / sizeof(O));
    while (c > 0 && greedy_t::scratch_bytes(chunk, c) > limit) --c;  // alignment padding
    return c;
  };
  ChunkGreedyPlan plan;
  const std::int64_t fit0 = lines_fitting(std::min<std::size_t>(
      ChunkGreedyConfig::level0_bytes, static_cast<std::size_t>(policy_t::scratch_size_max(0))));
  if (fit0 >= max_chunk_lines) {
    plan.cap = max_chunk_lines;
  } else if (fit0 >= ChunkGreedyConfig::min_level0_lines_per_row * chunk) {
    plan.cap = fit0;
  } else {
    plan.level = 1;
    const std::int64_t fit1 =
        lines_fitting(static_cast<std::size_t>(policy_t::scratch_size_max(1)));
    KKPERM_REQUIRE(fit1 >= 0, "kkperm::windowed_hamming_order: chunks of "
                                  << chunk << " rows need more team scratch than the space offers");
    plan.cap = std::min(max_chunk_lines, fit1);
  }
  plan.cap =
      std::min<std::int64_t>(plan.cap, std::numeric_limits<std::int32_t>::max());  // int32 offsets
  plan.bytes = greedy_t::scratch_bytes(chunk, plan.cap);
  return plan;
}

/**
 * @brief Chunk-exact greedy Hamming order of A's rows on A's execution space (HammingMode::
 * windowed). `ord_override` (host vector, may be empty) replaces the sorted order (tests use the
 * identity order to compare with the exact greedy); for hybrid_1 it must list the rows by load
 * descending, as the sorted order does. Returns perm (new -> old) on A's space.
 */
template <class Matrix>
Kokkos::View<typename Matrix::non_const_ordinal_type*, typename Matrix::memory_space> windowed_hamming_order(
    const Matrix& A, Permutation kind, const PermuteParams& params,
    const std::vector<std::int64_t>& ord_override = {}) {
  using exec_t = typename Matrix::execution_space;
  using mem_t = typename Matrix::memory_space;
  using O = typename Matrix::non_const_ordinal_type;
  using IView = Kokkos::View<std::int64_t*, mem_t>;
  const int mode = greedy_mode_of(kind);
  const std::int64_t n = A.numRows();
  Kokkos::View<O*, mem_t> result(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::windowed"), n);
  if (n == 0) return result;
  const int nw = params.feature.warps_per_block;
  const O cpl = static_cast<O>(params.feature.cols_per_line(sizeof(typename Matrix::non_const_value_type)));
  IView load(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::load"), n);
  const std::int64_t max_load = fill_loads(A, params.feature.warp_size, load);  // loads and max, one pass
  auto row_map = A.graph.row_map;
  auto entries = A.graph.entries;

  IView ord(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::ord"), n);
  if (!ord_override.empty()) {
    KKPERM_REQUIRE(static_cast<std::int64_t>(ord_override.size()) == n,
                   "kkperm::windowed_hamming_order: order override has " << ord_override.size()
                                                                          << " entries for " << n << " rows");
    auto h = Kokkos::create_mirror_view(ord);
    for (std::int64_t i = 0; i < n; ++i) h(i) = ord_override[i];
    Kokkos::deep_copy(ord, h);
  } else {
    const int ibits = std::max(1, bits_for(static_cast<std::uint64_t>(n - 1)));
    const int lbits = mode == kHyb1 ? bits_for(static_cast<std::uint64_t>(max_load)) : 0;
    const int sbits = 64 - ibits - lbits;
    KKPERM_REQUIRE(sbits >= 2, "kkperm::windowed_hamming_order: " << n << " rows with loads up to "
                                                                    << max_load << " leave no key bits for signatures");
    const int s0 = std::min(32, (sbits + 1) / 2), s1 = std::min(32, sbits - s0);
    const std::uint64_t seed0 = mix64(params.seed);
    const std::uint64_t n_lines = (static_cast<std::uint64_t>(A.numCols()) + cpl - 1) / cpl;
    Kokkos::View<std::uint64_t*, mem_t> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::keys"), n);
    Kokkos::parallel_for(
        "kkperm::permute::minhash", Kokkos::RangePolicy<exec_t>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
          std::uint32_t h0 = 0xFFFFFFFFu;
          O last = -1;
          for (auto k = row_map(i); k < row_map(i + 1); ++k) {
            const O l = entries(k) / cpl;
            if (l == last) continue;
            last = l;
            const std::uint32_t a = static_cast<std::uint32_t>(mix64(std::uint64_t(l) ^ seed0) >> 32);
            if (a < h0) h0 = a;
          }
          // First component: the row's first line scaled to s0 bits (keeps banded / stencil
          // locality); second: a MinHash of the line set (groups rows sharing lines).
          const std::uint64_t first =
              row_map(i + 1) > row_map(i) ? static_cast<std::uint64_t>(entries(row_map(i)) / cpl) : n_lines;
          const std::uint64_t scaled = static_cast<std::uint64_t>(
              (double(first) / double(n_lines + 1)) * double(std::uint64_t(1) << s0));
          std::uint64_t key = 0;
          if (lbits > 0) key = static_cast<std::uint64_t>(max_load - load(i));
          key = (key << s0) | scaled;
          key = (key << s1) | (s1 > 0 ? (std::uint64_t(h0) >> (32 - s1)) : 0);
          keys(i) = (key << ibits) | static_cast<std::uint64_t>(i);
        });
    sort_unique_keys<exec_t>(keys, 64);
    const std::uint64_t mask = (ibits == 64) ? ~0ull : ((1ull << ibits) - 1);
    Kokkos::parallel_for(
        "kkperm::permute::ord", Kokkos::RangePolicy<exec_t>(0, n),
        KOKKOS_LAMBDA(const std::int64_t p) { ord(p) = static_cast<std::int64_t>(keys(p) & mask); });
  }
  const std::int64_t chunk = chunk_positions(params.chunk_rows, nw);
  const std::int64_t n_chunks = (n + chunk - 1) / chunk;
  KKPERM_REQUIRE(
      n_chunks <= std::numeric_limits<int>::max(),
      "kkperm::windowed_hamming_order: " << n_chunks << " chunks exceed the league size limit");
  using greedy_t = ChunkGreedy<Matrix>;
  using policy_t = Kokkos::TeamPolicy<exec_t>;
  // Distinct lines of every row (the line cache's list lengths) and the heaviest chunk's total,
  // which sizes the cache.
  Kokkos::View<O*, mem_t> row_lines(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::row_lines"), n);
  Kokkos::parallel_for(
      "kkperm::permute::row_lines", Kokkos::RangePolicy<exec_t>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        O cnt = 0, last = -1;
        for (auto k = row_map(i); k < row_map(i + 1); ++k) {
          const O l = entries(k) / cpl;
          cnt += l != last;
          last = l;
        }
        row_lines(i) = cnt;
      });
  std::int64_t max_chunk_lines = 0;
  Kokkos::parallel_reduce(
      "kkperm::permute::chunk_lines", policy_t(static_cast<int>(n_chunks), Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename policy_t::member_type& m, std::int64_t& mx) {
        const std::int64_t b = static_cast<std::int64_t>(m.league_rank()) * chunk;
        const std::int64_t e = b + chunk < n ? b + chunk : n;
        std::int64_t s = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, b, e),
            [&](const std::int64_t p, std::int64_t& v) {
              v += static_cast<std::int64_t>(row_lines(ord(p)));
            },
            s);
        Kokkos::single(Kokkos::PerTeam(m), [&]() {
          if (s > mx) mx = s;
        });
      },
      Kokkos::Max<std::int64_t>(max_chunk_lines));
  const auto plan = plan_chunk_greedy<Matrix>(chunk, max_chunk_lines);
  greedy_t g;
  g.row_map = row_map;
  g.entries = entries;
  g.load = load;
  g.ord = ord;
  g.out = result;
  g.row_lines = row_lines;
  g.n = n;
  g.chunk = chunk;
  g.cap = plan.cap;
  g.nw = nw;
  g.mode = mode;
  g.level = plan.level;
  g.cpl = cpl;
  const auto scratch = Kokkos::PerTeam(plan.bytes);
  policy_t probe(static_cast<int>(n_chunks), 1);
  probe.set_scratch_size(plan.level, scratch);
  const int team = std::max(1, std::min(ChunkGreedyConfig::max_team_size,
                                        probe.team_size_max(g, Kokkos::ParallelForTag())));
  policy_t policy(static_cast<int>(n_chunks), team);
  policy.set_scratch_size(plan.level, scratch);
  Kokkos::parallel_for("kkperm::permute::chunk_greedy", policy, g);
  return result;
}

}  // namespace kkperm::detail
