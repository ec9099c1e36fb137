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
#include "kkperm/kernels/spmv/spmv_config.hpp"

namespace kkperm::spmv {

/// y(i) = beta*y(i) for all i (beta == 0 writes 0 without reading; beta == 1 does nothing).
template <class Exec, class YView, class V>
void scale_y(const char* label, V beta, const YView& y) {
  if (beta == V(1)) return;
  const std::int64_t n = static_cast<std::int64_t>(y.extent(0));
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
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
  Kokkos::parallel_for(
      "kkperm::spmv::csr_scalar", Kokkos::RangePolicy<Exec, Kokkos::IndexType<O>>(0, n),
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
  using policy_t = Kokkos::TeamPolicy<Exec>;
  using member_t = typename policy_t::member_type;
  if (num_work == 0) return;
  const int vl = launch_vector_length<Exec>(vector_length);
  const int ts = team_size_for<Exec>(CsrVectorConfig::threads_per_team, vl);
  const std::int64_t league = (num_work + ts - 1) / ts;
  Kokkos::parallel_for(
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
 * @brief Warp loop with dynamic row fetching: a grid sized to the device's concurrency; each
 * team thread (a warp of `vector_length` lanes) repeatedly takes the next `rows_per_fetch` rows
 * from `counter(0)` (atomic fetch-add) until none are left. `counter` is zeroed by a one-thread
 * kernel enqueued first, so no host synchronisation is needed between calls.
 */
template <class Exec, class RowMap, class Entries, class Values, class XView, class YView,
          class Counter, class OutRows, class V>
void csr_warp_dynamic(V alpha, const RowMap& row_map, const Entries& entries,
                      const Values& values, const XView& x, V beta, const YView& y,
                      const Counter& counter, int vector_length, bool use_out,
                      const OutRows& out_rows) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  using policy_t = Kokkos::TeamPolicy<Exec>;
  using member_t = typename policy_t::member_type;
  using C = typename Counter::non_const_value_type;
  const O n = static_cast<O>(y.extent(0));
  if (n == 0) return;
  const int rpf = CsrWarpDynamicConfig::rows_per_fetch;
  Kokkos::parallel_for(
      "kkperm::spmv::csr_warp_dynamic::reset", Kokkos::RangePolicy<Exec>(0, 1),
      KOKKOS_LAMBDA(const int) { counter(0) = C(0); });
  const int vl = launch_vector_length<Exec>(vector_length);
  const int ts = team_size_for<Exec>(CsrWarpDynamicConfig::threads_per_team, vl);
  const std::int64_t warps_needed = (static_cast<std::int64_t>(n) + rpf - 1) / rpf;
  std::int64_t warps = static_cast<std::int64_t>(Exec().concurrency()) / vl *
                       CsrWarpDynamicConfig::waves;
  if (warps < 1) warps = 1;
  if (warps > warps_needed) warps = warps_needed;
  const std::int64_t league = (warps + ts - 1) / ts;
  Kokkos::parallel_for(
      "kkperm::spmv::csr_warp_dynamic", policy_t(static_cast<int>(league), ts, vl),
      KOKKOS_LAMBDA(const member_t& team) {
        while (true) {
          C r0 = 0;
          Kokkos::single(
              Kokkos::PerThread(team),
              [&](C& v) { v = kkperm::atomic_fetch_add_int(&counter(0), C(rpf)); }, r0);
          if (r0 >= static_cast<C>(n)) break;
          const C r1 = (r0 + rpf < static_cast<C>(n)) ? r0 + rpf : static_cast<C>(n);
          for (C r = r0; r < r1; ++r) {
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
  using policy_t = Kokkos::TeamPolicy<Exec>;
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
  Kokkos::parallel_for(
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
  Kokkos::parallel_for(
      "kkperm::spmv::csr_warp_tiled::col_range", Kokkos::RangePolicy<Exec>(0, nb),
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
      "kkperm::spmv::csr_warp_tiled::staged", Kokkos::RangePolicy<Exec>(0, nb),
      KOKKOS_LAMBDA(const std::int64_t b, std::int64_t& acc) {
        if (bmax(b) >= bmin(b)) acc += (bmax(b) / T - bmin(b) / T + 1) * T;
      },
      total);
  return total;
}

/// Largest r in [0, n) with row_map(r) <= k (k < nnz): the row holding nonzero k.
template <class RowMap, class O, class F>
KOKKOS_INLINE_FUNCTION O row_of_nonzero(const RowMap& row_map, O n, F k) {
  O lo = 0, hi = n - 1;
  while (lo < hi) {
    const O mid = lo + (hi - lo + 1) / 2;
    if (row_map(mid) <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
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
  using policy_t = Kokkos::TeamPolicy<Exec>;
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
  Kokkos::parallel_for(
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

/**
 * @brief Merge path (Merrill & Garland): the path merges the row ends row_map(1..n) with the
 * nonzero indices 0..nnz-1; its length n + nnz is cut into equal pieces of items_per_thread.
 * Kernel 1 (partition) finds each piece's start (row, nonzero) by binary search on its
 * diagonal. Kernel 2 (consume) walks the piece: it writes y(i) = alpha*partial + beta*y(i) for
 * each row ending inside it and stores the unfinished row's partial as a carry-out. Kernel 3
 * (fix-up) atomically adds alpha*carry into those rows. Every row ends in exactly one piece,
 * so beta is applied exactly once and empty rows are handled without a separate pass.
 * Still one thread per piece (not warp-cooperative): Merrill & Garland's CUDA version gets its
 * coalescing from staging a whole CTA's path segment in shared memory, a rewrite of its own;
 * csr_merge above is the warp-staged equal-nnz variant, so the two together cover "merge with
 * coalesced loads" and "exact merge path" until the GPU numbers say merge path needs it.
 */
template <class Exec, class RowMap, class Entries, class Values, class XView, class YView,
          class CoordView, class CarryRow, class CarryVal, class V>
void csr_merge_path(V alpha, const RowMap& row_map, const Entries& entries, const Values& values,
                    const XView& x, V beta, const YView& y, const CoordView& start_row,
                    const CoordView& start_nz, const CarryRow& carry_row,
                    const CarryVal& carry_val) {
  using O = typename Entries::non_const_value_type;
  using F = typename RowMap::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(y.extent(0));
  const std::int64_t nnz = static_cast<std::int64_t>(values.extent(0));
  if (n == 0) return;
  const std::int64_t total = n + nnz;
  const std::int64_t ipt = CsrMergePathConfig::items_per_thread;
  const std::int64_t nthreads = (total + ipt - 1) / ipt;
  Kokkos::parallel_for(
      "kkperm::spmv::csr_merge_path::partition", Kokkos::RangePolicy<Exec>(0, nthreads + 1),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const std::int64_t diag = (t * ipt < total) ? t * ipt : total;
        // Find the first i in [max(0, diag - nnz), min(diag, n)] with row_end(i) > diag - i - 1,
        // where row_end(i) = row_map(i + 1): rows before it are finished at this diagonal.
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
  Kokkos::parallel_for(
      "kkperm::spmv::csr_merge_path::consume", Kokkos::RangePolicy<Exec>(0, nthreads),
      KOKKOS_LAMBDA(const std::int64_t t) {
        std::int64_t i = start_row(t), k = start_nz(t);
        const std::int64_t i_end = start_row(t + 1), k_end = start_nz(t + 1);
        V s = V(0);
        while (i < i_end || k < k_end) {
          if (i < n && k < static_cast<std::int64_t>(row_map(i + 1))) {
            s += values(k) * x(entries(k));
            ++k;
          } else {
            y(i) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(i));
            s = V(0);
            ++i;
          }
        }
        carry_row(t) = static_cast<O>(i < n ? i : -1);
        carry_val(t) = s;
      });
  Kokkos::parallel_for(
      "kkperm::spmv::csr_merge_path::fixup", Kokkos::RangePolicy<Exec>(0, nthreads),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const O r = carry_row(t);
        if (r >= 0 && carry_val(t) != V(0)) Kokkos::atomic_add(&y(r), V(alpha * carry_val(t)));
      });
}

}  // namespace kkperm::spmv
