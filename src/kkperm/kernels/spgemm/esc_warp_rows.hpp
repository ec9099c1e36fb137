#pragma once
// ESC warp-row kernels: one group of L lanes of a CUDA warp per row of C (L = 32: a warp per
// row; L = 8, 16: 32 / L rows per warp), several warps per team, for the rows of the warp bin
// (and, when it is small, the thread bin too). Internal: used by esc_spgemm.hpp.
//
// Why (H100, session 16, run 96, ncu of the R(AP) setup of the 2D 5-point Laplacian, 144 k rows
// all in the warp bin): the one-row-per-32-thread-team kernels took 315 µs (count), 626 µs
// (fill) and 376 µs (first numeric) — 1.3 ms of a 3.6 ms setup. Each row paid Kokkos team scans
// and barriers for ~74 products, and 32-thread teams with their scratch capped residency. Here a
// warp walks its row with shuffles only (no team barrier), R = up to 8 rows share a team's
// scratch, and the 87 thread-bin rows that cost 45 + 46 + 80 µs as a latency chain of two blocks
// ride along in the same launch.
//
// Products of a row are visited in product order (A's entries in order, each B row in order),
// flattened across the row's lanes: A's row is taken W entries at a time, an exclusive scan of
// their B-row lengths places each product, and lane l takes products l, l + W, ... of the chunk,
// finding its A entry by binary lifting over the scan (shuffles). With W < 32 every shuffle,
// ballot and sync names only the row's lane group (lane_group_mask), so the rows of a warp run
// their own loop bounds. Why lane groups (session 17): a row of ~50-100 products gives a warp
// ~2 products a lane, each row a chain of dependent loads; with 32 / W rows a warp more rows are
// in flight. Measured (H100 runs 106-107, ncu): the first (search) numeric of the 2D R(AP) went
// 246 -> 195 µs with 8 lanes, the 3D 7-point A² count pass 2.9 -> 2.5 ms with 16; the R(AP) count
// passes stayed fastest with a warp per row (each row's hash table is sized for the range's
// largest row, so scratch, not lanes, bounds the rows in flight there).
// On host backends W = 1 and a team is one thread: the same code walks the row serially (so CI's
// Serial build tests it).
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/warp_ops.hpp"
#include "kkperm/kernels/spgemm/esc_kernels.hpp"

namespace kkperm::spgemm::esc_impl {

inline constexpr int kWarpRowsMaxPerTeam = 8;  ///< warps per team (team size <= 256)
/// Blocks per SM the warp-row kernels are compiled for (LaunchBounds<256, 4>: at most 64
/// registers a thread). Without it (run 97) they ran at 30 % occupancy: a row is a chain of five
/// dependent loads (perm, A's row, B's row offsets, B's columns), so latency is hidden only by
/// having many rows in flight. More blocks did not pay (H100 run 222, session 30): 6 (40
/// registers, 8-160 bytes of stack) and 8 (32 registers, 56-232 bytes) left the nine setups of
/// the Laplacian set within ±2 % or slower (3D 27-point R(AP) 0.510 -> 0.592 / 0.567 ms).
inline constexpr int kWarpRowsMinBlocks = 4;
template <class Exec>
using warp_rows_policy = kkperm::team_policy<Exec, Kokkos::LaunchBounds<32 * kWarpRowsMaxPerTeam, kWarpRowsMinBlocks>>;

/// Lanes of a warp (32 on device backends, 1 on host ones).
template <class Exec>
constexpr int warp_lanes() {
  return is_host_exec<Exec>() ? 1 : 32;
}

/// B's row offsets in their own type (4 bytes for int offsets: one shuffle each, not two).
template <class Args>
using walk_boff_t = std::conditional_t<sizeof(std::remove_cv_t<std::remove_reference_t<decltype(std::declval<Args>().rowB(0))>>) <= 4,
                                       int, std::int64_t>;

/// Head of one W-entry chunk of A's row [a0, a0 + kan) from entry s0, for the product walks: lane
/// l reads A entry s0 + l's B row (start b0), the group scans their lengths (excl: products of the
/// chunk before lane l's entry); returns the chunk's product count. Every lane of `mask` calls it.
template <class Args, class Boff>
KOKKOS_INLINE_FUNCTION int walk_chunk_head(const Args& g, std::int64_t a0, int s0, int kan, int lane, int W,
                                           unsigned mask, Boff& b0, int& excl) {
  b0 = 0;
  int len = 0;
  if (s0 + lane < kan) {
    const auto k = g.entA(a0 + s0 + lane);
    b0 = static_cast<Boff>(g.rowB(k));
    len = static_cast<int>(static_cast<Boff>(g.rowB(k + 1)) - b0);
  }
  excl = kkperm::detail::warp_exclusive_scan32(len, lane, W, mask);
  return kkperm::detail::warp_shfl_idx(excl + len, W - 1, W, mask);
}

/// The chunk entry s of product t (the largest s with excl_s <= t, by binary lifting over the
/// group's excl values; s + step stays below W). Every lane of `mask` calls it.
KOKKOS_INLINE_FUNCTION int walk_entry_of(int excl, int t, int W, unsigned mask) {
  int s = 0;
  for (int step = W / 2; step >= 1; step >>= 1) {
    const int e = kkperm::detail::warp_shfl_idx(excl, s + step, W, mask);
    if (e <= t) s += step;
  }
  return s;
}

/// Calls use(load(pa, q), t) once for every product a(pa)·b(q) of A's row [a0, a0 + ka), t = the
/// product's index within the row in product order; each call is made by one lane. Every lane of
/// the row's W-lane group (`mask`) must call this (shuffles inside). Row work must fit an int
/// (warp and thread bins).
/// A lane's products are taken kBatch at a time: their loads are all issued before the first use
/// (H100 run 100: with one product in flight per lane, each row waited on its B-column loads one
/// after another, ~11 µs a row in the R(AP) count pass).
inline constexpr int kProductBatch = 4;
template <class Args, class Load, class Use>
KOKKOS_INLINE_FUNCTION void warp_for_each_product(const Args& g, std::int64_t a0, std::int64_t ka,
                                                  int lane, int W, unsigned mask, const Load& load,
                                                  const Use& use) {
  using item_t = decltype(load(std::int64_t(0), std::int64_t(0)));
  using boff_t = walk_boff_t<Args>;  // per-row counts in int (row work fits an int here)
  int tbase = 0;
  const int kan = static_cast<int>(ka);
  for (int s0 = 0; s0 < kan; s0 += W) {
    boff_t b0;
    int excl;
    const int total = walk_chunk_head(g, a0, s0, kan, lane, W, mask, b0, excl);
    for (int base = 0; base < total; base += kProductBatch * W) {
      item_t item[kProductBatch];
      int tt[kProductBatch];
#pragma unroll
      for (int u = 0; u < kProductBatch; ++u) {
        const int t = base + u * W + lane;
        const int s = walk_entry_of(excl, t, W, mask);
        const boff_t bs = kkperm::detail::warp_shfl_idx(b0, s, W, mask);
        const int es = kkperm::detail::warp_shfl_idx(excl, s, W, mask);
        tt[u] = t;
        if (t < total) item[u] = load(a0 + s0 + s, static_cast<std::int64_t>(bs) + (t - es));
      }
#pragma unroll
      for (int u = 0; u < kProductBatch; ++u)
        if (tt[u] < total) use(item[u], tbase + tt[u]);
    }
    tbase += total;
  }
}

/// Column and product value of one product (numeric's load).
template <class O, class V>
struct ColVal {
  O col;
  V val;
};

/// Lanes per row and rows per team of one warp-row launch.
struct RowGroups {
  int lanes = 1;  ///< W: lanes per row (a power of two <= 32; 1 on host backends)
  int rows = 0;   ///< rows per team (a multiple of 32 / lanes); 0: does not fit, not launched
};

/// Lanes and rows per team for `per_row` scratch bytes a row: `lanes` (8, 16 or 32)
/// lanes a row, as many rows as fit the level-0 scratch of one team, at most `max_warps` warps
/// (<= kWarpRowsMaxPerTeam), whole warps only; when not even one warp of such rows fits, one row
/// a warp (lanes = 32); rows = 0 when that does not fit either (caller falls back to the team
/// kernels). Host: one lane, one row.
template <class Exec>
RowGroups warp_row_groups(std::size_t per_row, int lanes, int max_warps) {
  if constexpr (is_host_exec<Exec>()) {
    (void)per_row;
    (void)lanes;
    (void)max_warps;
    return RowGroups{1, 1};
  } else {
    const std::size_t warps = static_cast<std::size_t>(
        max_warps < 1 ? 1 : (max_warps > kWarpRowsMaxPerTeam ? kWarpRowsMaxPerTeam : max_warps));
    const std::size_t cap = static_cast<std::size_t>(kkperm::team_policy<Exec>::scratch_size_max(0));
    for (int L = lanes;; L = 32) {
      const std::size_t per_warp = static_cast<std::size_t>(32 / L);
      const std::size_t most = warps * per_warp;
      std::size_t r = per_row > 0 ? cap / per_row : most;
      r = (r < most ? r : most) / per_warp * per_warp;
      if (r > 0 || L == 32) return RowGroups{L, static_cast<int>(r)};
    }
  }
}

/// Lanes per row for a warp-row range of `rows` rows and Σ F = `work` products (mean F = work /
/// rows). Symbolic passes: a warp per row, 16 lanes when mean F < `lanes16_below`
/// (EscConfig::symbolic_lanes16_below); first numeric: about 16 products a lane, 8 to 32 lanes.
/// From H100 runs 106-107 (2D/3D Laplacian A², AP, R(AP); 4, 8, 16 and 32 lanes forced): the
/// hashing count pass was fastest with 32 lanes everywhere but the 3D 7-point A² (mean F 49: 16
/// lanes, 2.60 against 2.89 ms) and lost up to 12x with 4 lanes on rows near the warp bin's top;
/// the search numeric gained with fewer lanes (3D 7-point A²: 0.81-0.89 ms with 4-8 lanes against
/// 1.45-1.77 ms with 32). 4 lanes never won by more than noise and are not offered. Hence a
/// threshold of 64 until session 32: with the count pass's bitmap path (session 20) its runs 253
/// and 254 had the symbolic passes faster on 16 lanes at means 74 (2D R(AP) symbolic 0.389-0.401
/// -> 0.349-0.358 ms) and 118 (3D 27-point AP 0.601-0.624 -> 0.519-0.552 ms), and slower at 322
/// (3D 7-point R(AP) setup 0.85-0.87 -> 0.95 ms), so 16 lanes below a mean of 128.
/// Session 33, run 260 (both orders; run 260's build, whose product walk skipped empty rounds, with
/// --esc-warp-row-lanes 8, against session 32's build with 16): the 2D R(AP)'s count pass (mean
/// 74, its rows on the bitmap path) took 130 / 131 µs against 148 / 150 (setup 0.481 / 0.478
/// against 0.492 / 0.502 ms), the 3D 27-point AP's (mean 118) setup 0.870 / 0.820 against
/// 0.863 / 0.858 ms; the 3D 7-point A² (mean 48, hash-table rows: compaction and sort take more
/// rounds with fewer lanes) went 2.68 / 2.64 -> 3.30 / 3.29 ms symbolic, and products above a
/// mean of 128 much slower (3D 7-point R(AP) setup 0.86 -> 1.47 ms).
/// Hence 8 lanes from a mean of `lanes8_from` (64; 0: never) up to lanes16_below.
inline int warp_row_lanes_for(std::int64_t work, std::int64_t rows, std::int64_t lanes16_below = 128,
                              std::int64_t lanes8_from = 64) {
  if (rows <= 0) return 32;
  const std::int64_t mean = work / rows;
  if (mean >= lanes16_below) return 32;
  return lanes8_from > 0 && mean >= lanes8_from ? 8 : 16;
}

/// Automatic lanes a row of the first (searching) numeric's warp-row launch, from the mean work
/// `work / rows` of its range: about 16 products a lane, 8 to 32 lanes, and at least 16 from a mean
/// of `lanes16_from` (EscConfig::numeric_lanes16_from; 0: never); no rows: 32.
/// Until session 40 the band below 16 reached a mean of 128. Session 39's H100 runs 321 and 323
/// (--esc-numeric-lanes 16 against that rule, both orders) took the 3D 7-point A² setup (mean 48)
/// 1.622 / 1.627 -> 1.510 / 1.543 ms and the uniform 10^6 x 6 A² (mean 36) 2.543 / 2.569 -> 2.011 /
/// 1.983 ms; the 3D 27-point AP (mean 118) 0.721 / 0.793 -> 0.723 / 0.714 ms; the 2D A² (mean 25)
/// 0.692 / 0.711 -> 0.708 / 0.709 ms, so it keeps 8. Session 40's H200 runs 325 / 326 (this rule
/// against lanes16_from 0, both orders): the uniform 10^6 x 6 A² setup 2.269 / 2.249 -> 1.852 / 1.849
/// ms, the uniform x 8 numeric 1.64 -> 1.27-1.30 ms, the 2D R(AP) numeric 3-5 % faster; the banded
/// A² (mean 81) numeric 0.71 -> 0.82-0.84 ms slower (its setup within the spread); the 3D 7-point
/// A² within the spread there.
inline int numeric_warp_row_lanes_for(std::int64_t work, std::int64_t rows, std::int64_t lanes16_from = 32) {
  if (rows <= 0) return 32;
  const std::int64_t mean = work / rows;
  const std::int64_t per_lane = (mean + 15) / 16;
  int L = lanes16_from > 0 && mean >= lanes16_from ? 16 : 8;
  while (L < 32 && L < per_lane) L *= 2;
  return L;
}

/// Scratch bytes of one warp of the symbolic kernel: its row's hash table (hash_slots(max_work)
/// columns) plus alignment slack.
template <class O>
std::size_t warp_symbolic_bytes(std::int64_t max_work) {
  return static_cast<std::size_t>(hash_slots(max_work > 0 ? max_work : 1)) * sizeof(O) + 16;
}

/// Column window [lo, hi] of the row of C that A's row [a0, a0 + ka) makes, taken from the first
/// and last column of each B row it names: exact when B's rows are sorted, otherwise some column
/// may fall outside (bitmap_set reports it). hi < lo when every B row is empty. Every lane of the
/// row's group (`mask`) calls it; the result is on every lane.
template <int Batch = 1, class Args, class O>
KOKKOS_INLINE_FUNCTION void warp_row_col_window(const Args& g, std::int64_t a0, std::int64_t ka, int lane, int W,
                                                unsigned mask, O& lo, O& hi, std::int64_t start = 0,
                                                std::int64_t stride = 0) {
  // a team's warps split the row: entries start + lane, start + lane + stride, ... (default: all);
  // a lane takes Batch of its entries at a time, each load level issued for all of them before
  // the next (A's columns, then B's row offsets, then B's first and last columns): three dependent
  // round trips a batch instead of three an entry
  lo = Kokkos::Experimental::finite_max<O>::value;
  hi = O(-1);
  const std::int64_t step = stride > 0 ? stride : W;
  using kcol_t = std::remove_cv_t<std::remove_reference_t<decltype(g.entA(0))>>;
  using boff_t = std::remove_cv_t<std::remove_reference_t<decltype(g.rowB(0))>>;
  for (std::int64_t s = start + lane; s < ka; s += Batch * step) {
    kcol_t k[Batch];
    boff_t b0[Batch], b1[Batch];
#pragma unroll
    for (int u = 0; u < Batch; ++u)
      if (s + u * step < ka) k[u] = g.entA(a0 + s + u * step);
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
      b0[u] = b1[u] = 0;
      if (s + u * step < ka) {
        b0[u] = g.rowB(k[u]);
        b1[u] = g.rowB(k[u] + 1);
      }
    }
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
      if (b1[u] > b0[u]) {
        const O first = static_cast<O>(g.entB(b0[u])), last = static_cast<O>(g.entB(b1[u] - 1));
        if (first < lo) lo = first;
        if (last > hi) hi = last;
      }
    }
  }
  kkperm::detail::warp_min_max(lo, hi, W, mask);
}

/// 32-bit words of the bitmap of a `span`-column window when the row takes the bitmap path, else
/// 0: the window must fit the row's scratch (`avail` words) and, so that clearing and reading it
/// costs no more than the hash table's clearing, compaction and sort would, at most 4 × the
/// row's hash table (`table_words`).
KOKKOS_INLINE_FUNCTION int bitmap_words(std::int64_t span, int table_words, int avail) {
  if (span <= 0) return 0;
  const std::int64_t words = (span + 31) / 32;
  const std::int64_t cap = std::int64_t(4) * table_words < avail ? std::int64_t(4) * table_words : avail;
  return words <= cap ? static_cast<int>(words) : 0;
}

/// Rows of A sampled by window_sample (evenly spaced over [0, n)).
inline constexpr std::int64_t kWindowSamples = 256;

/// Whether C's row of F products whose columns span `span` (last - first + 1) is too wide for the
/// warp-row count pass's column-window bitmap before the scratch limit: bitmap_words' cap of 4 ×
/// the row's hash table (hash_slots32(F) columns of `col_bytes` bytes), as the kernel applies it.
/// Such rows take the hash table there. F is clamped to 2^28 for hash_slots32's int (the sampled
/// rows are the warp bin's, far below).
KOKKOS_INLINE_FUNCTION bool window_too_wide(std::int64_t span, std::int64_t F, int col_bytes) {
  if (span <= 0 || F <= 0) return false;
  const int f = F < (std::int64_t(1) << 28) ? static_cast<int>(F) : (1 << 28);
  return bitmap_words(span, hash_slots32(f) * (col_bytes / 4), Kokkos::Experimental::finite_max<int>::value) == 0;
}

/// Column windows of a sample of C's rows, for the warp-row lanes rule (EscSpgemm's
/// wide_window_lanes): rows i_s = s·n / S of A (s < S = min(n, kWindowSamples)); for each, its
/// F_i and the window [lo, hi] of C's row from the first and last column of every B row it names
/// (as warp_row_col_window). out[0] += 1 for a sampled row with fmin < F_i <= fmax, and out[1] += 1
/// when that row's window is too wide for the bitmap (window_too_wide). `out`: two zeroed words in
/// Exec's memory. A warp a sampled row on CUDA (its lanes over A's entries), a thread on host
/// backends. Every index it follows is guarded (A and B may not be validated yet: the analysis
/// kernel beside it guards the same way); on valid input the guards change nothing.
template <class Exec, class RA, class EA, class RB, class EB>
void window_sample(const RA& rowA, const EA& entA, const RB& rowB, const EB& entB, std::int64_t n, std::int64_t fmin,
                   std::int64_t fmax, std::int64_t* out) {
  const std::int64_t S = n < kWindowSamples ? n : kWindowSamples;
  if (S <= 0) return;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  using O = std::remove_cv_t<std::remove_reference_t<decltype(entB(0))>>;
  constexpr int W = is_host_exec<Exec>() ? 1 : 32;
  constexpr int col_bytes = static_cast<int>(sizeof(O));
  const std::int64_t nnz_a = static_cast<std::int64_t>(entA.extent(0));
  const std::int64_t nnz_b = static_cast<std::int64_t>(entB.extent(0));
  const std::int64_t n_b = static_cast<std::int64_t>(rowB.extent(0)) - 1;
  kkperm::parallel_for(
      "kkperm::spgemm::esc::window_sample", policy_t(static_cast<int>(S), W), KOKKOS_LAMBDA(const member_t& team) {
        const int lane = team.team_rank();
        const std::int64_t i = std::int64_t(team.league_rank()) * n / S;
        const std::int64_t a0 = static_cast<std::int64_t>(rowA(i)), a1 = static_cast<std::int64_t>(rowA(i + 1));
        const std::int64_t lo_p = a0 < 0 ? 0 : a0, hi_p = a1 < nnz_a ? a1 : nnz_a;
        std::int64_t f = 0, lo = Kokkos::Experimental::finite_max<std::int64_t>::value, hi = -1;
        for (std::int64_t p = lo_p + lane; p < hi_p; p += W) {
          const std::int64_t k = static_cast<std::int64_t>(entA(p));
          if (k < 0 || k >= n_b) continue;
          const std::int64_t b0 = static_cast<std::int64_t>(rowB(k)), b1 = static_cast<std::int64_t>(rowB(k + 1));
          if (b1 <= b0 || b0 < 0 || b1 > nnz_b) continue;
          f += b1 - b0;
          const std::int64_t first = static_cast<std::int64_t>(entB(b0)), last = static_cast<std::int64_t>(entB(b1 - 1));
          if (first < lo) lo = first;
          if (last > hi) hi = last;
        }
        f = kkperm::detail::warp_sum(f, W);
        kkperm::detail::warp_min_max(lo, hi, W);
        if (lane == 0 && f > fmin && f <= fmax) {
          kkperm::atomic_add_i64(out, std::int64_t(1));
          if (window_too_wide(hi - lo + 1, f, col_bytes)) kkperm::atomic_add_i64(out + 1, std::int64_t(1));
        }
      });
}

/// Sets bit d of the bitmap bm (shared by the row's lanes; a plain read first, an atomic OR only
/// for a new bit); returns 1 without touching bm when d is outside [0, span).
KOKKOS_INLINE_FUNCTION int bitmap_set(unsigned* bm, std::int64_t d, std::int64_t span) {
  if (d < 0 || d >= span) return 1;
  const unsigned bit = 1u << static_cast<unsigned>(d & 31);
  unsigned* w = bm + (d >> 5);
  if ((static_cast<volatile unsigned*>(w)[0] & bit) == 0u) Kokkos::atomic_fetch_or(w, bit);
  return 0;
}

/// Number of set bits of bm[0, words); with `out`, also writes the columns lo + (bit index) of
/// the set bits to out[0, ...) in increasing order (the row's lanes take W words a round: a lane
/// scan of their bit counts places each lane's columns). Every lane of the row's group calls it.
/// With `pre`, also pre[w] = the set bits of bm[0, w) (rank prefix, bitmap_rank; needs `out`).
template <class O>
KOKKOS_INLINE_FUNCTION int bitmap_emit(const unsigned* bm, int words, O lo, O* out, int lane, int W,
                                       unsigned mask, int* pre = nullptr) {
  int off = 0;
  for (int b = 0; b < words; b += W) {
    unsigned w = b + lane < words ? bm[b + lane] : 0u;
    const int c = kkperm::detail::popcount32u(w);
    if (out == nullptr) {
      off += c;
      continue;
    }
    const int ex = kkperm::detail::warp_exclusive_scan32(c, lane, W, mask);
    if (pre != nullptr && b + lane < words) pre[b + lane] = off + ex;
    O* dst = out + off + ex;
    const O base = lo + static_cast<O>(b + lane) * 32;
    for (; w != 0u; w &= w - 1u) *dst++ = base + static_cast<O>(kkperm::detail::lowest_bit32(w));
    off += kkperm::detail::warp_shfl_idx(ex + c, W - 1, W, mask);
  }
  return out == nullptr ? kkperm::detail::warp_sum32(off, W, mask) : off;
}

/// Position of window column d (its bit set) among the set bits of bm: pre[d / 32] plus the set
/// bits below it in its word (bitmap_emit's rank prefix).
KOKKOS_INLINE_FUNCTION int bitmap_rank(const unsigned* bm, const int* pre, std::int64_t d) {
  const int w = static_cast<int>(d >> 5);
  const unsigned below = (1u << static_cast<unsigned>(d & 31)) - 1u;
  return pre[w] + kkperm::detail::popcount32u(bm[w] & below);
}

/// Where a row's nc sums are added up (sum_row_values, team_sum_row_values): `copies` copies of
/// them at acc in the row's scratch, from byte `used` on (aligned for V), as many as fit before
/// byte `share` up to `most`; when not even one fits, a single copy in `vout` itself.
template <class V>
struct RowSums {
  V* acc;
  int copies;
};
template <class V>
KOKKOS_INLINE_FUNCTION RowSums<V> row_sums_place(char* scratch, std::size_t used, std::size_t share, int nc,
                                                 int most, V* vout) {
  const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(scratch) + used;
  const std::size_t at = used + static_cast<std::size_t>((alignof(V) - addr % alignof(V)) % alignof(V));
  int copies = most;
  while (copies > 1 && at + static_cast<std::size_t>(copies) * nc * sizeof(V) > share) copies >>= 1;
  if (at + static_cast<std::size_t>(copies) * nc * sizeof(V) > share) return RowSums<V>{vout, 1};
  return RowSums<V>{reinterpret_cast<V*>(scratch + at), copies};
}
/// vout[t] = the sum of the copies' entry t, for t = first, first + stride, ... below nc.
template <class V>
KOKKOS_INLINE_FUNCTION void row_sums_out(const RowSums<V>& rs, int nc, int first, int stride, V* vout) {
  for (int t = first; t < nc; t += stride) {
    V sum = rs.acc[t];
    for (int c = 1; c < rs.copies; ++c) sum += rs.acc[c * nc + t];
    vout[t] = sum;
  }
}

/// The values of a row whose nc sorted columns are known: every product a·b of A's row
/// [a0, a0 + ka) added atomically at pos(column) of the row's sums (a second walk: the row's loads
/// are fresh in cache), written to vout[0, nc). The sums are in the row's scratch from byte
/// `used` on when they fit before byte `share` (then copied out), else summed in vout itself
/// (global atomics). In scratch, each 8 lanes of the group add into a copy of their own (up to
/// W / 8 copies, as many as fit; summed at the end): an R(AP) row sends ~7 products to each of its
/// columns, and lanes that hit the same double at once retry their atomics in turn (a double's
/// atomic add in shared memory is a compare-and-swap loop: 1.7-2.7 passes a product in H100 run
/// 254's ncu of the 3D 7-point R(AP); 4 lanes a copy did not make the kernel faster, run 255).
/// Every lane of the row's group calls it.
template <class Args, class V, class Pos>
KOKKOS_INLINE_FUNCTION void sum_row_values(const Args& g, std::int64_t a0, std::int64_t ka, int lane, int W,
                                           unsigned mask, char* scratch, std::size_t used, std::size_t share,
                                           int nc, V* vout, const Pos& pos) {
  using O = typename Args::EntC::non_const_value_type;
  const RowSums<V> rs = row_sums_place(scratch, used, share, nc, W >= 8 ? W / 8 : 1, vout);
  for (int t = lane; t < rs.copies * nc; t += W) rs.acc[t] = V(0);
  kkperm::detail::sync_warp_lanes(mask);
  V* mine = rs.acc + (lane * rs.copies / W) * nc;
  warp_for_each_product(
      g, a0, ka, lane, W, mask,
      [&](std::int64_t pa, std::int64_t q) { return ColVal<O, V>{static_cast<O>(g.entB(q)), g.valA(pa) * g.valB(q)}; },
      [&](const ColVal<O, V>& cv, int) { Kokkos::atomic_add(&mine[pos(cv.col)], cv.val); });
  if (rs.acc == vout) return;
  kkperm::detail::sync_warp_lanes(mask);
  row_sums_out(rs, nc, lane, W, vout);
}

/// Scratch bytes of a row's staged products (stage_products_at): F products, each its value (8
/// bytes) and its column's offset in the row's bitmap window (2 bytes), from byte `used` on
/// (aligned for the values). Fits when the window has at most 65 536 columns.
KOKKOS_INLINE_FUNCTION std::size_t staged_products_end(std::size_t used, int F) {
  return (used + 7) / 8 * 8 + static_cast<std::size_t>(F) * 10;
}
/// The value and the window column of each of a row's products, in product order (the bitmap walk
/// writes them; staged_row_values sums them once the row's columns are known).
template <class V>
struct StagedProducts {
  V* val;
  unsigned short* col;
};
template <class V>
KOKKOS_INLINE_FUNCTION StagedProducts<V> stage_products_at(char* scratch, std::size_t used, int F) {
  const std::size_t at = (used + 7) / 8 * 8;
  V* val = reinterpret_cast<V*>(scratch + at);
  return StagedProducts<V>{val, reinterpret_cast<unsigned short*>(val + F)};
}

/// sum_row_values from staged products: the bitmap walk kept each product's value and window
/// column in the row's scratch, so the sums need no second walk of A's and B's rows (their index
/// chains, the product walk's shuffles and the value loads): each of the row's F products is added
/// at rank(column) of the row's sums. When a copy of the sums a lane fits the row's scratch after
/// the products (from byte `used` on, before `end`), each lane adds its products into its own copy
/// with plain adds (no atomics; the copies are summed at the end); otherwise the sums are placed as
/// in sum_row_values (scratch copies before `share`, else vout with global atomics). Every lane of
/// the row's group calls it.
template <class V, class Rank>
KOKKOS_INLINE_FUNCTION void staged_row_values(const StagedProducts<V>& sp, int F, int lane, int W, unsigned mask,
                                              char* scratch, std::size_t used, std::size_t share, std::size_t end,
                                              int nc, V* vout, const Rank& rank) {
  RowSums<V> rs = row_sums_place(scratch, used, end, nc, W, vout);
  const bool own = rs.acc != vout && rs.copies == W;  // a copy a lane
  if (!own) rs = row_sums_place(scratch, used, share, nc, W >= 8 ? W / 8 : 1, vout);
  for (int t = lane; t < rs.copies * nc; t += W) rs.acc[t] = V(0);
  kkperm::detail::sync_warp_lanes(mask);
  V* mine = rs.acc + (lane * rs.copies / W) * nc;
  if (own) {
    for (int t = lane; t < F; t += W) mine[rank(sp.col[t])] += sp.val[t];
  } else {
    for (int t = lane; t < F; t += W) Kokkos::atomic_add(&mine[rank(sp.col[t])], sp.val[t]);
  }
  if (rs.acc == vout) return;
  kkperm::detail::sync_warp_lanes(mask);
  row_sums_out(rs, nc, lane, W, vout);
}

/// Register sort of a short warp-row row (EscConfig::warp_row_register_sort): when A's row has at
/// most W entries (one walk chunk) and F ≤ kRegSortKeys × W products, the row's product columns
/// are loaded into registers (product t in register t / W of lane t % W; unused slots hold
/// `none`, above every column), sorted across the row's lanes by a bitonic network (partners in
/// the same lane compare in registers, the others exchange by shuffles) and the distinct columns
/// written in order. No scratch, no atomics, no lane syncs but the shuffles'. It replaces the hash
/// table's clearing, CAS insertion, ballot compaction and scratch sort (and, before the bitmap,
/// the column-window pass) for such rows.
inline constexpr int kRegSortKeys = 4;

/// Whether a row of `ka` A entries and F products fits the register sort on W lanes (the kernel's
/// test, and the plan's lanes rule over a range's largest row).
KOKKOS_INLINE_FUNCTION bool reg_sort_fits(std::int64_t ka, std::int64_t F, int W) {
  return ka <= W && F <= std::int64_t(kRegSortKeys) * W;
}

/// Whether the symbolic passes of a warp-row range planned on `lanes` lanes take 32 instead
/// (EscConfig::wide_window_lanes): `enabled`, fewer than 32 lanes, the range's largest row (`max_ka`
/// A entries, `max_work` products) does not fit the register sort at `lanes` but does at 32, and at
/// least half of the `sampled` rows of the analysis's window sample (esc_impl::window_sample; < 1:
/// none ran) are `wide` (C windows too wide for the bitmap).
inline bool wide_window_lanes_pay(bool enabled, int lanes, std::int64_t max_ka, std::int64_t max_work,
                                  std::int64_t sampled, std::int64_t wide) {
  return enabled && lanes < 32 && !reg_sort_fits(max_ka, max_work, lanes) && reg_sort_fits(max_ka, max_work, 32) &&
         sampled > 0 && 2 * wide >= sampled;
}

/// The row's product columns into key[] (reg_sort_fits must hold), and with Values each product's
/// value a·b into val[] (0 for unused slots; untouched without). Every lane of `mask` calls it.
template <int W, bool Values, class Args, class O, class V>
KOKKOS_INLINE_FUNCTION void warp_row_keys(const Args& g, std::int64_t a0, int ka, int lane, unsigned mask,
                                          O (&key)[kRegSortKeys], V (&val)[kRegSortKeys], O none) {
  using boff_t = walk_boff_t<Args>;
  boff_t b0;
  int excl;
  const int total = walk_chunk_head(g, a0, 0, ka, lane, W, mask, b0, excl);
  // every slot's product first, then all loads issued before any is used
  std::int64_t at[kRegSortKeys], pa[kRegSortKeys];
#pragma unroll
  for (int r = 0; r < kRegSortKeys; ++r) {
    const int t = r * W + lane;
    const int s = walk_entry_of(excl, t, W, mask);
    const boff_t bs = kkperm::detail::warp_shfl_idx(b0, s, W, mask);
    const int es = kkperm::detail::warp_shfl_idx(excl, s, W, mask);
    at[r] = t < total ? static_cast<std::int64_t>(bs) + (t - es) : std::int64_t(-1);
    pa[r] = a0 + s;
  }
#pragma unroll
  for (int r = 0; r < kRegSortKeys; ++r) {
    key[r] = at[r] >= 0 ? static_cast<O>(g.entB(at[r])) : none;
    if constexpr (Values) val[r] = at[r] >= 0 ? g.valA(pa[r]) * g.valB(at[r]) : V(0);
  }
}

/// Packed sort keys of the valued register sort: column << 7 | product index (product indices
/// below kRegSortKeys × 32 = 128), kPackNone for unused slots; columns below kPackColumnEnd.
inline constexpr unsigned kPackNone = 0xffffffffu;
inline constexpr std::int64_t kPackColumnEnd = (std::int64_t(1) << 25) - 1;

/// Sorts the kRegSortKeys × W keys of a W-lane group ascending in (register, lane) order: key r of
/// lane l is element r × W + l. Every lane of `mask` calls it.
template <int W, class O>
KOKKOS_INLINE_FUNCTION void warp_bitonic_sort_keys(O (&key)[kRegSortKeys], int lane, unsigned mask) {
  constexpr int N = kRegSortKeys * W;
#pragma unroll
  for (int k = 2; k <= N; k <<= 1) {
#pragma unroll
    for (int j = k >> 1; j > 0; j >>= 1) {
      if (j >= W) {  // partner in this lane: register r ^ (j / W)
        const int jr = j / W;
#pragma unroll
        for (int r = 0; r < kRegSortKeys; ++r) {
          if ((r & jr) != 0) continue;
          const bool up = ((r * W + lane) & k) == 0;
          const O a = key[r], b = key[r | jr];
          const bool swap = up ? (b < a) : (a < b);
          key[r] = swap ? b : a;
          key[r | jr] = swap ? a : b;
        }
      } else {  // partner in lane ^ j, same register
#pragma unroll
        for (int r = 0; r < kRegSortKeys; ++r) {
          const O other = kkperm::detail::warp_shfl_xor(key[r], j, W, mask);
          const int idx = r * W + lane;
          const bool keep_min = ((idx & j) == 0) == ((idx & k) == 0);
          const bool less = other < key[r];
          key[r] = keep_min == less ? other : key[r];
        }
      }
    }
  }
}

/// Distinct columns of a sorted group (warp_bitonic_sort_keys), `none` keys (sorted last)
/// excluded: their number (on every lane). col(key) is a key's column (the key itself, or a packed
/// key's upper bits; col(none) differs from every real column). Each distinct column is written in
/// order to out and to table, and each key's rank (its column's place among them) to
/// rank_of[index(key)]; any of the three may be null. `base`: the group's first hardware lane
/// (ballot bits are hardware lanes).
template <int W, class K, class O, class Col, class Index>
KOKKOS_INLINE_FUNCTION int warp_emit_distinct(const K (&key)[kRegSortKeys], K none, const Col& col, const Index& index,
                                              int lane, unsigned mask, int base, O* out, O* table,
                                              unsigned short* rank_of) {
  K rot[kRegSortKeys];  // the column of lane l - 1's key r (lane 0: lane W - 1's)
#pragma unroll
  for (int r = 0; r < kRegSortKeys; ++r)
    rot[r] = kkperm::detail::warp_shfl_idx(col(key[r]), (lane + W - 1) & (W - 1), W, mask);
  const unsigned incl = lane >= 31 ? 0xffffffffu : (0xffffffffu >> (31 - lane));  // lanes <= this one
  const unsigned group = W >= 32 ? 0xffffffffu : ((1u << W) - 1u);
  int off = 0;
#pragma unroll
  for (int r = 0; r < kRegSortKeys; ++r) {
    const bool valid = key[r] != none;
    const K c = col(key[r]);
    const K prev = lane > 0 ? rot[r] : (r > 0 ? rot[r > 0 ? r - 1 : 0] : col(none));
    const bool fresh = valid && c != prev;
    const unsigned m = (kkperm::detail::warp_ballot(fresh, mask) >> base) & group;
    if (valid) {
      const int rank = off + kkperm::detail::popcount32u(m & incl) - 1;
      if (fresh && out != nullptr) out[rank] = static_cast<O>(c);
      if (fresh && table != nullptr) table[rank] = static_cast<O>(c);
      if (rank_of != nullptr) rank_of[index(key[r])] = static_cast<unsigned short>(rank);
    }
    off += kkperm::detail::popcount32u(m);
  }
  return off;
}

/// Symbolic of rows perm[begin, end) (work ≤ a warp bin's threshold): count (fill == false:
/// cnt(o) = unique columns) or fill (C's row = its sorted unique columns). `lanes` lanes per row,
/// up to `max_warps` warps per team (warp_row_groups); returns the lanes used, 0 without launching
/// when not even one row's table fits a team's scratch.
/// The row's columns go into an open-addressing table in the warp's scratch (atomic CAS); fill
/// compacts the table in place (ballots), sorts the unique columns with a flip-bitonic network
/// (lanes in lock-step; heap sort on host) and writes them once.
/// Single pass: with a `stash` (count pass only), the count pass also writes each row's sorted
/// unique columns to stash + soff(p - begin) (soff: exclusive prefix of F over the range, so a
/// row's stash slice holds its F_i ≥ nnz(C row) columns), and the fill pass becomes
/// copy_stashed_rows — the rows are hashed once instead of twice. symbolic_warp_rows_launch is
/// the kernel for W lanes a row; symbolic_warp_rows picks W and the rows per team.
/// Values in the count pass (Vals, with a stash and `vstash`; a setup's symbolic + first numeric
/// in one launch): once the row's sorted columns are known (bitmap or hash table, as without
/// values), a second walk of its products adds each a·b atomically into the row's sums
/// (sum_row_values: in the row's scratch after the bitmap or the sorted columns when they fit,
/// else in the stash; the position from the bitmap's rank prefix, or by binary search in the
/// sorted columns), and the sums go to vstash + soff(p - begin). The bitmap and its rank prefix
/// share the row's scratch (half the words each); symbolic_warp_rows adds room for one copy of the
/// largest row's sums when that costs no rows per team. With `stage` (bitmap rows only), a row
/// whose products fit its scratch after the bitmap and the rank prefix keeps each product's value
/// and window column there during the bitmap walk and sums them from there (staged_row_values)
/// instead of walking its products a second time.
template <class Exec, int W, bool Vals, class Args, class StashOff>
void symbolic_warp_rows_launch(const Args& g, std::int64_t begin, std::int64_t end, bool fill,
                               std::size_t per_row, int R,
                               typename Args::EntC::non_const_value_type* stash, const StashOff& soff,
                               bool bitmap, int* bitmap_rows,
                               typename Args::ValC::non_const_value_type* vstash, bool global_sums = false,
                               bool stage = false, int reg_sort = 0) {
  // global_sums (Vals): each row's sums added straight into its stash slice with global atomics
  const std::size_t sums_end = global_sums ? 0 : per_row - 16;
  // stage (Vals): bitmap rows whose products fit the row's scratch after the bitmap and its rank
  // prefix keep each product's value and window column there (staged_row_values)
  const std::size_t row_end = per_row - 16;
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = warp_rows_policy<Exec>;
  using member_t = typename policy_t::member_type;
  const O empty = -1;  // columns are >= 0 (validated)
  // the row's scratch as bitmap words (with values: half the keys' part, the rank prefix the rest)
  const int words_avail = static_cast<int>((per_row - 16) / (Vals ? 8 : 4));
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const kkperm::detail::LaneGroup lg = kkperm::detail::lane_group_of(team.team_rank(), W);
    const int lane = lg.lane;
    const unsigned mask = lg.mask;
    O* table = static_cast<O*>(team.team_scratch(0).get_shmem_aligned(per_row * R, 16)) +
               static_cast<std::int64_t>(lg.row) * (static_cast<std::int64_t>(per_row) / sizeof(O));
    const std::int64_t p = begin + std::int64_t(team.league_rank()) * R + lg.row;
    if (p >= end) return;  // the row's lanes leave together; no team barrier follows
    const auto i = g.row_at(p);
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
    const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
    // per-row sizes in int (F <= a warp bin's threshold): 32-bit hashing, probing, scans and
    // sort indices
    const int F = static_cast<int>(g.work(i));
    const int Hr = hash_slots32(F);  // fits the warp's share
    O* out = nullptr;                // where the sorted columns go (fill: C's row; count: stash)
    if (fill) out = g.entC.data() + static_cast<std::int64_t>(g.rowC(o));
    else if (stash != nullptr) out = stash + soff(p - begin);
    // register sort (reg_sort 1: instead of the hash table; 2: before the bitmap too, except in
    // the valued count pass, whose bitmap rows sum their values from staged products; 3: before
    // the bitmap in every pass)
    const bool reg = reg_sort > 0 && reg_sort_fits(ka, F, W);
    const auto reg_row = [&]() {
      O key[kRegSortKeys];
      const O none = Kokkos::Experimental::finite_max<O>::value;
      if (Vals) {
        // one walk: the products' values staged in the row's scratch, each product's rank from
        // the sort of packed (column, product) keys, then summed as staged bitmap rows are
        if (stage && staged_products_end(0, F) <= row_end) {
          V val[kRegSortKeys];
          warp_row_keys<W, true>(g, a0, static_cast<int>(ka), lane, mask, key, val, none);
          bool small = true;
#pragma unroll
          for (int r = 0; r < kRegSortKeys; ++r)
            small = small && (key[r] == none || static_cast<std::int64_t>(key[r]) < kPackColumnEnd);
          if (kkperm::detail::warp_ballot(!small, mask) == 0u) {
            const StagedProducts<V> sp = stage_products_at<V>(reinterpret_cast<char*>(table), 0, F);
            unsigned pk[kRegSortKeys];
#pragma unroll
            for (int r = 0; r < kRegSortKeys; ++r) {
              const int t = r * W + lane;
              if (t < F) sp.val[t] = val[r];
              pk[r] = t < F ? (static_cast<unsigned>(key[r]) << 7) | static_cast<unsigned>(t) : kPackNone;
            }
            warp_bitonic_sort_keys<W>(pk, lane, mask);
            const int unique = warp_emit_distinct<W>(
                pk, kPackNone, [](const unsigned k) { return k >> 7; }, [](const unsigned k) { return k & 127u; },
                lane, mask, lg.base, out, static_cast<O*>(nullptr), sp.col);
            if (lane == 0) g.cnt(o) = unique;
            if (bitmap_rows != nullptr && lane == 0) Kokkos::atomic_add(bitmap_rows + 2, 1);
            kkperm::detail::sync_warp_lanes(mask);  // staged values and ranks, read by every lane below
            staged_row_values(sp, F, lane, W, mask, reinterpret_cast<char*>(table), staged_products_end(0, F),
                              sums_end, row_end, unique, vstash + soff(p - begin),
                              [](const unsigned short d) { return static_cast<int>(d); });
            return;
          }
        }
      }
      V unused[kRegSortKeys];  // keys only
      warp_row_keys<W, false>(g, a0, static_cast<int>(ka), lane, mask, key, unused, none);
      warp_bitonic_sort_keys<W>(key, lane, mask);
      const int unique = warp_emit_distinct<W>(
          key, none, [](const O k) { return k; }, [](const O) { return 0; }, lane, mask, lg.base, out,
          Vals ? table : nullptr, static_cast<unsigned short*>(nullptr));
      if (!fill && lane == 0) g.cnt(o) = unique;
      // tests: bitmap_rows[2] counts the rows of the register sort
      if (bitmap_rows != nullptr && lane == 0) Kokkos::atomic_add(bitmap_rows + 2, 1);
      if (Vals) {
        kkperm::detail::sync_warp_lanes(mask);  // the sorted columns, read by every lane below
        sum_row_values(g, a0, ka, lane, W, mask, reinterpret_cast<char*>(table),
                       static_cast<std::size_t>(unique) * sizeof(O), sums_end, unique, vstash + soff(p - begin),
                       [&](const O c) { return staged_col_pos(table, unique, c); });
      }
    };
    if (reg && (reg_sort >= 3 || (reg_sort == 2 && !Vals))) {
      reg_row();
      return;
    }
    if (bitmap && F > 0) {
      // Bitmap of the row's column window: when its words fit (bitmap_words: the row's scratch
      // and at most 4x its hash table's words), each product sets its column's bit and the set bits, read in order, are C's sorted
      // row (no hashing, compaction or sort); otherwise, or when a product falls outside the
      // window (B's rows unsorted), the hash table below.
      O lo = 0, hi = -1;
      // 8 lanes a row: four entries a lane at a time (H100 run 272: 2D 5-point R(AP) count pass
      // 120 -> 112 us, 3D 27-point AP 217 -> 192; with 16 lanes the 3D 7-point A²'s, whose rows
      // have 7 entries and take the hash table, got 6 % slower, so wider groups keep one; the
      // valued count too: its launch then kept 40 bytes of stack instead of 8)
      warp_row_col_window<W == 8 && !Vals ? 4 : 1>(g, a0, ka, lane, W, mask, lo, hi);
      const std::int64_t span = static_cast<std::int64_t>(hi) - static_cast<std::int64_t>(lo) + 1;
      const int words = bitmap_words(span, Hr * static_cast<int>(sizeof(O) / 4), words_avail);
      if (words > 0) {
        unsigned* bm = reinterpret_cast<unsigned*>(table);
        for (int t = lane; t < words; t += W) bm[t] = 0u;
        kkperm::detail::sync_warp_lanes(mask);
        int outside = 0;
        const std::size_t bm_end = 2 * static_cast<std::size_t>(words) * 4;  // bitmap and rank prefix
        const bool staged = Vals && stage && span <= 65536 && staged_products_end(bm_end, F) <= row_end;
        const StagedProducts<V> sp = stage_products_at<V>(reinterpret_cast<char*>(table), bm_end, F);
        if (staged) {
          warp_for_each_product(
              g, a0, ka, lane, W, mask,
              [&](std::int64_t pa, std::int64_t q) {
                return ColVal<O, V>{static_cast<O>(g.entB(q)), g.valA(pa) * g.valB(q)};
              },
              [&](const ColVal<O, V>& cv, int t) {
                const std::int64_t d = static_cast<std::int64_t>(cv.col) - lo;
                outside |= bitmap_set(bm, d, span);
                sp.col[t] = static_cast<unsigned short>(d);  // outside: unused (the hash table below)
                sp.val[t] = cv.val;
              });
        } else {
          warp_for_each_product(
              g, a0, ka, lane, W, mask, [&](std::int64_t, std::int64_t q) { return static_cast<O>(g.entB(q)); },
              [&](const O c, int) { outside |= bitmap_set(bm, static_cast<std::int64_t>(c) - lo, span); });
        }
        if (kkperm::detail::warp_ballot(outside != 0, mask) == 0u) {
          kkperm::detail::sync_warp_lanes(mask);
          int* pre = Vals ? reinterpret_cast<int*>(bm + words) : nullptr;
          const int unique = bitmap_emit(bm, words, lo, out, lane, W, mask, pre);
          if (!fill && lane == 0) g.cnt(o) = unique;
          if (bitmap_rows != nullptr && lane == 0) Kokkos::atomic_add(bitmap_rows, 1);
          // tests: bitmap_rows[1] counts the rows whose values came from staged products
          if (Vals && staged && bitmap_rows != nullptr && lane == 0) Kokkos::atomic_add(bitmap_rows + 1, 1);
          if (Vals) {
            if (staged) {
              staged_row_values(sp, F, lane, W, mask, reinterpret_cast<char*>(table), staged_products_end(bm_end, F),
                                sums_end, row_end, unique, vstash + soff(p - begin),
                                [&](const unsigned short d) { return bitmap_rank(bm, pre, d); });
            } else {
              sum_row_values(g, a0, ka, lane, W, mask, reinterpret_cast<char*>(table), bm_end, sums_end, unique,
                             vstash + soff(p - begin),
                             [&](const O c) { return bitmap_rank(bm, pre, static_cast<std::int64_t>(c) - lo); });
            }
          }
          return;
        }
        kkperm::detail::sync_warp_lanes(mask);  // the table below overwrites the bitmap
      }
    }
    if (reg) {
      reg_row();
      return;
    }
    for (int t = lane; t < Hr; t += W) table[t] = empty;
    kkperm::detail::sync_warp_lanes(mask);
    int ins = 0;
    warp_for_each_product(
        g, a0, ka, lane, W, mask, [&](std::int64_t, std::int64_t q) { return static_cast<O>(g.entB(q)); },
        [&](const O c, int) { ins += hash_insert32(table, Hr, c, empty); });
    const int unique = kkperm::detail::warp_sum32(ins, W, mask);
    if (!fill) {
      if (lane == 0) g.cnt(o) = unique;
      if (stash == nullptr) return;
    }
    kkperm::detail::sync_warp_lanes(mask);
    // compact in place: writes land at or below the slots this round read (ballot bits are
    // hardware lanes: shifted down to the group's)
    int off = 0;
    const unsigned below = lane == 0 ? 0u : (0xffffffffu >> (32 - lane));
    for (int b = 0; b < Hr; b += W) {
      const O c = b + lane < Hr ? table[b + lane] : empty;
      const unsigned m = kkperm::detail::warp_ballot(c != empty, mask) >> lg.base;
      kkperm::detail::sync_warp_lanes(mask);
      if (c != empty) table[off + kkperm::detail::popcount32u(m & below)] = c;
      off += kkperm::detail::popcount32u(m & (W >= 32 ? 0xffffffffu : ((1u << W) - 1u)));
      kkperm::detail::sync_warp_lanes(mask);
    }
    if (W == 1) {
      serial_heap_sort(table, static_cast<int*>(nullptr), std::int64_t(unique), false);
    } else {
      int P = 1;
      while (P < unique) P <<= 1;
      for (int size = 2; size <= P; size <<= 1)
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
          for (int t = lane; t < P / 2; t += W)
            flip_bitonic_step(table, static_cast<int*>(nullptr), unique, size, stride, t, false);
          kkperm::detail::sync_warp_lanes(mask);
        }
    }
    for (int t = lane; t < unique; t += W) out[t] = table[t];
    if (Vals) {
      kkperm::detail::sync_warp_lanes(mask);  // the sorted columns, read by every lane below
      sum_row_values(g, a0, ka, lane, W, mask, reinterpret_cast<char*>(table),
                     static_cast<std::size_t>(unique) * sizeof(O), sums_end, unique, vstash + soff(p - begin),
                     [&](const O c) { return staged_col_pos(table, unique, c); });
    }
  };
  // team size R * W <= 256: within the launch bounds
  policy_t policy(static_cast<int>((end - begin + R - 1) / R), team_size_for<Exec>(R * W));
  policy.set_scratch_size(0, Kokkos::PerTeam(per_row * R));
  kkperm::parallel_for(fill ? "kkperm::spgemm::esc::symbolic_fill_warp_rows"
                            : (Vals ? "kkperm::spgemm::esc::symbolic_count_values_warp_rows"
                                    : (stash != nullptr ? "kkperm::spgemm::esc::symbolic_count_stash_warp_rows"
                                                        : "kkperm::spgemm::esc::symbolic_count_warp_rows")),
                       policy, body);
}

/// symbolic_warp_rows_launch with the lanes `W` and the values flag as compile-time constants
/// (H100 run 106: with a run-time width the shuffles' loops and masks made the one-warp-per-row
/// count pass 10-16 % slower).
template <class Exec, bool Vals, class Args, class StashOff>
void symbolic_warp_rows_dispatch(const Args& g, std::int64_t begin, std::int64_t end, bool fill, std::size_t per_row,
                                 const RowGroups& rg, typename Args::EntC::non_const_value_type* stash,
                                 const StashOff& soff, bool bitmap, int* bitmap_rows,
                                 typename Args::ValC::non_const_value_type* vstash, bool global_sums = false,
                                 bool stage = false, int reg_sort = 0) {
  if constexpr (is_host_exec<Exec>()) {
    symbolic_warp_rows_launch<Exec, 1, Vals>(g, begin, end, fill, per_row, rg.rows, stash, soff, bitmap, bitmap_rows,
                                             vstash, global_sums, stage, reg_sort);
  } else if (rg.lanes == 8) {
    symbolic_warp_rows_launch<Exec, 8, Vals>(g, begin, end, fill, per_row, rg.rows, stash, soff, bitmap, bitmap_rows,
                                             vstash, global_sums, stage, reg_sort);
  } else if (rg.lanes == 16) {
    symbolic_warp_rows_launch<Exec, 16, Vals>(g, begin, end, fill, per_row, rg.rows, stash, soff, bitmap,
                                              bitmap_rows, vstash, global_sums, stage, reg_sort);
  } else {
    symbolic_warp_rows_launch<Exec, 32, Vals>(g, begin, end, fill, per_row, rg.rows, stash, soff, bitmap,
                                              bitmap_rows, vstash, global_sums, stage, reg_sort);
  }
}

/// `vstash` (count pass with a stash only): values in the count pass, see
/// symbolic_warp_rows_launch.
template <class Exec, class Args, class StashOff>
int symbolic_warp_rows(const Args& g, std::int64_t begin, std::int64_t end, bool fill,
                       std::int64_t max_work,
                       typename Args::EntC::non_const_value_type* stash, const StashOff& soff,
                       int lanes, int max_warps, bool bitmap = true, int* bitmap_rows = nullptr,
                       typename Args::ValC::non_const_value_type* vstash = nullptr, bool global_sums = false,
                       std::size_t stage_row_bytes = 0, int reg_sort = 0) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  std::size_t per_row = warp_symbolic_bytes<O>(max_work);
  RowGroups rg = warp_row_groups<Exec>(per_row, lanes, max_warps);
  if (rg.rows == 0) return 0;
  if (end <= begin) return rg.lanes;
  if (vstash != nullptr && stash != nullptr && !fill) {
    // staged products (stage_row_bytes > 0): a row's scratch grows to stage_row_bytes × lanes / 32
    // (the same bytes a warp) when that keeps the lanes, so that typical rows' products fit after
    // their bitmap; rows whose products do not fit walk their row twice (sum_row_values)
    // (host backends: stage_row_bytes a row)
    const bool stage = stage_row_bytes > 0;
    if (stage) {
      const std::size_t share = is_host_exec<Exec>() ? stage_row_bytes
                                                     : stage_row_bytes * static_cast<std::size_t>(rg.lanes) / 32;
      const std::size_t want = (share + 15) / 16 * 16;
      if (want > per_row) {
        const RowGroups rs = warp_row_groups<Exec>(want, lanes, max_warps);
        if (rs.rows > 0 && rs.lanes == rg.lanes) {
          per_row = want;
          rg = rs;
        }
      }
    }
    // room for one copy of the largest row's sums as well, unless that would cost rows per team
    // (rows whose sums do not fit the row's share sum them in the stash, sum_row_values)
    const std::size_t sums = static_cast<std::size_t>(max_work > 0 ? max_work : 1) * sizeof(V);
    const std::size_t wide = (per_row + sums + 15) / 16 * 16;
    const RowGroups rw = warp_row_groups<Exec>(wide, lanes, max_warps);
    const bool more = !global_sums && rw.rows == rg.rows && rw.lanes == rg.lanes;
    symbolic_warp_rows_dispatch<Exec, true>(g, begin, end, fill, more ? wide : per_row, rg, stash, soff, bitmap,
                                            bitmap_rows, vstash, global_sums, stage, reg_sort);
  } else {
    symbolic_warp_rows_dispatch<Exec, false>(g, begin, end, fill, per_row, rg, stash, soff, bitmap, bitmap_rows,
                                             nullptr, false, false, reg_sort);
  }
  return rg.lanes;
}

/// out(j) = Σ_{j' < j} work(perm(b + j')) for j in [0, e - b] (stash offsets of the range);
/// `in_order`: positions are rows (perm is not read, and need not be made yet).
template <class Exec, class PermView, class WorkView, class OutView>
void range_work_offsets(const PermView& perm, const WorkView& work, std::int64_t b, std::int64_t e,
                        const OutView& out, bool in_order = false) {
  exclusive_scan_to<Exec, std::int64_t>(
      "kkperm::spgemm::esc::stash_offsets", e - b,
      KOKKOS_LAMBDA(const std::int64_t j) {
        return static_cast<std::int64_t>(work(in_order ? b + j : static_cast<std::int64_t>(perm(b + j))));
      },
      out);
}

/// Fill pass of the single-pass symbolic: C's row of position p = the cnt columns the count pass
/// stashed at stash + soff(p - begin), and with `vstash` for p in [vbegin, vend) their values from
/// vstash + soff(p - begin) (values in the count pass). One warp per row, 8 rows per team,
/// coalesced copies.
template <class Exec, class Args, class StashOff>
void copy_stashed_rows(const Args& g, std::int64_t begin, std::int64_t end,
                       const typename Args::EntC::non_const_value_type* stash, const StashOff& soff,
                       int max_warps, const typename Args::ValC::non_const_value_type* vstash,
                       std::int64_t vbegin, std::int64_t vend, std::int64_t sbase) {
  using policy_t = warp_rows_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  constexpr int W = warp_lanes<Exec>();
  const int R = warp_row_groups<Exec>(0, 32, max_warps).rows;
  kkperm::parallel_for(
      "kkperm::spgemm::esc::symbolic_copy_stashed_rows",
      policy_t(static_cast<int>((end - begin + R - 1) / R), team_size_for<Exec>(R * W)),
      KOKKOS_LAMBDA(const member_t& team) {
        const int lane = team.team_rank() % W;
        const std::int64_t p = begin + std::int64_t(team.league_rank()) * R + team.team_rank() / W;
        if (p >= end) return;
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(g.row_at(p)) : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const std::int64_t nc = static_cast<std::int64_t>(g.rowC(o + 1)) - cb;
        const auto* src = stash + soff(p - sbase);
        for (std::int64_t t = lane; t < nc; t += W) g.entC(cb + t) = src[t];
        if (vstash != nullptr && p >= vbegin && p < vend) {
          const auto* vsrc = vstash + soff(p - sbase);
          for (std::int64_t t = lane; t < nc; t += W) g.valC(cb + t) = vsrc[t];
        }
      });
}

/// copy_stashed_rows with a warp per W rows (EscConfig::copy_flat): lane l looks up row p0 + l
/// (its plan position, C's row offsets, its stash offset) and the warp then copies the rows'
/// entries as one flattened range, 4 entries a lane in flight (an entry's row by binary lifting
/// over the scan of the rows' lengths). With a warp per row (copy_stashed_rows) each row paid its
/// chain of dependent loads (plan position, C's offsets, stash offset, then the entries) with only
/// 1-2 rounds of copies behind it: H100 session 34, 50-61 µs for 1.6-3.1 M entries (2D 5-point,
/// 3D 7-point R(AP)), latency-bound. Fewer rows a warp (G, halved down to 1) when W a warp would
/// leave fewer than kCopyWarps warps: 4 096 is about one full wave of an H100 (132 SMs, 32 warps
/// each at 4 blocks of 256 threads); H100 run 289: the 3D 27-point R(AP)'s 5 697 rows, 32 a warp
/// (178 warps), copied in 29 µs against 15 with a warp a row.
inline constexpr std::int64_t kCopyWarps = 4096;
template <class Exec, class Args, class StashOff>
void copy_stashed_rows_flat(const Args& g, std::int64_t begin, std::int64_t end,
                            const typename Args::EntC::non_const_value_type* stash, const StashOff& soff,
                            int max_warps, const typename Args::ValC::non_const_value_type* vstash,
                            std::int64_t vbegin, std::int64_t vend, std::int64_t sbase) {
  using policy_t = warp_rows_policy<Exec>;
  using member_t = typename policy_t::member_type;
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  if (end <= begin) return;
  constexpr int W = warp_lanes<Exec>();
  constexpr int kBatch = 4;
  const int warps = warp_row_groups<Exec>(0, 32, max_warps).rows;  // warps a team (host: 1)
  // G rows a warp (a power of two <= W): W, unless that leaves fewer than kCopyWarps warps
  int G = W;
  while (G > 1 && (end - begin) / G < kCopyWarps) G >>= 1;
  const std::int64_t per_team = static_cast<std::int64_t>(warps) * G;
  kkperm::parallel_for(
      "kkperm::spgemm::esc::symbolic_copy_stashed_rows_flat",
      policy_t(static_cast<int>((end - begin + per_team - 1) / per_team), team_size_for<Exec>(warps * W)),
      KOKKOS_LAMBDA(const member_t& team) {
        const int lane = team.team_rank() % W;
        const std::int64_t p0 = begin + std::int64_t(team.league_rank()) * per_team + (team.team_rank() / W) * G;
        if (p0 >= end) return;  // the warp's lanes leave together
        const std::int64_t p = p0 + lane;
        std::int64_t cb = 0, so = 0;
        int nc = 0;
        if (lane < G && p < end) {
          const std::int64_t o = g.direct ? static_cast<std::int64_t>(g.row_at(p)) : p;
          cb = static_cast<std::int64_t>(g.rowC(o));
          nc = static_cast<int>(static_cast<std::int64_t>(g.rowC(o + 1)) - cb);
          so = static_cast<std::int64_t>(soff(p - sbase));
        }
        const int excl = kkperm::detail::warp_exclusive_scan32(nc, lane, W);
        const int total = kkperm::detail::warp_shfl_idx(excl + nc, W - 1, W);
        for (int base = 0; base < total; base += kBatch * W) {
          O col[kBatch];
          V val[kBatch];
          std::int64_t dst[kBatch];
          bool vv[kBatch];
#pragma unroll
          for (int u = 0; u < kBatch; ++u) {
            const int k = base + u * W + lane;
            const int s = walk_entry_of(excl, k, W, 0xffffffffu);
            const int es = kkperm::detail::warp_shfl_idx(excl, s, W);
            const std::int64_t src = kkperm::detail::warp_shfl_idx(so, s, W) + (k - es);
            dst[u] = kkperm::detail::warp_shfl_idx(cb, s, W) + (k - es);
            vv[u] = vstash != nullptr && p0 + s >= vbegin && p0 + s < vend;
            if (k < total) {
              col[u] = stash[src];
              if (vv[u]) val[u] = vstash[src];
            }
          }
#pragma unroll
          for (int u = 0; u < kBatch; ++u) {
            if (base + u * W + lane < total) {
              g.entC(dst[u]) = col[u];
              if (vv[u]) g.valC(dst[u]) = val[u];
            }
          }
        }
      });
}

/// Where the first numeric of setup() finds the sorted columns of plan positions [begin, end)
/// (EscConfig::setup_fused_copy): at stash + soff(p - base), the count pass's stash, which it
/// then also writes to C. stash == nullptr: C's columns are in C.
template <class O, class StashOff>
struct StashedCols {
  const O* stash = nullptr;
  StashOff soff;
  std::int64_t begin = 0, end = 0, base = 0;
};

/// Scratch bytes of one row of the numeric kernel: the row's columns, and its accumulators unless
/// the sums go to C's values (`global_sums`, numeric_warp_rows_launch).
template <class V, class O>
std::size_t warp_numeric_bytes(std::int64_t max_c, bool global_sums) {
  const std::size_t c = static_cast<std::size_t>(max_c > 0 ? max_c : 1);
  return (c * ((global_sums ? 0 : sizeof(V)) + sizeof(O)) + 15) / 16 * 16;
}

/// The first numeric's walk of A's entries [a0, a0 + ka) (warp_for_each_product): each product
/// a·b is added atomically to acc at its column's place in the row's staged sorted columns
/// cols[0, nc) (binary search, staged_col_pos); with `record` that place goes to slot(slot0 + t),
/// t the product's index in the walk; a column not in the row sets `miss`. Every lane of `mask`
/// calls it.
template <class Args, class O, class V, class SlotView>
KOKKOS_INLINE_FUNCTION void warp_search_add(const Args& g, std::int64_t a0, std::int64_t ka, int lane, int W,
                                            unsigned mask, const O* cols, int nc, V* acc, const SlotView& slot,
                                            bool record, std::int64_t slot0, int& miss) {
  using S = typename SlotView::non_const_value_type;
  warp_for_each_product(
      g, a0, ka, lane, W, mask,
      [&](std::int64_t pa, std::int64_t q) { return ColVal<O, V>{static_cast<O>(g.entB(q)), g.valA(pa) * g.valB(q)}; },
      [&](const ColVal<O, V>& cv, int t) {
        const int at = staged_col_pos(cols, nc, cv.col);
        if (at < 0) {
          miss = 1;
        } else {
          Kokkos::atomic_add(&acc[at], cv.val);
          if (record) slot(slot0 + t) = static_cast<S>(at);
        }
      });
}

/// First numeric of rows perm[begin, end) by search (C's structure known, no slot map yet):
/// `lanes` lanes per row, up to `max_warps` warps per team (warp_row_groups). The row's columns
/// are staged in the row's scratch next to a zeroed accumulator; each product finds its column
/// by binary search there and adds a·b atomically (scratch); with `record` its position goes to
/// slot(aprod(a0) + t) (t: index of the product in the row, product order). A product whose
/// column is not in C's row raises `missing`. numeric_warp_rows returns the lanes used, 0
/// without launching when one row's share does not fit a team's scratch.
/// With `global_sums` the row's sums are C's values themselves: zeroed while the columns are
/// staged, each product added with a global atomic (no return value: a reduction the L2 carries
/// out, not a compare-and-swap loop in scratch as a double's atomic add in shared memory is on
/// these GPUs), nothing copied out; the scratch holds the columns alone.
template <class Exec, int W, int MinBlocks, class Args, class Flag, class AprodView, class SlotView, class Stashed>
void numeric_warp_rows_launch(const Args& g, std::int64_t begin, std::int64_t end, std::int64_t cap,
                              std::size_t per_row, int R, const Flag& missing, const AprodView& aprod,
                              const SlotView& slot, bool record, const Stashed& from, bool global_sums) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec, Kokkos::LaunchBounds<32 * kWarpRowsMaxPerTeam, MinBlocks>>;
  using member_t = typename policy_t::member_type;
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const kkperm::detail::LaneGroup lg = kkperm::detail::lane_group_of(team.team_rank(), W);
    const int lane = lg.lane;
    const unsigned mask = lg.mask;
    char* mine = static_cast<char*>(team.team_scratch(0).get_shmem_aligned(per_row * R, 16)) +
                 static_cast<std::size_t>(lg.row) * per_row;
    O* cols = reinterpret_cast<O*>(global_sums ? mine : mine + static_cast<std::size_t>(cap) * sizeof(V));
    const std::int64_t p = begin + std::int64_t(team.league_rank()) * R + lg.row;
    if (p >= end) return;
    const auto i = g.row_at(p);
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
    const int nc = static_cast<int>(static_cast<std::int64_t>(g.rowC(o + 1)) - cb);  // <= cap
    V* acc = global_sums ? g.valC.data() + cb : reinterpret_cast<V*>(mine);
    const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
    const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
    const bool stashed = from.stash != nullptr && p >= from.begin && p < from.end;
    const O* src = stashed ? from.stash + from.soff(p - from.base) : nullptr;
    for (int t = lane; t < nc; t += W) {
      const O c = stashed ? src[t] : g.entC(cb + t);
      if (stashed) g.entC(cb + t) = c;  // setup_fused_copy: the fill pass left this row to us
      cols[t] = c;
      acc[t] = V(0);
    }
    kkperm::detail::sync_warp_lanes(mask);
    const std::int64_t first = record ? static_cast<std::int64_t>(aprod(a0)) : 0;
    int miss = 0;
    warp_search_add(g, a0, ka, lane, W, mask, cols, nc, acc, slot, record, first, miss);
    if (!global_sums) {
      kkperm::detail::sync_warp_lanes(mask);
      for (int t = lane; t < nc; t += W) g.valC(cb + t) = acc[t];
    }
    if (miss) missing() = 1;
  };
  // team size R * W <= 256: within the launch bounds
  policy_t policy(static_cast<int>((end - begin + R - 1) / R), team_size_for<Exec>(R * W));
  policy.set_scratch_size(0, Kokkos::PerTeam(per_row * R));
  kkperm::parallel_for("kkperm::spgemm::esc::numeric_warp_rows", policy, body);
}

/// Whether numeric_warp_rows with these arguments launches (a row's share fits a team's scratch).
template <class Exec, class V, class O>
bool numeric_warp_rows_fit(std::int64_t max_c, int lanes, int max_warps, bool global_sums) {
  return warp_row_groups<Exec>(warp_numeric_bytes<V, O>(max_c, global_sums), lanes, max_warps).rows > 0;
}

/// `global_sums`: EscConfig::numeric_global_sums (numeric_warp_rows_launch).
/// `min_blocks`: blocks a SM the launch is compiled for, kWarpRowsMinBlocks (4) or 5
/// (EscConfig::numeric_min_blocks, 5 by default).
template <class Exec, class Args, class Flag, class AprodView, class SlotView, class Stashed>
int numeric_warp_rows(const Args& g, std::int64_t begin, std::int64_t end, std::int64_t max_c,
                      const Flag& missing, const AprodView& aprod, const SlotView& slot,
                      bool record, int lanes, int max_warps, const Stashed& from, bool global_sums = false,
                      int min_blocks = kWarpRowsMinBlocks) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  const std::int64_t cap = max_c > 0 ? max_c : 1;
  const std::size_t per_row = warp_numeric_bytes<V, O>(cap, global_sums);
  const RowGroups rg = warp_row_groups<Exec>(per_row, lanes, max_warps);
  if (rg.rows == 0) return 0;
  if (end <= begin) return rg.lanes;
  const auto launch = [&](auto w, auto mb) {
    numeric_warp_rows_launch<Exec, decltype(w)::value, decltype(mb)::value>(g, begin, end, cap, per_row, rg.rows,
                                                                            missing, aprod, slot, record, from,
                                                                            global_sums);
  };
  using k4 = std::integral_constant<int, kWarpRowsMinBlocks>;
  const auto with_blocks = [&](auto w) {
    if (min_blocks == 5) launch(w, std::integral_constant<int, 5>());
    else launch(w, k4());
  };
  if constexpr (is_host_exec<Exec>()) {
    launch(std::integral_constant<int, 1>(), k4());
  } else if (rg.lanes == 8) {
    with_blocks(std::integral_constant<int, 8>());
  } else if (rg.lanes == 16) {
    with_blocks(std::integral_constant<int, 16>());
  } else {
    with_blocks(std::integral_constant<int, 32>());
  }
  return rg.lanes;
}

/// Block-bin rows (F_i above the warp bin's threshold) with the warp-row walk: a team a row, its
/// warps taking A's row W entries at a time in turn (warp w: entries [w·W, w·W + W),
/// [w·W + NW·W, ...)), each chunk walked by warp_for_each_product (shuffles, binary lifting
/// over W entries) instead of a team scan of A's row and a binary search over it per product
/// (symbolic_team_hash_bin, numeric_team_bin). Why (session 19; H100 run 123, 3D 27-point
/// R(AP), 5.6 k block-bin rows of ~205 A entries): the team kernels spent 34-38 k warp
/// instructions a row, 0.30 ms (count with stash) and 0.37 ms (first numeric) of a 1.3 ms setup.
inline constexpr int kBlockRowWarps = 8;  ///< warps per team of the block-row kernels (256 threads)

/// Calls use(column) for every product of A's row [a0, a0 + ka) with the NW warps of a team
/// taking W-entry chunks in turn (warp w: chunks w, w + NW, ...), each walked by
/// warp_for_each_product (whole warps: every lane of the team calls it).
template <class O, class Args, class Use>
KOKKOS_INLINE_FUNCTION void team_for_each_col(const Args& g, std::int64_t a0, std::int64_t ka, int lane, int warp,
                                              int NW, int W, const Use& use) {
  for (std::int64_t c = std::int64_t(warp) * W; c < ka; c += std::int64_t(NW) * W)
    warp_for_each_product(
        g, a0 + c, ka - c < W ? ka - c : W, lane, W, 0xffffffffu,
        [&](std::int64_t, std::int64_t q) { return static_cast<O>(g.entB(q)); },
        [&](const O col, int) { use(col); });
}

/// The values of a block-bin row whose nc sorted columns are known (symbolic_block_rows' values
/// in the count pass): every product a·b of A's row [a0, a0 + ka), walked as team_for_each_col
/// walks it, is added atomically at pos(column) of the row's sums, written to vout[0, nc). As in
/// sum_row_values the sums are in the team's scratch from byte `used` on when they fit before byte
/// `share` (then summed out of one copy a warp, as many copies as fit), else in vout itself. Every
/// thread of the team calls it (team barriers inside).
template <class Team, class Args, class V, class Pos>
KOKKOS_INLINE_FUNCTION void team_sum_row_values(const Team& team, const Args& g, std::int64_t a0, std::int64_t ka,
                                                int lane, int warp, int NW, int W, char* scratch, std::size_t used,
                                                std::size_t share, int nc, V* vout, const Pos& pos) {
  using O = typename Args::EntC::non_const_value_type;
  const int tr = team.team_rank(), ts = team.team_size();
  const RowSums<V> rs = row_sums_place(scratch, used, share, nc, NW, vout);
  for (int t = tr; t < rs.copies * nc; t += ts) rs.acc[t] = V(0);
  team.team_barrier();
  V* mine = rs.acc + (warp * rs.copies / NW) * nc;
  const auto load = [&](std::int64_t pa, std::int64_t q) {
    return ColVal<O, V>{static_cast<O>(g.entB(q)), g.valA(pa) * g.valB(q)};
  };
  for (std::int64_t c = std::int64_t(warp) * W; c < ka; c += std::int64_t(NW) * W)
    warp_for_each_product(g, a0 + c, ka - c < W ? ka - c : W, lane, W, 0xffffffffu, load,
                          [&](const ColVal<O, V>& cv, int) { Kokkos::atomic_add(&mine[pos(cv.col)], cv.val); });
  team.team_barrier();
  if (rs.acc == vout) return;
  row_sums_out(rs, nc, tr, ts, vout);
}

/// Symbolic of block-bin rows perm[begin, end): the row's columns hashed into the team's scratch
/// table (hash_slots(F) slots), counted (cnt); with fill, or with a stash in the count pass, the
/// table is compacted and sorted in scratch and written to C's row, or to
/// stash + soff(soff_base + p - begin). Returns false, launching nothing, when the largest row's
/// table does not fit a team's level-0 scratch (the caller keeps the team kernels).
/// With `vstash` (count pass with a stash; setup()): once the row's sorted columns are known, the
/// team walks its products again and sums the values (team_sum_row_values; positions from the
/// bitmap's rank prefix, which then shares the bitmap's scratch, or by binary search in the sorted
/// columns) into vstash + soff(soff_base + p - begin).
template <class Exec, bool Vals, class Args, class StashOff>
void symbolic_block_rows_launch(const Args& g, std::int64_t begin, std::int64_t end, bool fill, std::int64_t H,
                                std::size_t bytes, typename Args::EntC::non_const_value_type* stash,
                                const StashOff& soff, std::int64_t soff_base, bool bitmap, int* bitmap_rows,
                                typename Args::ValC::non_const_value_type* vstash) {
  using O = typename Args::EntC::non_const_value_type;
  using policy_t = warp_rows_policy<Exec>;
  using member_t = typename policy_t::member_type;
  constexpr int W = warp_lanes<Exec>();
  const O empty = -1;  // columns are >= 0 (validated)
  // the table's scratch as bitmap words (with values: half of it, the rank prefix the rest)
  const int words_avail = static_cast<int>(H * static_cast<std::int64_t>(sizeof(O)) / (Vals ? 8 : 4));
  const std::size_t share = static_cast<std::size_t>(H) * sizeof(O);
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const int tr = team.team_rank(), ts = team.team_size();
    const int lane = tr % W, warp = tr / W, NW = ts / W;
    const std::int64_t p = begin + team.league_rank();
    const auto i = g.row_at(p);
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
    const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
    const int F = static_cast<int>(g.work(i));
    const int Hr = hash_slots32(F);
    // the largest row's table (H slots): the bitmap may use more words than this row's Hr
    O* table = static_cast<O*>(team.team_scratch(0).get_shmem_aligned(sizeof(O) * H, 16));
    int* counter = static_cast<int*>(team.team_scratch(0).get_shmem_aligned(3 * sizeof(int), 8));
    O* win = static_cast<O*>(team.team_scratch(0).get_shmem_aligned(2 * kBlockRowWarps * sizeof(O), 8));
    O* out = nullptr;  // where the sorted columns go (fill: C's row; count: the stash)
    if (fill) out = g.entC.data() + static_cast<std::int64_t>(g.rowC(o));
    else if (stash != nullptr) out = stash + soff(soff_base + (p - begin));
    if (tr == 0) counter[0] = counter[1] = counter[2] = 0;
    if (bitmap && F > 0) {
      // the row's column window (each warp its share of A's row, then across the warps), and the
      // bitmap path of symbolic_warp_rows_launch when the window fits
      O lo = 0, hi = -1;
      warp_row_col_window(g, a0, ka, lane, W, 0xffffffffu, lo, hi, std::int64_t(warp) * W, std::int64_t(NW) * W);
      if (lane == 0) {
        win[2 * warp] = lo;
        win[2 * warp + 1] = hi;
      }
      team.team_barrier();
      for (int w = 0; w < NW; ++w) {
        if (win[2 * w] < lo) lo = win[2 * w];
        if (win[2 * w + 1] > hi) hi = win[2 * w + 1];
      }
      const std::int64_t span = static_cast<std::int64_t>(hi) - static_cast<std::int64_t>(lo) + 1;
      const int words = bitmap_words(span, Hr * static_cast<int>(sizeof(O) / 4), words_avail);
      if (words > 0) {  // the same on every thread of the team
        unsigned* bm = reinterpret_cast<unsigned*>(table);
        for (int t = tr; t < words; t += ts) bm[t] = 0u;
        team.team_barrier();
        int outside = 0;
        team_for_each_col<O>(g, a0, ka, lane, warp, NW, W,
                             [&](const O col) { outside |= bitmap_set(bm, static_cast<std::int64_t>(col) - lo, span); });
        if (outside != 0) counter[2] = 1;
        team.team_barrier();
        if (counter[2] == 0) {
          int* pre = Vals ? reinterpret_cast<int*>(bm + words) : nullptr;
          if (warp == 0) {  // one warp reads the bitmap in order
            const int unique = bitmap_emit(bm, words, lo, out, lane, W, 0xffffffffu, pre);
            if (!fill && lane == 0) g.cnt(o) = unique;
            if (Vals && lane == 0) counter[1] = unique;
            if (bitmap_rows != nullptr && lane == 0) Kokkos::atomic_add(bitmap_rows, 1);
          }
          if (Vals) {
            team.team_barrier();
            team_sum_row_values(team, g, a0, ka, lane, warp, NW, W, reinterpret_cast<char*>(table),
                                2 * static_cast<std::size_t>(words) * 4, share, counter[1],
                                vstash + soff(soff_base + (p - begin)),
                                [&](const O c) { return bitmap_rank(bm, pre, static_cast<std::int64_t>(c) - lo); });
          }
          return;  // the whole team leaves
        }
      }
    }
    for (int t = tr; t < Hr; t += ts) table[t] = empty;
    team.team_barrier();
    int ins = 0;
    team_for_each_col<O>(g, a0, ka, lane, warp, NW, W,
                         [&](const O col) { ins += hash_insert32(table, Hr, col, empty); });
    ins = kkperm::detail::warp_sum32(ins, W);
    if (lane == 0 && ins != 0) Kokkos::atomic_add(&counter[0], ins);
    team.team_barrier();
    const int unique = counter[0];
    if (!fill) {
      if (tr == 0) g.cnt(o) = unique;
      if (stash == nullptr) return;  // the whole team leaves
    }
    team_compact_table(team, table, std::int64_t(Hr), empty, &counter[1]);  // unordered
    team_sort_n(team, table, static_cast<O*>(nullptr), std::int64_t(unique), false);
    for (int t = tr; t < unique; t += ts) out[t] = table[t];
    if (Vals)
      team_sum_row_values(team, g, a0, ka, lane, warp, NW, W, reinterpret_cast<char*>(table),
                          static_cast<std::size_t>(unique) * sizeof(O), share, unique,
                          vstash + soff(soff_base + (p - begin)),
                          [&](const O c) { return staged_col_pos(table, unique, c); });
  };
  policy_t policy(static_cast<int>(end - begin), team_size_for<Exec>(kBlockRowWarps * W));
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  kkperm::parallel_for(fill ? "kkperm::spgemm::esc::symbolic_fill_block_rows"
                            : (Vals ? "kkperm::spgemm::esc::symbolic_count_values_block_rows"
                                    : (stash != nullptr ? "kkperm::spgemm::esc::symbolic_count_stash_block_rows"
                                                        : "kkperm::spgemm::esc::symbolic_count_block_rows")),
                       policy, body);
}

/// symbolic_block_rows_launch when the largest row's table fits a team's level-0 scratch; else
/// returns false, launching nothing (the caller keeps the team kernels). `vstash` only with a
/// stash in the count pass.
template <class Exec, class Args, class StashOff>
bool symbolic_block_rows(const Args& g, std::int64_t begin, std::int64_t end, bool fill, std::int64_t max_work,
                         typename Args::EntC::non_const_value_type* stash, const StashOff& soff,
                         std::int64_t soff_base, bool bitmap = true, int* bitmap_rows = nullptr,
                         typename Args::ValC::non_const_value_type* vstash = nullptr) {
  using O = typename Args::EntC::non_const_value_type;
  using policy_t = warp_rows_policy<Exec>;
  const std::int64_t H = hash_slots(max_work > 0 ? max_work : 1);
  const std::size_t bytes = static_cast<std::size_t>(H) * sizeof(O) + 3 * sizeof(int) +
                            2 * kBlockRowWarps * sizeof(O) + 3 * 128;
  if (bytes > static_cast<std::size_t>(policy_t::scratch_size_max(0)) || H > (std::int64_t(1) << 30)) return false;
  if (end <= begin) return true;
  if (vstash != nullptr && stash != nullptr && !fill)
    symbolic_block_rows_launch<Exec, true>(g, begin, end, fill, H, bytes, stash, soff, soff_base, bitmap, bitmap_rows,
                                           vstash);
  else
    symbolic_block_rows_launch<Exec, false>(g, begin, end, fill, H, bytes, stash, soff, soff_base, bitmap,
                                            bitmap_rows, nullptr);
  return true;
}

/// First numeric of block-bin rows perm[begin, end) by search, as numeric_team_bin but walked as
/// symbolic_block_rows does: C's row staged in scratch with its accumulators, each warp's chunks
/// of A's row walked with warp_for_each_product, the product's column found by binary search in
/// scratch and a·b added atomically there; with `record` its position goes to
/// slot(aprod(a0) + t), t its index in the row's product order (the chunk's offset comes from
/// the chunks' product counts, summed in scratch). A column not in C's row raises `missing`.
/// Returns false, launching nothing, when the scratch does not fit.
template <class Exec, class Args, class Flag, class AprodView, class SlotView>
bool numeric_block_rows(const Args& g, std::int64_t begin, std::int64_t end, std::int64_t max_c,
                        std::int64_t max_ka, const Flag& missing, const AprodView& aprod, const SlotView& slot,
                        bool record) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = warp_rows_policy<Exec>;
  using member_t = typename policy_t::member_type;
  constexpr int W = warp_lanes<Exec>();
  const std::int64_t cap = max_c > 0 ? max_c : 1;
  const std::int64_t chunks = (max_ka + W - 1) / W + 1;
  const std::size_t bytes = static_cast<std::size_t>(cap) * (sizeof(V) + sizeof(O)) +
                            static_cast<std::size_t>(chunks) * sizeof(int) + 3 * 128;
  if (bytes > static_cast<std::size_t>(policy_t::scratch_size_max(0))) return false;
  if (end <= begin) return true;
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const int tr = team.team_rank(), ts = team.team_size();
    const int lane = tr % W, warp = tr / W, NW = ts / W;
    const std::int64_t p = begin + team.league_rank();
    const auto i = g.row_at(p);
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
    const int nc = static_cast<int>(static_cast<std::int64_t>(g.rowC(o + 1)) - cb);
    const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
    const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
    V* acc = static_cast<V*>(team.team_scratch(0).get_shmem_aligned(sizeof(V) * nc, 16));
    O* cols = static_cast<O*>(team.team_scratch(0).get_shmem_aligned(sizeof(O) * nc, 16));
    const int nchunks = static_cast<int>((ka + W - 1) / W);
    int* ctot = static_cast<int*>(team.team_scratch(0).get_shmem_aligned(sizeof(int) * (nchunks + 1), 8));
    for (int t = tr; t < nc; t += ts) {
      acc[t] = V(0);
      cols[t] = g.entC(cb + t);
    }
    // products of each chunk (for the product index t of the slot map)
    if (record) {
      for (int c = warp; c < nchunks; c += NW) {
        const std::int64_t s = std::int64_t(c) * W + lane;
        int len = 0;
        if (s < ka) {
          const auto k = g.entA(a0 + s);
          len = static_cast<int>(g.rowB(k + 1) - g.rowB(k));
        }
        len = kkperm::detail::warp_sum32(len, W);
        if (lane == 0) ctot[c] = len;
      }
    }
    team.team_barrier();
    const std::int64_t first = record ? static_cast<std::int64_t>(aprod(a0)) : 0;
    int miss = 0;
    for (int c = warp; c < nchunks; c += NW) {
      std::int64_t before = 0;  // products of the chunks ahead of c
      if (record) {
        int part = 0;
        for (int d = lane; d < c; d += W) part += ctot[d];
        before = kkperm::detail::warp_sum32(part, W);
      }
      const std::int64_t c0 = std::int64_t(c) * W;
      warp_search_add(g, a0 + c0, ka - c0 < W ? ka - c0 : W, lane, W, 0xffffffffu, cols, nc, acc, slot, record,
                      first + before, miss);
    }
    team.team_barrier();
    for (int t = tr; t < nc; t += ts) g.valC(cb + t) = acc[t];
    if (miss) missing() = 1;
  };
  policy_t policy(static_cast<int>(end - begin), team_size_for<Exec>(kBlockRowWarps * W));
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  kkperm::parallel_for("kkperm::spgemm::esc::numeric_block_rows", policy, body);
  return true;
}

/// Lanes a row of the gather plan's row kernel (gather_rows_warp) for a mean work a row of
/// `mean` products; 1 = a thread a row (gather_rows_thread). On host backends always 1.
/// Why (session 26, H100): ncu of the 3D 7-point AP's build (1 M rows of 24.6 products) put a
/// thread a row at 2.98 ms, a serial chain of dependent loads and scattered writes per product.
/// Run 165 (one slot load a round): a thread a row lost to the best lane group on all nine products,
/// by up to 11x (3D 27-point A²: 70.0 against 6.2 ms).
/// Run 169 (the committed kernel but the last round-skip fix; build ms, 8 / 32 lanes): means
/// 12-48 (2D AP, 3D 7-point AP, 2D A², 3D 7-point A²) 0.50 / 0.61, 0.66 / 1.41, 1.14 / 1.72,
/// 1.64 / 1.96; means 74 and 118 (2D R(AP), 3D 27-point AP) 0.30 / 0.29, 0.66 / 0.65; means 323
/// and 692 (3D 7-point R(AP), 3D 27-point A²) 1.43 / 0.48, 8.14 / 2.32. Below 4 not measured.
template <class Exec>
int gather_build_lanes_for(std::int64_t mean) {
  if constexpr (is_host_exec<Exec>()) {
    (void)mean;
    return 1;
  } else {
    return mean >= 64 ? 32 : (mean >= 4 ? 8 : 1);
  }
}

/// Rounds of the slot walk whose slots are loaded before the first of them is used.
inline constexpr int kWalkBatch = 4;

/// One batch of the slot walk: rounds r < kWalkBatch of the chunk's products from `base` (product
/// base + r * W + lane): sa = its A entry within the chunk, pbb = its B nonzero, sl = its slot
/// (-1: no product; `pfirst`: the chunk's first product in the slot map). Every lane of `mask`
/// calls it; rounds past the chunk's `total` are skipped on the whole group.
template <int W, class SlotView, class Boff>
KOKKOS_INLINE_FUNCTION void walk_load_batch(const SlotView& slot, int excl, Boff b0, int total, int base,
                                            std::int64_t pfirst, int lane, unsigned mask, int (&sa)[kWalkBatch],
                                            Boff (&pbb)[kWalkBatch], int (&sl)[kWalkBatch]) {
  for (int r = 0; r < kWalkBatch; ++r) {
    const int t = base + r * W + lane;
    if (base + r * W >= total) {  // the same on every lane of the group: no round here
      sa[r] = 0;
      pbb[r] = 0;
      sl[r] = -1;
      continue;
    }
    const int s = walk_entry_of(excl, t, W, mask);
    const Boff bs = kkperm::detail::warp_shfl_idx(b0, s, W, mask);
    const int es = kkperm::detail::warp_shfl_idx(excl, s, W, mask);
    sa[r] = s;
    pbb[r] = bs + static_cast<Boff>(t - es);
    sl[r] = t < total ? static_cast<int>(slot(pfirst + t)) : -1;
  }
}

/// Calls f(on, act, pa, pb, e) for the products of A's row [a0, a0 + ka) in product order, W at a
/// time (lane l of the row's W-lane group, `mask`: product base + l); every lane of the group calls
/// f each round, `on` says whether it has a product (act: the group's lanes that have one, at
/// hardware lane positions); pb: B's nonzero, e: the product's C entry (cb + its slot; `first`:
/// the row's first product in the slot map). The group syncs after each round, so a round sees
/// what the previous one wrote. The slots of kWalkBatch rounds are loaded before the first of them
/// is used (one dependent global load a round would chain the rounds of a row).
template <int W, class Args, class SlotView, class F>
KOKKOS_INLINE_FUNCTION void warp_walk_slots(const Args& g, const SlotView& slot, std::int64_t a0, int ka,
                                            std::int64_t first, std::int64_t cb, int lane, unsigned mask,
                                            const F& f) {
  using boff_t = walk_boff_t<Args>;
  std::int64_t tbase = 0;
  for (int s0 = 0; s0 < ka; s0 += W) {
    boff_t b0;
    int excl;
    const int total = walk_chunk_head(g, a0, s0, ka, lane, W, mask, b0, excl);
    for (int base = 0; base < total; base += W * kWalkBatch) {
      int sa[kWalkBatch], sl[kWalkBatch];
      boff_t pbb[kWalkBatch];
      walk_load_batch<W>(slot, excl, b0, total, base, first + tbase, lane, mask, sa, pbb, sl);
      for (int r = 0; r < kWalkBatch && base + r * W < total; ++r) {
        const bool on = sl[r] >= 0;
        const unsigned act = kkperm::detail::warp_ballot(on, mask);
        f(on, act, a0 + s0 + sa[r], static_cast<std::int64_t>(pbb[r]), on ? cb + sl[r] : std::int64_t(-1));
        kkperm::detail::sync_warp_lanes(mask);  // the next round reads what this one wrote
      }
    }
    tbase += total;
  }
}

/// Scratch bytes a row needs to build its gather lists in team scratch (gather_rows_warp): nc
/// counts (ints, padded to 8 bytes) and the row's F list words.
KOKKOS_INLINE_FUNCTION std::int64_t gather_row_scratch_bytes(std::int64_t nc, std::int64_t f) {
  return (nc + 1) / 2 * 8 + f * 8;
}

/// gather_rows_thread with a group of WD lanes a row (8, 16 or 32; plan positions [0, n), up to
/// 256 / WD rows a team). An ordered row (F_i <= max_work) counts its products per C entry (the
/// lanes of a round that share an entry, warp_match_any, add their number once), the group scans
/// the counts into gptr from the row's base, then fills the lists: the peers of a round take
/// consecutive places after the entry's cursor in lane order and the highest of them advances it,
/// so each list is in product order, as the thread-a-row kernel gives it (the numeric's sums are
/// the same bits). When the row's counts and its F list words fit its share of team scratch
/// (`slice` bytes a row, gather_row_scratch_bytes) the counts, cursors and lists live there and
/// the row's lists, which are one contiguous range of glist, are written out coalesced at the end;
/// otherwise the group works on cnt (zeroed here) and writes glist directly. A scratch row of one
/// chunk and one batch (ka <= W, F <= kWalkBatch · W) loads its slots once and keeps them in
/// registers for both the count and the fill (H100 run 177: 2D A² build 1.02 -> 0.84 ms, 3D
/// 7-point AP 0.66 -> 0.44 ms). Rows above max_work only scan the counts gather_long_rows made.
/// No global atomics: a row's C entries are its group's own (the scratch rows count and place
/// with scratch atomics, then sort each list). Host backends: one lane, the row walked serially.
/// Why (session 26): the build was a count pass and a long-row fill pass of a thread per A
/// nonzero, each finding its row by binary search over A's row map, a scan over nnz(C) and the
/// fill; the numeric that built the plan cost 5-21 steady re-setups (H100 runs 159-160). With the
/// lists written straight to glist each 8-byte word of a round went to a different list (a
/// sector each): ncu put the 3D 27-point A² build at 5.3 ms against ~0.7 ms of bytes (run 166).
template <class Exec, int WD, class Args, class AprodView, class SlotView, class IntView, class ListView>
void gather_rows_warp(const Args& g, std::int64_t n, std::int64_t nnz_c, std::int64_t sum, std::int64_t max_work,
                      std::int64_t slice, bool match, const AprodView& aprod, const SlotView& slot,
                      const IntView& rbase, const IntView& gptr, const IntView& cnt, const ListView& glist) {
  using policy_t = warp_rows_policy<Exec>;
  using member_t = typename policy_t::member_type;
  static_assert(WD == 8 || WD == 16 || WD == 32, "gather_rows_warp: 8, 16 or 32 lanes a row");
  if (n <= 0) return;
  constexpr int W = is_host_exec<Exec>() ? 1 : WD;
  const std::int64_t cap = static_cast<std::int64_t>(policy_t::scratch_size_max(0));
  slice = slice / 8 * 8;
  if (slice > cap) slice = cap / 8 * 8;
  int R = is_host_exec<Exec>() ? 1 : kWarpRowsMaxPerTeam * 32 / W;
  while (R > 1 && R * slice > cap) R /= 2;
  const std::size_t bytes = static_cast<std::size_t>(R * slice);
  policy_t policy(static_cast<int>((n + R - 1) / R), team_size_for<Exec>(R * W));
  if (bytes > 0) policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  kkperm::parallel_for(
      "kkperm::spgemm::esc::gather_rows_warp", policy, KOKKOS_LAMBDA(const member_t& team) {
        char* team_mem = bytes > 0 ? static_cast<char*>(team.team_scratch(0).get_shmem(bytes)) : nullptr;
        const auto lg = kkperm::detail::lane_group_of(team.team_rank(), W);
        const int lane = lg.lane, hw = team.team_rank() % 32;
        const unsigned mask = lg.mask;
        const std::int64_t p = std::int64_t(team.league_rank()) * R + lg.row;
        if (p >= n) return;  // whole group
        if (p == 0 && lane == 0) gptr(nnz_c) = static_cast<int>(sum);
        const std::int64_t i = static_cast<std::int64_t>(g.row_at(p));
        const std::int64_t o = g.direct ? i : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const int nc = static_cast<int>(static_cast<std::int64_t>(g.rowC(o + 1)) - cb);
        const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
        const int ka = static_cast<int>(static_cast<std::int64_t>(g.rowA(i + 1)) - a0);
        const std::int64_t first = static_cast<std::int64_t>(aprod(a0));
        const std::int64_t f = static_cast<std::int64_t>(g.work(i));
        const bool ordered = f <= max_work;  // whole group
        const bool local = ordered && gather_row_scratch_bytes(nc, f) <= slice;
        const unsigned below = hw == 0 ? 0u : (0xffffffffu >> (32 - hw));  // hardware lanes below
        const int row_base = static_cast<int>(g.direct ? first : std::int64_t(rbase(p)));
        // counts and cursors: the row's scratch (local) or cnt (global), indexed by the C entry
        int* const scnt = local ? reinterpret_cast<int*>(team_mem + lg.row * slice) : nullptr;
        std::uint64_t* const slist =
            local ? reinterpret_cast<std::uint64_t*>(team_mem + lg.row * slice + (nc + 1) / 2 * 8) : nullptr;
        const auto counter = [&](const std::int64_t e) -> int& { return local ? scnt[e - cb] : cnt(e); };
        // a scratch row of one chunk and one batch keeps its products in registers: one walk, not
        // two (the count and the fill read the same slots)
        const bool one_batch = local && !match && ka <= W && f <= W * kWalkBatch;  // whole group
        using boff_t = walk_boff_t<Args>;
        int bsa[kWalkBatch] = {}, bsl[kWalkBatch] = {};
        boff_t bpb[kWalkBatch] = {};
        if (one_batch) {
          boff_t b0;
          int excl;
          const int total = walk_chunk_head(g, a0, 0, ka, lane, W, mask, b0, excl);
          walk_load_batch<W>(slot, excl, b0, total, 0, first, lane, mask, bsa, bpb, bsl);
        }
        if (ordered) {
          for (int t = lane; t < nc; t += W) counter(cb + t) = 0;
          kkperm::detail::sync_warp_lanes(mask);
          if (one_batch) {
            for (int r = 0; r < kWalkBatch; ++r)
              if (bsl[r] >= 0) Kokkos::atomic_add(&scnt[bsl[r]], 1);
            kkperm::detail::sync_warp_lanes(mask);
          } else {
            warp_walk_slots<W>(g, slot, a0, ka, first, cb, lane, mask,
                               [&](const bool on, const unsigned act, std::int64_t, std::int64_t, const std::int64_t e) {
                                 if (!on) return;
                                 if (!match) {
                                   Kokkos::atomic_add(&counter(e), 1);
                                   return;
                                 }
                                 const unsigned peers = kkperm::detail::warp_match_any(act, static_cast<long long>(e));
                                 if (hw == kkperm::detail::highest_bit32(peers))
                                   counter(e) += kkperm::detail::popcount32u(peers);
                               });
          }
        }
        // counts -> gptr; the cursors start at the entry's offset in the row (local) or at 0
        int run = 0;
        for (int t0 = 0; t0 < nc; t0 += W) {
          const int t = t0 + lane;
          const int c = t < nc ? counter(cb + t) : 0;
          const int excl = kkperm::detail::warp_exclusive_scan32(c, lane, W, mask);
          if (t < nc) {
            gptr(cb + t) = row_base + run + excl;
            counter(cb + t) = local ? run + excl : 0;
          }
          run += kkperm::detail::warp_shfl_idx(excl + c, W - 1, W, mask);
        }
        kkperm::detail::sync_warp_lanes(mask);  // the fill reads gptr and cursors of other lanes
        if (!ordered) return;
        const bool sorted_fill = local && !match;  // scratch cursors by atomics, lists sorted after
        if (one_batch) {
          for (int r = 0; r < kWalkBatch; ++r)
            if (bsl[r] >= 0) slist[Kokkos::atomic_fetch_add(&scnt[bsl[r]], 1)] = pack_product(a0 + bsa[r], bpb[r]);
          kkperm::detail::sync_warp_lanes(mask);  // the sort reads the other lanes' words
        } else {
          warp_walk_slots<W>(g, slot, a0, ka, first, cb, lane, mask,
                             [&](const bool on, const unsigned act, const std::int64_t pa, const std::int64_t pb,
                                 const std::int64_t e) {
                               if (!on) return;
                               if (sorted_fill) {
                                 slist[Kokkos::atomic_fetch_add(&scnt[e - cb], 1)] = pack_product(pa, pb);
                                 return;
                               }
                               const unsigned peers = kkperm::detail::warp_match_any(act, static_cast<long long>(e));
                               const int at = counter(e);
                               kkperm::detail::sync_warp_lanes(act);  // every peer read the cursor before it moves
                               const int r = at + kkperm::detail::popcount32u(peers & below);
                               if (local)
                                 slist[r] = pack_product(pa, pb);
                               else
                                 glist.put(gptr(e) + r, e, pack_product(pa, pb));
                               if (hw == kkperm::detail::highest_bit32(peers)) counter(e) = at + kkperm::detail::popcount32u(peers);
                             });
        }
        if (sorted_fill) {  // product order inside each list: the words (pa, pb) rise with it
          for (int t = lane; t < nc; t += W) {
            const int b = static_cast<int>(gptr(cb + t)) - row_base, end = scnt[t];
            for (int x = b + 1; x < end; ++x) {
              const std::uint64_t w = slist[x];
              int y = x - 1;
              while (y >= b && slist[y] > w) {
                slist[y + 1] = slist[y];
                --y;
              }
              slist[y + 1] = w;
            }
          }
          kkperm::detail::sync_warp_lanes(mask);
        }
        if (local) {  // the walk (or the one-batch fill) synced the group after its last round
          // et: an entry of position t's tile of 32 C entries (4-byte lists: the word's base),
          // the row's first entry moved to each tile start whose list begins at or before t; a
          // lane's positions rise, so its cursor only moves forward
          const std::int64_t first_tile_end = (cb / kGatherTileEntries + 1) * kGatherTileEntries;
          const std::int64_t tiles_end = glist.needs_entry() ? cb + nc : first_tile_end;
          std::int64_t et = cb, eb = first_tile_end;
          for (std::int64_t t = lane; t < f; t += W) {
            for (; eb < tiles_end && gptr(eb) - row_base <= t; eb += kGatherTileEntries) et = eb;
            glist.put(row_base + t, et, slist[t]);
          }
        }
      });
}

/// Builds gptr (nnz(C) + 1) and glist (Σ F_i = sum) from the filled slot map. cnt: nnz(C) ints
/// of scratch (each row's part zeroed by the kernel that first counts into it; no fill of its
/// own); rbase: n ints when the destination is permuted (gather_row_bases). `slice`: team scratch
/// bytes a row of the lane-group kernel (rows whose lists do not fit work in global memory).
/// Rows with F_i <= max_work get lists in product order (bitwise reproducible numeric); longer
/// ones, which only the bins from plan position long_begin on can hold (n: none), are counted and
/// filled by gather_long_rows with atomics. `lanes`: lanes a row of the rows' kernel (8, 16 or
/// 32: gather_rows_warp; otherwise a thread a row, gather_rows_thread). Launches: the row kernel,
/// plus the row-base scan (permuted output) and two long-row passes (only when such rows exist).
template <class Exec, class Args, class AprodView, class SlotView, class IntView, class ListView>
void build_gather_plan(const Args& g, std::int64_t n, std::int64_t nnz_c, std::int64_t sum, std::int64_t max_work,
                       std::int64_t long_begin, int lanes, std::int64_t slice, bool match, const AprodView& aprod,
                       const SlotView& slot, const IntView& rbase, const IntView& cnt, const IntView& gptr,
                       const ListView& glist) {
  gather_row_bases<Exec>(g, n, rbase);
  gather_long_rows<Exec>(
      "kkperm::spgemm::esc::gather_count_long", g, long_begin, n, max_work, aprod, slot, cnt, true,
      KOKKOS_LAMBDA(std::int64_t, std::int64_t, std::int64_t e) { Kokkos::atomic_increment(&cnt(e)); });
  if (lanes == 32)
    gather_rows_warp<Exec, 32>(g, n, nnz_c, sum, max_work, slice, match, aprod, slot, rbase, gptr, cnt, glist);
  else if (lanes == 16)
    gather_rows_warp<Exec, 16>(g, n, nnz_c, sum, max_work, slice, match, aprod, slot, rbase, gptr, cnt, glist);
  else if (lanes == 8)
    gather_rows_warp<Exec, 8>(g, n, nnz_c, sum, max_work, slice, match, aprod, slot, rbase, gptr, cnt, glist);
  else
    gather_rows_thread<Exec>(g, n, nnz_c, sum, max_work, aprod, slot, rbase, gptr, cnt, glist);
  gather_long_rows<Exec>(
      "kkperm::spgemm::esc::gather_fill_long", g, long_begin, n, max_work, aprod, slot, cnt, false,
      KOKKOS_LAMBDA(std::int64_t pa, std::int64_t pb, std::int64_t e) {
        glist.put(gptr(e) + Kokkos::atomic_fetch_add(&cnt(e), 1), e, pack_product(pa, pb));
      });
}

}  // namespace kkperm::spgemm::esc_impl
