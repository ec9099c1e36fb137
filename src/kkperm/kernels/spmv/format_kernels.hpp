#pragma once
/**
 * @brief SpMV kernels over the formats of kkperm/formats/spmv_formats.hpp. Serial twins: the
 * `spmv_reference` overloads in that header. beta == 0 never reads y.
 */
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kkperm/core/launch_policy.hpp"
#include "kkperm/formats/spmv_formats.hpp"
#include "kkperm/kernels/spmv/csr_kernels.hpp"
#include "kkperm/kernels/spmv/spmv_config.hpp"

// Full unroll of a constant-trip loop in device code (host compilers do not know the pragma).
#if defined(__CUDA_ARCH__)
#define KKPERM_UNROLL _Pragma("unroll")
#else
#define KKPERM_UNROLL
#endif

namespace kkperm::spmv {

/// ELL, thread per row; slots column-major; column -1 = padding (skipped).
template <class Exec, class Cols, class Vals, class XView, class YView, class V>
void ell(const char* label, V alpha, std::int64_t k, const Cols& cols, const Vals& vals,
         const XView& x, V beta, const YView& y) {
  using O = typename Cols::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(y.extent(0));
  kkperm::parallel_for(
      label, kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        V s = V(0);
        for (std::int64_t j = 0; j < k; ++j) {
          const O c = cols(j * n + i);
          if (c >= 0) s += vals(j * n + i) * x(c);
        }
        y(i) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(i));
      });
}

/**
 * @brief COO segmented reduction, accumulating: y(row) += alpha * sum over the entries. The
 * entries are cut into equal chunks, one per team thread (a warp on GPUs, chunking as in
 * csr_merge / CsrMergeConfig). The lanes stage the products in team scratch with coalesced
 * loads; a chunk holding one row is reduced across the lanes, otherwise each lane takes the
 * segments (runs of one row; rows are sorted) that start at its positions and sums them out
 * of scratch. The first and last segment of a chunk may continue in a neighbouring chunk and
 * are added atomically; inner segments are whole rows owned by the chunk and added plainly.
 */
template <class Exec, class Rows, class Cols, class Vals, class XView, class YView, class V>
void coo_accumulate(const char* label, V alpha, const Rows& rows, const Cols& cols,
                    const Vals& vals, const XView& x, const YView& y) {
  using O = typename Rows::non_const_value_type;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  using scratch_t = Kokkos::View<V*, typename Exec::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::int64_t nnz = static_cast<std::int64_t>(vals.extent(0));
  if (nnz == 0) return;
  const auto sh = ChunkShape<Exec>::get();
  const std::int64_t chunk = sh.chunk;
  const int ts = sh.team_size, lanes = sh.lanes;
  const std::int64_t nchunks = (nnz + chunk - 1) / chunk;
  const std::int64_t league = (nchunks + ts - 1) / ts;
  const std::size_t shmem = scratch_t::shmem_size(static_cast<std::size_t>(ts) * chunk);
  kkperm::parallel_for(
      label,
      policy_t(static_cast<int>(league), ts, lanes).set_scratch_size(0, Kokkos::PerTeam(shmem)),
      KOKKOS_LAMBDA(const member_t& team) {
        scratch_t buf(team.team_scratch(0), static_cast<std::size_t>(ts) * chunk);
        const std::int64_t c =
            static_cast<std::int64_t>(team.league_rank()) * ts + team.team_rank();
        const bool active = c < nchunks;
        const std::int64_t k0 = active ? c * chunk : 0;
        const std::int64_t k1 = active ? ((k0 + chunk < nnz) ? k0 + chunk : nnz) : 0;
        V* my = buf.data() + static_cast<std::size_t>(team.team_rank()) * chunk;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<int>(k1 - k0)),
                             [&](const int j) { my[j] = vals(k0 + j) * x(cols(k0 + j)); });
        team.team_barrier();
        if (!active) return;
        const bool left_open = k0 > 0 && rows(k0 - 1) == rows(k0);
        const bool right_open = k1 < nnz && rows(k1) == rows(k1 - 1);
        if (rows(k0) == rows(k1 - 1)) {  // one row: reduce across the lanes
          V s = V(0);
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, static_cast<int>(k1 - k0)),
              [&](const int j, V& acc) { acc += my[j]; }, s);
          const O r = rows(k0);
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            if (left_open || right_open) Kokkos::atomic_add(&y(r), V(alpha * s));
            else y(r) += alpha * s;
          });
          return;
        }
        Kokkos::parallel_for(
            Kokkos::ThreadVectorRange(team, static_cast<int>(k1 - k0)), [&](const int j) {
              const std::int64_t p = k0 + j;
              const O r = rows(p);
              if (p > k0 && rows(p - 1) == r) return;  // not the head of a segment
              V s = V(0);
              std::int64_t k = p;
              for (; k < k1 && rows(k) == r; ++k) s += my[k - k0];
              const bool cut = (p == k0 && left_open) || (k == k1 && right_open);
              if (cut) Kokkos::atomic_add(&y(r), V(alpha * s));
              else y(r) += alpha * s;
            });
      });
}

/// COO SpMV: y = beta*y, then the segmented reduction.
template <class Exec, class Rows, class Cols, class Vals, class XView, class YView, class V>
void coo(V alpha, const Rows& rows, const Cols& cols, const Vals& vals, const XView& x, V beta,
         const YView& y) {
  scale_y<Exec>("kkperm::spmv::coo::scale", beta, y);
  coo_accumulate<Exec>("kkperm::spmv::coo", alpha, rows, cols, vals, x, y);
}

/**
 * @brief SELL-C-sigma: thread t handles lane t % C of slice t / C, i.e. original row
 * perm(t); a warp reads one slice column-major (coalesced). Padding lanes (perm -1) exit; a
 * lane stops at its first padding slot (its row is sorted to be no longer than the slice).
 */
template <class Exec, class SlicePtr, class Perm, class Cols, class Vals, class XView,
          class YView, class V>
void sell(V alpha, std::int64_t C, const SlicePtr& slice_ptr, const Perm& perm, const Cols& cols,
          const Vals& vals, const XView& x, V beta, const YView& y) {
  using O = typename Cols::non_const_value_type;
  using F = typename SlicePtr::non_const_value_type;
  const std::int64_t nslots = static_cast<std::int64_t>(perm.extent(0));
  kkperm::parallel_for(
      "kkperm::spmv::sell_c_sigma",
      kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>(0, nslots),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const O i = perm(t);
        if (i < 0) return;
        const std::int64_t sl = t / C, r = t % C;
        const F base = slice_ptr(sl);
        const std::int64_t w = static_cast<std::int64_t>(slice_ptr(sl + 1) - base) / C;
        V s = V(0);
        for (std::int64_t j = 0; j < w; ++j) {
          const O c = cols(base + j * C + r);
          if (c < 0) break;
          s += vals(base + j * C + r) * x(c);
        }
        y(i) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(i));
      });
}

/**
 * @brief SELL16 (formats/spmv_formats.hpp): thread per slice lane, a warp per slice of C = 32
 * rows reading the slice column-major (coalesced 2-byte offsets and values). A lane reads its
 * own slot count and exactly that many slots (padding is never read), in batches of U slots
 * whose offsets and values are all loaded before their x gathers. Predicated: the last batch is
 * predicated past the lane's end (a row of up to U entries is one round trip); else the batches
 * are unpredicated and the remainder goes slot by slot (least work per slot on long rows).
 * Column = lane base + offset - 1, an escape slot (offset 0) moving the lane base. Sums in the
 * row's CSR order, like the serial twin. The plan picks U/Predicated (Sell16Config::batch_for).
 */
template <class Exec, int C, int U, bool Predicated, class SlicePtr, class Perm, class Base,
          class Len, class Offs, class Vals, class XView, class YView, class V>
void sell16(V alpha, const SlicePtr& slice_ptr, const Perm& perm, const Base& slice_base,
            const Len& lane_len, const Offs& offs, const Vals& vals, const XView& x, V beta,
            const YView& y) {
  using O = typename Perm::non_const_value_type;
  const std::int64_t nlanes = static_cast<std::int64_t>(perm.extent(0));
  kkperm::parallel_for(
      "kkperm::spmv::sell16",
      kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>(0, nlanes),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const O i = perm(t);
        if (i < 0) return;
        const int len = lane_len(t);
        const std::int64_t sl = t / C;
        const std::int64_t p = static_cast<std::int64_t>(slice_ptr(sl)) + t % C;
        std::int64_t b = static_cast<std::int64_t>(slice_base(sl)) - 1;
        V s = V(0);
        auto step = [&](const int o, const V v) {
          if (o == 0) b = std::int64_t(formats::sell16_escape_column<V, O>(v)) - 1;
          else s += v * x(b + o);
        };
        // Batches: all of them predicated, or only the full ones (then single slots).
        const int full = Predicated ? len : len - len % U;
        int j = 0;
        for (; j < full; j += U) {
          const std::int64_t q = p + static_cast<std::int64_t>(j) * C;
          int o[U];
          V v[U];
KKPERM_UNROLL
          for (int u = 0; u < U; ++u) o[u] = !Predicated || j + u < len ? int(offs(q + u * C)) : 1;
KKPERM_UNROLL
          for (int u = 0; u < U; ++u) v[u] = !Predicated || j + u < len ? vals(q + u * C) : V(0);
KKPERM_UNROLL
          for (int u = 0; u < U; ++u)
            if (!Predicated || j + u < len) step(o[u], v[u]);
        }
        for (; j < len; ++j) {
          const std::int64_t q = p + static_cast<std::int64_t>(j) * C;
          step(offs(q), vals(q));
        }
        y(i) = (beta == V(0)) ? V(alpha * s) : V(alpha * s + beta * y(i));
      });
}

/// y(rows(t)) = beta*y(rows(t)) for a row list (DCSR's empty rows); beta == 0 writes 0.
template <class Exec, class RowList, class YView, class V>
void scale_rows(const char* label, V beta, const RowList& rows, const YView& y) {
  if (beta == V(1)) return;
  const std::int64_t m = static_cast<std::int64_t>(rows.extent(0));
  kkperm::parallel_for(
      label, kkperm::range_policy<Exec, Kokkos::IndexType<std::int64_t>>(0, m),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const auto i = rows(t);
        y(i) = (beta == V(0)) ? V(0) : V(beta * y(i));
      });
}

}  // namespace kkperm::spmv
