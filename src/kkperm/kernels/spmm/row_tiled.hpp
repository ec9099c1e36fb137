#pragma once
/**
 * @brief Row-major-B SpMM with B's rows staged in shared memory per tile of consecutive rows
 * (the row_major_tiled candidate): Y = alpha*A*B + beta*Y, B and Y row-major.
 *
 * prepare: build_row_tiles() cuts A's rows, in order, into tiles of at most `max_rows`
 * consecutive rows whose distinct columns number at most `max_cols`; a tile never crosses the
 * edge of a window of tile_window_rows(max_rows) rows (256 for 32-row tiles), and within a window
 * the rows are taken greedily. A tile keeps its distinct columns (sorted) and every entry of its rows a 16-bit
 * index into them. A row with more distinct columns than `max_cols` becomes a tile of its own with
 * no staged columns (a "direct" tile, listed in direct_rows): row_tiled() leaves it alone, and the
 * row_major_tiled plan runs those rows through the row-major kernel (row_major.hpp, with its split
 * of long rows) as a row set of their own. The windows make the build parallel: a warp per window
 * on the device, two launches (count, fill) around scans of the windows' counts, with
 * build_row_tiles_serial as its twin. (Session 42 built the tiles on the host with one greedy pass
 * over all rows: 126-405 ms for 2-4 x 10^7 entries on the H200's host.)
 * run (device backends): a team of 4 warps per tile. For each pass of PW columns (32 for
 * K <= 32, else 64), the team copies its tile's rows of B into team scratch (each warp keeps 8
 * loads a lane in flight), then each warp takes rows of the tile, lanes across the pass's
 * columns, and reads B from scratch through the local indices. Each B row a tile uses is read
 * from global memory once per tile and pass instead of once per entry. Tiles of empty rows get
 * beta*Y from the same launch.
 * Host backends: a tile a thread, B read through the same local indices.
 *
 * Where it pays: when a tile's rows share most of their columns (entries per staged column, the
 * tiles' "reuse", well above 1): banded rows, dense diagonal blocks. Standalone probes on an
 * H200 (session 42, scripts/gpu/session42/tile_probe.cu, runs 343-344), f64, against a warp per
 * row gathering B from global memory: block 20000 x 32 (reuse 32) K = 32 0.721 -> 0.447 ms,
 * K = 128 1.671 -> 1.007; banded 2M (8 a side, reuse 11) K = 32 1.286 -> 0.862, K = 128 2.853 ->
 * 2.449 (64-column passes); 2D 9-point (reuse 2.8) K = 32 0.503 -> 0.450; but uniform random
 * rows (reuse 1.0) 1.054 -> 1.675 and 3D 7-point (1.4) 0.493 -> 0.551.
 *
 * Usage:
 *   auto tiles = kkperm::kernels::spmm::build_row_tiles<Device>(row_map, entries, num_cols,
 *                                                                max_rows, max_cols);
 *   (build_row_tiles_serial<Device>(...): the same tiles, built on the host)
 *   kkperm::kernels::spmm::row_tiled(exec, alpha, tiles, row_map, entries, values, B, beta, Y);
 * Preconditions: row_map/entries/values are one CSR matrix (validated: sorted unique columns)
 * whose rows the tiles were built from; B is num_cols x K and Y num_rows x K; the tiles' widest
 * x tiled_pass_columns(K) values fit the team scratch (tiled_max_cols() sizes it). The rows of
 * direct tiles are not written.
 */
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kkperm/core/device_scan.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/row_search.hpp"
#include "kkperm/core/warp_ops.hpp"
#include "kkperm/kernels/spmm/spmm_common.hpp"

namespace kkperm::kernels::spmm {

/// Tuning constants of the tiled kernel (GPU values).
struct RowTiledConfig {
  static constexpr int warp_size = 32;
  static constexpr int warps_per_team = 4;
  /// Rows a tile may hold (H200 probe run 344: 32-row tiles beat 64 and 128 on every matrix).
  static constexpr int max_rows = 32;
  /// Distinct columns a staged tile may hold at most (also bounded by the scratch budget).
  static constexpr int max_cols = 96;
  /// Team scratch bytes the staged rows may take: Kokkos 3.4's level-0 limit on CUDA is 40 KiB.
  static constexpr std::size_t scratch_bytes = 40 * 1024;
  /// B loads each lane keeps in flight while staging (rows x R).
  static constexpr int stage_loads = 8;
};

/// Columns one pass of the tiled kernel covers: 32 for K <= 32, else 64. (128-column passes leave
/// 40 staged f64 columns a tile: on the H200, run 345, blocks of up to 64 columns then went
/// direct row by row; in the probes 64-column passes were the faster on the banded matrix, run 344.)
inline int tiled_pass_columns(std::int64_t K) { return K <= 32 ? 32 : 64; }

/// Largest number of staged columns a tile may have for K and the value size: RowTiledConfig's
/// max_cols, fewer when a pass of that many B rows would exceed the scratch budget.
inline int tiled_max_cols(std::int64_t K, std::size_t value_bytes) {
  const std::size_t per_row = static_cast<std::size_t>(tiled_pass_columns(K)) * value_bytes;
  const std::size_t fit = RowTiledConfig::scratch_bytes / per_row;
  return static_cast<int>(std::min<std::size_t>(fit, RowTiledConfig::max_cols));
}

/// Tiles of consecutive rows (see the file comment). A tile t holds rows [row0(t), row0(t+1))
/// and staged columns cols[cptr(t), cptr(t+1)); none staged = a direct tile (or empty rows).
template <class Device, class Ordinal, class Offset>
struct RowTiles {
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  Kokkos::View<Ordinal*, Device> row0;
  Kokkos::View<Offset*, Device> cptr;
  Kokkos::View<Ordinal*, Device> cols;
  Kokkos::View<std::uint16_t*, Device> local;  ///< per entry: index into its tile's cols
  Kokkos::View<Ordinal*, Device> direct_rows;  ///< the rows of the direct tiles, ascending
  std::int64_t tiles = 0;
  std::int64_t staged_entries = 0; ///< entries of the staged tiles
  int max_cols = 0;                ///< the cap the tiles were built with
  int widest = 0;                  ///< most staged columns of any tile (<= max_cols)
  /// Tiles of one row whose columns exceed max_cols.
  std::int64_t direct_tiles() const { return static_cast<std::int64_t>(direct_rows.extent(0)); }
  /// Staged columns of all tiles.
  std::int64_t staged_cols() const { return static_cast<std::int64_t>(cols.extent(0)); }
  /// Entries per staged column: how often a staged B row is used.
  double reuse() const {
    return staged_cols() > 0 ? static_cast<double>(staged_entries) / static_cast<double>(staged_cols()) : 0.0;
  }
  /// Device bytes held.
  double bytes() const {
    return static_cast<double>(row0.extent(0) + cols.extent(0) + direct_rows.extent(0)) * sizeof(Ordinal) +
           static_cast<double>(cptr.extent(0)) * sizeof(Offset) + static_cast<double>(local.extent(0)) * 2.0;
  }
};

/// Rows of the windows the tiles are built in (at least `max_rows`; 256 for 32-row tiles): a tile
/// never crosses a window's edge, so each window is built on its own (a warp each). H200 run 347:
/// 32-row windows cut the 2D 9-point matrix's 30-row tiles (3 lines x 32 columns = 96) into 30 + 2
/// rows, 62 436 tiles instead of 33 330, and its K = 32 product went 0.457 -> 0.526 ms; a window of
/// 256 rows costs one short tile in 8.
inline std::int64_t tile_window_rows(int max_rows) { return std::max<std::int64_t>(max_rows, 256); }

/// Most staged columns a tile may have for the parallel builder (build_row_tiles): each warp keeps
/// its tile's column set and its sorted copy in team scratch, 2 x this many ordinals. Wider caps
/// are built by build_row_tiles_serial (the same tiles).
inline constexpr int kTileBuildMaxCols = 256;

namespace detail {
inline void check_tile_caps(int max_rows, int max_cols) {
  if (max_rows < 1) throw std::invalid_argument("kkperm::spmm::build_row_tiles: max_rows must be >= 1");
  if (max_cols < 1 || max_cols > std::numeric_limits<std::uint16_t>::max())
    throw std::invalid_argument("kkperm::spmm::build_row_tiles: max_cols must be in [1, 65535], got " +
                                std::to_string(max_cols));
}
inline std::string tile_bad_column(std::int64_t row, std::int64_t num_cols) {
  return "kkperm::spmm::build_row_tiles: row " + std::to_string(row) + " has a column outside [0, " +
         std::to_string(num_cols) + ")";
}
}  // namespace detail

/**
 * @brief The tiles, built serially on the host from A's row map and columns (copied from the
 * device once): the reference twin of build_row_tiles, and its builder for caps above
 * kTileBuildMaxCols. A's rows are taken in windows of tile_window_rows(max_rows) consecutive
 * rows (window w: rows [w * wr, (w + 1) * wr)), so a tile never crosses a window's edge; within a
 * window, greedily in row order, a row joins the current tile while the tile stays within
 * `max_rows` rows and `max_cols` distinct columns. A row whose columns alone exceed `max_cols` is a direct tile.
 * O(nnz + num_cols) time, plus a sort of each tile's columns. Throws std::invalid_argument on
 * max_rows < 1, max_cols outside [1, 65535], or a column outside [0, num_cols).
 */
template <class Device, class RowMap, class Entries>
RowTiles<Device, typename std::remove_const<typename Entries::value_type>::type,
         typename std::remove_const<typename RowMap::value_type>::type>
build_row_tiles_serial(const RowMap& row_map, const Entries& entries, std::int64_t num_cols, int max_rows,
                       int max_cols) {
  using ordinal_t = typename std::remove_const<typename Entries::value_type>::type;
  using offset_t = typename std::remove_const<typename RowMap::value_type>::type;
  detail::check_tile_caps(max_rows, max_cols);
  RowTiles<Device, ordinal_t, offset_t> t;
  t.max_cols = max_cols;
  const std::int64_t n = stored_rows(row_map);
  const auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
  const auto en = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), entries);
  const std::int64_t nnz = n > 0 ? static_cast<std::int64_t>(rm(n)) : 0;
  std::vector<ordinal_t> row0, cols, direct_rows;
  std::vector<offset_t> cptr{offset_t(0)};
  std::vector<std::uint16_t> local(static_cast<std::size_t>(nnz), 0);
  std::vector<std::int64_t> mark(static_cast<std::size_t>(std::max<std::int64_t>(num_cols, 0)), -1);
  std::vector<std::uint16_t> slot(mark.size(), 0);
  std::int64_t stamp = 0;
  std::vector<ordinal_t> tile_cols;
  std::int64_t tile_first = 0;
  const std::int64_t wr = tile_window_rows(max_rows);
  // closes the tile of rows [tile_first, end): sorted columns, local indices
  auto close = [&](std::int64_t end, bool direct) {
    row0.push_back(static_cast<ordinal_t>(tile_first));
    if (direct) {
      direct_rows.push_back(static_cast<ordinal_t>(tile_first));
    } else {
      std::sort(tile_cols.begin(), tile_cols.end());
      for (std::size_t k = 0; k < tile_cols.size(); ++k) slot[static_cast<std::size_t>(tile_cols[k])] = static_cast<std::uint16_t>(k);
      for (std::int64_t r = tile_first; r < end; ++r)
        for (std::int64_t e = rm(r); e < static_cast<std::int64_t>(rm(r + 1)); ++e)
          local[static_cast<std::size_t>(e)] = slot[static_cast<std::size_t>(en(e))];
      t.staged_entries += static_cast<std::int64_t>(rm(end) - rm(tile_first));
      t.widest = std::max<int>(t.widest, static_cast<int>(tile_cols.size()));
      cols.insert(cols.end(), tile_cols.begin(), tile_cols.end());
    }
    cptr.push_back(static_cast<offset_t>(cols.size()));
    tile_cols.clear();
    tile_first = end;
    ++stamp;
  };
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t b = rm(r), e = rm(r + 1);
    int fresh = 0;
    for (std::int64_t k = b; k < e; ++k) {
      const std::int64_t c = en(k);
      if (c < 0 || c >= num_cols) throw std::invalid_argument(detail::tile_bad_column(r, num_cols));
      if (mark[static_cast<std::size_t>(c)] != stamp) ++fresh;  // columns are unique within a row
    }
    const std::int64_t rows_now = r - tile_first;
    if (rows_now > 0 && (r % wr == 0 || rows_now >= max_rows ||
                         static_cast<std::int64_t>(tile_cols.size()) + fresh > max_cols)) {
      close(r, false);
      fresh = static_cast<int>(e - b);  // every column is new to the next tile
    }
    if (fresh > max_cols) {  // a row alone too wide to stage: its own direct tile
      close(r + 1, true);
      continue;
    }
    for (std::int64_t k = b; k < e; ++k) {
      const std::size_t c = static_cast<std::size_t>(en(k));
      if (mark[c] != stamp) {
        mark[c] = stamp;
        tile_cols.push_back(static_cast<ordinal_t>(c));
      }
    }
  }
  if (tile_first < n) close(n, false);
  t.tiles = static_cast<std::int64_t>(row0.size());
  row0.push_back(static_cast<ordinal_t>(n));
  auto up = [](const auto& h, const char* label) {
    using T = typename std::decay<decltype(h)>::type::value_type;
    Kokkos::View<T*, Device> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), h.size());
    Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hv(h.data(), h.size());
    Kokkos::deep_copy(d, hv);
    return d;
  };
  t.row0 = up(row0, "kkperm::spmm::tile_row0");
  t.cptr = up(cptr, "kkperm::spmm::tile_cptr");
  t.cols = up(cols, "kkperm::spmm::tile_cols");
  t.local = up(local, "kkperm::spmm::tile_local");
  t.direct_rows = up(direct_rows, "kkperm::spmm::tile_direct_rows");
  return t;
}

namespace detail {

/// Per window of tile_window_rows(max_rows) rows (build_row_tiles): its tiles, staged columns and direct tiles
/// (exclusive offsets after the scans), staged entries and widest tile.
template <class Device>
struct TileWindows {
  Kokkos::View<std::int64_t*, Device> tiles, cols, direct, staged;
  Kokkos::View<int*, Device> widest;
};

/// One launch of the windowed greedy over every window, a warp per window (a thread on host
/// backends): the count pass (Fill = false) records each window's counts in `win`; the fill pass
/// walks the same greedy again and writes the tiles at the window's offsets. The columns were
/// checked before (build_row_tiles).
template <bool Fill, class ExecSpace, class RowMap, class Entries, class Tiles, class Win>
void tile_windows(const ExecSpace& exec, const RowMap& row_map, const Entries& entries, int max_rows, int max_cols,
                  const Win& win, const Tiles& out) {
  using ordinal_t = typename Tiles::ordinal_type;
  constexpr int W = is_gpu_space<ExecSpace>::value ? 32 : 1;
  constexpr int NW = is_gpu_space<ExecSpace>::value ? 4 : 1;  // windows (warps) a team
  const std::int64_t n = stored_rows(row_map);
  const std::int64_t wr = tile_window_rows(max_rows);
  const std::int64_t nw = (n + wr - 1) / wr;
  using policy_t = kkperm::team_policy<ExecSpace>;
  using member_t = typename policy_t::member_type;
  using scratch_t = Kokkos::View<ordinal_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const int cap = max_cols;
  const std::size_t per_team = static_cast<std::size_t>(NW) * 2 * static_cast<std::size_t>(cap);
  policy_t policy(exec, static_cast<int>((nw + NW - 1) / NW), NW * W);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch_t::shmem_size(per_team)));
  const std::int64_t mr = max_rows;
  const auto row0 = out.row0;
  const auto cptr = out.cptr;
  const auto cols = out.cols;
  const auto local = out.local;
  const auto direct_rows = out.direct_rows;
  kkperm::parallel_for(
      Fill ? "kkperm::spmm::tile_windows_fill" : "kkperm::spmm::tile_windows_count", policy,
      KOKKOS_LAMBDA(const member_t& team) {
        const int tr = team.team_rank();
        const int lane = tr % W;
        const std::int64_t w = static_cast<std::int64_t>(team.league_rank()) * NW + tr / W;
        if (w >= nw) return;  // the whole warp leaves together
        scratch_t S(team.team_scratch(0), per_team);
        ordinal_t* set = S.data() + static_cast<std::size_t>(tr / W) * 2 * cap;  // this tile's columns
        ordinal_t* sorted = set + cap;                                           // and sorted
        const std::int64_t r_begin = w * wr, r_end = r_begin + wr < n ? r_begin + wr : n;
        const std::int64_t t_out = Fill ? win.tiles(w) : 0, c_out = Fill ? win.cols(w) : 0,
                           d_out = Fill ? win.direct(w) : 0;
        std::int64_t ntiles = 0, ncols = 0, ndirect = 0, staged = 0;
        int size = 0, widest = 0;
        std::int64_t tile_first = r_begin;
        // closes the staged tile of rows [tile_first, end): its columns sorted (the rank of each in
        // the set), written to cols, and every entry's local index found by binary search
        auto close_staged = [&](const std::int64_t end) {
          const std::int64_t e0 = row_map(tile_first), e1 = row_map(end);
          if (Fill) {
            for (int i = lane; i < size; i += W) {
              const ordinal_t c = set[i];
              int rank = 0;
              for (int j = 0; j < size; ++j) rank += (set[j] < c || (set[j] == c && j < i)) ? 1 : 0;
              sorted[rank] = c;
            }
            kkperm::detail::sync_warp_lanes();
            if (lane == 0) {
              row0(t_out + ntiles) = static_cast<ordinal_t>(tile_first);
              cptr(t_out + ntiles) = static_cast<typename Tiles::offset_type>(c_out + ncols);
            }
            for (int i = lane; i < size; i += W) cols(c_out + ncols + i) = sorted[i];
            for (std::int64_t k = e0 + lane; k < e1; k += W) {
              const ordinal_t c = entries(k);
              int lo = 0, hi = size - 1;
              while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (sorted[mid] < c)
                  lo = mid + 1;
                else
                  hi = mid;
              }
              local(k) = static_cast<std::uint16_t>(lo);
            }
            kkperm::detail::sync_warp_lanes();  // set and sorted are refilled next
          }
          staged += e1 - e0;
          widest = size > widest ? size : widest;
          ncols += size;
          ++ntiles;
          size = 0;
          tile_first = end;
        };
        for (std::int64_t r = r_begin; r < r_end; ++r) {
          const std::int64_t b = row_map(r), e = row_map(r + 1);
          // columns of row r not in the tile's set yet (a row's columns are unique); a row of more
          // than cap columns is direct whatever the set holds, and is not read (a warp walking the
          // arrow matrix's 10^6-entry rows a load at a time took most of its 28 ms prep, run 348)
          std::int64_t fresh = cap + 1;
          if (e - b <= cap) {
            fresh = 0;
            for (std::int64_t k0 = b; k0 < e; k0 += W) {
              const std::int64_t k = k0 + lane;
              bool is_new = false;
              if (k < e) {
                const ordinal_t c = entries(k);
                is_new = true;
                for (int j = 0; j < size; ++j) is_new = is_new && set[j] != c;
              }
              fresh += kkperm::detail::popcount32u(kkperm::detail::warp_ballot(is_new));
            }
          }
          if (r > tile_first && (r - tile_first >= mr || size + fresh > cap)) {  // the tile cannot take the row
            close_staged(r);
            fresh = e - b > cap ? cap + 1 : e - b;  // every column is new to the next tile
          }
          if (fresh > cap) {  // a row alone too wide to stage: a direct tile of its own
            if (Fill) {
              if (lane == 0) {
                row0(t_out + ntiles) = static_cast<ordinal_t>(r);
                cptr(t_out + ntiles) = static_cast<typename Tiles::offset_type>(c_out + ncols);
                direct_rows(d_out + ndirect) = static_cast<ordinal_t>(r);
              }
              for (std::int64_t k = b + lane; k < e; k += W) local(k) = 0;
            }
            ++ntiles;
            ++ndirect;
            tile_first = r + 1;
            continue;
          }
          // the row joins the tile: its new columns go after the set's first size0
          const int size0 = size;
          for (std::int64_t k0 = b; k0 < e; k0 += W) {
            const std::int64_t k = k0 + lane;
            bool is_new = false;
            ordinal_t c = 0;
            if (k < e) {
              c = entries(k);
              is_new = true;
              for (int j = 0; j < size0; ++j) is_new = is_new && set[j] != c;
            }
            const unsigned m = kkperm::detail::warp_ballot(is_new);
            if (is_new) {
              const unsigned below = m & ((1u << lane) - 1u);  // lanes below this one (lane < 32)
              set[size + kkperm::detail::popcount32u(below)] = c;
            }
            size += kkperm::detail::popcount32u(m);
          }
          kkperm::detail::sync_warp_lanes();
        }
        if (tile_first < r_end) close_staged(r_end);  // the window's last tile
        if (!Fill) {
          if (lane == 0) {
            win.tiles(w) = ntiles;
            win.cols(w) = ncols;
            win.direct(w) = ndirect;
            win.staged(w) = staged;
            win.widest(w) = widest;
          }
        }
      });
}

}  // namespace detail

/**
 * @brief The tiles (see the file comment), built on A's execution space: the windowed greedy of
 * build_row_tiles_serial, a warp per window of tile_window_rows(max_rows) rows (a thread on host
 * backends), in two
 * launches (count; scans of the windows' counts; fill), so the tiles are the serial twin's, entry
 * for entry. Caps above kTileBuildMaxCols go to build_row_tiles_serial. Throws
 * std::invalid_argument on max_rows < 1, max_cols outside [1, 65535], or a column outside
 * [0, num_cols) (the lowest such row is named).
 */
template <class Device, class RowMap, class Entries>
RowTiles<Device, typename std::remove_const<typename Entries::value_type>::type,
         typename std::remove_const<typename RowMap::value_type>::type>
build_row_tiles(const RowMap& row_map, const Entries& entries, std::int64_t num_cols, int max_rows, int max_cols) {
  using ordinal_t = typename std::remove_const<typename Entries::value_type>::type;
  using offset_t = typename std::remove_const<typename RowMap::value_type>::type;
  using exec_t = typename Device::execution_space;
  detail::check_tile_caps(max_rows, max_cols);
  if (max_cols > kTileBuildMaxCols) return build_row_tiles_serial<Device>(row_map, entries, num_cols, max_rows, max_cols);
  using tiles_t = RowTiles<Device, ordinal_t, offset_t>;
  tiles_t t;
  t.max_cols = max_cols;
  const std::int64_t n = stored_rows(row_map);
  const std::int64_t nw = (n + tile_window_rows(max_rows) - 1) / tile_window_rows(max_rows);
  const exec_t exec;
  detail::TileWindows<Device> win;
  auto make = [&](const char* label) {
    return Kokkos::View<std::int64_t*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), nw + 1);
  };
  win.tiles = make("kkperm::spmm::tile_win_tiles");
  win.cols = make("kkperm::spmm::tile_win_cols");
  win.direct = make("kkperm::spmm::tile_win_direct");
  win.staged = make("kkperm::spmm::tile_win_staged");
  win.widest = Kokkos::View<int*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kkperm::spmm::tile_win_widest")), nw + 1);
  offset_t nnz = 0;
  if (n > 0) Kokkos::deep_copy(nnz, Kokkos::subview(row_map, n));
  {  // every column in [0, num_cols), a thread an entry; the lowest bad entry's row is the lowest bad row
    const std::int64_t ne = static_cast<std::int64_t>(nnz), ncol = num_cols;
    std::int64_t bad = ne;
    Kokkos::parallel_reduce(
        "kkperm::spmm::tile_check_cols", kkperm::range_policy<exec_t>(exec, 0, ne),
        KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& m) {
          const std::int64_t c = static_cast<std::int64_t>(entries(k));
          if ((c < 0 || c >= ncol) && k < m) m = k;
        },
        Kokkos::Min<std::int64_t>(bad));
    if (ne > 0 && bad < ne) {
      std::int64_t row = 0;  // the row holding entry `bad`
      Kokkos::parallel_reduce(
          "kkperm::spmm::tile_bad_row", kkperm::range_policy<exec_t>(exec, 0, 1),
          KOKKOS_LAMBDA(const std::int64_t, std::int64_t& r) { r += kkperm::row_of_nonzero(row_map, n, bad); }, row);
      throw std::invalid_argument(detail::tile_bad_column(row, num_cols));
    }
  }
  if (nw > 0) detail::tile_windows<false>(exec, row_map, entries, max_rows, max_cols, win, t);
  std::int64_t staged = 0;
  int widest = 0;
  {
    const auto ws = win.staged;
    const auto ww = win.widest;
    Kokkos::parallel_reduce(
        "kkperm::spmm::tile_win_staged", kkperm::range_policy<exec_t>(exec, 0, nw),
        KOKKOS_LAMBDA(const std::int64_t w, std::int64_t& s) { s += ws(w); }, staged);
    Kokkos::parallel_reduce(
        "kkperm::spmm::tile_win_widest", kkperm::range_policy<exec_t>(exec, 0, nw),
        KOKKOS_LAMBDA(const std::int64_t w, int& m) { m = ww(w) > m ? ww(w) : m; }, Kokkos::Max<int>(widest));
    if (nw == 0) widest = 0;
  }
  // the windows' counts of tiles, columns and direct tiles become their exclusive offsets (the
  // fill pass reads win's views as offsets), the totals at w = nw
  auto scan = [&](Kokkos::View<std::int64_t*, Device>& v, const char* label) {
    const auto counts = v;
    v = make(label);
    exclusive_scan_to<exec_t, std::int64_t>(label, nw, KOKKOS_LAMBDA(const std::int64_t w) { return counts(w); }, v);
    std::int64_t total = 0;
    Kokkos::deep_copy(total, Kokkos::subview(v, nw));
    return total;
  };
  t.tiles = scan(win.tiles, "kkperm::spmm::tile_win_off_tiles");
  const std::int64_t ncols = scan(win.cols, "kkperm::spmm::tile_win_off_cols");
  const std::int64_t ndirect = scan(win.direct, "kkperm::spmm::tile_win_off_direct");
  t.staged_entries = staged;
  t.widest = widest;
  auto alloc = [](auto& v, const char* label, std::int64_t len) {
    using V = typename std::decay<decltype(v)>::type;
    v = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), static_cast<std::size_t>(len));
  };
  alloc(t.row0, "kkperm::spmm::tile_row0", t.tiles + 1);
  alloc(t.cptr, "kkperm::spmm::tile_cptr", t.tiles + 1);
  alloc(t.cols, "kkperm::spmm::tile_cols", ncols);
  alloc(t.local, "kkperm::spmm::tile_local", static_cast<std::int64_t>(nnz));
  alloc(t.direct_rows, "kkperm::spmm::tile_direct_rows", ndirect);
  if (nw > 0) detail::tile_windows<true>(exec, row_map, entries, max_rows, max_cols, win, t);
  const auto row0 = t.row0;
  const auto cptr = t.cptr;
  const std::int64_t nt = t.tiles;
  kkperm::parallel_for(
      "kkperm::spmm::tile_ends", kkperm::range_policy<exec_t>(exec, 0, 1), KOKKOS_LAMBDA(const std::int64_t) {
        row0(nt) = static_cast<ordinal_t>(n);
        cptr(nt) = static_cast<offset_t>(ncols);
      });
  exec.fence();
  return t;
}

namespace detail {

/// Device path for passes of PW = 32 R columns (see the file comment).
template <int R, class ExecSpace, class Tiles, class RowMap, class Values, class BView, class YView>
void row_tiled_run(const ExecSpace& exec, typename YView::const_value_type alpha, const Tiles& tiles,
                   const RowMap& row_map, const Values& values, const BView& B,
                   typename YView::const_value_type beta, const YView& Y) {
  using value_t = typename YView::non_const_value_type;
  using ordinal_t = typename Tiles::ordinal_type;
  constexpr int W = RowTiledConfig::warp_size;
  constexpr int NW = RowTiledConfig::warps_per_team;
  constexpr int PW = W * R;
  constexpr int SU = RowTiledConfig::stage_loads / R < 1 ? 1 : RowTiledConfig::stage_loads / R;
  const int K = static_cast<int>(Y.extent(1));
  const int cap = tiles.widest;
  using policy_t = kkperm::team_policy<ExecSpace, Kokkos::LaunchBounds<NW * W, 4>>;
  using member_t = typename policy_t::member_type;
  using scratch_t = Kokkos::View<value_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const std::size_t bytes = scratch_t::shmem_size(static_cast<std::size_t>(cap > 0 ? cap : 1) * PW);
  policy_t policy(exec, static_cast<int>(tiles.tiles), NW * W);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  const auto row0 = tiles.row0;
  const auto cptr = tiles.cptr;
  const auto cols = tiles.cols;
  const auto local = tiles.local;
  const value_t a = alpha, b = beta;
  kkperm::parallel_for(
      "kkperm::spmm::row_tiled", policy, KOKKOS_LAMBDA(const member_t& team) {
        const int t = team.league_rank();
        const int tr = team.team_rank();
        const int lane = tr % W, w = tr / W;
        const std::int64_t r0 = row0(t), r1 = row0(t + 1);
        const std::int64_t c0 = cptr(t);
        const int U = static_cast<int>(cptr(t + 1) - c0);
        if (U == 0 && row_map(r1) > row_map(r0)) return;  // a direct tile: its row is the caller's
        scratch_t S(team.team_scratch(0), static_cast<std::size_t>(cap > 0 ? cap : 1) * PW);
        for (int base = 0; base < K; base += PW) {
          const bool full = base + PW <= K;
          if (U > 0) {
            if (base > 0) team.team_barrier();  // the previous pass is done with S
            for (int u0 = w * SU; u0 < U; u0 += NW * SU) {
              ordinal_t cu = 0;
              if (lane < SU && u0 + lane < U) cu = cols(c0 + u0 + lane);
              value_t tmp[SU][R];
#pragma unroll
              for (int s = 0; s < SU; ++s) {
                const ordinal_t col = kkperm::detail::warp_shfl_idx(cu, s, W);
#pragma unroll
                for (int q = 0; q < R; ++q) {
                  const int c = base + lane + q * W;
                  tmp[s][q] = (u0 + s < U && (full || c < K)) ? value_t(B(col, c)) : value_t(0);
                }
              }
#pragma unroll
              for (int s = 0; s < SU; ++s)
                if (u0 + s < U)
#pragma unroll
                  for (int q = 0; q < R; ++q) S((u0 + s) * PW + lane + q * W) = tmp[s][q];
            }
            team.team_barrier();
          }
          for (std::int64_t r = r0 + w; r < r1; r += NW) {
            value_t acc[R];
#pragma unroll
            for (int q = 0; q < R; ++q) acc[q] = value_t(0);
            const std::int64_t beg = row_map(r), end = row_map(r + 1);
            for (std::int64_t e0 = beg; e0 < end; e0 += W) {  // (a tile with rows of entries has U > 0)
              const int n = end - e0 < W ? static_cast<int>(end - e0) : W;
              int ml = 0;
              value_t mv = value_t(0);
              if (lane < n) {
                ml = static_cast<int>(local(e0 + lane));
                mv = values(e0 + lane);
              }
#pragma unroll 4
              for (int j = 0; j < n; ++j) {
                const int l = kkperm::detail::warp_shfl_idx(ml, j, W);
                const value_t v = kkperm::detail::warp_shfl_idx(mv, j, W);
#pragma unroll
                for (int q = 0; q < R; ++q) acc[q] += v * S(l * PW + lane + q * W);
              }
            }
#pragma unroll
            for (int q = 0; q < R; ++q) {
              const int c = base + lane + q * W;
              if (full || c < K) {
                const value_t ax = a * acc[q];
                Y(r, c) = b == value_t(0) ? ax : value_t(ax + b * Y(r, c));
              }
            }
          }
        }
      });
}

}  // namespace detail

/// The tiled kernel over every row of A but the direct tiles' (see the file comment). `tiles`
/// built from the same row_map and entries; B num_cols x K, Y num_rows x K (either layout;
/// row-major is the one it is made for). beta == 0 never reads Y.
template <class ExecSpace, class Tiles, class RowMap, class Entries, class Values, class BView, class YView>
void row_tiled(const ExecSpace& exec, typename YView::const_value_type alpha, const Tiles& tiles,
               const RowMap& row_map, const Entries& entries, const Values& values, const BView& B,
               typename YView::const_value_type beta, const YView& Y) {
  using value_t = typename YView::non_const_value_type;
  const std::int64_t K = static_cast<std::int64_t>(Y.extent(1));
  if (tiles.tiles == 0 || K == 0) return;
  if (static_cast<std::int64_t>(tiles.row0.extent(0)) != tiles.tiles + 1 ||
      static_cast<std::int64_t>(tiles.local.extent(0)) != static_cast<std::int64_t>(entries.extent(0)))
    throw std::invalid_argument("kkperm::spmm::row_tiled: the tiles were not built from this matrix (" +
                                std::to_string(tiles.local.extent(0)) + " local indices for " +
                                std::to_string(entries.extent(0)) + " entries)");
  if (tiles.widest > tiled_max_cols(K, sizeof(value_t)))
    throw std::invalid_argument("kkperm::spmm::row_tiled: tiles of up to " + std::to_string(tiles.widest) +
                                " staged columns exceed the scratch for K = " + std::to_string(K) + " (at most " +
                                std::to_string(tiled_max_cols(K, sizeof(value_t))) + ")");
  if constexpr (is_gpu_space<ExecSpace>::value) {
    if (tiled_pass_columns(K) == 32)
      detail::row_tiled_run<1>(exec, alpha, tiles, row_map, values, B, beta, Y);
    else
      detail::row_tiled_run<2>(exec, alpha, tiles, row_map, values, B, beta, Y);
  } else {
    const auto row0 = tiles.row0;
    const auto cptr = tiles.cptr;
    const auto cols = tiles.cols;
    const auto local = tiles.local;
    const value_t a = alpha, b = beta;
    const int k = static_cast<int>(K);
    kkperm::parallel_for(
        "kkperm::spmm::row_tiled_host", kkperm::range_policy<ExecSpace>(exec, 0, tiles.tiles),
        [=](const std::int64_t t) {
          const auto c0 = cptr(t);
          if (cptr(t + 1) == c0 && row_map(row0(t + 1)) > row_map(row0(t))) return;  // direct tile
          for (std::int64_t r = row0(t); r < static_cast<std::int64_t>(row0(t + 1)); ++r)
            for (int c = 0; c < k; ++c) {
              value_t acc = value_t(0);
              for (auto e = row_map(r); e < row_map(r + 1); ++e) acc += values(e) * value_t(B(cols(c0 + local(e)), c));
              const value_t ax = a * acc;
              Y(r, c) = b == value_t(0) ? ax : value_t(ax + b * Y(r, c));
            }
        });
  }
}

}  // namespace kkperm::kernels::spmm
