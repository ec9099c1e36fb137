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
 * 2. (device) the sorted order is cut into chunks of C = k*Nw positions (chunk_rows rounded up),
 *    and chunks holding more than PermuteParams::chunk_lines distinct row lines are cut further at
 *    Nw-row group borders (chunk_boundaries), which bounds the work of long rows;
 *    one team per chunk (a warp on GPUs, one thread on host spaces) runs the exact greedy rule of
 *    the reference (reference.hpp) restricted to the chunk's rows: every unplaced row of the
 *    chunk is a candidate at every step (ChunkGreedy). Chunk c fills output positions
 *    [start_c, start_{c+1}), so clusters of Nw never straddle chunks; warp_aware seeds each chunk with
 *    its Nw lowest-load rows; hybrid_1 is exactly load-sorted (the chunk's candidates are
 *    restricted to its largest remaining load). Distances come from per-row bit masks over the
 *    chunk's distinct lines when there are at most 64 * ChunkGreedyConfig::max_mask_words of them
 *    (stencils, banded and block matrices), else from merged line lists; remaining ties go to the
 *    lowest position of the chunk's order.
 * With one chunk (chunk_rows >= n) and the identity order (or the stable load-sorted order for
 * hybrid_1) the result equals the exact greedy; the tests use that to check this kernel against
 * the reference (chunk_lines = 0 keeps the fixed chunks). Cost: O(C * n) distances (each W words or a merge of two line lists), one team
 * reduction per step, n / C teams, C / team-size lanes each.
 */
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/structure_hash.hpp"
#include "kkperm/core/workspace.hpp"
#include "kkperm/features/int_stats.hpp"
#include "kkperm/permute/device_sort.hpp"
#include "kkperm/permute/permutation.hpp"
#include "kkperm/permute/reference.hpp"

namespace kkperm::detail {
// mix64 (splitmix64's finaliser): core/structure_hash.hpp

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

/// Calls f(l) for each distinct cache line l of row r, ascending (the columns are sorted), until
/// f returns false.
template <class RowMap, class Entries, class O, class F>
KOKKOS_INLINE_FUNCTION void for_each_row_line(const RowMap& row_map, const Entries& entries,
                                              const LineOf<O>& line, std::int64_t r, const F& f) {
  O last = -1;
  for (auto k = row_map(r); k < row_map(r + 1); ++k) {
    const O l = line(entries(k));
    if (l == last) continue;
    last = l;
    if (!f(l)) return;
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
  /// Bit-mask distances: a chunk whose rows touch at most 64 * W distinct lines gives each row a
  /// W-word mask over those lines (local bit numbers from a hash table in scratch), and a
  /// distance is W xor/popcount pairs instead of a merge of two line lists. W is at most this
  /// (a power of two); the scratch region always leaves room for W = min_mask_words, more when
  /// the line cache it shares the region with is larger anyway.
  static constexpr int max_mask_words = 8;
  static constexpr int min_mask_words = 2;
  /// Hash slots per mask word (slots = 128 * W >= 64 * W distinct lines + one overshoot per lane).
  static constexpr int hash_slots_per_word = 128;
};

/// How ChunkGreedy computed one chunk's distances (recorded when asked, for tests and tuning).
enum ChunkPath : int { kChunkEmpty = 0, kChunkMasks = 1, kChunkCachedLists = 2, kChunkGlobalLists = 3 };

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
 * holds, per local position t (0 <= t < C): the row id, its load, the output order as local
 * positions (`at`), the list of unplaced positions (`cand`, `where`), the offsets of its line list,
 * and one region of `region_words` words shared by the two ways of computing distances:
 *
 * - masks (when the chunk's rows touch at most 64 * mask_words distinct lines): a hash table
 *   numbers the chunk's distinct lines 0..U-1, every row gets a W = ceil(U / 64)-word bit mask,
 *   and distance(a, b) = popcount(mask_a xor mask_b) - exactly the line-mask Hamming distance.
 * - line lists otherwise: the rows' sorted distinct line ids (`cap` lines in all) filled from the
 *   per-row line counts of the pre-pass; a chunk whose line total exceeds `cap` computes its
 *   distances from global `entries` (line_mask_distance, same values) instead.
 * A chunk of empty rows only (all distances 0, all loads 0) is the identity of its positions.
 *
 * Every step q picks among all unplaced rows of the chunk: lanes compute the keys of the
 * remaining candidates (TeamThreadRange over `cand`; the winner is swapped out of it) and one Min reduction of (primary, tie, local position) packed in 64 bits
 * finds the winner (when the bounds of the three fields fit; otherwise a Min over the
 * (primary, tie) key and a second Min over the positions holding it). The keys order exactly as
 * the reference's (primary, tie) pairs; the remaining ties go to the lowest local position,
 * which is the reference's lowest row id when the chunk's order lists rows in ascending id
 * (the identity, and the stable load-sorted order among equal loads for hybrid_1).
 */
template <class Matrix>
struct ChunkGreedy {
  using O = typename Matrix::non_const_ordinal_type;
  using exec_t = typename Matrix::execution_space;
  using mem_t = typename Matrix::memory_space;
  using row_map_t = typename Matrix::row_map_type;
  using entries_t = typename Matrix::index_type;
  using IView = Kokkos::View<std::int64_t*, mem_t, Kokkos::MemoryUnmanaged>;  // workspace arrays
  using member_t = typename kkperm::team_policy<exec_t>::member_type;
  template <class T>
  using SView = Kokkos::View<T*, typename exec_t::scratch_memory_space,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  row_map_t row_map;
  entries_t entries;
  IView load, ord;
  Kokkos::View<O*, mem_t> out;  ///< the result, perm (new -> old)
  Kokkos::View<O*, mem_t, Kokkos::MemoryUnmanaged> row_lines;  ///< distinct lines of every row (by row id)
  Kokkos::View<int*, mem_t> paths;    ///< ChunkPath per chunk when extent > 0
  /// Chunk c holds sorted positions [cstart(c), cstart(c + 1)), at most `chunk` of them.
  IView cstart;
  std::int64_t chunk = 0, cap = 0, region_words = 0;
  int nw = 1, mode = 0, level = 0, mask_words = 0;
  /// Packed single-reduction keys: field widths (bits) and the tie's upper bound for the
  /// load-descending ties of hybrid_2_1 / hybrid_2_3.
  bool packed = false;
  int tbits = 0, pbits = 0;
  std::uint64_t tie_max = 0;
  LineOf<O> line{O(1)};

  /// Words of the region that the masks of W words per row and their hash table take.
  static std::int64_t mask_region_words(std::int64_t c, int w) {
    const std::int64_t slots = static_cast<std::int64_t>(ChunkGreedyConfig::hash_slots_per_word) * w;
    return c * w + (slots * static_cast<std::int64_t>(sizeof(O)) + 7) / 8 + (slots * 4 + 7) / 8;
  }

  /// Scratch bytes of one team; the views are carved in operator() in the same order.
  static std::size_t scratch_bytes(std::int64_t c, std::int64_t region) {
    const auto C = static_cast<std::size_t>(c);
    return 2 * SView<O>::shmem_size(C) + 3 * SView<std::int32_t>::shmem_size(C) +
           SView<std::int32_t>::shmem_size(C + 1) + SView<std::int64_t>::shmem_size(4) +
           SView<std::uint64_t>::shmem_size(static_cast<std::size_t>(region));
  }

  static KOKKOS_INLINE_FUNCTION std::uint64_t sat32(std::int64_t v) {
    return v < 0xFFFFFFFFll ? static_cast<std::uint64_t>(v) : 0xFFFFFFFFull;
  }

  /// Multiplicative hash of a line id to one of 2^bits slots.
  static KOKKOS_INLINE_FUNCTION std::uint32_t slot_of(O l, int bits) {
    return static_cast<std::uint32_t>(static_cast<std::uint32_t>(l) * 2654435761u) >> (32 - bits);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_t& m) const {
    const std::int64_t c0 = cstart(m.league_rank());
    const int len = static_cast<int>(cstart(m.league_rank() + 1) - c0);
    const auto scr = m.team_scratch(level);
    SView<O> row(scr, chunk), ld(scr, chunk);
    SView<std::int32_t> at(scr, chunk);       // at(q): local position placed at output q
    // Unplaced positions: cand(0 .. len-q) in any order; where(t) = index of t in cand, -1 once
    // placed (a placed row is swapped out, so each step visits only the remaining candidates).
    SView<std::int32_t> cand(scr, chunk), where(scr, chunk);
    SView<std::int32_t> off(scr, chunk + 1);  // line list of t: lines[off(t), off(t+1))
    // 0: chunk line total, 1: first unplaced position, 2: distinct lines, 3: bit counter
    SView<std::int64_t> misc(scr, 4);
    SView<std::uint64_t> region(scr, region_words);
    O* const lines = reinterpret_cast<O*>(region.data());

    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const int t) {
      const std::int64_t r = ord(c0 + t);
      row(t) = static_cast<O>(r);
      ld(t) = static_cast<O>(load(r));
      cand(t) = t;
      where(t) = t;
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
    Kokkos::single(Kokkos::PerTeam(m), [&]() {
      misc(1) = 0;
      misc(2) = 0;
      misc(3) = 0;
    });
    m.team_barrier();
    auto record = [&](const int path) {
      if (paths.extent(0) > 0)
        Kokkos::single(Kokkos::PerTeam(m), [&]() { paths(m.league_rank()) = path; });
    };
    if (misc(0) == 0) {  // only empty rows: every key ties, the lowest position wins each step
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const int t) { out(c0 + t) = row(t); });
      record(kChunkEmpty);
      return;
    }

    // Masks: number the chunk's distinct lines through a hash table (linear probing, slots =
    // 128 W >= 64 W lines + one insert per lane past the limit, so probing always ends).
    int W = 0;
    std::uint64_t* masks = nullptr;
    if (mask_words > 0) {
      const int slots = ChunkGreedyConfig::hash_slots_per_word * mask_words;
      int sbits = 0;
      while ((1 << sbits) < slots) ++sbits;
      const std::int64_t ucap = 64 * static_cast<std::int64_t>(mask_words);
      O* const hkey = lines;
      const std::int64_t key_words = (static_cast<std::int64_t>(slots) * sizeof(O) + 7) / 8;
      auto* const hbit = reinterpret_cast<std::int32_t*>(region.data() + key_words);
      masks = region.data() + key_words + (static_cast<std::int64_t>(slots) * 4 + 7) / 8;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, slots), [&](const int s) { hkey[s] = O(-1); });
      m.team_barrier();
      // full: this lane's insert found the table over ucap; it then stops for good (so at most
      // one insert per lane goes past ucap), and the masks are not used.
      bool full = false;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const int t) {
        if (full) return;
        for_each_row_line(row_map, entries, line, row(t), [&](const O l) {
          for (std::uint32_t h = slot_of(l, sbits);; h = (h + 1) & static_cast<std::uint32_t>(slots - 1)) {
            const O prev = Kokkos::atomic_compare_exchange(&hkey[h], O(-1), l);
            if (prev == O(-1)) {
              full = Kokkos::atomic_fetch_add(&misc(2), std::int64_t(1)) >= ucap;
              break;
            }
            if (prev == l) break;
          }
          return !full;
        });
      });
      m.team_barrier();
      const std::int64_t u = misc(2);
      if (u <= ucap) {
        W = static_cast<int>((u + 63) / 64);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, slots), [&](const int s) {
          if (hkey[s] != O(-1))
            hbit[s] = static_cast<std::int32_t>(Kokkos::atomic_fetch_add(&misc(3), std::int64_t(1)));
        });
        m.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const int t) {
          std::uint64_t* const mk = masks + static_cast<std::int64_t>(t) * W;
          for (int w = 0; w < W; ++w) mk[w] = 0;
          for_each_row_line(row_map, entries, line, row(t), [&](const O l) {
            std::uint32_t h = slot_of(l, sbits);
            while (hkey[h] != l) h = (h + 1) & static_cast<std::uint32_t>(slots - 1);
            const std::int32_t b = hbit[h];
            mk[b >> 6] |= std::uint64_t(1) << (b & 63);
            return true;
          });
        });
      }
      m.team_barrier();  // the region is reused by the line cache when the masks did not fit
    }
    const bool cached = W == 0 && misc(0) <= cap;
    if (cached) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const int t) {
        std::int32_t w = off(t);
        for_each_row_line(row_map, entries, line, row(t), [&](const O l) {
          lines[w++] = l;
          return true;
        });
      });
      m.team_barrier();
    }
    record(W > 0 ? kChunkMasks : cached ? kChunkCachedLists : kChunkGlobalLists);
    // Distance of the rows at local positions a and b: masks, cached distinct lines, or (chunk
    // not cached) their columns in global memory, which line_mask_distance merges into lines.
    auto distance = [&](const int a, const int b) -> std::int64_t {
      if (W > 0) {
        const std::uint64_t* x = masks + static_cast<std::int64_t>(a) * W;
        const std::uint64_t* y = masks + static_cast<std::int64_t>(b) * W;
        std::int64_t d = 0;
        for (int w = 0; w < W; ++w) d += popcount64(x[w] ^ y[w]);
        return d;
      }
      if (cached)
        return sorted_line_distance(lines + off(a), off(a + 1) - off(a), lines + off(b), off(b + 1) - off(b));
      const auto ba = row_map(row(a)), bb = row_map(row(b));
      return line_mask_distance(entries.data() + ba, static_cast<std::int64_t>(row_map(row(a) + 1) - ba),
                                entries.data() + bb, static_cast<std::int64_t>(row_map(row(b) + 1) - bb), line);
    };

    const bool warp_mode = mode == kWarpAware || mode == kHyb23;
    const std::uint64_t pmask = (std::uint64_t(1) << pbits) - 1;
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
        const bool seed = warp_mode && q < nw;  // lowest (load, position)
        const int ref = seed ? -1 : at(warp_mode ? q - nw : q - 1);
        const bool tie2 = mode == kHyb22 && q >= nw;
        const int ref2 = tie2 ? at(q - nw) : -1;
        // hybrid_1: the order is load-sorted (its key starts with the load), so the first
        // unplaced position holds the chunk's largest remaining load.
        const O big = mode == kHyb1 ? ld(misc(1)) : O(0);
        const int rem = len - q;  // unplaced rows: cand(0 .. rem)
        // The key of candidate t: (primary, tie) - primary = load for seeds, else the distance
        // to the reference row; tie = tie_max - load (hybrid_2_1/2_3), the distance to out[p-Nw]
        // (hybrid_2_2) or 0. Returns false when t is not a candidate (hybrid_1: another load).
        auto key_of = [&](const int t, std::uint64_t& prim, std::uint64_t& tie) {
          if (mode == kHyb1 && ld(t) != big) return false;
          tie = 0;
          if (seed) {
            prim = static_cast<std::uint64_t>(ld(t));
          } else {
            prim = static_cast<std::uint64_t>(distance(t, ref));
            if (mode == kHyb21 || mode == kHyb23)
              tie = tie_max - static_cast<std::uint64_t>(ld(t));
            else if (tie2)
              tie = static_cast<std::uint64_t>(distance(t, ref2));
          }
          return true;
        };
        if (packed) {
          // (primary, tie, position) in one word: the host checked that the bounds fit 64 bits.
          std::uint64_t kmin = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, rem),
              [&](const int i, std::uint64_t& v) {
                const int t = cand(i);
                std::uint64_t prim, tie;
                if (!key_of(t, prim, tie)) return;
                const std::uint64_t k = (((prim << tbits) | tie) << pbits) | static_cast<std::uint64_t>(t);
                if (k < v) v = k;
              },
              Kokkos::Min<std::uint64_t>(kmin));
          win = static_cast<std::int32_t>(kmin & pmask);
        } else {
          // (primary, tie) with each half saturated at 2^32 - 1 (which keeps the order and is
          // never reached: a distance is at most the two rows' distinct line counts, < 2^31 each
          // as the columns of a row are unique; a load at most the row length), then the lowest
          // position holding it (keys recomputed: this fallback is for keys wider than 64 bits).
          auto key32 = [&](const int t, std::uint64_t& k) {
            std::uint64_t prim, tie;
            if (!key_of(t, prim, tie)) return false;
            k = (sat32(static_cast<std::int64_t>(prim)) << 32) | sat32(static_cast<std::int64_t>(tie));
            return true;
          };
          std::uint64_t kmin = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, rem),
              [&](const int i, std::uint64_t& v) {
                std::uint64_t k;
                if (key32(cand(i), k) && k < v) v = k;
              },
              Kokkos::Min<std::uint64_t>(kmin));
          std::int32_t first = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, rem),
              [&](const int i, std::int32_t& v) {
                const int t = cand(i);
                std::uint64_t k;
                if (t < v && key32(t, k) && k == kmin) v = t;
              },
              Kokkos::Min<std::int32_t>(first));
          win = first;
        }
      }
      Kokkos::single(Kokkos::PerTeam(m), [&]() {
        const std::int32_t i = where(win), last = cand(len - q - 1);
        cand(i) = last;
        where(last) = i;
        where(win) = -1;
        at(q) = win;
        out(c0 + q) = row(win);
        if (win == misc(1)) {
          std::int64_t f = win + 1;
          while (f < len && where(f) < 0) ++f;
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

/// Team scratch of ChunkGreedy: level, the shared region (words), the line cache capacity it
/// gives (lines), the largest mask width it holds (words per row, 0 = no masks) and bytes per team.
struct ChunkGreedyPlan {
  int level = 0;
  std::int64_t region_words = 0;
  std::int64_t cap = 0;
  int mask_words = 0;
  std::size_t bytes = 0;
};

/**
 * Sizes ChunkGreedy's scratch for chunks of `chunk` positions whose heaviest chunk holds
 * `max_chunk_lines` distinct row lines. The region wants a cache for every chunk and room for
 * masks of min(ChunkGreedyConfig::min_mask_words, max_mask_words) words: level 0 when that
 * fits; else level 0 with the largest region that fits, if its cache still averages
 * ChunkGreedyConfig::min_level0_lines_per_row (chunks above it read global memory); else level 1
 * with the wanted region (capped by the level-1 limit). Masks then take the largest power of two
 * <= max_mask_words words per row that the region holds. `max_mask_words` = 0 turns masks off.
 */
template <class Matrix>
ChunkGreedyPlan plan_chunk_greedy(std::int64_t chunk, std::int64_t max_chunk_lines,
                                  int max_mask_words = ChunkGreedyConfig::max_mask_words) {
  using greedy_t = ChunkGreedy<Matrix>;
  using policy_t = kkperm::team_policy<typename Matrix::execution_space>;
  using O = typename Matrix::non_const_ordinal_type;
  KKPERM_REQUIRE(max_mask_words >= 0 && max_mask_words <= ChunkGreedyConfig::max_mask_words &&
                     (max_mask_words & (max_mask_words - 1)) == 0,
                 "kkperm::windowed_hamming_order: mask words per row must be 0 or a power of two <= "
                     << ChunkGreedyConfig::max_mask_words << ", got " << max_mask_words);
  auto words_of_lines = [](std::int64_t l) {
    return (l * static_cast<std::int64_t>(sizeof(O)) + 7) / 8;
  };
  // Largest region (in words) whose scratch fits `limit` bytes, -1 if not even an empty one does.
  auto words_fitting = [&](std::size_t limit) -> std::int64_t {
    const std::size_t fixed = greedy_t::scratch_bytes(chunk, 0);
    if (fixed > limit) return -1;
    std::int64_t c = static_cast<std::int64_t>((limit - fixed) / 8);
    while (c > 0 && greedy_t::scratch_bytes(chunk, c) > limit) --c;  // alignment padding
    return c;
  };
  const int min_w = std::min(max_mask_words, ChunkGreedyConfig::min_mask_words);
  const std::int64_t want =
      std::max(words_of_lines(max_chunk_lines), min_w > 0 ? greedy_t::mask_region_words(chunk, min_w) : 0);
  ChunkGreedyPlan plan;
  const std::int64_t fit0 = words_fitting(std::min<std::size_t>(
      ChunkGreedyConfig::level0_bytes, static_cast<std::size_t>(policy_t::scratch_size_max(0))));
  if (fit0 >= want) {
    plan.region_words = want;
  } else if (fit0 >= words_of_lines(ChunkGreedyConfig::min_level0_lines_per_row * chunk)) {
    plan.region_words = fit0;
  } else {
    plan.level = 1;
    const std::int64_t fit1 = words_fitting(static_cast<std::size_t>(policy_t::scratch_size_max(1)));
    KKPERM_REQUIRE(fit1 >= 0, "kkperm::windowed_hamming_order: chunks of "
                                  << chunk << " rows need more team scratch than the space offers");
    plan.region_words = std::min(want, fit1);
  }
  plan.cap = std::min<std::int64_t>(plan.region_words * 8 / static_cast<std::int64_t>(sizeof(O)),
                                    std::numeric_limits<std::int32_t>::max());  // int32 offsets
  for (int w = max_mask_words; w >= 1 && plan.mask_words == 0; w /= 2)
    if (greedy_t::mask_region_words(chunk, w) <= plan.region_words) plan.mask_words = w;
  plan.bytes = greedy_t::scratch_bytes(chunk, plan.region_words);
  return plan;
}

/// Test and tuning hooks of windowed_hamming_order.
struct WindowedOptions {
  /// Replaces the sorted order when not empty (tests use the identity order to compare with the
  /// exact greedy); for hybrid_1 it must list the rows by load descending, as the sorted order does.
  std::vector<std::int64_t> ord_override;
  /// Largest mask width (words per row; 0 = line lists only), see ChunkGreedyConfig.
  int max_mask_words = ChunkGreedyConfig::max_mask_words;
  /// false: always the two-reduction step (the fallback for keys wider than 64 bits).
  bool packed_keys = true;
  /// When not null, receives the ChunkPath of every chunk.
  std::vector<int>* chunk_paths = nullptr;
  /// When not null, receives the first sorted position of every chunk and n.
  std::vector<std::int64_t>* chunk_starts = nullptr;
};

/**
 * Chunk boundaries of the sorted order, as positions (n_chunks + 1 of them, the last = n).
 * Rows are taken in groups of Nw. The fixed chunks [kC, (k+1)C) are kept whole when their rows
 * hold at most B distinct lines in all; heavier ones are cut where the running line count from
 * the fixed chunk's start crosses a multiple of B: group g (exclusive prefix P_g, fixed chunk
 * k = floor(g Nw / C) starting at group s_k) gets the key (k, floor((P_g - P_{s_k}) / B)), and a
 * chunk is a maximal run of groups with equal key. So no chunk exceeds C rows, a cut chunk's lines
 * exceed B by at most its last group's, and B = 0 (no line bound) gives the fixed chunks.
 * `max_chunk_lines` receives the heaviest chunk's line total (which sizes the line cache).
 */
template <class Exec, class OrdView, class LinesView, class Buf>
Buf chunk_boundaries(const OrdView& ord, const LinesView& row_lines, std::int64_t n, int nw, std::int64_t C,
                     std::int64_t B, std::int64_t& max_chunk_lines, const Buf& pre, const Buf& starts) {
  const std::int64_t G = (n + nw - 1) / nw;
  KKPERM_ASSERT(static_cast<std::int64_t>(pre.extent(0)) >= G + 1 && static_cast<std::int64_t>(starts.extent(0)) >= G + 1,
                "chunk_boundaries: buffers shorter than " << G + 1);
  // pre(g): lines of groups [0, g), g = 0..G.
  Kokkos::parallel_scan(
      "kkperm::permute::group_lines", kkperm::range_policy<Exec>(0, G),
      KOKKOS_LAMBDA(const std::int64_t g, std::int64_t& part, const bool final) {
        if (final) pre(g) = part;
        const std::int64_t e = (g + 1) * nw < n ? (g + 1) * nw : n;
        for (std::int64_t p = g * nw; p < e; ++p) part += static_cast<std::int64_t>(row_lines(ord(p)));
        if (final && g == G - 1) pre(G) = part;
      });
  std::int64_t count = 0;
  Kokkos::parallel_scan(
      "kkperm::permute::chunk_starts", kkperm::range_policy<Exec>(0, G),
      KOKKOS_LAMBDA(const std::int64_t g, std::int64_t& part, const bool final) {
        const std::int64_t k = g * nw / C, s = k * C / nw;  // fixed chunk, its first group
        const bool first = g == s || (B > 0 && (pre(g) - pre(s)) / B != (pre(g - 1) - pre(s)) / B);
        if (final && first) starts(part) = g * nw;
        part += first;
        if (final && g == G - 1) starts(part) = n;
      },
      count);
  max_chunk_lines = 0;
  Kokkos::parallel_reduce(
      "kkperm::permute::chunk_lines", kkperm::range_policy<Exec>(0, count),
      KOKKOS_LAMBDA(const std::int64_t c, std::int64_t& mx) {
        // Chunks start at group borders; the last ends at n, inside group G - 1 or at its end.
        const std::int64_t lines = pre((starts(c + 1) + nw - 1) / nw) - pre(starts(c) / nw);
        if (lines > mx) mx = lines;
      },
      Kokkos::Max<std::int64_t>(max_chunk_lines));
  return Buf(starts.data(), count + 1);
}

/**
 * @brief Chunk-exact greedy Hamming order of A's rows on A's execution space (HammingMode::
 * windowed); `opt` holds test hooks (WindowedOptions). Returns perm (new -> old) on A's space.
 */
template <class Matrix>
Kokkos::View<typename Matrix::non_const_ordinal_type*, typename Matrix::memory_space> windowed_hamming_order(
    const Matrix& A, Permutation kind, const PermuteParams& params, const WindowedOptions& opt = {}) {
  const auto& ord_override = opt.ord_override;
  using exec_t = typename Matrix::execution_space;
  using mem_t = typename Matrix::memory_space;
  using O = typename Matrix::non_const_ordinal_type;
  using IView = typename ChunkGreedy<Matrix>::IView;
  const int mode = greedy_mode_of(kind);
  const std::int64_t n = A.numRows();
  Kokkos::View<O*, mem_t> result(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::windowed"), n);
  if (n == 0) return result;
  const int nw = params.feature.warps_per_block;
  const O cpl = static_cast<O>(params.feature.cols_per_line(sizeof(typename Matrix::non_const_value_type)));
  const LineOf<O> line(cpl);
  // Temporaries from the reusable workspace (no cudaMalloc / cudaFree per build): loads, sorted
  // order, sort keys, row line counts, group line prefix and chunk starts.
  using ws_t = Workspace<mem_t>;
  const std::int64_t G = (n + nw - 1) / nw;
  ws_t ws(3 * ws_t::template bytes_for<std::int64_t>(n) + ws_t::template bytes_for<O>(n) +
          2 * ws_t::template bytes_for<std::int64_t>(G + 1));
  IView load = ws.template take<std::int64_t>(n);
  const std::int64_t max_load = fill_loads(A, params.feature.warp_size, load);  // loads and max, one pass
  auto row_map = A.graph.row_map;
  auto entries = A.graph.entries;

  IView ord = ws.template take<std::int64_t>(n);
  const auto keys_raw = ws.template take<std::int64_t>(n);
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
    Kokkos::View<std::uint64_t*, mem_t, Kokkos::MemoryUnmanaged> keys(reinterpret_cast<std::uint64_t*>(keys_raw.data()), n);
    kkperm::parallel_for(
        "kkperm::permute::minhash", kkperm::range_policy<exec_t>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
          std::uint32_t h0 = 0xFFFFFFFFu;
          for_each_row_line(row_map, entries, line, i, [&](const O l) {
            const std::uint32_t a = static_cast<std::uint32_t>(mix64(std::uint64_t(l) ^ seed0) >> 32);
            if (a < h0) h0 = a;
            return true;
          });
          // First component: the row's first line scaled to s0 bits (keeps banded / stencil
          // locality); second: a MinHash of the line set (groups rows sharing lines).
          const std::uint64_t first =
              row_map(i + 1) > row_map(i) ? static_cast<std::uint64_t>(line(entries(row_map(i)))) : n_lines;
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
    kkperm::parallel_for(
        "kkperm::permute::ord", kkperm::range_policy<exec_t>(0, n),
        KOKKOS_LAMBDA(const std::int64_t p) { ord(p) = static_cast<std::int64_t>(keys(p) & mask); });
  }
  KKPERM_REQUIRE(params.chunk_lines >= 0,
                 "kkperm::windowed_hamming_order: PermuteParams::chunk_lines must be >= 0 (0 = no line bound), got "
                     << params.chunk_lines);
  const std::int64_t chunk = chunk_positions(params.chunk_rows, nw);
  using greedy_t = ChunkGreedy<Matrix>;
  using policy_t = kkperm::team_policy<exec_t>;
  // Distinct lines of every row (the line cache's list lengths, and the chunks' line bound).
  const Kokkos::View<O*, mem_t, Kokkos::MemoryUnmanaged> row_lines = ws.template take<O>(n);
  kkperm::parallel_for(
      "kkperm::permute::row_lines", kkperm::range_policy<exec_t>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        O cnt = 0;
        for_each_row_line(row_map, entries, line, i, [&](const O) {
          ++cnt;
          return true;
        });
        row_lines(i) = cnt;
      });
  std::int64_t max_chunk_lines = 0;
  const IView cstart = chunk_boundaries<exec_t>(ord, row_lines, n, nw, chunk, params.chunk_lines, max_chunk_lines,
                                                IView(ws.template take<std::int64_t>(G + 1)),
                                                IView(ws.template take<std::int64_t>(G + 1)));
  const std::int64_t n_chunks = static_cast<std::int64_t>(cstart.extent(0)) - 1;
  KKPERM_REQUIRE(
      n_chunks <= std::numeric_limits<int>::max(),
      "kkperm::windowed_hamming_order: " << n_chunks << " chunks exceed the league size limit");
  const auto plan = plan_chunk_greedy<Matrix>(chunk, max_chunk_lines, opt.max_mask_words);
  greedy_t g;
  g.row_map = row_map;
  g.entries = entries;
  g.load = load;
  g.ord = ord;
  g.out = result;
  g.row_lines = row_lines;
  g.chunk = chunk;
  g.cstart = cstart;
  g.cap = plan.cap;
  g.region_words = plan.region_words;
  g.mask_words = plan.mask_words;
  g.nw = nw;
  g.mode = mode;
  g.level = plan.level;
  g.line = line;
  // Packed keys: a distance is at most the two rows' distinct line counts, each at most the row
  // length <= load * Nt; a seed's primary is a load; positions are < chunk.
  {
    const std::uint64_t max_dist =
        std::max<std::uint64_t>(2 * static_cast<std::uint64_t>(max_load) * params.feature.warp_size,
                                static_cast<std::uint64_t>(max_load));
    const int dbits = bits_for(max_dist);
    g.tie_max = static_cast<std::uint64_t>(max_load);
    g.tbits = (mode == kHyb21 || mode == kHyb23) ? bits_for(g.tie_max) : mode == kHyb22 ? dbits : 0;
    g.pbits = std::max(1, bits_for(static_cast<std::uint64_t>(chunk - 1)));
    g.packed = opt.packed_keys && dbits + g.tbits + g.pbits <= 64;
  }
  Kokkos::View<int*, mem_t> paths;
  if (opt.chunk_paths)
    paths = Kokkos::View<int*, mem_t>("kkperm::permute::chunk_paths", static_cast<std::size_t>(n_chunks));
  g.paths = paths;
  const auto scratch = Kokkos::PerTeam(plan.bytes);
  policy_t probe(static_cast<int>(n_chunks), 1);
  probe.set_scratch_size(plan.level, scratch);
  const int team = std::max(1, std::min(ChunkGreedyConfig::max_team_size,
                                        probe.team_size_max(g, Kokkos::ParallelForTag())));
  policy_t policy(static_cast<int>(n_chunks), team);
  policy.set_scratch_size(plan.level, scratch);
  kkperm::parallel_for("kkperm::permute::chunk_greedy", policy, g);
  if (opt.chunk_starts) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cstart);
    opt.chunk_starts->assign(h.data(), h.data() + h.extent(0));
  }
  if (opt.chunk_paths) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), paths);
    opt.chunk_paths->assign(h.data(), h.data() + h.extent(0));
  }
  return result;
}

}  // namespace kkperm::detail
