#pragma once
/**
 * @brief Reverse Cuthill-McKee on the host (inherently sequential BFS), on the symmetrized
 * pattern of A + A^T (self loops ignored). Deterministic: each connected component starts from a
 * pseudo-peripheral vertex found by repeated BFS from a minimum-degree vertex (George-Liu, lowest
 * index on ties); neighbours are visited by increasing degree, then index; the whole Cuthill-McKee
 * order is reversed. The result is a symmetric permutation (rows and columns).
 * Precondition: square matrix (throws std::invalid_argument otherwise).
 */
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/core/host_csr.hpp"

namespace kkperm {

template <class V, class O, class F>
std::vector<O> rcm_order(const HostCsr<V, O, F>& h) {
  KKPERM_REQUIRE(h.num_rows == h.num_cols,
                 "kkperm::rcm_order: RCM needs a square matrix, got " << h.num_rows << " x " << h.num_cols);
  const std::int64_t n = h.num_rows;
  std::vector<std::vector<O>> adj(n);
  for (std::int64_t i = 0; i < n; ++i)
    for (F k = h.row_map[i]; k < h.row_map[i + 1]; ++k) {
      const O j = h.entries[k];
      if (j == i) continue;
      adj[i].push_back(j);
      adj[j].push_back(static_cast<O>(i));
    }
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  std::vector<std::int64_t> deg(n);
  for (std::int64_t i = 0; i < n; ++i) deg[i] = static_cast<std::int64_t>(adj[i].size());
  for (auto& a : adj)
    std::stable_sort(a.begin(), a.end(), [&](O x, O y) { return deg[x] < deg[y]; });

  std::vector<std::int64_t> level(n, -1);
  // BFS levels from s restricted to unvisited-in-order vertices; returns (last level vertices).
  auto bfs_last_level = [&](std::int64_t s, const std::vector<char>& done, std::int64_t& depth) {
    std::vector<std::int64_t> touched{s}, frontier{s};
    level[s] = 0;
    depth = 0;
    std::vector<std::int64_t> last = frontier;
    while (!frontier.empty()) {
      last = frontier;
      std::vector<std::int64_t> next;
      for (auto v : frontier)
        for (O u : adj[v])
          if (!done[u] && level[u] < 0) {
            level[u] = level[v] + 1;
            next.push_back(u);
            touched.push_back(u);
          }
      if (!next.empty()) ++depth;
      frontier.swap(next);
    }
    for (auto v : touched) level[v] = -1;
    return last;
  };

  std::vector<char> done(n, 0);
  std::vector<O> order;
  order.reserve(n);
  std::vector<std::int64_t> by_degree(n);
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::stable_sort(by_degree.begin(), by_degree.end(), [&](auto a, auto b) { return deg[a] < deg[b]; });
  for (std::int64_t s0 : by_degree) {
    if (done[s0]) continue;
    // pseudo-peripheral start
    std::int64_t s = s0, depth = 0;
    auto last = bfs_last_level(s, done, depth);
    for (int it = 0; it < 8; ++it) {
      std::int64_t cand = *std::min_element(last.begin(), last.end(), [&](auto a, auto b) {
        return deg[a] < deg[b] || (deg[a] == deg[b] && a < b);
      });
      std::int64_t d2 = 0;
      auto last2 = bfs_last_level(cand, done, d2);
      if (d2 <= depth) break;
      s = cand;
      depth = d2;
      last = last2;
    }
    // Cuthill-McKee BFS from s
    std::size_t head = order.size();
    order.push_back(static_cast<O>(s));
    done[s] = 1;
    while (head < order.size()) {
      const O v = order[head++];
      for (O u : adj[v])
        if (!done[u]) {
          done[u] = 1;
          order.push_back(u);
        }
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

/// Bandwidth max |i - j| over the nonzeros of the symmetrically permuted pattern (perm: new -> old).
template <class V, class O, class F>
std::int64_t permuted_bandwidth(const HostCsr<V, O, F>& h, const std::vector<O>& perm) {
  std::vector<std::int64_t> inv(perm.size());
  for (std::size_t p = 0; p < perm.size(); ++p) inv[perm[p]] = static_cast<std::int64_t>(p);
  std::int64_t bw = 0;
  for (O i = 0; i < h.num_rows; ++i)
    for (F k = h.row_map[i]; k < h.row_map[i + 1]; ++k)
      bw = std::max<std::int64_t>(bw, std::abs(inv[i] - inv[h.entries[k]]));
  return bw;
}

}  // namespace kkperm
