#pragma once
// ESC warp-row kernels: one CUDA warp per row of C, several rows per team, for the rows of the
// warp bin (and, when it is small, the thread bin too). Internal: used by esc_spgemm.hpp.
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
// flattened across the warp: A's row is taken W entries at a time, an exclusive warp scan of
// their B-row lengths places each product, and lane l takes products l, l + W, ... of the chunk,
// finding its A entry by binary lifting over the scan (shuffles). On host backends W = 1 and a
// team is one thread: the same code walks the row serially (so CI's Serial build tests it).
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kkperm/core/warp_ops.hpp"
#include "kkperm/kernels/spgemm/esc_kernels.hpp"

namespace kkperm::spgemm::esc_impl {

inline constexpr int kWarpRowsMaxPerTeam = 8;
/// Blocks per SM the warp-row kernels are compiled for (LaunchBounds<256, 4>: at most 64
/// registers a thread). Without it (run 97) they ran at 30 % occupancy: a row is a chain of five
/// dependent loads (perm, A's row, B's row offsets, B's columns), so latency is hidden only by
/// having many rows in flight.
inline constexpr int kWarpRowsMinBlocks = 4;
template <class Exec>
using warp_rows_policy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<32 * kWarpRowsMaxPerTeam, kWarpRowsMinBlocks>>;

/// Lanes of a warp (32 on device backends, 1 on host ones).
template <class Exec>
constexpr int warp_lanes() {
  return is_host_exec<Exec>() ? 1 : 32;
}

/// Calls use(load(pa, q), t) once for every product a(pa)·b(q) of A's row [a0, a0 + ka), t = the
/// product's index within the row in product order; each call is made by one lane. Every lane of
/// the warp must call this (shuffles inside). Row work must fit an int (warp and thread bins).
/// A lane's products are taken kBatch at a time: their loads are all issued before the first use
/// (H100 run 100: with one product in flight per lane, each row waited on its B-column loads one
/// after another, ~11 µs a row in the R(AP) count pass).
inline constexpr int kProductBatch = 4;
template <class Args, class Load, class Use>
KOKKOS_INLINE_FUNCTION void warp_for_each_product(const Args& g, std::int64_t a0, std::int64_t ka,
                                                  int lane, int W, const Load& load, const Use& use) {
  using item_t = decltype(load(std::int64_t(0), std::int64_t(0)));
  std::int64_t tbase = 0;
  for (std::int64_t s0 = 0; s0 < ka; s0 += W) {
    std::int64_t b0 = 0;
    int len = 0;
    if (s0 + lane < ka) {
      const auto k = g.entA(a0 + s0 + lane);
      b0 = static_cast<std::int64_t>(g.rowB(k));
      len = static_cast<int>(static_cast<std::int64_t>(g.rowB(k + 1)) - b0);
    }
    const int excl = static_cast<int>(kkperm::detail::warp_exclusive_scan(len, lane, W));
    const int total = kkperm::detail::warp_shfl_idx(excl + len, W - 1, W);
    for (int base = 0; base < total; base += kProductBatch * W) {
      item_t item[kProductBatch];
      int tt[kProductBatch];
#pragma unroll
      for (int u = 0; u < kProductBatch; ++u) {
        const int t = base + u * W + lane;
        // largest s with excl_s <= t (binary lifting; s + step stays below W)
        int s = 0;
        for (int step = W / 2; step >= 1; step >>= 1) {
          const int e = kkperm::detail::warp_shfl_idx(excl, s + step, W);
          if (e <= t) s += step;
        }
        const std::int64_t bs = kkperm::detail::warp_shfl_idx(b0, s, W);
        const int es = kkperm::detail::warp_shfl_idx(excl, s, W);
        tt[u] = t;
        if (t < total) item[u] = load(a0 + s0 + s, bs + (t - es));
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

/// Rows per team for `per_warp` scratch bytes: as many warps as fit the level-0 scratch of one
/// team, at most kWarpRowsMaxPerTeam; 0 when even one warp's share does not fit (caller falls
/// back to the team kernels). Host: 1.
template <class Exec>
int warp_rows_per_team(std::size_t per_warp, int max_rows) {
  if constexpr (is_host_exec<Exec>()) {
    (void)per_warp;
    (void)max_rows;
    return 1;
  } else {
    const std::size_t most = static_cast<std::size_t>(
        max_rows < 1 ? 1 : (max_rows > kWarpRowsMaxPerTeam ? kWarpRowsMaxPerTeam : max_rows));
    const std::size_t cap = static_cast<std::size_t>(Kokkos::TeamPolicy<Exec>::scratch_size_max(0));
    const std::size_t r = per_warp > 0 ? cap / per_warp : most;
    return static_cast<int>(r < most ? r : most);
  }
}

/// Scratch bytes of one warp of the symbolic kernel: its row's hash table (hash_slots(max_work)
/// columns) plus alignment slack.
template <class O>
std::size_t warp_symbolic_bytes(std::int64_t max_work) {
  return static_cast<std::size_t>(hash_slots(max_work > 0 ? max_work : 1)) * sizeof(O) + 16;
}

/// Symbolic of rows perm[begin, end) (work ≤ a warp bin's threshold): count (fill == false:
/// cnt(o) = unique columns) or fill (C's row = its sorted unique columns). One warp per row,
/// `R` rows per team (warp_rows_per_team); returns false without launching when R == 0.
/// The row's columns go into an open-addressing table in the warp's scratch (atomic CAS); fill
/// compacts the table in place (ballots), sorts the unique columns with a flip-bitonic network
/// (lanes in lock-step; heap sort on host) and writes them once.
/// Single pass: with a `stash` (count pass only), the count pass also writes each row's sorted
/// unique columns to stash + soff(p - begin) (soff: exclusive prefix of F over the range, so a
/// row's stash slice holds its F_i ≥ nnz(C row) columns), and the fill pass becomes
/// copy_stashed_rows — the rows are hashed once instead of twice.
template <class Exec, class Args, class StashOff>
bool symbolic_warp_rows(const Args& g, std::int64_t begin, std::int64_t end, bool fill,
                        std::int64_t max_work,
                        typename Args::EntC::non_const_value_type* stash, const StashOff& soff,
                        int max_rows) {
  using O = typename Args::EntC::non_const_value_type;
  using policy_t = warp_rows_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return true;
  constexpr int W = warp_lanes<Exec>();
  const std::size_t per_warp = warp_symbolic_bytes<O>(max_work);
  const int R = warp_rows_per_team<Exec>(per_warp, max_rows);
  if (R == 0) return false;
  const O empty = -1;  // columns are >= 0 (validated)
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const int lane = team.team_rank() % W;
    const int w = team.team_rank() / W;
    O* table = static_cast<O*>(team.team_scratch(0).get_shmem_aligned(per_warp * R, 16)) +
               static_cast<std::int64_t>(w) * (static_cast<std::int64_t>(per_warp) / sizeof(O));
    const std::int64_t p = begin + std::int64_t(team.league_rank()) * (team.team_size() / W) + w;
    if (p >= end) return;  // the whole warp leaves; no team barrier follows
    const auto i = g.perm(p);
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
    const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
    const std::int64_t F = g.work(i);
    const std::int64_t Hr = next_pow2_dev(F + (F >> 2) + 1);  // hash_slots(F): fits the warp's share
    for (std::int64_t t = lane; t < Hr; t += W) table[t] = empty;
    kkperm::detail::sync_warp_lanes();
    std::int64_t ins = 0;
    warp_for_each_product(
        g, a0, ka, lane, W, [&](std::int64_t, std::int64_t q) { return static_cast<O>(g.entB(q)); },
        [&](const O c, std::int64_t) { ins += hash_insert(table, Hr, c, empty); });
    const std::int64_t unique = kkperm::detail::warp_sum(ins, W);
    if (!fill) {
      if (lane == 0) g.cnt(o) = unique;
      if (stash == nullptr) return;
    }
    kkperm::detail::sync_warp_lanes();
    // compact in place: writes land at or below the slots this round read
    std::int64_t off = 0;
    const unsigned below = lane == 0 ? 0u : (0xffffffffu >> (32 - lane));
    for (std::int64_t b = 0; b < Hr; b += W) {
      const O c = b + lane < Hr ? table[b + lane] : empty;
      const unsigned m = kkperm::detail::warp_ballot(c != empty);
      kkperm::detail::sync_warp_lanes();
      if (c != empty) table[off + kkperm::detail::popcount32u(m & below)] = c;
      off += kkperm::detail::popcount32u(m);
      kkperm::detail::sync_warp_lanes();
    }
    if (W == 1) {
      serial_heap_sort(table, static_cast<int*>(nullptr), unique, false);
    } else {
      const std::int64_t P = next_pow2_dev(unique > 0 ? unique : 1);
      for (std::int64_t size = 2; size <= P; size <<= 1)
        for (std::int64_t stride = size >> 1; stride > 0; stride >>= 1) {
          for (std::int64_t t = lane; t < P / 2; t += W)
            flip_bitonic_step(table, static_cast<int*>(nullptr), unique, size, stride, t, false);
          kkperm::detail::sync_warp_lanes();
        }
    }
    O* out = fill ? g.entC.data() + static_cast<std::int64_t>(g.rowC(o)) : stash + soff(p - begin);
    for (std::int64_t t = lane; t < unique; t += W) out[t] = table[t];
  };
  const int rows = R;  // <= 8 warps: within the launch bounds (the kernel reads it from team_size)
  policy_t policy(static_cast<int>((end - begin + rows - 1) / rows), team_size_for<Exec>(rows * W));
  policy.set_scratch_size(0, Kokkos::PerTeam(per_warp * R));
  Kokkos::parallel_for(fill ? "kkperm::spgemm::esc::symbolic_fill_warp_rows"
                            : (stash != nullptr ? "kkperm::spgemm::esc::symbolic_count_stash_warp_rows"
                                                : "kkperm::spgemm::esc::symbolic_count_warp_rows"),
                       policy, body);
  return true;
}

/// out(j) = Σ_{j' < j} work(perm(b + j')) for j in [0, e - b] (stash offsets of the range).
template <class Exec, class PermView, class WorkView, class OutView>
void range_work_offsets(const PermView& perm, const WorkView& work, std::int64_t b, std::int64_t e,
                        const OutView& out) {
  exclusive_scan_to<Exec, std::int64_t>(
      "kkperm::spgemm::esc::stash_offsets", e - b,
      KOKKOS_LAMBDA(const std::int64_t j) { return static_cast<std::int64_t>(work(perm(b + j))); }, out);
}

/// Fill pass of the single-pass symbolic: C's row of position p = the cnt columns the count pass
/// stashed at stash + soff(p - begin). One warp per row, 8 rows per team, coalesced copies.
template <class Exec, class Args, class StashOff>
void copy_stashed_rows(const Args& g, std::int64_t begin, std::int64_t end,
                       const typename Args::EntC::non_const_value_type* stash, const StashOff& soff,
                       int max_rows) {
  using policy_t = warp_rows_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  constexpr int W = warp_lanes<Exec>();
  const int R = warp_rows_per_team<Exec>(0, max_rows);
  Kokkos::parallel_for(
      "kkperm::spgemm::esc::symbolic_copy_stashed_rows",
      policy_t(static_cast<int>((end - begin + R - 1) / R), team_size_for<Exec>(R * W)),
      KOKKOS_LAMBDA(const member_t& team) {
        const int lane = team.team_rank() % W;
        const std::int64_t p = begin + std::int64_t(team.league_rank()) * R + team.team_rank() / W;
        if (p >= end) return;
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(g.perm(p)) : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const std::int64_t nc = static_cast<std::int64_t>(g.rowC(o + 1)) - cb;
        const auto* src = stash + soff(p - begin);
        for (std::int64_t t = lane; t < nc; t += W) g.entC(cb + t) = src[t];
      });
}

/// Scratch bytes of one warp of the numeric kernel: the row's accumulators and its columns.
template <class V, class O>
std::size_t warp_numeric_bytes(std::int64_t max_c) {
  const std::size_t c = static_cast<std::size_t>(max_c > 0 ? max_c : 1);
  return (c * (sizeof(V) + sizeof(O)) + 15) / 16 * 16;
}

/// First numeric of rows perm[begin, end) by search (C's structure known, no slot map yet): one
/// warp per row, R rows per team. The row's columns are staged in the warp's scratch next to a
/// zeroed accumulator; each product finds its column by binary search there and adds a·b
/// atomically (scratch); with `record` its position goes to slot(aprod(a0) + t) (t: index of the
/// product in the row, product order). A product whose column is not in C's row raises `missing`.
/// Returns false without launching when one warp's share does not fit a team's scratch.
template <class Exec, class Args, class Flag, class AprodView, class SlotView>
bool numeric_warp_rows(const Args& g, std::int64_t begin, std::int64_t end, std::int64_t max_c,
                       const Flag& missing, const AprodView& aprod, const SlotView& slot,
                       bool record, int max_rows) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using S = typename SlotView::non_const_value_type;
  using policy_t = warp_rows_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return true;
  constexpr int W = warp_lanes<Exec>();
  const std::int64_t cap = max_c > 0 ? max_c : 1;
  const std::size_t per_warp = warp_numeric_bytes<V, O>(cap);
  const int R = warp_rows_per_team<Exec>(per_warp, max_rows);
  if (R == 0) return false;
  const auto body = KOKKOS_LAMBDA(const member_t& team) {
    const int lane = team.team_rank() % W;
    const int w = team.team_rank() / W;
    char* mine = static_cast<char*>(team.team_scratch(0).get_shmem_aligned(per_warp * R, 16)) +
                 static_cast<std::size_t>(w) * per_warp;
    V* acc = reinterpret_cast<V*>(mine);
    O* cols = reinterpret_cast<O*>(mine + static_cast<std::size_t>(cap) * sizeof(V));
    const std::int64_t p = begin + std::int64_t(team.league_rank()) * (team.team_size() / W) + w;
    if (p >= end) return;
    const auto i = g.perm(p);
    const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
    const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
    const std::int64_t nc = static_cast<std::int64_t>(g.rowC(o + 1)) - cb;
    const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
    const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
    for (std::int64_t t = lane; t < nc; t += W) {
      cols[t] = g.entC(cb + t);
      acc[t] = V(0);
    }
    kkperm::detail::sync_warp_lanes();
    const std::int64_t first = record ? static_cast<std::int64_t>(aprod(a0)) : 0;
    int miss = 0;
    warp_for_each_product(
        g, a0, ka, lane, W,
        [&](std::int64_t pa, std::int64_t q) {
          return ColVal<O, V>{static_cast<O>(g.entB(q)), g.valA(pa) * g.valB(q)};
        },
        [&](const ColVal<O, V>& cv, std::int64_t t) {
          std::int64_t lo = 0, hi = nc;
          while (lo < hi) {
            const std::int64_t mid = (lo + hi) >> 1;
            if (cols[mid] < cv.col) lo = mid + 1;
            else hi = mid;
          }
          if (lo >= nc || cols[lo] != cv.col) {
            miss = 1;
          } else {
            Kokkos::atomic_add(&acc[lo], cv.val);
            if (record) slot(first + t) = static_cast<S>(lo);
          }
        });
    kkperm::detail::sync_warp_lanes();
    for (std::int64_t t = lane; t < nc; t += W) g.valC(cb + t) = acc[t];
    if (miss) missing() = 1;
  };
  const int rows = R;  // <= 8 warps: within the launch bounds (the kernel reads it from team_size)
  policy_t policy(static_cast<int>((end - begin + rows - 1) / rows), team_size_for<Exec>(rows * W));
  policy.set_scratch_size(0, Kokkos::PerTeam(per_warp * R));
  Kokkos::parallel_for("kkperm::spgemm::esc::numeric_warp_rows", policy, body);
  return true;
}

}  // namespace kkperm::spgemm::esc_impl
