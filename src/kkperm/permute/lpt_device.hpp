#pragma once
/**
 * @brief device_lpt_order(A, Nt, Nw): the LPT order of reference.hpp (detail::lpt_order) built on
 * A's execution space, equal to the serial greedy entry for entry.
 *
 * Serial rule (reference.hpp): rows by load descending (stable); each row goes to the warp with
 * the smallest load so far among the warps with a free stripe slot (ties: lowest warp index);
 * at most r = n - (B-1)*Nw warps may reach B = ceil(n/Nw) rows; warps holding B rows are then
 * relabelled 0..r-1 (stable), the others r..Nw-1; warp w's k-th row sits at position w + k*Nw.
 *
 * Why it parallelizes: rows of EQUAL load L form a group (consecutive in the sorted order).
 * Within a group every pick adds L to the chosen warp, so warp w offers the keys
 * (wl_w + k*L, w), k = 0 .. cap_w-1, and the greedy takes the m smallest keys of the merge
 * (m = group size). With L > 0, write wl_w = q_w*L + rho_w (0 <= rho_w < L): key k of warp w is
 * ((q_w + k)*L + rho_w, w), so the merge runs in "rounds" t = q_w + k, and inside every round the
 * warps come in one fixed order pi = sort by (rho_w, w); warp w is active in rounds
 * [q_w, q_w + cap_w). With L = 0 the keys are (wl_w, w, k): pi = sort by (wl_w, w), each warp's
 * slots consecutively. The capacity rule (a warp's B-th slot is available only while fewer than
 * r warps are full) keeps the first r - full B-th-slot keys in merge order and drops the others
 * (those warps' cap shrinks by one); acceptance of a B-th key depends only on earlier B-th keys.
 * Between the sorted breakpoints {q_w, q_w + cap_w} the active set is constant, so a group is at
 * most 2*Nw+1 "segments" (start pick, first round, active count).
 *
 * Where it runs: loads + plain-sort order + group boundaries on A's space; per group the warp
 * schedule (pi, q, cap, segments, picks per warp; O(Nw log Nw)) on the host - there are at most
 * sqrt(2 * sum of loads) groups; then one kernel places every row: binary search of its segment,
 * (round, index) from its rank, O(Nw) scan of pi for the warp, slot = rows the warp held before
 * the group + (round - q_w). Host <-> device traffic: O(groups) in, O(groups * Nw) out (one copy each way).
 */
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/workspace.hpp"

namespace kkperm::detail {

/// Host schedule of the LPT greedy over load groups (see the header). Inputs: group sizes and
/// loads in sorted (descending) order; outputs per-group warp tables and the segment list.
struct LptSchedule {
  int nw = 0;
  std::vector<int> pi;                   ///< G*Nw: warp order inside a round
  std::vector<std::int64_t> q, cap, c0;  ///< G*Nw: first round, slots in this group, rows before
  std::vector<std::int64_t> seg_start;   ///< global rank of each segment's first pick (ascending)
  std::vector<std::int64_t> seg_round;   ///< first round of the segment (L = 0: unused)
  std::vector<int> seg_active;           ///< active warps per round (L = 0: 1)
  std::vector<int> seg_warp;             ///< L = 0: the segment's only warp; -1 otherwise
  std::vector<int> seg_group;
  std::vector<int> label;                ///< Nw: final warp label (full warps first, stable)

  void build(const std::vector<std::int64_t>& gsize, const std::vector<std::int64_t>& gload, std::int64_t n,
             int nw_) {
    nw = nw_;
    const std::size_t G = gsize.size();
    const std::int64_t B = (n + nw - 1) / nw;
    const std::int64_t r = n - (B - 1) * nw;
    pi.assign(G * nw, 0);
    q.assign(G * nw, 0);
    cap.assign(G * nw, 0);
    c0.assign(G * nw, 0);
    std::vector<std::int64_t> wl(nw, 0), cnt(nw, 0), picks(nw, 0);
    std::int64_t full = 0, base = 0;
    std::vector<int> ord(nw), bth;
    std::vector<std::pair<std::int64_t, int>> ev;  // (round, +1/-1)
    for (std::size_t g = 0; g < G; ++g) {
      const std::int64_t L = gload[g], m = gsize[g];
      std::int64_t* qg = &q[g * nw];
      std::int64_t* cg = &cap[g * nw];
      std::iota(ord.begin(), ord.end(), 0);
      if (L > 0) {
        for (int w = 0; w < nw; ++w) qg[w] = wl[w] / L;
        std::sort(ord.begin(), ord.end(), [&](int a, int b) {
          const std::int64_t ra = wl[a] % L, rb = wl[b] % L;
          return ra != rb ? ra < rb : a < b;
        });
      } else {
        std::sort(ord.begin(), ord.end(), [&](int a, int b) { return wl[a] != wl[b] ? wl[a] < wl[b] : a < b; });
      }
      std::vector<int> rank(nw);
      for (int u = 0; u < nw; ++u) {
        pi[g * nw + u] = ord[u];
        rank[ord[u]] = u;
      }
      // Raw capacity, then the B-th-slot rule: keep the first (r - full) B-th keys in merge order.
      bth.clear();
      for (int w = 0; w < nw; ++w) {
        c0[g * nw + w] = cnt[w];
        cg[w] = B - cnt[w];
        if (cg[w] >= 1) bth.push_back(w);
      }
      std::sort(bth.begin(), bth.end(), [&](int a, int b) {
        if (L > 0) {
          const std::int64_t ta = qg[a] + cg[a] - 1, tb = qg[b] + cg[b] - 1;
          if (ta != tb) return ta < tb;
        }
        return rank[a] < rank[b];
      });
      const std::int64_t allow = std::max<std::int64_t>(0, r - full);
      for (std::size_t k = static_cast<std::size_t>(std::min<std::int64_t>(allow, bth.size())); k < bth.size(); ++k)
        --cg[bth[k]];
      // Segments up to pick m, and the picks of every warp among the first m.
      std::int64_t local = 0;
      std::fill(picks.begin(), picks.end(), 0);
      if (L == 0) {
        for (int u = 0; u < nw && local < m; ++u) {
          const int w = ord[u];
          if (cg[w] <= 0) continue;
          add_segment(base + local, 0, 1, w, static_cast<int>(g));
          picks[w] = std::min(cg[w], m - local);
          local += picks[w];
        }
      } else {
        ev.clear();
        for (int w = 0; w < nw; ++w)
          if (cg[w] > 0) {
            ev.emplace_back(qg[w], +1);
            ev.emplace_back(qg[w] + cg[w], -1);
          }
        std::sort(ev.begin(), ev.end());
        int active = 0;
        std::int64_t cut_round = -1, cut_index = 0;  // pick m lies in round cut_round at index cut_index
        for (std::size_t e = 0; e < ev.size() && local < m;) {
          const std::int64_t t = ev[e].first;
          while (e < ev.size() && ev[e].first == t) active += ev[e++].second;
          if (active == 0 || e == ev.size()) continue;
          const std::int64_t t_next = ev[e].first;
          add_segment(base + local, t, active, -1, static_cast<int>(g));
          const std::int64_t cnt_seg = (t_next - t) * active;
          if (local + cnt_seg >= m) {
            cut_round = t + (m - local) / active;
            cut_index = (m - local) % active;
          }
          local += cnt_seg;
        }
        KKPERM_ASSERT(local >= m, "LPT schedule ran out of warp slots");
        KKPERM_ASSERT(cut_round >= 0, "LPT schedule: no cut");
        std::int64_t seen = 0;  // active warps of cut_round already passed in pi order
        for (int u = 0; u < nw; ++u) {
          const int w = ord[u];
          const std::int64_t k = std::min(std::max<std::int64_t>(cut_round - qg[w], 0), std::max<std::int64_t>(cg[w], 0));
          const bool act = cg[w] > 0 && qg[w] <= cut_round && cut_round < qg[w] + cg[w];
          picks[w] = k + (act && seen < cut_index ? 1 : 0);
          if (act) ++seen;
        }
      }
      std::int64_t total = 0;
      for (int w = 0; w < nw; ++w) {
        cnt[w] += picks[w];
        wl[w] += picks[w] * L;
        total += picks[w];
      }
      KKPERM_ASSERT(total == m, "LPT schedule: picks " << total << " != group size " << m);
      full = 0;
      for (int w = 0; w < nw; ++w) full += cnt[w] == B ? 1 : 0;
      base += m;
    }
    label.assign(nw, 0);
    int next_full = 0, next_other = static_cast<int>(r);
    for (int w = 0; w < nw; ++w) label[w] = cnt[w] == B ? next_full++ : next_other++;
    KKPERM_ASSERT(next_full == r, "LPT schedule: " << next_full << " full warps, expected " << r);
  }

 private:
  void add_segment(std::int64_t start, std::int64_t round, int active, int warp, int group) {
    seg_start.push_back(start);
    seg_round.push_back(round);
    seg_active.push_back(active);
    seg_warp.push_back(warp);
    seg_group.push_back(group);
  }
};

/**
 * @brief LPT placement on Exec: `sorted` is the plain-sort order (rows by load descending, ties
 * by index), `load` the row loads (both on Mem) and `max_load` their maximum. Returns perm
 * (new -> old) on Mem, equal to lpt_order(loads, Nw). Scratch comes from the workspace.
 */
template <class Exec, class SortedView, class LoadView>
Kokkos::View<typename SortedView::non_const_value_type*, typename SortedView::memory_space> device_lpt_place(
    const SortedView& sorted, const LoadView& load, std::int64_t max_load, int nw) {
  using O = typename SortedView::non_const_value_type;
  using Mem = typename SortedView::memory_space;
  const std::int64_t n = static_cast<std::int64_t>(sorted.extent(0));
  Kokkos::View<O*, Mem> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::permute::lpt"), n);
  if (n == 0) return out;
  // Group boundaries of the sorted order (positions where the load changes): loads are in
  // [0, max_load] and each present load starts exactly one group, so first[L] = start + 1 (0 =
  // absent) needs no count or scan, and one copy brings every group to the host (was a count
  // reduction, a scan and a copy: three synchronizations).
  Workspace<Mem> ws(Workspace<Mem>::template bytes_for<std::int64_t>(max_load + 1));
  const auto zero_from = ws.mark();
  auto first = ws.template take<std::int64_t>(max_load + 1);
  ws.template zero_since<Exec>(zero_from);
  kkperm::parallel_for(
      "kkperm::lpt::groups", kkperm::range_policy<Exec>(0, n), KOKKOS_LAMBDA(const std::int64_t p) {
        const std::int64_t l = load(sorted(p));
        if (p == 0 || l != load(sorted(p - 1))) first(l) = p + 1;
      });
  std::vector<std::int64_t> hf(static_cast<std::size_t>(max_load + 1));
  Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(hf.data(), hf.size()), first);
  std::vector<std::int64_t> gstart, gload;
  for (std::int64_t l = max_load; l >= 0; --l)  // descending load = ascending position
    if (hf[l] > 0) {
      gstart.push_back(hf[l] - 1);
      gload.push_back(l);
    }
  const std::int64_t G = static_cast<std::int64_t>(gstart.size());
  std::vector<std::int64_t> gsize(G);
  for (std::int64_t g = 0; g < G; ++g) gsize[g] = (g + 1 < G ? gstart[g + 1] : n) - gstart[g];
  LptSchedule s;
  s.build(gsize, gload, n, nw);
  // Every schedule table travels in one int64 buffer: one allocation and one host -> device copy
  // (was ten, each a cudaMalloc + synchronous copy on CUDA).
  const std::int64_t nt = static_cast<std::int64_t>(s.pi.size());  // G * Nw
  const std::int64_t ns = static_cast<std::int64_t>(s.seg_start.size());
  std::vector<std::int64_t> packed;
  packed.reserve(static_cast<std::size_t>(4 * nt + 5 * ns + nw));
  auto append = [&packed](const auto& v) { packed.insert(packed.end(), v.begin(), v.end()); };
  append(s.pi), append(s.q), append(s.cap), append(s.c0);
  append(s.seg_start), append(s.seg_round), append(s.seg_active), append(s.seg_warp),
      append(s.seg_group), append(s.label);
  Workspace<Mem> ws_tables(Workspace<Mem>::template bytes_for<std::int64_t>(packed.size()));
  const auto tables = ws_tables.template take<std::int64_t>(packed.size());
  Kokkos::deep_copy(tables, Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                packed.data(), packed.size()));
  using range = std::pair<std::int64_t, std::int64_t>;
  auto part = [&tables](std::int64_t& at, std::int64_t len) {
    auto v = Kokkos::subview(tables, range(at, at + len));
    at += len;
    return v;
  };
  std::int64_t at = 0;
  const auto pi = part(at, nt), q = part(at, nt), cap = part(at, nt), c0 = part(at, nt);
  const auto seg_start = part(at, ns), seg_round = part(at, ns), seg_active = part(at, ns),
             seg_warp = part(at, ns), seg_group = part(at, ns);
  const auto label = part(at, nw);
  const std::int64_t S = static_cast<std::int64_t>(s.seg_start.size());
  kkperm::parallel_for(
      "kkperm::lpt::place", kkperm::range_policy<Exec>(0, n), KOKKOS_LAMBDA(const std::int64_t j) {
        std::int64_t lo = 0, hi = S;  // last segment with seg_start <= j
        while (hi - lo > 1) {
          const std::int64_t mid = (lo + hi) / 2;
          if (seg_start(mid) <= j) lo = mid;
          else hi = mid;
        }
        const std::int64_t off = j - seg_start(lo);
        const std::int64_t gb = seg_group(lo) * nw;
        std::int64_t w = seg_warp(lo);
        std::int64_t k = off;  // pick index of w inside the group
        if (w < 0) {
          const std::int64_t a = seg_active(lo);
          const std::int64_t t = seg_round(lo) + off / a;
          std::int64_t idx = off % a;
          for (int u = 0; u < nw; ++u) {
            const std::int64_t v = pi(gb + u);
            if (q(gb + v) <= t && t < q(gb + v) + cap(gb + v)) {
              if (idx == 0) {
                w = v;
                break;
              }
              --idx;
            }
          }
          k = t - q(gb + w);
        }
        const std::int64_t slot = c0(gb + w) + k;
        out(label(w) + slot * nw) = sorted(j);
      });
  return out;
}

}  // namespace kkperm::detail
