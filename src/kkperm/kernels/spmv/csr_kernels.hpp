#pragma once
/**
 * @brief CSR SpMV kernels y = alpha*A*x + beta*y on any Kokkos execution space. Every kernel
 * here has the serial twin kkperm::spmv::csr_reference (reference.hpp): same inputs, same
 * result up to summation order. beta == 0 never reads y.
 *
 * Views are passed raw (row_map, entries, values, x, y) so permuted matrices and DCSR row lists
 * reuse the same kernels. Preconditions: sorted unique columns (warp_tiled relies on sorting),
 * x/y sized to the matrix, y not aliasing x. Kernels only enqueue; they never fence.
 */
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>

#include "kkperm/core/atomics.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/row_search.hpp"
#include "kkperm/core/warp_ops.hpp"
#include "kkperm/kernels/spmv/spmv_config.hpp"

namespace kkperm::spmv {

/// y(i) = beta*y(i) for all i (beta == 0 writes 0 without reading; beta == 1 does nothing).
template <class Exec, class YView, class V>
void scale_y(const char* label, V beta, const YView& y) {
  if (beta == V(1)) return;
  const std::int64_t n = static_cast<std::int64_t>(y.extent(0));
  kkperm::parallel_for(
      label, kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { y(i) = (beta == V(0)) ? V(0) : V(beta * y(i)); });
}

/**
 * @brief Thread per row ("CSR scalar"). With `use_out`, row i's result goes to
 * y(out_rows(i)) (row-permuted matrices: out_rows = P, so y stays in the caller's order
 * without a separate gather/scatter pass); otherwise to y(i).
 */
template <class Exec, class RowMap, class Entries, class Values, class XView, class YView,
          class OutRows, class V>
void csr_scalar(V alpha, const RowMap& row_map, const Entries& entries, const Values& values,
                const XView& x, V beta, const YView& y, bool use_out, const OutRows& out_rows) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  const O n = static_cast<O>(y.extent(0));
  kkperm::parallel_for(
      "kkperm::spmv::csr_scalar", kkperm::range_policy<Exec, Kokkos::IndexType<O>>(0, n),
      KOKKOS_LAMBDA(const O i) {
        V s = V(0);
        const F e = row_map(i + 1);
        for (F k = row_map(i); k < e; ++k) s += values(k) * x(entries(k));
        const O o = use_out ? static_cast<O>(out_rows(i)) : i;
        y(o) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(o));
      });
}

/**
 * @brief Team/warp per row ("CSR vector"): each team thread owns a row and its `vector_length`
 * lanes split the row's nonzeros. With `use_rows`, thread t handles row rows(t) instead of t
 * (DCSR: only non-empty rows are listed); `num_work` is the number of rows to visit. With
 * `use_out`, row i's result goes to y(out_rows(i)) (row-permuted matrices, see csr_scalar).
 */
template <class Exec, class RowMap, class Entries, class Values, class XView, class YView,
          class RowList, class V>
void csr_vector(const char* label, V alpha, const RowMap& row_map, const Entries& entries,
                const Values& values, const XView& x, V beta, const YView& y, bool use_rows,
                const RowList& rows, std::int64_t num_work, int vector_length,
                bool use_out = false, const RowList& out_rows = RowList()) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  if (num_work == 0) return;
  const int vl = launch_vector_length<Exec>(vector_length);
  const int ts = team_size_for<Exec>(CsrVectorConfig::threads_per_team, vl);
  const std::int64_t league = (num_work + ts - 1) / ts;
  kkperm::parallel_for(
      label, policy_t(static_cast<int>(league), ts, vl), KOKKOS_LAMBDA(const member_t& team) {
        const std::int64_t w =
            static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
        if (w >= num_work) return;
        const O i = use_rows ? static_cast<O>(rows(w)) : static_cast<O>(w);
        const F b = row_map(i), e = row_map(i + 1);
        V s = V(0);
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, static_cast<O>(e - b)),
            [&](const O j, V& acc) { acc += values(b + j) * x(entries(b + j)); }, s);
        const O o = use_out ? static_cast<O>(out_rows(i)) : i;
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          y(o) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(o));
        });
      });
}

/**
 * @brief Warp loop with dynamic row fetching: a grid sized to the device's concurrency; each warp
 * (G = 32 / vector_length team threads of `vector_length` lanes; G = 1 on host backends)
 * repeatedly takes the next G * rpf rows from `counter(0)` with one atomic fetch-add by its first
 * lane, broadcast by a shuffle, until none are left; team thread g of the warp takes rows
 * g, g + G, ... of the fetch. rpf = warp_dynamic_rows_per_fetch (about nnz_per_fetch entries a
 * fetch). `counter` is zeroed by a one-thread kernel enqueued first, so no host synchronisation
 * is needed between calls.
 */
template <class Exec, class RowMap, class Entries, class Values, class XView, class YView,
          class Counter, class OutRows, class V>
void csr_warp_dynamic(V alpha, const RowMap& row_map, const Entries& entries,
                      const Values& values, const XView& x, V beta, const YView& y,
                      const Counter& counter, int vector_length, bool use_out,
                      const OutRows& out_rows) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  using C = typename Counter::non_const_value_type;
  const O n = static_cast<O>(y.extent(0));
  if (n == 0) return;
  kkperm::parallel_for(
      "kkperm::spmv::csr_warp_dynamic::reset", kkperm::range_policy<Exec>(0, 1),
      KOKKOS_LAMBDA(const int) { counter(0) = C(0); });
  const int vl = launch_vector_length<Exec>(vector_length);
  const int ts = team_size_for<Exec>(CsrWarpDynamicConfig::threads_per_team, vl);
  // team threads per warp: the threads of a CUDA team are laid out lanes first, so a warp holds
  // 32 / vl consecutive team ranks (vl is a power of two <= 32; teams of 256 lanes)
  const int G = is_gpu_space<Exec>() && vl <= 32 && 32 % vl == 0 && (ts * vl) % 32 == 0 ? 32 / vl : 1;
  const int W = G > 1 ? 32 : 1;  // lanes that shuffle the fetch (G = 1: Kokkos::single already broadcast it)
  const C rpf = static_cast<C>(
      warp_dynamic_rows_per_fetch(static_cast<std::int64_t>(n), static_cast<std::int64_t>(entries.extent(0)), G));
  const C chunk = rpf * static_cast<C>(G);
  const std::int64_t threads_needed = (static_cast<std::int64_t>(n) + static_cast<std::int64_t>(rpf) - 1) /
                                      static_cast<std::int64_t>(rpf);
  std::int64_t threads = static_cast<std::int64_t>(Exec().concurrency()) / vl *
                         CsrWarpDynamicConfig::waves;
  if (threads < 1) threads = 1;
  if (threads > threads_needed) threads = threads_needed;
  const std::int64_t league = (threads + ts - 1) / ts;
  kkperm::parallel_for(
      "kkperm::spmv::csr_warp_dynamic", policy_t(static_cast<int>(league), ts, vl),
      KOKKOS_LAMBDA(const member_t& team) {
        const int g = team.team_rank() % G;
        while (true) {
          C r0 = 0;
          Kokkos::single(
              Kokkos::PerThread(team),
              [&](C& v) { v = g == 0 ? kkperm::atomic_fetch_add_int(&counter(0), chunk) : C(0); }, r0);
          // every lane of the warp runs this (the loop is uniform over the warp: all lanes leave
          // it on the same fetch); lane 0 is team thread g = 0, vector lane 0
          r0 = kkperm::detail::warp_shfl_idx(r0, 0, W);
          if (r0 >= static_cast<C>(n)) break;
          const C r1 = (r0 + chunk < static_cast<C>(n)) ? r0 + chunk : static_cast<C>(n);
          for (C r = r0 + static_cast<C>(g); r < r1; r += static_cast<C>(G)) {
            const O i = static_cast<O>(r);
            const F b = row_map(i), e = row_map(i + 1);
            V s = V(0);
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, static_cast<O>(e - b)),
                [&](const O j, V& acc) { acc += values(b + j) * x(entries(b + j)); }, s);
            const O o = use_out ? static_cast<O>(out_rows(i)) : i;
            Kokkos::single(Kokkos::PerThread(team), [&]() {
              y(o) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(o));
            });
          }
        }
      });
}

/**
 * @brief Warp-tiled: team `t` owns rows [t*team_size, ...); x is staged in level-0 scratch
 * `tile_cols` columns at a time over the team's column range [block_min_col(t),
 * block_max_col(t)] (from prepare). Each row keeps a cursor (sorted columns: the entries of a
 * tile are a contiguous run) and a partial sum in scratch across tiles.
 */
template <class Exec, class RowMap, class Entries, class Values, class XView, class YView,
          class ColRange, class V>
void csr_warp_tiled(V alpha, const RowMap& row_map, const Entries& entries, const Values& values,
                    const XView& x, V beta, const YView& y, const ColRange& block_min_col,
                    const ColRange& block_max_col, int team_size, int vector_length) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  using scratch_space = typename Exec::scratch_memory_space;
  using xs_t = Kokkos::View<V*, scratch_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using fs_t = Kokkos::View<F*, scratch_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const O n = static_cast<O>(y.extent(0));
  if (n == 0) return;
  const O T = CsrWarpTiledConfig::tile_cols;
  const int vl = launch_vector_length<Exec>(vector_length);
  const int ts = team_size;
  const std::int64_t league = (static_cast<std::int64_t>(n) + ts - 1) / ts;
  const std::size_t scratch =
      xs_t::shmem_size(T) + fs_t::shmem_size(ts) + xs_t::shmem_size(ts);
  kkperm::parallel_for(
      "kkperm::spmv::csr_warp_tiled",
      policy_t(static_cast<int>(league), ts, vl).set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const member_t& team) {
        xs_t xs(team.team_scratch(0), T);
        fs_t cursor(team.team_scratch(0), ts);
        xs_t sums(team.team_scratch(0), ts);
        const O row0 = static_cast<O>(team.league_rank()) * ts;
        const O nrows = (row0 + ts <= n) ? ts : n - row0;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nrows), [&](const O r) {
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            cursor(r) = row_map(row0 + r);
            sums(r) = V(0);
          });
        });
        const O cmin = block_min_col(team.league_rank());
        const O cmax = block_max_col(team.league_rank());
        // An all-empty block has cmin > cmax and visits no tile.
        for (O t0 = (cmin / T) * T; t0 <= cmax; t0 += T) {
          const O tlen = (cmax + 1 - t0 < T) ? cmax + 1 - t0 : T;
          const O t1 = t0 + tlen;
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tlen), [&](const O c) {
            Kokkos::single(Kokkos::PerThread(team), [&]() { xs(c) = x(t0 + c); });
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nrows), [&](const O r) {
            const F end = row_map(row0 + r + 1);
            F cur = cursor(r);
            V acc = V(0);
            while (cur < end) {
              V part = V(0);
              O cnt = 0;
              Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(team, vl),
                  [&](const int l, V& p) {
                    const F k = cur + l;
                    if (k < end && entries(k) < t1) p += values(k) * xs(entries(k) - t0);
                  },
                  part);
              Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(team, vl),
                  [&](const int l, O& c) {
                    const F k = cur + l;
                    if (k < end && entries(k) < t1) c += 1;
                  },
                  cnt);
              acc += part;
              cur += cnt;
              if (cnt < vl) break;
            }
            Kokkos::single(Kokkos::PerThread(team), [&]() {
              cursor(r) = cur;
              sums(r) += acc;
            });
          });
        }
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nrows), [&](const O r) {
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            const O i = row0 + r;
            y(i) = (beta == V(0)) ? V(alpha * sums(r)) : V(alpha * sums(r) + beta * y(i));
          });
        });
      });
}

/// Per team of warp_tiled: min and max column index over its rows (min > max if all empty).
template <class Exec, class RowMap, class Entries, class ColRange>
void csr_block_col_range(const RowMap& row_map, const Entries& entries, std::int64_t num_rows,
                         int rows_per_block, const ColRange& bmin, const ColRange& bmax) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  const std::int64_t nb = static_cast<std::int64_t>(bmin.extent(0));
  const O big = std::numeric_limits<O>::max();
  kkperm::parallel_for(
      "kkperm::spmv::csr_warp_tiled::col_range", kkperm::range_policy<Exec>(0, nb),
      KOKKOS_LAMBDA(const std::int64_t b) {
        O lo = big, hi = O(-1);
        const std::int64_t r0 = b * rows_per_block;
        const std::int64_t r1 = (r0 + rows_per_block < num_rows) ? r0 + rows_per_block : num_rows;
        for (std::int64_t r = r0; r < r1; ++r) {
          const F s = row_map(r), e = row_map(r + 1);
          if (e > s) {  // sorted columns: first and last entries are the row's extremes
            if (entries(s) < lo) lo = entries(s);
            if (entries(e - 1) > hi) hi = entries(e - 1);
          }
        }
        if (hi < 0) lo = O(0);
        bmin(b) = lo;
        bmax(b) = hi;
      });
}

/// Sum over teams of the staged tile span (whole tiles covering [bmin, bmax]) for warp_tiled.
template <class Exec, class ColRange>
std::int64_t csr_tiled_staged_columns(const ColRange& bmin, const ColRange& bmax) {
  const std::int64_t nb = static_cast<std::int64_t>(bmin.extent(0));
  const std::int64_t T = CsrWarpTiledConfig::tile_cols;
  std::int64_t total = 0;
  Kokkos::parallel_reduce(
      "kkperm::spmv::csr_warp_tiled::staged", kkperm::range_policy<Exec>(0, nb),
      KOKKOS_LAMBDA(const std::int64_t b, std::int64_t& acc) {
        if (bmax(b) >= bmin(b)) acc += (bmax(b) / T - bmin(b) / T + 1) * T;
      },
      total);
  return total;
}

/// Launch shape of the chunked kernels (csr_merge, COO): chunk = nonzeros per team thread.
template <class Exec>
struct ChunkShape {
  int lanes, team_size;
  std::int64_t chunk;
  static ChunkShape get() {
    if (is_gpu_space<Exec>())
      return {CsrMergeConfig::gpu_lanes, CsrMergeConfig::warps_per_team,
              std::int64_t(CsrMergeConfig::gpu_lanes) * CsrMergeConfig::items_per_lane};
    return {1, 1, std::int64_t(CsrMergeConfig::chunk_nnz)};
  }
};

/**
 * @brief Merge-based CSR: y is first scaled by beta, then the nonzeros are cut into equal
 * chunks, one per team thread (a warp on GPUs, see CsrMergeConfig). The lanes stage the
 * products a_k * x(col_k) of the chunk in team scratch with coalesced loads; then the rows
 * touching the chunk (found by binary search of row_map) are summed out of scratch: one row
 * -> a vector reduction; a few rows (<= lanes/4) -> one vector reduction each; many rows ->
 * a lane per row. Rows entirely inside the chunk are owned (plain add), rows cut by a border
 * use atomic_add. Empty rows only get the beta scaling, which is their full result. Host
 * spaces run the same code with one lane and one thread per team.
 */
template <class Exec, class RowMap, class Entries, class Values, class XView, class YView,
          class V>
void csr_merge(V alpha, const RowMap& row_map, const Entries& entries, const Values& values,
               const XView& x, V beta, const YView& y) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  using scratch_t = Kokkos::View<V*, typename Exec::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const O n = static_cast<O>(y.extent(0));
  const F nnz = static_cast<F>(values.extent(0));
  scale_y<Exec>("kkperm::spmv::csr_merge::scale", beta, y);
  if (n == 0 || nnz == 0) return;
  const auto sh = ChunkShape<Exec>::get();
  const F chunk = static_cast<F>(sh.chunk);
  const int ts = sh.team_size, lanes = sh.lanes;
  const std::int64_t nchunks = (static_cast<std::int64_t>(nnz) + chunk - 1) / chunk;
  const std::int64_t league = (nchunks + ts - 1) / ts;
  const std::size_t shmem = scratch_t::shmem_size(static_cast<std::size_t>(ts) * chunk);
  kkperm::parallel_for(
      "kkperm::spmv::csr_merge",
      policy_t(static_cast<int>(league), ts, lanes).set_scratch_size(0, Kokkos::PerTeam(shmem)),
      KOKKOS_LAMBDA(const member_t& team) {
        scratch_t buf(team.team_scratch(0), static_cast<std::size_t>(ts) * chunk);
        const std::int64_t c =
            static_cast<std::int64_t>(team.league_rank()) * ts + team.team_rank();
        const bool active = c < nchunks;
        const F k0 = active ? static_cast<F>(c * chunk) : F(0);
        const F k1 = active ? ((k0 + chunk < nnz) ? k0 + chunk : nnz) : F(0);
        V* my = buf.data() + static_cast<std::size_t>(team.team_rank()) * chunk;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<int>(k1 - k0)),
                             [&](const int j) { my[j] = values(k0 + j) * x(entries(k0 + j)); });
        team.team_barrier();
        if (!active) return;
        const O r0 = row_of_nonzero(row_map, n, k0);
        const O r1 = row_of_nonzero(row_map, n, k1 - 1);
        const O nrows = r1 - r0 + 1;
        if (nrows * 4 <= lanes || nrows == 1) {
          for (O r = r0; r <= r1; ++r) {
            const F rb = row_map(r), re = row_map(r + 1);
            const F b = rb > k0 ? rb : k0, e = re < k1 ? re : k1;
            if (e <= b) continue;
            V s = V(0);
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, static_cast<int>(e - b)),
                [&](const int j, V& acc) { acc += my[b - k0 + j]; }, s);
            Kokkos::single(Kokkos::PerThread(team), [&]() {
              if (rb >= k0 && re <= k1) y(r) += alpha * s;
              else Kokkos::atomic_add(&y(r), V(alpha * s));
            });
          }
        } else {
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<int>(nrows)),
                               [&](const int t) {
                                 const O r = r0 + t;
                                 const F rb = row_map(r), re = row_map(r + 1);
                                 const F b = rb > k0 ? rb : k0, e = re < k1 ? re : k1;
                                 if (e <= b) return;
                                 V s = V(0);
                                 for (F k = b; k < e; ++k) s += my[k - k0];
                                 if (rb >= k0 && re <= k1) y(r) += alpha * s;
                                 else Kokkos::atomic_add(&y(r), V(alpha * s));
                               });
        }
      });
}

/// Number of merge-path tiles for an n-row matrix with nnz nonzeros (0 for n == 0).
inline std::int64_t csr_merge_path_tiles(std::int64_t n, std::int64_t nnz) {
  if (n == 0) return 0;
  const std::int64_t tile = CsrMergePathConfig::tile;
  return (n + nnz + tile - 1) / tile;
}

/**
 * @brief Merge-path partition (Merrill & Garland): the path merges the row ends row_map(1..n)
 * with the nonzero indices 0..nnz-1; its n + nnz steps are cut into tiles of
 * CsrMergePathConfig::tile. Tile b starts at (start_row(b), start_nz(b)), found by binary
 * search on its diagonal; entry `tiles` is the end of the path (n, nnz). Depends on row_map
 * only, so plans compute it once in prepare. start_row/start_nz hold tiles + 1 entries.
 */
template <class Exec, class RowMap, class CoordView>
void csr_merge_path_partition(const RowMap& row_map, std::int64_t n, std::int64_t nnz,
                              const CoordView& start_row, const CoordView& start_nz) {
  const std::int64_t tiles = static_cast<std::int64_t>(start_row.extent(0)) - 1;
  if (tiles < 1) return;
  const std::int64_t total = n + nnz;
  const std::int64_t tile = CsrMergePathConfig::tile;
  kkperm::parallel_for(
      "kkperm::spmv::csr_merge_path::partition", kkperm::range_policy<Exec>(0, tiles + 1),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const std::int64_t diag = (t * tile < total) ? t * tile : total;
        // First i in [max(0, diag - nnz), min(diag, n)] with row_map(i + 1) > diag - i - 1:
        // rows before i are finished at this diagonal.
        std::int64_t lo = diag - nnz > 0 ? diag - nnz : 0;
        std::int64_t hi = diag < n ? diag : n;
        while (lo < hi) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          if (static_cast<std::int64_t>(row_map(mid + 1)) <= diag - mid - 1) lo = mid + 1;
          else hi = mid;
        }
        start_row(t) = lo;
        start_nz(t) = diag - lo;
      });
}

/**
 * @brief Merge-path SpMV (Merrill & Garland, SC'16), one team per tile of the path (partition
 * from csr_merge_path_partition). Every tile has the same number of steps (rows + nonzeros),
 * so hub rows and runs of empty rows cost the same as any other part of the matrix.
 *  1. The team stages the tile's products a_k * x(col_k) and its row ends in team scratch with
 *     coalesced loads (each thread issues all of its loads before the first use).
 *  2. Thread t walks steps [t*ipt, (t+1)*ipt) of the tile out of scratch (its start found by
 *     binary search in scratch). A row that ends in the walk and began in it is written
 *     y(i) = alpha*s + beta*y(i) at once; the first row it ends (its "head", possibly begun by
 *     earlier threads) and the partial sum of the row it stops in (its "tail") go to scratch.
 *  3. A head adds the tails of the threads before it that stopped in the same row (a
 *     segmented scan of the tails by row when a row spans whole threads) and is written; the
 *     tails of the tile's last row, which ends in a later tile, are its carry-out.
 *  4. A fix-up kernel adds alpha * carry-out into those rows (atomically: a long row collects
 *     several). Every row ends in exactly one step of the path, so beta is applied exactly once
 *     and empty rows need no separate pass.
 * The tile logic is written over `CsrMergePathConfig::team` virtual threads in team-thread
 * ranges, so host spaces (one thread per team) run the same head/tail combination serially.
 */
template <class Exec, class RowMap, class Entries, class Values, class XView, class YView,
          class CoordView, class CarryRow, class CarryVal, class V>
void csr_merge_path(V alpha, const RowMap& row_map, const Entries& entries, const Values& values,
                    const XView& x, V beta, const YView& y, const CoordView& start_row,
                    const CoordView& start_nz, const CarryRow& carry_row,
                    const CarryVal& carry_val) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  // At most 40 registers, 12 teams of 128 per SM: the tiles wait on gathers, so resident teams
  // hide the latency (ncu on the H100: 48 registers, 10 teams, 61 % achieved occupancy in run 60;
  // 40 registers, 12 teams, 72 % in run 62).
  using policy_t =
      kkperm::team_policy<Exec, Kokkos::LaunchBounds<CsrMergePathConfig::team,
                                                    CsrMergePathConfig::min_teams_per_sm>>;
  using member_t = typename policy_t::member_type;
  using space_t = typename Exec::scratch_memory_space;
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using vs_t = Kokkos::View<V*, space_t, unmanaged>;
  using fs_t = Kokkos::View<F*, space_t, unmanaged>;
  using is_t = Kokkos::View<int*, space_t, unmanaged>;
  constexpr int T = CsrMergePathConfig::team;
  constexpr int IPT = CsrMergePathConfig::items_per_thread;
  constexpr int TILE = T * IPT;
  const std::int64_t n = static_cast<std::int64_t>(y.extent(0));
  const std::int64_t nnz = static_cast<std::int64_t>(values.extent(0));
  const std::int64_t tiles = static_cast<std::int64_t>(start_row.extent(0)) - 1;
  if (n == 0 || tiles < 1) return;
  const std::size_t shmem = vs_t::shmem_size(TILE) + 3 * vs_t::shmem_size(T) +
                            fs_t::shmem_size(TILE + 1) + 2 * is_t::shmem_size(T) +
                            is_t::shmem_size(1);
  const int team_size = is_gpu_space<Exec>() ? T : 1;
  kkperm::parallel_for(
      "kkperm::spmv::csr_merge_path",
      policy_t(static_cast<int>(tiles), team_size, 1)
          .set_scratch_size(0, Kokkos::PerTeam(shmem)),
      KOKKOS_LAMBDA(const member_t& team) {
        vs_t s_val(team.team_scratch(0), TILE);  // products of the tile's nonzeros
        vs_t s_hval(team.team_scratch(0), T);    // per thread: partial sum of its head row
        vs_t s_tval(team.team_scratch(0), T);    // per thread: partial sum of its tail row
        vs_t s_tmp(team.team_scratch(0), T);     // second buffer of the tail scan
        fs_t s_end(team.team_scratch(0), TILE + 1);  // row_map(i + 1) of the tile's rows
        is_t s_hrow(team.team_scratch(0), T);    // per thread: local head row, -1 if none
        is_t s_trow(team.team_scratch(0), T);    // per thread: local tail row
        is_t s_flag(team.team_scratch(0), 1);    // some thread ends no row: scan the tails
        const std::int64_t b = team.league_rank();
        const std::int64_t r0 = start_row(b), k0 = start_nz(b);
        const std::int64_t r1 = start_row(b + 1), k1 = start_nz(b + 1);
        const int nr = static_cast<int>(r1 - r0), nk = static_cast<int>(k1 - k0);
        const int len = nr + nk;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, T), [&](const int t) {
          O col[IPT] = {};
          V val[IPT] = {};
          for (int q = 0; q < IPT; ++q) {
            const int j = q * T + t;
            if (j < nk) {
              col[q] = entries(k0 + j);
              val[q] = values(k0 + j);
            }
          }
          if (t == 0) s_flag(0) = 0;
          // Row r1 may be partly in the tile: its end is needed (nnz stands in past row n-1).
          for (int j = t; j <= nr; j += T)
            s_end(j) = (r0 + j < n) ? row_map(r0 + j + 1) : static_cast<F>(nnz);
          // Every gather of x is issued before the first store to scratch: the compiler may
          // not move a load above a store it cannot prove disjoint, so one multiply-and-store
          // per gather made a thread's gathers wait for each other (H100 runs 59 -> 60, random
          // columns: 16/row 0.261 -> 0.204 ms, 500/row 1.41 -> 1.11 ms).
          for (int q = 0; q < IPT; ++q) {
            const int j = q * T + t;
            if (j < nk) val[q] *= x(col[q]);
          }
          for (int q = 0; q < IPT; ++q) {
            const int j = q * T + t;
            if (j < nk) s_val(j) = val[q];
          }
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, T), [&](const int t) {
          const int d = (t * IPT < len) ? t * IPT : len;
          int lo = d - nk > 0 ? d - nk : 0;
          int hi = d < nr ? d : nr;
          while (lo < hi) {
            const int mid = lo + (hi - lo) / 2;
            if (static_cast<std::int64_t>(s_end(mid)) <= k0 + d - mid - 1) lo = mid + 1;
            else hi = mid;
          }
          int i = lo;
          std::int64_t k = k0 + d - lo;
          const int steps = (len - d < IPT) ? len - d : IPT;
          int hrow = -1;
          V hval = V(0), s = V(0);
          for (int step = 0; step < steps; ++step) {
            if (k < static_cast<std::int64_t>(s_end(i))) {
              s += s_val(static_cast<int>(k - k0));
              ++k;
            } else {
              if (hrow < 0) {
                hrow = i;
                hval = s;
              } else {
                const std::int64_t r = r0 + i;
                y(r) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(r));
              }
              s = V(0);
              ++i;
            }
          }
          if (hrow < 0) s_flag(0) = 1;  // this thread ends no row (see below)
          s_hrow(t) = hrow;
          s_hval(t) = hval;
          s_trow(t) = i;
          s_tval(t) = s;
        });
        team.team_barrier();
        // pre[j] = sum of the tails of threads <= j that stopped in s_trow(j)'s row. When every
        // thread ends a row, tail rows are distinct (a thread's tail row is past its start row,
        // the previous thread's tail row) and pre = the tails. Otherwise some row spans whole
        // threads (long rows, or idle threads at the path's end): a segmented inclusive scan of
        // the tails by row, log2(team) rounds, instead of walks back over up to `team` threads.
        V* pre = s_tval.data();
        if (s_flag(0) != 0) {
          V* nxt = s_tmp.data();
          for (int off = 1; off < T; off *= 2) {
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, T), [&](const int t) {
              const bool same = t >= off && s_trow(t - off) == s_trow(t);
              nxt[t] = same ? pre[t] + pre[t - off] : pre[t];
            });
            team.team_barrier();
            V* const done = nxt;
            nxt = pre;
            pre = done;
          }
        }
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, T), [&](const int t) {
          const int hrow = s_hrow(t);
          if (hrow >= 0) {
            // Threads before t that stopped in the head row are the ones right before t.
            const V s = (t > 0 && s_trow(t - 1) == hrow) ? s_hval(t) + pre[t - 1] : s_hval(t);
            const std::int64_t r = r0 + hrow;
            y(r) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(r));
          }
          if (t == T - 1) {  // the last thread stops at the tile's end, in row r1
            carry_row(b) = static_cast<typename CarryRow::non_const_value_type>(r1 < n ? r1 : -1);
            carry_val(b) = pre[T - 1];
          }
        });
      });
  kkperm::parallel_for(
      "kkperm::spmv::csr_merge_path::fixup", kkperm::range_policy<Exec>(0, tiles),
      KOKKOS_LAMBDA(const std::int64_t b) {
        const auto r = carry_row(b);
        if (r >= 0 && carry_val(b) != V(0)) Kokkos::atomic_add(&y(r), V(alpha * carry_val(b)));
      });
}

}  // namespace kkperm::spmv
