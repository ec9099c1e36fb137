#pragma once
/**
 * @brief Scalable greedy Hamming orders (warp_aware, cta_aware, hybrid_1, hybrid_2_x) on the
 * matrix's execution space.
 *
 * 1. (device) every row gets a key (first cache line scaled, MinHash of its line set, row) - for
 *    hybrid_1 (load descending, first line, MinHash, row) - and rows are sorted by it, so rows
 *    that share lines sit close together (first line keeps banded/stencil locality, which a
 *    pure MinHash order destroyed: 778 vs exact 452 / identity 588 on laplace2d 40x40). Sort:
 *    sort_unique_keys (std::sort on host spaces, cub radix sort on CUDA).
 * 2. (device) the sorted order is cut into chunks of C = k*Nw positions; one thread (a team of
 *    one, one CUDA block each) per chunk runs
 *    the same greedy rule as the exact reference (reference.hpp) but only scans `window`
 *    unplaced candidates around the reference row's place in the sorted order (half each side;
 *    union-find skip lists find unplaced neighbours in amortized O(1)). Chunk c fills output
 *    positions [c*C, (c+1)*C), so clusters of Nw never straddle chunks; warp_aware seeds each
 *    chunk with its Nw lowest-load rows; hybrid_1 is exactly load-sorted (the chunk's candidates
 *    are restricted to its largest remaining load).
 * With one chunk, a window >= 2n and the identity order (or load-sorted order for hybrid_1) the
 * result equals the exact greedy; the tests use that to check this kernel against the reference.
 * Cost: O(n * window * row length) work, n / C-way parallel.
 */
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
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

template <class Matrix>
struct WindowedGreedy {
  using O = typename Matrix::non_const_ordinal_type;
  using mem_t = typename Matrix::memory_space;
  using row_map_t = typename Matrix::row_map_type;
  using entries_t = typename Matrix::index_type;
  using IView = Kokkos::View<std::int64_t*, mem_t>;

  row_map_t row_map;
  entries_t entries;
  IView load, ord, pos_of, nxt, prv, out;
  std::int64_t n, chunk;
  int nw, half, mode;
  O cpl;

  KOKKOS_INLINE_FUNCTION std::int64_t dist(std::int64_t a, std::int64_t b) const {
    const auto ba = row_map(a), bb = row_map(b);
    return line_mask_distance(entries.data() + ba, row_map(a + 1) - ba, entries.data() + bb,
                              row_map(b + 1) - bb, cpl);
  }
  // Union-find over local positions 0..len (len = sentinel); parent[t] == t <=> t unplaced.
  KOKKOS_INLINE_FUNCTION std::int64_t find(std::int64_t base, const IView& par, std::int64_t t) const {
    while (par(base + t) != t) {
      const std::int64_t g = par(base + par(base + t));
      par(base + t) = g;
      t = g;
    }
    return t;
  }

  using member_t = typename Kokkos::TeamPolicy<typename Matrix::execution_space>::member_type;
  /// One chunk per team of one thread (see windowed_hamming_order for why).
  KOKKOS_INLINE_FUNCTION void operator()(const member_t& m) const { run(m.league_rank()); }

  KOKKOS_INLINE_FUNCTION void run(const std::int64_t c) const {
    const std::int64_t c0 = c * chunk;
    const std::int64_t len = (c0 + chunk < n ? c0 + chunk : n) - c0;
    const std::int64_t base = c0 + c;  // len + 1 slots per chunk
    for (std::int64_t t = 0; t <= len; ++t) {
      nxt(base + t) = t;
      prv(base + t) = t;  // prv slot s represents local position s - 1; slot 0 = sentinel -1
    }
    auto next_unplaced = [&](std::int64_t t) { return find(base, nxt, t); };        // len if none
    auto prev_unplaced = [&](std::int64_t t) { return find(base, prv, t + 1) - 1; };  // -1 if none
    auto remove = [&](std::int64_t t) {
      nxt(base + t) = t + 1;
      prv(base + t + 1) = t;
    };
    const bool warp_mode = mode == kWarpAware || mode == kHyb23;
    for (std::int64_t q = 0; q < len; ++q) {
      const std::int64_t p = c0 + q;  // output position
      std::int64_t best_t = -1, b0 = 0, b1 = 0, b2 = 0;
      auto consider = [&](std::int64_t t, std::int64_t k0, std::int64_t k1) {
        const std::int64_t row = ord(c0 + t);
        if (best_t < 0 || k0 < b0 || (k0 == b0 && (k1 < b1 || (k1 == b1 && row < b2)))) {
          best_t = t;
          b0 = k0;
          b1 = k1;
          b2 = row;
        }
      };
      if (warp_mode && q < nw) {
        for (std::int64_t t = next_unplaced(0); t < len; t = next_unplaced(t + 1))
          consider(t, load(ord(c0 + t)), 0);
      } else if (!warp_mode && mode != kHyb1 && q % nw == 0) {
        consider(next_unplaced(0), 0, 0);
      } else if (mode == kHyb1 && q == 0) {
        consider(next_unplaced(0), 0, 0);
      } else {
        const std::int64_t ref = warp_mode ? out(p - nw) : out(p - 1);
        const std::int64_t rp = pos_of(ref) - c0;
        const std::int64_t L = mode == kHyb1 ? load(ord(c0 + next_unplaced(0))) : 0;
        auto eval = [&](std::int64_t t) {
          const std::int64_t row = ord(c0 + t);
          if (mode == kHyb1 && load(row) != L) return;
          std::int64_t tie = 0;
          if (mode == kHyb21 || mode == kHyb23) tie = -load(row);
          if (mode == kHyb22 && q >= nw) tie = dist(row, out(p - nw));
          consider(t, dist(row, ref), tie);
        };
        std::int64_t t = next_unplaced(rp);
        for (int k = 0; k < half && t < len; ++k, t = next_unplaced(t + 1)) eval(t);
        t = prev_unplaced(rp);
        for (int k = 0; k < half && t >= 0; ++k, t = prev_unplaced(t - 1)) eval(t);
        if (best_t < 0) {  // hybrid_1 entering a new load group: scan from the group start
          t = next_unplaced(0);
          for (int k = 0; k < 2 * half && t < len; ++k, t = next_unplaced(t + 1)) eval(t);
        }
      }
      remove(best_t);
      out(p) = ord(c0 + best_t);
    }
  }
};

/**
 * @brief Windowed greedy Hamming order of A's rows on A's execution space. `ord_override`
 * (host vector, may be empty) replaces the MinHash order (tests use the identity order to compare
 * with the exact greedy). Returns perm (new -> old) on A's space.
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
  auto load = device_loads(A, params.feature.warp_size);
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
    std::int64_t max_load = 0;
    Kokkos::parallel_reduce(
        "kkperm::permute::max_load", Kokkos::RangePolicy<exec_t>(0, n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& m) { if (load(i) > m) m = load(i); },
        Kokkos::Max<std::int64_t>(max_load));
    const int ibits = std::max(1, bits_for(static_cast<std::uint64_t>(n - 1)));
    const int lbits = mode == kHyb1 ? bits_for(static_cast<std::uint64_t>(max_load)) : 0;
    const int sbits = 64 - ibits - lbits;
    KKPERM_REQUIRE(sbits >= 2, "kkperm::windowed_hamming_order: " << n << " rows with loads up to "
                                                                    << max_load << " leave no key bits for signatures");
    const int s0 = std::min(32, (sbits + 1) / 2), s1 = std::min(32, sbits - s0);
    const std::uint64_t seed0 = mix64(params.seed), seed1 = mix64(params.seed + 1);
    const std::uint64_t n_lines = (static_cast<std::uint64_t>(A.numCols()) + cpl - 1) / cpl;
    Kokkos::View<std::uint64_t*, mem_t> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::keys"), n);
    Kokkos::parallel_for(
        "kkperm::permute::minhash", Kokkos::RangePolicy<exec_t>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
          std::uint32_t h0 = 0xFFFFFFFFu, h1 = 0xFFFFFFFFu;
          O last = -1;
          for (auto k = row_map(i); k < row_map(i + 1); ++k) {
            const O l = entries(k) / cpl;
            if (l == last) continue;
            last = l;
            const std::uint32_t a = static_cast<std::uint32_t>(mix64(std::uint64_t(l) ^ seed0) >> 32);
            const std::uint32_t b = static_cast<std::uint32_t>(mix64(std::uint64_t(l) ^ seed1) >> 32);
            if (a < h0) h0 = a;
            if (b < h1) h1 = b;
          }
          // First component: the row's first line scaled to s0 bits (keeps banded / stencil
          // locality); second: a MinHash of the line set (groups rows sharing lines).
          (void)h1;
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
  IView pos_of(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::pos_of"), n);
  Kokkos::parallel_for(
      "kkperm::permute::pos_of", Kokkos::RangePolicy<exec_t>(0, n),
      KOKKOS_LAMBDA(const std::int64_t p) { pos_of(ord(p)) = p; });

  const std::int64_t chunk = std::max<std::int64_t>(nw, (std::max(params.chunk_rows, 1) + nw - 1) / nw * nw);
  const std::int64_t n_chunks = (n + chunk - 1) / chunk;
  WindowedGreedy<Matrix> g;
  g.row_map = row_map;
  g.entries = entries;
  g.load = load;
  g.ord = ord;
  g.pos_of = pos_of;
  g.nxt = IView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::nxt"), n + n_chunks);
  g.prv = IView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::prv"), n + n_chunks);
  g.out = IView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::out"), n);
  g.n = n;
  g.chunk = chunk;
  g.nw = nw;
  g.half = std::max(1, params.window / 2);
  g.mode = mode;
  g.cpl = cpl;
  // One team of ONE thread per chunk: each chunk is a long sequential, latency-bound walk, so
  // they are spread one per CUDA block over all SMs (a RangePolicy packs the few thousand chunk
  // threads into a few large blocks on a fraction of the SMs, divergent within each warp).
  Kokkos::parallel_for("kkperm::permute::windowed_greedy", Kokkos::TeamPolicy<exec_t>(n_chunks, 1), g);
  auto gout = g.out;
  Kokkos::parallel_for(
      "kkperm::permute::windowed_out", Kokkos::RangePolicy<exec_t>(0, n),
      KOKKOS_LAMBDA(const std::int64_t p) { result(p) = static_cast<O>(gout(p)); });
  return result;
}

}  // namespace kkperm::detail
