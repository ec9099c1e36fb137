#pragma once
// Device kernels of the ESC SpGEMM (expansion, sorting, contraction). Internal: use
// kkperm/kernels/spgemm/esc_spgemm.hpp. All kernels are free functions (nvcc rule: no
// KOKKOS_LAMBDA in constructors or private members) working on raw views; the caller owns plans.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace kkperm::spgemm::esc_impl {

/// Compile-time capacity of the one-thread bin: the expanded row lives in per-thread arrays
/// (registers/local memory on CUDA), so the runtime threshold thread_max may not exceed it.
inline constexpr int kThreadCapacity = 32;

inline std::int64_t next_pow2(std::int64_t x) {
  std::int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

KOKKOS_INLINE_FUNCTION std::int64_t next_pow2_dev(std::int64_t x) {
  std::int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

template <class Exec>
constexpr bool is_host_exec() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
}

template <class Exec>
int team_size_for(int requested) {
  if constexpr (is_host_exec<Exec>()) return 1;
  else return requested;
}

/// Order-independent 64-bit hash of a CRS structure (dims, row_map, entries), used to check
/// that numeric reuse receives the matrices the symbolic phase saw.
template <class Exec, class RowMap, class Entries>
std::uint64_t structure_hash(const RowMap& row_map, const Entries& entries, std::int64_t n) {
  std::uint64_t h = 0;
  Kokkos::parallel_reduce(
      "kkperm::spgemm::esc::structure_hash", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& acc) {
        const std::int64_t b = static_cast<std::int64_t>(row_map(i));
        const std::int64_t e = static_cast<std::int64_t>(row_map(i + 1));
        for (std::int64_t p = b; p < e; ++p) {
          std::uint64_t z = (static_cast<std::uint64_t>(i) << 32) ^
                            static_cast<std::uint64_t>(entries(p)) ^
                            (static_cast<std::uint64_t>(p - b) << 52);
          z += 0x9E3779B97F4A7C15ull;  // splitmix64 finaliser
          z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
          z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
          acc += z ^ (z >> 31);
        }
      },
      h);
  return h;
}

/// F_i = Σ_{k in row i of A} nnz(B row k) into `work`; returns {Σ F_i, max F_i}.
template <class Exec, class RA, class EA, class RB, class WorkView>
void row_work(const RA& rowA, const EA& entA, const RB& rowB, const WorkView& work, std::int64_t n,
              std::int64_t& sum, std::int64_t& maxw) {
  sum = 0;
  maxw = 0;
  Kokkos::parallel_reduce(
      "kkperm::spgemm::esc::row_work", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& s, std::int64_t& m) {
        std::int64_t f = 0;
        for (auto p = rowA(i); p < rowA(i + 1); ++p) {
          const auto k = entA(p);
          f += static_cast<std::int64_t>(rowB(k + 1) - rowB(k));
        }
        work(i) = f;
        s += f;
        if (f > m) m = f;
      },
      sum, Kokkos::Max<std::int64_t>(maxw));
}

/// Bin of row i: work used for binning is max(F_i, nnz(A row i)) so every per-row scratch
/// array (expanded products and the prefix over A's row) is bounded by the bin's capacity.
KOKKOS_INLINE_FUNCTION int bin_of(std::int64_t w, std::int64_t t0, std::int64_t t1, std::int64_t t2) {
  return w <= t0 ? 0 : (w <= t1 ? 1 : (w <= t2 ? 2 : 3));
}

/// Groups rows by bin (stable within a bin): perm[bin_off[b] .. bin_off[b+1]) = rows of bin b
/// in increasing row order. Also returns per bin max F_i and max nnz(A row).
template <class Exec, class RA, class WorkView, class PermView>
void build_plan(const RA& rowA, const WorkView& work, const PermView& perm, std::int64_t n,
                std::int64_t t0, std::int64_t t1, std::int64_t t2, std::int64_t bin_off[5],
                std::int64_t bin_max_work[4], std::int64_t bin_max_ka[4]) {
  bin_off[0] = 0;
  for (int b = 0; b < 4; ++b) {
    const std::int64_t base = bin_off[b];
    std::int64_t count = 0;
    Kokkos::parallel_scan(
        "kkperm::spgemm::esc::bin_scan", Kokkos::RangePolicy<Exec>(0, n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& upd, const bool final) {
          const std::int64_t ka = static_cast<std::int64_t>(rowA(i + 1) - rowA(i));
          const std::int64_t w = work(i) > ka ? work(i) : ka;
          if (bin_of(w, t0, t1, t2) == b) {
            if (final) perm(base + upd) = static_cast<typename PermView::value_type>(i);
            upd += 1;
          }
        },
        count);
    bin_off[b + 1] = base + count;
    std::int64_t mw = 0, mk = 0;
    Kokkos::parallel_reduce(
        "kkperm::spgemm::esc::bin_max", Kokkos::RangePolicy<Exec>(base, base + count),
        KOKKOS_LAMBDA(const std::int64_t p, std::int64_t& a, std::int64_t& c) {
          const auto i = perm(p);
          const std::int64_t ka = static_cast<std::int64_t>(rowA(i + 1) - rowA(i));
          if (work(i) > a) a = work(i);
          if (ka > c) c = ka;
        },
        Kokkos::Max<std::int64_t>(mw), Kokkos::Max<std::int64_t>(mk));
    bin_max_work[b] = mw;
    bin_max_ka[b] = mk;
  }
}

/// In-place heap sort of keys[0, n) (carrying vals): O(n log n) for one-thread teams (host
/// backends), where a bitonic network's O(n log² n) on the padded length would dominate.
template <class K, class V>
KOKKOS_INLINE_FUNCTION void serial_heap_sort(K* keys, V* vals, std::int64_t n, bool with_vals) {
  auto sift = [&](std::int64_t root, std::int64_t end) {
    while (2 * root + 1 < end) {
      std::int64_t c = 2 * root + 1;
      if (c + 1 < end && keys[c] < keys[c + 1]) ++c;
      if (!(keys[root] < keys[c])) return;
      const K tk = keys[root];
      keys[root] = keys[c];
      keys[c] = tk;
      if (with_vals) {
        const V tv = vals[root];
        vals[root] = vals[c];
        vals[c] = tv;
      }
      root = c;
    }
  };
  for (std::int64_t s = n / 2 - 1; s >= 0; --s) sift(s, n);
  for (std::int64_t e = n - 1; e > 0; --e) {
    const K tk = keys[0];
    keys[0] = keys[e];
    keys[e] = tk;
    if (with_vals) {
      const V tv = vals[0];
      vals[0] = vals[e];
      vals[e] = tv;
    }
    sift(0, e);
  }
}

/// Team-wide bitonic sort of keys[0, P) (P a power of two), carrying vals when with_vals.
/// One-thread teams (host backends) heap-sort instead (same result: the padding sentinels are
/// the largest keys and stay at the end).
template <class Team, class K, class V>
KOKKOS_INLINE_FUNCTION void team_bitonic_sort(const Team& team, K* keys, V* vals, std::int64_t P,
                                              bool with_vals) {
  if (team.team_size() == 1) {
    serial_heap_sort(keys, vals, P, with_vals);
    return;
  }
  for (std::int64_t size = 2; size <= P; size <<= 1) {
    for (std::int64_t stride = size >> 1; stride > 0; stride >>= 1) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P / 2), [&](const std::int64_t t) {
        const std::int64_t i = 2 * t - (t & (stride - 1));
        const std::int64_t j = i + stride;
        const bool asc = (i & size) == 0;
        const K ki = keys[i], kj = keys[j];
        if (asc ? (ki > kj) : (ki < kj)) {
          keys[i] = kj;
          keys[j] = ki;
          if (with_vals) {
            const V tmp = vals[i];
            vals[i] = vals[j];
            vals[j] = tmp;
          }
        }
      });
      team.team_barrier();
    }
  }
}

/// Position of column c in the sorted range ent[b, e), or -1.
template <class Ent, class O>
KOKKOS_INLINE_FUNCTION std::int64_t find_col(const Ent& ent, std::int64_t b, std::int64_t e, O c) {
  std::int64_t lo = b, hi = e;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (ent(mid) < c) lo = mid + 1;
    else hi = mid;
  }
  return (lo < e && ent(lo) == c) ? lo - b : -1;
}

/// Largest k in [0, ka) with pre[k] <= t (pre non-decreasing, pre[ka] > t).
KOKKOS_INLINE_FUNCTION std::int64_t find_segment(const int* pre, std::int64_t ka, std::int64_t t) {
  std::int64_t lo = 0, hi = ka - 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (pre[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// Views of one ESC call bundled for the kernels (all device views).
template <class Matrix, class PermView, class WorkView, class CntView, class RowMapC_, class EntC_,
          class ValC_>
struct EscArgs {
  using RowMapC = RowMapC_;
  using EntC = EntC_;
  using ValC = ValC_;
  typename Matrix::row_map_type rowA, rowB;
  typename Matrix::index_type entA, entB;
  typename Matrix::values_type valA, valB;
  PermView perm;
  WorkView work;    ///< F_i per original row
  CntView cnt;      ///< per output row count (symbolic count pass), indexed by destination row
  RowMapC rowC;     ///< destination row_map (direct: C's; permuted: C in permuted order)
  EntC entC;
  ValC valC;
  bool direct = true;  ///< destination row of position p: perm(p) if direct, else p
  bool drop = false;
};

// ---------------------------------------------------------------------------------------------
// Symbolic: count (fill == false) or write sorted unique columns (fill == true).
// ---------------------------------------------------------------------------------------------

template <class Exec, class Args>
void symbolic_thread_bin(const Args& g, std::int64_t begin, std::int64_t end, bool fill) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  if (end <= begin) return;
  const auto rowA = g.rowA, rowB = g.rowB;
  const auto entA = g.entA, entB = g.entB;
  const auto valA = g.valA, valB = g.valB;
  const auto perm = g.perm;
  const auto cnt = g.cnt;
  const auto rowC = g.rowC;
  const auto entC = g.entC;
  const auto valC = g.valC;
  const bool direct = g.direct, drop = g.drop;
  Kokkos::parallel_for(
      fill ? "kkperm::spgemm::esc::symbolic_fill_thread" : "kkperm::spgemm::esc::symbolic_count_thread",
      Kokkos::RangePolicy<Exec>(begin, end), KOKKOS_LAMBDA(const std::int64_t p) {
        const auto i = perm(p);
        const std::int64_t o = direct ? static_cast<std::int64_t>(i) : p;
        O cols[kThreadCapacity];
        V vals[kThreadCapacity];
        int n = 0;
        for (auto pa = rowA(i); pa < rowA(i + 1); ++pa) {
          const auto k = entA(pa);
          const V a = drop ? valA(pa) : V(0);
          for (auto pb = rowB(k); pb < rowB(k + 1); ++pb) {
            // insertion into the sorted prefix: expansion and sort in one sweep
            const O c = entB(pb);
            const V v = drop ? a * valB(pb) : V(0);
            int t = n;
            while (t > 0 && cols[t - 1] > c) {
              cols[t] = cols[t - 1];
              vals[t] = vals[t - 1];
              --t;
            }
            cols[t] = c;
            vals[t] = v;
            ++n;
          }
        }
        // contraction (segmented sum of equal columns)
        int m = 0;
        for (int t = 0; t < n; ++t) {
          if (m > 0 && cols[m - 1] == cols[t]) {
            vals[m - 1] += vals[t];
          } else {
            cols[m] = cols[t];
            vals[m] = vals[t];
            ++m;
          }
        }
        if (drop) {
          int z = 0;
          for (int t = 0; t < m; ++t)
            if (vals[t] != V(0)) {
              cols[z] = cols[t];
              vals[z] = vals[t];
              ++z;
            }
          m = z;
        }
        if (!fill) {
          cnt(o) = m;
        } else {
          const std::int64_t base = static_cast<std::int64_t>(rowC(o));
          for (int t = 0; t < m; ++t) entC(base + t) = cols[t];
          if (drop)  // drop_zeros: the structure depends on the values, written here
            for (int t = 0; t < m; ++t) valC(base + t) = vals[t];
        }
      });
}

/// Count or fill the columns of a sorted expanded row keys[0, F) (vals when drop).
template <class Team, class O, class V, class Args>
KOKKOS_INLINE_FUNCTION void contract_row(const Team& team, const O* keys, const V* vals,
                                         std::int64_t F, std::int64_t o, bool fill, bool drop,
                                         const Args& g) {
  auto run_sum = [&](std::int64_t t) {
    V s = vals[t];
    for (std::int64_t u = t + 1; u < F && keys[u] == keys[t]; ++u) s += vals[u];
    return s;
  };
  if (!fill) {
    std::int64_t count = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, F),
        [&](const std::int64_t t, std::int64_t& c) {
          if (t == 0 || keys[t] != keys[t - 1])
            if (!drop || run_sum(t) != V(0)) c += 1;
        },
        count);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { g.cnt(o) = count; });
  } else {
    const std::int64_t base = static_cast<std::int64_t>(g.rowC(o));
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, F),
                          [&](const std::int64_t t, std::int64_t& upd, const bool final) {
                            const bool keep = (t == 0 || keys[t] != keys[t - 1]) &&
                                              (!drop || run_sum(t) != V(0));
                            if (keep) {
                              if (final) {
                                g.entC(base + upd) = keys[t];
                                if (drop) g.valC(base + upd) = run_sum(t);
                              }
                              upd += 1;
                            }
                          });
  }
}

/// Bins 1 and 2: one team per row, expanded row in scratch (level 0 when it fits, else 1).
template <class Exec, class Args>
void symbolic_team_bin(const Args& g, std::int64_t begin, std::int64_t end, bool fill,
                       int team_size, std::int64_t max_work, std::int64_t max_ka,
                       int& level_out) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = Kokkos::TeamPolicy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  const std::int64_t P = next_pow2(max_work > 0 ? max_work : 1);
  const bool drop = g.drop;
  const std::size_t bytes = static_cast<std::size_t>(P) * sizeof(O) +
                            (drop ? static_cast<std::size_t>(P) * sizeof(V) : 0) +
                            static_cast<std::size_t>(max_ka + 1) * sizeof(int) + 3 * 128;
  const int level = bytes <= static_cast<std::size_t>(policy_t::scratch_size_max(0)) ? 0 : 1;
  level_out = level;
  policy_t policy(static_cast<int>(end - begin), team_size_for<Exec>(team_size));
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  const O sentinel = std::numeric_limits<O>::max();
  Kokkos::parallel_for(
      fill ? "kkperm::spgemm::esc::symbolic_fill_team" : "kkperm::spgemm::esc::symbolic_count_team",
      policy, KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t p = begin + team.league_rank();
        const auto i = g.perm(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
        const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
        int* pre = static_cast<int*>(team.team_scratch(level).get_shmem_aligned(sizeof(int) * (ka + 1), 8));
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, ka),
                              [&](const std::int64_t t, int& upd, const bool final) {
                                const auto k = g.entA(a0 + t);
                                if (final) pre[t] = upd;
                                upd += static_cast<int>(g.rowB(k + 1) - g.rowB(k));
                              });
        team.team_barrier();
        const std::int64_t F = g.work(i);
        const std::int64_t Pr = next_pow2_dev(F > 0 ? F : 1);
        O* keys = static_cast<O*>(team.team_scratch(level).get_shmem_aligned(sizeof(O) * Pr, 8));
        V* vals = drop ? static_cast<V*>(team.team_scratch(level).get_shmem_aligned(sizeof(V) * Pr, 8))
                       : nullptr;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Pr), [&](const std::int64_t t) {
          if (t < F) {
            const std::int64_t s = find_segment(pre, ka, t);
            const auto k = g.entA(a0 + s);
            const auto q = g.rowB(k) + (t - pre[s]);
            keys[t] = g.entB(q);
            if (drop) vals[t] = g.valA(a0 + s) * g.valB(q);
          } else {
            keys[t] = sentinel;
            if (drop) vals[t] = V(0);
          }
        });
        team.team_barrier();
        team_bitonic_sort(team, keys, vals, Pr, drop);
        contract_row(team, keys, vals, F, o, fill, drop, g);
      });
}

/// Bin 3 (rows above the team threshold): one team per row, expanded row in a global buffer
/// slice [buf_off(r), buf_off(r+1)) of keys (and vals), sorted in global memory, reduced by key.
/// Rows are processed in chunks whose buffers fit the configured budget.
template <class Exec, class Args, class OffView, class KeyBuf, class ValBuf>
void symbolic_global_chunk(const Args& g, std::int64_t begin, std::int64_t count, bool fill,
                           int team_size, const OffView& buf_off, const KeyBuf& key_buf,
                           const ValBuf& val_buf) {
  using O = typename Args::EntC::non_const_value_type;
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = Kokkos::TeamPolicy<Exec>;
  using member_t = typename policy_t::member_type;
  if (count <= 0) return;
  const bool drop = g.drop;
  const O sentinel = std::numeric_limits<O>::max();
  Kokkos::parallel_for(
      fill ? "kkperm::spgemm::esc::symbolic_fill_global" : "kkperm::spgemm::esc::symbolic_count_global",
      policy_t(static_cast<int>(count), team_size_for<Exec>(team_size)),
      KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t r = team.league_rank();
        const std::int64_t p = begin + r;
        const auto i = g.perm(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
        const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
        O* keys = key_buf.data() + buf_off(r);
        V* vals = drop ? val_buf.data() + buf_off(r) : nullptr;
        const std::int64_t Pr = buf_off(r + 1) - buf_off(r);
        // expansion: exclusive scan over A's row gives each B row its slot
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, ka),
                              [&](const std::int64_t t, std::int64_t& upd, const bool final) {
                                const auto k = g.entA(a0 + t);
                                const std::int64_t b0 = static_cast<std::int64_t>(g.rowB(k));
                                const std::int64_t len = static_cast<std::int64_t>(g.rowB(k + 1)) - b0;
                                if (final) {
                                  const V a = drop ? g.valA(a0 + t) : V(0);
                                  for (std::int64_t q = 0; q < len; ++q) {
                                    keys[upd + q] = g.entB(b0 + q);
                                    if (drop) vals[upd + q] = a * g.valB(b0 + q);
                                  }
                                }
                                upd += len;
                              });
        team.team_barrier();
        const std::int64_t F = g.work(i);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, F, Pr), [&](const std::int64_t t) {
          keys[t] = sentinel;
          if (drop) vals[t] = V(0);
        });
        team.team_barrier();
        team_bitonic_sort(team, keys, vals, Pr, drop);
        contract_row(team, keys, vals, F, o, fill, drop, g);
      });
}

// ---------------------------------------------------------------------------------------------
// Numeric: values only, reusing C's sorted structure: every product a_ik·b_kj is added at the
// position of column j in C's row (binary search). A product whose column is missing (possible
// only when the structure was built with drop_zeros) raises `missing`.
// ---------------------------------------------------------------------------------------------

template <class Exec, class Args, class Flag>
void numeric_thread_bin(const Args& g, std::int64_t begin, std::int64_t end, const Flag& missing) {
  using V = typename Args::ValC::non_const_value_type;
  if (end <= begin) return;
  Kokkos::parallel_for(
      "kkperm::spgemm::esc::numeric_thread", Kokkos::RangePolicy<Exec>(begin, end),
      KOKKOS_LAMBDA(const std::int64_t p) {
        const auto i = g.perm(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const std::int64_t ce = static_cast<std::int64_t>(g.rowC(o + 1));
        V acc[kThreadCapacity];
        for (std::int64_t t = 0; t < ce - cb; ++t) acc[t] = V(0);
        for (auto pa = g.rowA(i); pa < g.rowA(i + 1); ++pa) {
          const auto k = g.entA(pa);
          const V a = g.valA(pa);
          for (auto pb = g.rowB(k); pb < g.rowB(k + 1); ++pb) {
            const std::int64_t pos = find_col(g.entC, cb, ce, g.entB(pb));
            if (pos < 0) missing() = 1;
            else acc[pos] += a * g.valB(pb);
          }
        }
        for (std::int64_t t = 0; t < ce - cb; ++t) g.valC(cb + t) = acc[t];
      });
}

template <class Exec, class Args, class Flag>
void numeric_team_bin(const Args& g, std::int64_t begin, std::int64_t end, int team_size,
                      std::int64_t max_ka, std::int64_t max_c, const Flag& missing,
                      int& level_out) {
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = Kokkos::TeamPolicy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  const std::size_t bytes = static_cast<std::size_t>(max_c) * sizeof(V) +
                            static_cast<std::size_t>(max_ka + 1) * sizeof(int) + 2 * 128;
  const int level = bytes <= static_cast<std::size_t>(policy_t::scratch_size_max(0)) ? 0 : 1;
  level_out = level;
  policy_t policy(static_cast<int>(end - begin), team_size_for<Exec>(team_size));
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for(
      "kkperm::spgemm::esc::numeric_team", policy, KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t p = begin + team.league_rank();
        const auto i = g.perm(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const std::int64_t ce = static_cast<std::int64_t>(g.rowC(o + 1));
        const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
        const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
        V* acc = static_cast<V*>(team.team_scratch(level).get_shmem_aligned(sizeof(V) * (ce - cb), 8));
        int* pre = static_cast<int*>(team.team_scratch(level).get_shmem_aligned(sizeof(int) * (ka + 1), 8));
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ce - cb),
                             [&](const std::int64_t t) { acc[t] = V(0); });
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, ka),
                              [&](const std::int64_t t, int& upd, const bool final) {
                                const auto k = g.entA(a0 + t);
                                if (final) pre[t] = upd;
                                upd += static_cast<int>(g.rowB(k + 1) - g.rowB(k));
                              });
        team.team_barrier();
        const std::int64_t F = g.work(i);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, F), [&](const std::int64_t t) {
          const std::int64_t s = find_segment(pre, ka, t);
          const auto k = g.entA(a0 + s);
          const auto q = g.rowB(k) + (t - pre[s]);
          const std::int64_t pos = find_col(g.entC, cb, ce, g.entB(q));
          if (pos < 0) missing() = 1;
          else Kokkos::atomic_add(&acc[pos], g.valA(a0 + s) * g.valB(q));
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ce - cb),
                             [&](const std::int64_t t) { g.valC(cb + t) = acc[t]; });
      });
}

template <class Exec, class Args, class Flag>
void numeric_global_bin(const Args& g, std::int64_t begin, std::int64_t end, int team_size,
                        const Flag& missing) {
  using V = typename Args::ValC::non_const_value_type;
  using policy_t = Kokkos::TeamPolicy<Exec>;
  using member_t = typename policy_t::member_type;
  if (end <= begin) return;
  Kokkos::parallel_for(
      "kkperm::spgemm::esc::numeric_global",
      policy_t(static_cast<int>(end - begin), team_size_for<Exec>(team_size)),
      KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t p = begin + team.league_rank();
        const auto i = g.perm(p);
        const std::int64_t o = g.direct ? static_cast<std::int64_t>(i) : p;
        const std::int64_t cb = static_cast<std::int64_t>(g.rowC(o));
        const std::int64_t ce = static_cast<std::int64_t>(g.rowC(o + 1));
        const std::int64_t a0 = static_cast<std::int64_t>(g.rowA(i));
        const std::int64_t ka = static_cast<std::int64_t>(g.rowA(i + 1)) - a0;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ce - cb),
                             [&](const std::int64_t t) { g.valC(cb + t) = V(0); });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ka), [&](const std::int64_t t) {
          const auto k = g.entA(a0 + t);
          const V a = g.valA(a0 + t);
          for (auto q = g.rowB(k); q < g.rowB(k + 1); ++q) {
            const std::int64_t pos = find_col(g.entC, cb, ce, g.entB(q));
            if (pos < 0) missing() = 1;
            else Kokkos::atomic_add(&g.valC(cb + pos), a * g.valB(q));
          }
        });
      });
}

/// Permuted → original order: C row i = Cp row p where perm(p) = i (columns, and/or values).
template <class Exec, class PermView, class RowP, class EntP, class ValP, class RowC, class EntC,
          class ValC>
void restore_rows(const PermView& perm, std::int64_t n, const RowP& rowP, const EntP& entP,
                  const ValP& valP, const RowC& rowC, const EntC& entC, const ValC& valC,
                  bool columns, bool values) {
  Kokkos::parallel_for(
      "kkperm::spgemm::esc::restore_order", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t p) {
        const auto i = perm(p);
        const std::int64_t s = static_cast<std::int64_t>(rowP(p));
        const std::int64_t d = static_cast<std::int64_t>(rowC(i));
        const std::int64_t len = static_cast<std::int64_t>(rowP(p + 1)) - s;
        for (std::int64_t t = 0; t < len; ++t) {
          if (columns) entC(d + t) = entP(s + t);
          if (values) valC(d + t) = valP(s + t);
        }
      });
}

}  // namespace kkperm::spgemm::esc_impl
