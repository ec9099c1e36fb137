#pragma once
/**
 * @brief Parameters shared by the SpMM/SpMV features and the row permutations: warp size Nt,
 * warps per block Nw and the cache-line width that turns column indices into cache lines.
 *
 * Usage: `kkperm::FeatureParams p; p.warps_per_block = 16; p.cols_per_line(sizeof(double))`.
 * Preconditions: all members positive; cache_line_bytes a multiple of the value size used.
 */
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kkperm/core/error.hpp"

namespace kkperm {

struct FeatureParams {
  int warp_size = 32;          ///< Nt: threads of a warp sharing one row (load = ceil(nnz_R / Nt))
  int warps_per_block = 32;    ///< Nw: rows of one block; row i is served by warp i mod Nw
  int cache_line_bytes = 128;  ///< bytes of one cache line of the dense operand (x or B)
  int value_bytes = 0;         ///< bytes of one dense value; 0 = sizeof(matrix value type)
  /// Device feature passes: rows with more nonzeros than this are handled by a team each
  /// instead of one thread (hub rows of power-law matrices); the values do not depend on it.
  std::int64_t long_row_nnz = 2048;
  /// Device feature pass: vector lanes per row. 1 (default) = the staged pass chosen by row_pass
  /// (its warp's columns staged in team scratch); 2..32 (a power of two) = that many lanes share a row (lane j
  /// takes entries j, j + lanes, ...). Host backends run either pass with one lane; the values do
  /// not depend on it. On the H100 lanes won only on some matrices with ~32 nonzeros per row (8
  /// lanes on 1-63 random columns per row: 5.04 vs 5.11 SpMV-eq for the default, run 42) and lost
  /// up to 8x on short rows (run 41).
  int row_lanes = 1;
  /// Device feature pass with one lane per row (row_lanes == 1): column entries each warp stages
  /// in team scratch for its 32 rows and the next one (longer ranges are read in place); 0 =
  /// automatic.
  int row_stage_cols = 0;
  /// Device feature pass with row_lanes == 1: how a warp walks its 32 staged rows. entries: the
  /// lanes take the rows' nonzeros in steps of 32, one each, so a step's work does not depend on
  /// how the row lengths vary within the warp; rows: a thread per row; automatic (default):
  /// entries when a thread per row would keep fewer than 40 % of its lanes busy (one pass over
  /// the row offsets, detail::row_padded_work > detail::kEntryImbalance (2.5) x nnz, decided on
  /// the device: both passes are launched after it and the one not chosen skips itself), else
  /// rows; host backends (one thread per team) take rows. The values do not depend on it.
  enum class RowPass { automatic, entries, rows };
  RowPass row_pass = RowPass::automatic;
  /// Device feature pass, set 1: how the requests per line (same_line) and the lines of each
  /// warp's stripe (distinct_lines_warp) are recorded (detail::LineRecorder). stripes: one
  /// counter per (line, stripe), one atomic per (row, line) request; bitmap: one counter per line
  /// (warp-aggregated) and one bit per (stripe, line), two atomics per request, 1/32 of the
  /// memory; automatic (default): stripes when its Nw * ceil(n_col / cols_per_line) 4-byte
  /// counters take at most stripe_count_bytes_per_nnz bytes per nonzero (they are zeroed and
  /// read back once), else bitmap. H100 run 81: stripes 1.2 SpMV-eq cheaper on uniform random
  /// columns, bitmap 0.1-0.4 cheaper on stencils. The values do not depend on it.
  enum class LineCounts { automatic, stripes, bitmap };
  LineCounts line_counts = LineCounts::automatic;
  double stripe_count_bytes_per_nnz = 2.0;

  /// Columns of the dense operand that share one cache line: cache_line_bytes / value size
  /// (32 for float, 16 for double with the defaults).
  int cols_per_line(std::size_t matrix_value_size) const {
    const std::size_t vb = value_bytes > 0 ? static_cast<std::size_t>(value_bytes) : matrix_value_size;
    return static_cast<int>(static_cast<std::size_t>(cache_line_bytes) / vb);
  }

  /// Throws std::invalid_argument (message starts with `who`) on a non-positive parameter or a
  /// cache line narrower than one value.
  void check(const char* who, std::size_t matrix_value_size) const {
    KKPERM_REQUIRE(warp_size > 0, who << ": warp_size (Nt) must be positive, got " << warp_size);
    KKPERM_REQUIRE(warps_per_block > 0,
                   who << ": warps_per_block (Nw) must be positive, got " << warps_per_block);
    KKPERM_REQUIRE(cache_line_bytes > 0,
                   who << ": cache_line_bytes must be positive, got " << cache_line_bytes);
    KKPERM_REQUIRE(value_bytes >= 0, who << ": value_bytes must be >= 0, got " << value_bytes);
    KKPERM_REQUIRE(stripe_count_bytes_per_nnz >= 0.0,
                   who << ": stripe_count_bytes_per_nnz must be >= 0, got " << stripe_count_bytes_per_nnz);
    KKPERM_REQUIRE(long_row_nnz > 0, who << ": long_row_nnz must be positive, got " << long_row_nnz);
    KKPERM_REQUIRE(row_stage_cols == 0 || (row_stage_cols >= 33 && row_stage_cols <= 4096),
                   who << ": row_stage_cols must be 0 (automatic) or in [33, 4096], got " << row_stage_cols);
    KKPERM_REQUIRE(row_lanes >= 1 && row_lanes <= 32 && (row_lanes & (row_lanes - 1)) == 0,
                   who << ": row_lanes must be a power of two from 1 to 32, got " << row_lanes);
    KKPERM_REQUIRE(cols_per_line(matrix_value_size) >= 1,
                   who << ": cache line of " << cache_line_bytes
                       << " bytes holds no value of "
                       << (value_bytes > 0 ? std::size_t(value_bytes) : matrix_value_size)
                       << " bytes");
  }
};

/// A named, ordered feature vector; `names[i]` labels `values[i]`. `cols_per_line`, `warp_size`
/// and `warps_per_block` record the widths the cache-line and warp features used.
struct FeatureVector {
  std::vector<std::string> names;
  std::vector<double> values;
  int cols_per_line = 0;
  int warp_size = 0;
  int warps_per_block = 0;

  std::size_t size() const { return values.size(); }
  /// Value of the feature called `name`; throws std::invalid_argument when there is none.
  double at(const std::string& name) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return values[i];
    KKPERM_THROW(std::invalid_argument, "kkperm::FeatureVector::at: no feature named '" << name << "'");
  }
};

}  // namespace kkperm
