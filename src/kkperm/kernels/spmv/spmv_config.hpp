#pragma once
/**
 * @brief Tuning constants of every kkperm SpMV kernel, one constexpr struct per variant, and the
 * launch-shape helpers they share. Values are starting points chosen from the literature cited
 * next to each; the GPU benchmark (scripts/gpu/bench_spmv.sh) is what should move them.
 */
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace kkperm::spmv {

/// Whether `Exec` runs teams of many threads (a GPU). Host spaces get team_size 1.
template <class Exec>
constexpr bool is_gpu_space() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same<Exec, Kokkos::Cuda>::value;
#else
  return false;
#endif
}

struct CsrScalarConfig {};

/// Team/warp per row (Bell & Garland "CSR vector"): lanes = smallest power of two with
/// lanes * nnz_per_lane >= mean nnz/row, clamped to [min_vector_length, max_vector_length];
/// team = threads_per_team lanes. nnz_per_lane = 6 is Kokkos Kernels' own choice
/// (KokkosSparse_spmv_impl.hpp, spmv_launch_parameters: `vector_length * 6 < nnz_per_row`
/// doubles the vector length), i.e. each lane gets ~3-6 nonzeros so short rows do not leave
/// most lanes of a warp idle and long rows still get a whole warp.
struct CsrVectorConfig {
  static constexpr int threads_per_team = 256;
  static constexpr int min_vector_length = 1;
  static constexpr int max_vector_length = 32;  // one warp
  static constexpr int nnz_per_lane = 6;
};

/// Persistent warps taking rows from a global counter, one atomic per warp and fetch; the grid is
/// `waves` times what the device can hold at once (concurrency / lanes). A fetch takes at least
/// `rows_per_fetch` rows per team thread, and enough rows for about `nnz_per_fetch` entries at
/// the mean row length: one counter serves every warp, and its fetch-adds are serial. With a
/// fetch of 4 rows per team thread (10^6 fetches) the 2D 5-point 2000^2 stencil took 1.75 ms on an
/// H200, 4.5 % of the byte floor; with a fetch per warp of ~512 entries 0.14 ms, 56 % (session 45,
/// run 362, scripts/gpu/session45/wd362.sh).
struct CsrWarpDynamicConfig {
  static constexpr int threads_per_team = 256;
  static constexpr int rows_per_fetch = 1;
  static constexpr int nnz_per_fetch = 512;
  static constexpr int waves = 1;
};

/// Rows each team thread takes per fetch of csr_warp_dynamic: at least
/// CsrWarpDynamicConfig::rows_per_fetch, and enough that the `group` team threads sharing a fetch
/// (a warp) get about nnz_per_fetch entries at the mean row length nnz / rows.
inline std::int64_t warp_dynamic_rows_per_fetch(std::int64_t rows, std::int64_t nnz, int group) {
  std::int64_t r = CsrWarpDynamicConfig::rows_per_fetch;
  if (rows > 0 && nnz > 0 && group > 0) {
    // rows * nnz_per_fetch / (group * nnz), rounded up
    const std::int64_t want = (rows * CsrWarpDynamicConfig::nnz_per_fetch + group * nnz - 1) / (group * nnz);
    if (want > r) r = want;
  }
  return r;
}

/// Team of rows; x staged in level-0 scratch `tile_cols` columns at a time (8 KiB for double),
/// tiles visited only over the block's [min col, max col] range (computed in prepare).
struct CsrWarpTiledConfig {
  static constexpr int threads_per_team = 256;
  static constexpr int tile_cols = 1024;
  /// Refused when the x entries staged over all teams (sum of per-team column ranges, rounded
  /// to tiles) exceed max(max_stage_ratio * nnz, min_staged): beyond that staging x costs more
  /// than reading A.
  static constexpr double max_stage_ratio = 2.0;
  static constexpr std::int64_t min_staged = 1 << 16;
};

/// Equal-nnz chunks; rows cut by a chunk border are added atomically. On a GPU a chunk belongs
/// to a warp (vector of `gpu_lanes` lanes, `items_per_lane` nonzeros each): the lanes stage
/// the products a_k * x_{col_k} in team scratch with coalesced loads, then sum row segments
/// out of scratch (CSR-stream, Greathouse & Daga SC'14). On host spaces a chunk belongs to
/// one thread (`host_chunk_nnz`). Shared by COO (same chunking over its sorted row array).
struct CsrMergeConfig {
  static constexpr int chunk_nnz = 64;  ///< host spaces: nonzeros per thread
  static constexpr int gpu_lanes = 32;
  static constexpr int items_per_lane = 8;  ///< 256 nonzeros per warp, 16 KiB scratch (double)
  static constexpr int warps_per_team = 8;
};

/// Merge path (Merrill & Garland, SC'16): one team of `team` threads per tile of
/// team * items_per_thread path steps (rows + nonzeros), staged in team scratch (~16 KiB for
/// double values). 128 x 7 is their CUDA choice for double; host spaces run the same tile with
/// `team` virtual threads. min_teams_per_sm is the launch bound (registers <= 65536 / (12 *
/// 128) = 42, so the registers no longer limit residency below the ~14 teams scratch allows).
struct CsrMergePathConfig {
  static constexpr int team = 128;
  static constexpr int items_per_thread = 7;
  static constexpr int min_teams_per_sm = 12;
  static constexpr std::int64_t tile = std::int64_t(team) * items_per_thread;
};

/// ELL with k = max nnz/row. Refused (CandidateNotApplicable) when the padded slots n*k exceed
/// max(max_fill * nnz, min_slots): beyond that the padding, not the matrix, is what is read.
struct EllConfig {
  static constexpr double max_fill = 4.0;
  static constexpr std::int64_t min_slots = 1 << 16;
};

/// COO segmented reduction: chunks as in CsrMergeConfig (warp-staged on GPUs, one thread per
/// `chunk_nnz` entries on host spaces).
struct CooConfig {
  static constexpr int chunk_nnz = CsrMergeConfig::chunk_nnz;
};

/// HYB k choice (Bell & Garland 2009, cusp's compute_optimal_entries_per_row): the largest k
/// such that at least max(num_rows / relative_speed, breakeven_rows) rows have >= k entries,
/// i.e. ELL is used while it is "full enough" to beat COO, which they measured ~3x slower/entry.
struct HybConfig {
  static constexpr double relative_speed = 3.0;
  static constexpr std::int64_t breakeven_rows = 4096;
};

/// SELL-C-sigma (Kreutzer et al. 2014): slices of C = 32 rows (one warp), rows sorted by length
/// within windows of sigma = 256 rows. Same padding limit rule as ELL.
struct SellConfig {
  static constexpr int C = 32;
  static constexpr int sigma = 256;
  static constexpr double max_fill = 4.0;
  static constexpr std::int64_t min_slots = 1 << 16;
};

/// SELL16 = SELL-C-sigma with 16-bit column offsets: the same slice shape and padding limit as
/// SELL-C-sigma (a lane never reads its padding, but it is allocated). Two window sizes, two
/// candidates: sigma = 256 keeps a warp's rows close (x locality: 89-90 % of the CSR floor on
/// a sparse wide band against 80-82 % with 2048) and sigma_wide = 2048 evens out row lengths
/// (less idle lanes: 87-88 % against 84-85 % on a Kronecker FE mesh, 73-74 % against 69 % on a
/// web-graph pattern); H100 runs 68-69 (docs/benchmarks/spmv_sell16_h100_s13_2026-11-24.md).
/// Escape slots cost a slot each (sizeof(V) + 2 bytes): beyond max_escape_fraction * nnz of
/// them the format reads as many bytes as CSR in double ((8 + 2) * 1.2 = 8 + 4), so the
/// candidates refuse the matrix.
struct Sell16Config {
  static constexpr int C = SellConfig::C;
  static constexpr int sigma = 256;
  static constexpr int sigma_wide = 2048;
  static constexpr double max_fill = SellConfig::max_fill;
  static constexpr std::int64_t min_slots = SellConfig::min_slots;
  static constexpr double max_escape_fraction = 0.2;
  /// Kernel batches by mean slots per lane L (H100 runs 72-74, % of the CSR floor; tuned on
  /// 3 matrices of the generated set and 4 others): L < mid_lane: 4 slots, last batch
  /// predicated (rows of 5-32: +3 to +12 points over unpredicated batches in f32, within
  /// -3..+4 in f64); mid_lane <= L < long_lane: 8 slots, predicated (FE-mesh Kronecker rows of
  /// 53-106 and a band of 101: +1 to +8; 8 lose 5-12 points on short rows, registers);
  /// L >= long_lane: 4 unpredicated slots then single ones (rows of 500: 100-108 against
  /// 81-91 for the predicated batches; a band of 501 within 3 points).
  struct Batch {
    int slots;
    bool predicated;
  };
  static constexpr double mid_lane = 40.0;
  static constexpr double long_lane = 256.0;
  static constexpr Batch batch_for(double mean_lane) {
    return mean_lane < mid_lane ? Batch{4, true} : mean_lane < long_lane ? Batch{8, true}
                                                                         : Batch{4, false};
  }
};

/// Vector length for a mean row length: smallest power of two v with v * nnz_per_lane >=
/// mean, within [lo, hi] (see CsrVectorConfig for where nnz_per_lane = 6 comes from).
inline int vector_length_for(double mean_nnz_per_row, int lo, int hi,
                             int nnz_per_lane = CsrVectorConfig::nnz_per_lane) {
  int v = 1;
  while (static_cast<double>(v) * nnz_per_lane < mean_nnz_per_row && v < hi) v *= 2;
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}

/// Team size (threads, each with `vector_length` lanes) for a team of `threads_per_team` lanes.
template <class Exec>
int team_size_for(int threads_per_team, int vector_length) {
  if (!is_gpu_space<Exec>()) return 1;
  const int t = threads_per_team / vector_length;
  return t < 1 ? 1 : t;
}

/// Vector length actually requested on `Exec` (host spaces run lanes serially: use 1).
template <class Exec>
int launch_vector_length(int v) {
  return is_gpu_space<Exec>() ? v : 1;
}

}  // namespace kkperm::spmv
