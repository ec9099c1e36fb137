#pragma once
/**
 * @brief Serial reference builders (host, HostCsr) of every permutation, written literally from
 * the definitions. The Hamming orders are the exact O(n^2 * row length) greedy: use for tests and
 * small n. Definitions (Nt, Nw, cpl from PermuteParams::feature; load_i = ceil(nnz_i / Nt); mask
 * distance d(a, b) = Hamming distance of the cache-line masks of rows a and b):
 *
 *  - identity: perm[p] = p.
 *  - plain_sort: stable sort by load, descending (equal loads keep their original order).
 *  - flipped_sort: plain_sort, then the positions of every odd group g (positions [g*Nw,
 *    (g+1)*Nw) clipped to n) are reversed, so the largest load of a group alternates between
 *    warp 0 and the group's last warp.
 *  - lpt: rows by load descending (stable); each goes to the warp with the smallest load so far
 *    among the warps that still have a free stripe position (ties: lowest warp index). Stripe
 *    capacity: with B = ceil(n / Nw) blocks and r = n - (B-1)*Nw, exactly r warps hold B rows and
 *    the others B-1 (CHOICE: warp identity is free, so the capacity rule is "at most r warps
 *    reach B rows"; afterwards warps are relabelled so the full ones are warps 0..r-1, keeping
 *    relative order). Warp w's rows then sit at positions w, w+Nw, ... in assignment order.
 *  - warp_aware: the first min(Nw, n) positions take the rows of lowest load (ascending, ties by
 *    row index); every next position p takes the unplaced row minimizing d(row, perm[p-Nw]).
 *  - cta_aware: clusters of Nw consecutive positions; position p with p mod Nw == 0 takes the
 *    lowest-index unplaced row (CHOICE: the cluster seed), every other position the unplaced row
 *    minimizing d(row, perm[p-1]).
 *  - hybrid_1: load-balancing sort (load descending) where rows of equal load are ordered
 *    greedily: each next row is the unplaced row of the current (largest remaining) load that
 *    minimizes d(row, perm[p-1]); the first row is the lowest-index row of the largest load.
 *  - hybrid_2_1: cta_aware with distance ties broken by larger load (CHOICE: larger first, the
 *    direction of plain_sort). hybrid_2_2: cta_aware with ties broken by smaller
 *    d(row, perm[p-Nw]) (no tie-break for p < Nw). hybrid_2_3: warp_aware with ties broken by
 *    larger load.
 *  - Every remaining tie goes to the lowest original row index.
 *  - rcm, dcsr: see rcm.hpp / dcsr.hpp.
 */
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <tuple>
#include <vector>

#include "kkperm/core/host_csr.hpp"
#include "kkperm/features/int_stats.hpp"
#include "kkperm/permute/permutation.hpp"

namespace kkperm {

template <class V, class O, class F>
std::vector<std::int64_t> row_loads(const HostCsr<V, O, F>& h, int nt) {
  std::vector<std::int64_t> l(h.num_rows);
  for (O i = 0; i < h.num_rows; ++i)
    l[i] = (static_cast<std::int64_t>(h.row_map[i + 1] - h.row_map[i]) + nt - 1) / nt;
  return l;
}

/// Sorted, unique cache-line ids of every row.
template <class V, class O, class F>
std::vector<std::vector<std::int64_t>> row_lines(const HostCsr<V, O, F>& h, int cpl) {
  std::vector<std::vector<std::int64_t>> lines(h.num_rows);
  for (O i = 0; i < h.num_rows; ++i) {
    for (F k = h.row_map[i]; k < h.row_map[i + 1]; ++k) lines[i].push_back(h.entries[k] / cpl);
    std::sort(lines[i].begin(), lines[i].end());
    lines[i].erase(std::unique(lines[i].begin(), lines[i].end()), lines[i].end());
  }
  return lines;
}

inline std::int64_t line_set_distance(const std::vector<std::int64_t>& a,
                                      const std::vector<std::int64_t>& b) {
  std::size_t i = 0, j = 0;
  std::int64_t common = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] < b[j]) ++i;
    else if (b[j] < a[i]) ++j;
    else { ++common; ++i; ++j; }
  }
  return static_cast<std::int64_t>(a.size() + b.size()) - 2 * common;
}

/// Sum over p of d(perm[p], perm[p+1]): the objective the Hamming orders reduce.
template <class V, class O, class F>
std::int64_t total_adjacent_distance(const HostCsr<V, O, F>& h, const std::vector<O>& perm,
                                     int cpl) {
  const auto lines = row_lines(h, cpl);
  std::int64_t t = 0;
  for (std::size_t p = 0; p + 1 < perm.size(); ++p) t += line_set_distance(lines[perm[p]], lines[perm[p + 1]]);
  return t;
}

/// Sum over p >= Nw of d(perm[p], perm[p-Nw]) (intra-warp objective of warp_aware).
template <class V, class O, class F>
std::int64_t total_intra_warp_distance(const HostCsr<V, O, F>& h, const std::vector<O>& perm,
                                       int cpl, int nw) {
  const auto lines = row_lines(h, cpl);
  std::int64_t t = 0;
  for (std::size_t p = nw; p < perm.size(); ++p) t += line_set_distance(lines[perm[p]], lines[perm[p - nw]]);
  return t;
}

/// Loads of the Nw warps under the stripe rule (row at position p -> warp p mod Nw).
template <class O>
std::vector<std::int64_t> warp_loads_of(const std::vector<std::int64_t>& load, const std::vector<O>& perm,
                                        int nw) {
  std::vector<std::int64_t> w(nw, 0);
  for (std::size_t p = 0; p < perm.size(); ++p) w[p % nw] += load[perm[p]];
  return w;
}

namespace detail {

template <class O>
std::vector<O> plain_sort_order(const std::vector<std::int64_t>& load) {
  std::vector<O> p(load.size());
  std::iota(p.begin(), p.end(), O(0));
  std::stable_sort(p.begin(), p.end(), [&](O a, O b) { return load[a] > load[b]; });
  return p;
}

template <class O>
void flip_odd_groups(std::vector<O>& p, int nw) {
  for (std::size_t g0 = nw; g0 < p.size(); g0 += 2 * static_cast<std::size_t>(nw))
    std::reverse(p.begin() + g0, p.begin() + std::min(p.size(), g0 + nw));
}

template <class O>
std::vector<O> lpt_order(const std::vector<std::int64_t>& load, int nw) {
  const std::int64_t n = static_cast<std::int64_t>(load.size());
  std::vector<O> out(n);
  if (n == 0) return out;
  const std::int64_t B = (n + nw - 1) / nw;
  const std::int64_t r = n - (B - 1) * nw;  // warps holding B rows
  const auto sorted = plain_sort_order<O>(load);
  std::vector<std::vector<O>> bins(nw);
  std::vector<std::int64_t> wl(nw, 0);
  std::int64_t full = 0;
  for (O row : sorted) {
    int best = -1;
    for (int w = 0; w < nw; ++w) {
      const std::int64_t cnt = static_cast<std::int64_t>(bins[w].size());
      if (cnt >= B) continue;
      if (cnt == B - 1 && full >= r) continue;  // once r warps hold B rows, the rest stop at B-1
      if (best < 0 || wl[w] < wl[best]) best = w;
    }
    KKPERM_ASSERT(best >= 0, "LPT found no warp with a free stripe position");
    bins[best].push_back(row);
    wl[best] += load[row];
    if (static_cast<std::int64_t>(bins[best].size()) == B) ++full;
  }
  // Relabel: bins holding B rows become warps 0..r-1 (stable), the others r..Nw-1.
  std::vector<int> order(nw);
  std::iota(order.begin(), order.end(), 0);
  std::stable_partition(order.begin(), order.end(),
                        [&](int w) { return static_cast<std::int64_t>(bins[w].size()) == B; });
  for (int w = 0; w < nw; ++w)
    for (std::size_t k = 0; k < bins[order[w]].size(); ++k) out[w + k * nw] = bins[order[w]][k];
  return out;
}

enum class Greedy { warp_aware, cta_aware, hybrid_1, hybrid_2_1, hybrid_2_2, hybrid_2_3 };

inline Greedy greedy_of(Permutation p) {
  switch (p) {
    case Permutation::warp_aware: return Greedy::warp_aware;
    case Permutation::cta_aware: return Greedy::cta_aware;
    case Permutation::hybrid_1: return Greedy::hybrid_1;
    case Permutation::hybrid_2_1: return Greedy::hybrid_2_1;
    case Permutation::hybrid_2_2: return Greedy::hybrid_2_2;
    case Permutation::hybrid_2_3: return Greedy::hybrid_2_3;
    default: KKPERM_THROW(std::invalid_argument, "kkperm: " << to_string(p) << " is not a Hamming order");
  }
}

template <class O>
std::vector<O> exact_greedy(const std::vector<std::vector<std::int64_t>>& lines,
                            const std::vector<std::int64_t>& load, int nw, Greedy g) {
  const std::int64_t n = static_cast<std::int64_t>(lines.size());
  std::vector<O> out;
  out.reserve(n);
  std::vector<char> placed(n, 0);
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t>;  // (primary, tie, row)
  auto pick = [&](auto key_of) {
    Key best{std::numeric_limits<std::int64_t>::max(), 0, 0};
    std::int64_t arg = -1;
    for (std::int64_t c = 0; c < n; ++c) {
      if (placed[c]) continue;
      const Key k = key_of(c);
      if (arg < 0 || k < best) { best = k; arg = c; }
    }
    placed[arg] = 1;
    out.push_back(static_cast<O>(arg));
  };
  const bool warp_mode = g == Greedy::warp_aware || g == Greedy::hybrid_2_3;
  for (std::int64_t p = 0; p < n; ++p) {
    if (warp_mode) {
      if (p < nw) {
        pick([&](std::int64_t c) { return Key{load[c], 0, c}; });
      } else {
        const auto& ref = lines[out[p - nw]];
        pick([&](std::int64_t c) {
          return Key{line_set_distance(lines[c], ref), g == Greedy::hybrid_2_3 ? -load[c] : 0, c};
        });
      }
    } else if (g == Greedy::hybrid_1) {
      std::int64_t L = -1;
      for (std::int64_t c = 0; c < n; ++c)
        if (!placed[c]) L = std::max(L, load[c]);
      if (p == 0) {
        pick([&](std::int64_t c) { return Key{load[c] == L ? 0 : 1, 0, c}; });
      } else {
        const auto& prev = lines[out[p - 1]];
        pick([&](std::int64_t c) {
          return Key{load[c] == L ? 0 : 1, line_set_distance(lines[c], prev), c};
        });
      }
    } else {  // cta_aware, hybrid_2_1, hybrid_2_2
      if (p % nw == 0) {
        pick([&](std::int64_t c) { return Key{0, 0, c}; });
      } else {
        const auto& prev = lines[out[p - 1]];
        pick([&](std::int64_t c) {
          std::int64_t tie = 0;
          if (g == Greedy::hybrid_2_1) tie = -load[c];
          if (g == Greedy::hybrid_2_2 && p >= nw) tie = line_set_distance(lines[c], lines[out[p - nw]]);
          return Key{line_set_distance(lines[c], prev), tie, c};
        });
      }
    }
  }
  return out;
}

}  // namespace detail

/**
 * @brief Serial reference of every permutation except RCM/DCSR (see rcm.hpp, dcsr.hpp for those,
 * and build_permutation_serial in build.hpp for the complete dispatch). Hamming orders use the
 * exact greedy regardless of params.hamming.
 */
template <class V, class O, class F>
std::vector<O> reference_order(const HostCsr<V, O, F>& h, Permutation kind, const PermuteParams& params) {
  const int nw = params.feature.warps_per_block;
  const auto load = row_loads(h, params.feature.warp_size);
  switch (kind) {
    case Permutation::identity: {
      std::vector<O> p(h.num_rows);
      std::iota(p.begin(), p.end(), O(0));
      return p;
    }
    case Permutation::plain_sort: return detail::plain_sort_order<O>(load);
    case Permutation::flipped_sort: {
      auto p = detail::plain_sort_order<O>(load);
      detail::flip_odd_groups(p, nw);
      return p;
    }
    case Permutation::lpt: return detail::lpt_order<O>(load, nw);
    default: break;
  }
  const auto lines = row_lines(h, params.feature.cols_per_line(sizeof(V)));
  return detail::exact_greedy<O>(lines, load, nw, detail::greedy_of(kind));
}

}  // namespace kkperm
