#pragma once
/**
 * @brief ESC SpGEMM (expansion, sorting, contraction) with rows binned by work and a
 * symbolic/numeric split, on any Kokkos execution space.
 *
 * Usage:
 *   kkperm::spgemm::EscSpgemm<Matrix> esc;            // EscConfig{} defaults
 *   esc.symbolic(A, B);                                // C's row_map + sorted columns + bin plan
 *   esc.numeric(A, B);                                 // values; repeat after value changes
 *   const Matrix& C = esc.C();
 *   // or esc.setup(A, B): symbolic and the first numeric in one call (values summed in the
 *   // symbolic passes where that is faster, EscConfig::setup_values_in_count), then numeric()
 *
 * Algorithm (row-wise ESC, Dalton/Olson/Bell 2015):
 *  1. analysis: F_i = Σ_{k ∈ row i of A} nnz(B row k);
 *  2. reorder: rows grouped by bin (w_i = max(F_i, nnz(A row i)) ≤ thread_max / warp_max /
 *     team_max / above), stable inside a bin; C is written either straight to its final rows
 *     (EscOutputOrder::direct) or in permuted order and put back by a gather timed separately
 *     (EscOutputOrder::permuted_then_restore);
 *  3. bins: ≤ thread_max one thread, expanded row in the thread's slice of team scratch
 *     (insertion sort);
 *     ≤ warp_max one team of warp_team_size threads and ≤ team_max one team of block_team_size
 *     threads, the row's columns inserted into a hash table in scratch (level 0 when it fits,
 *     level 1 otherwise; reported): count = inserts, fill = compact + sort only the unique
 *     columns (with drop_zeros: expanded row bitonic-sorted in scratch, reduced by key);
 *     by default (warp_rows) the warp bin instead runs on the warp-row kernels
 *     (esc_warp_rows.hpp): a group of warp_row_lanes lanes of a CUDA warp per row (8, 16 or
 *     32, chosen from the range's mean work unless set), up to warp_rows_per_team warps per team,
 *     products flattened across the row's lanes with shuffles (no team scan or barrier); a row
 *     of at most one A entry and 4 products a lane sorted in registers by a bitonic network
 *     across its lanes (warp_row_register_sort), others on a bitmap of their column window
 *     (warp_row_bitmap) when it fits, else the hash table in the row's share of team scratch,
 *     compaction by ballots, a flip-bitonic sort by the row's lanes; the
 *     thread bin joins that launch when it has fewer than fold_thread_bin_below rows (a thread
 *     per row leaves the device idle); with warp_rows and block_rows the block bin is walked the
 *     same way by the 8 warps of a team a row, each taking 32-entry chunks of A's row
 *     (symbolic_block_rows, numeric_block_rows); with a stash (stash_limit_bytes) the count pass
 *     also sorts and keeps each row's columns (warp-row range, and the block bin with
 *     stash_block_bin) and the fill pass only copies them (single pass);
 *     larger rows (global bin, buffers chunked to global_buffer_bytes): products
 *     flattened across a team of global_team_size threads (clamped to the kernel's maximum),
 *     columns inserted into a per-row hash table in global memory (count = inserts; fill =
 *     compact + sort only the unique columns), or with drop_zeros expanded, bitonic-sorted in
 *     global memory and reduced by key;
 *  4. expansion scales by A's value; contraction sums equal columns; explicit zeros (stored
 *     zeros or cancellation) are kept unless drop_zeros;
 *  5. symbolic = count pass + fill pass (columns only); slot map (allocated by the numeric that
 *     fills it, or by symbolic when lazy_slot_map is off): for every product
 *     a_ik·b_kj the position of column j in C's sorted row (kept when it fits memory_limit_bytes
 *     and slot_map_limit_bytes: Σ F_i · (2 or 4) + 8 · (nnz(A) + 1) bytes, reported in
 *     EscStats::slot_bytes). numeric recomputes values only, reusing the structure and the bin
 *     plan. The first numeric after symbolic finds each product's position by binary search in
 *     C's row; the second does the same and records the positions in the slot map, allocated
 *     then (lazy_slot_map, the default: a one-shot symbolic + numeric pays for no slot map;
 *     with it off the first numeric records); every later numeric goes
 *     through the slot map: per product one read of B's value and its slot, an atomic add into
 *     the row's accumulator (team scratch; C's values directly for the global bin), one write.
 *     Without a slot map every numeric searches.
 *  6. gather plan (the AMG re-setup path): the numeric after the one that filled the slot map
 *     (the third after symbolic; the second with lazy_slot_map off) turns it into,
 *     per entry of C, the list of its products (A index, B index: Σ F_i · 4 + (nnz(C) + 1) · 4
 *     bytes and 4 a tile of 32 C entries when each word fits 32 bits as (A offset in the tile's
 *     A range, B index), gather_compact; else Σ F_i · 8 + (nnz(C) + 1) · 4;
 *     EscStats::gather_bytes, when it fits gather_plan_limit_bytes and
 *     memory_limit_bytes) and releases the slot map; that numeric and every later one is one
 *     thread per C entry summing its list — no search, no scratch, no atomics, one write. The
 *     build is one launch with a lane group a row (gather_build_lanes: 8 or 32 lanes by the mean
 *     products a row): count, scan into the row pointers, fill, the row's lists staged in team
 *     scratch and written out coalesced; rows over gather_ordered_max (4096) products by a team
 *     with atomics. Lists of the other rows are in product order, so those sums are bitwise
 *     reproducible from run to run and the same whichever kernel built the plan.
 *
 * Preconditions / input policy: A.numCols() == B.numRows(); column indices in range (checked).
 * Unsorted columns and duplicate entries in A or B are accepted and merged (duplicates add up,
 * as if summed beforehand) — the expansion/sort handles them at no extra cost.
 * numeric() requires A and B with the structure seen by symbolic() (checked by dims, nnz and a
 * structure hash unless EscConfig::check_reuse is false). With drop_zeros the structure depends
 * on the values, so symbolic() writes the values too and numeric() recomputes structure and
 * values (no structure reuse; C's nnz may change).
 * Memory: plan O(n), C, the global-bin buffer and the slot map (later the gather plan); total
 * reported in stats(); the single-pass stash (Σ F_i of the warp-row range × the ordinal size)
 * lives only during symbolic(). Plan-lifetime arrays (work, permutation, slot map) and the stash
 * come from kkperm's CUDA memory pool (core/pooled_array.hpp), temporaries from the reusable
 * workspace: a setup allocates with Kokkos only C itself. permutation() and row_work() are
 * valid while the EscSpgemm lives.
 * inputs whose C would overflow the offset type or exceed memory_limit_bytes get EscCapacityError
 * (a std::invalid_argument) stating the bytes needed. Use a 64-bit OffsetType (size_type) for
 * nnz(C) > 2^31 - 1.
 */
#include <Kokkos_Core.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kkperm/core/atomics.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/workspace.hpp"
#include "kkperm/core/error.hpp"
#include "kkperm/core/phase_clock.hpp"
#include "kkperm/core/pooled_array.hpp"
#include "kkperm/kernels/spgemm/esc_kernels.hpp"
#include "kkperm/kernels/spgemm/esc_warp_rows.hpp"

namespace kkperm::spgemm {

/// The product does not fit: nnz(C) overflows the offset type, or the memory needed exceeds
/// EscConfig::memory_limit_bytes. The message states what was needed.
class EscCapacityError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class EscOutputOrder { direct, permuted_then_restore };

/**
 * Tuning of the ESC kernel. Thresholds default to the ESC paper's values (32 / 736 / 6144,
 * measured there on Fermi/Kepler); H100 tuning is pending (perf_test/kkperm_spgemm --esc-* sweeps;
 * record the measurement here when done).
 */
struct EscConfig {
  std::int64_t thread_max = 32;    ///< one thread per row up to this work (≤ 32, scratch arrays)
  std::int64_t warp_max = 736;     ///< one warp-sized team per row up to this work
  std::int64_t team_max = 6144;    ///< one block-sized team per row, scratch memory
  int warp_team_size = 32;         ///< threads of the "warp" bin team (1 on host backends)
  int block_team_size = 256;       ///< threads of the "block" bin team
  int global_team_size = 512;      ///< threads per global-bin row (clamped to team_size_max)
  EscOutputOrder output_order = EscOutputOrder::direct;
  bool drop_zeros = false;         ///< drop entries whose contracted value is exactly zero
  /// Symbolic warp/block bins: scratch hash table (count without sort, sort only the unique
  /// columns) instead of bitonic-sorting the padded expanded row. Not measured on a GPU yet:
  /// kept switchable (perf_test --esc-team-sort) until an H100/H200 A/B decides.
  bool team_bin_hash = true;
  bool check_reuse = true;         ///< numeric(): verify A/B structure hash against symbolic()
  std::size_t global_buffer_bytes = std::size_t(256) << 20;  ///< expansion buffer budget
  std::size_t memory_limit_bytes = 0;  ///< 0: no limit beyond the allocator
  /// Largest slot map symbolic() may keep for numeric(); 0: never (binary-search numeric).
  /// Default: no cap of its own — kept whenever plan + C + buffers + slot map fit
  /// memory_limit_bytes (the registry plan sets that to a fraction of device memory). Lower it
  /// to trade numeric re-setup speed for memory (Σ F_i · 2 or 4 bytes).
  std::size_t slot_map_limit_bytes = std::numeric_limits<std::size_t>::max();
  /// The slot map is allocated and filled by the second numeric() after a symbolic() instead of
  /// the first: the first (the one in a setup) then searches without recording, which saves the
  /// slot offsets pass, the slot map's allocation and its writes (Σ F_i · 2 or 4 bytes) for
  /// products computed once; re-setups reach the gather plan one numeric() later (the second
  /// records, the third builds the gather plan). On by default since H100 run 147 (session 24,
  /// median of 10 setup() calls, one run): every setup of the 2D 5-point, 3D 7-point and 3D
  /// 27-point A², AP and R(AP) was faster (2D A² 1.618 -> 1.374 ms, 3D 7-point AP 1.894 -> 1.501,
  /// R(AP) 0.692 -> 0.688, 1.072 -> 1.016, 0.620 -> 0.579), re-setups unchanged (steady state on
  /// the gather plan). Off: perf_test --esc-eager-slots.
  bool lazy_slot_map = true;
  /// Largest gather plan (per C entry the list of its products, Σ F_i · 8 + (nnz(C) + 1) · 4
  /// bytes) the numeric() after the slot map's fill may build from it; from then on numeric is one
  /// thread per C entry without atomics, and the slot map is released. 0: never (numeric stays on
  /// the slot map). Also needs Σ F_i, nnz(C) < 2^31 and nnz(A), nnz(B) < 2^32.
  std::size_t gather_plan_limit_bytes = std::numeric_limits<std::size_t>::max();
  /// Vector lanes per C entry in the gather numeric (power of two ≤ 32); 0: 32 when the mean list
  /// length Σ F_i / nnz(C) is ≥ 32, else 1 (esc_impl::gather_lanes_for; 1 on host backends).
  int gather_lanes = 0;
  /// The gather plan's lists in 4 bytes a product instead of 8: ((pa - base) << b) | pb, with b
  /// the bits of nnz(B) and base the first A position of each tile of 32 consecutive C entries,
  /// when every such offset fits the other 32 - b bits (else the 8-byte lists stay; the tiles'
  /// ranges come from the row offsets before the build, which then writes the 4-byte words). The
  /// gather numeric reads half the list bytes. Off: perf_test --esc-gather-wide.
  bool gather_compact = true;
  /// Rows of C with at most this many products get their gather lists in product order (the
  /// numeric's sums bitwise reproducible); longer rows are listed by a team with atomic positions
  /// (esc_impl::gather_long_rows). Tests lower it so small inputs take both paths.
  std::int64_t gather_ordered_max = esc_impl::kOrderedFillMax;
  /// Lanes a row of the kernel that builds the gather plan's lists: 1 (a thread a row), 8, 16 or
  /// 32; 0: from the mean products a row (esc_impl::gather_build_lanes_for; 1 on host backends,
  /// where 8/16/32 run the lane-group kernel with one lane).
  int gather_build_lanes = 0;
  /// Team scratch bytes a row of the lane-group build kernel may use to stage its counts and
  /// lists (written out coalesced); rows that need more (Σ over the row: 4 per C entry + 8 per
  /// product) work in global memory. 0: every row in global memory.
  std::size_t gather_build_row_bytes = 12288;
  /// The lane-group build kernel orders the products of a round that share a C entry by
  /// warp_match_any for rows staged in scratch too (the scheme the rows in global memory always
  /// use), instead of scratch atomics and a sort of each list after the fill. For measurements.
  bool gather_build_match = false;
  /// Warp bin (and a small thread bin, see below) on the warp-row kernels (esc_warp_rows.hpp: a
  /// lane group per row, up to 8 warps per team, shuffles instead of team scans and barriers) for
  /// the symbolic passes and the first (search) numeric. Off: one 32-thread team per row. Not with
  /// drop_zeros or team_bin_hash == false (those keep the sort kernels).
  bool warp_rows = true;
  /// With warp_rows, thread-bin rows are handled by the warp-row launch as well when the thread
  /// bin has fewer rows than this: a thread per row then leaves most of the GPU idle (H100 run 96:
  /// 87 rows took 45 + 46 + 80 µs in count, fill and numeric, a latency chain of two blocks).
  /// 32768 rows = 1024 warps, ~8 per SM of an H100: a reasoned default, not a sweep.
  std::int64_t fold_thread_bin_below = 32768;
  /// With warp_rows: the numerics that search (the first after symbolic, and the one that fills
  /// the slot map) take the thread bin into their warp-row launch, even when the symbolic passes
  /// keep it on its thread kernel (fold_thread_bin_below), once its mean products a row reach
  /// this; 0: never. H100 run 175 (session 26, folded numeric against the thread kernel, ms):
  /// mean 25 (2D 5-point A²) 0.88 -> 0.45, mean 24.6 (3D 7-point AP) 0.78 -> 0.49, the slot-map
  /// fills 1.38 -> 0.57 and 1.18 -> 0.57; mean 12.1 (2D AP) 0.32 -> 0.40, hence 16. (The symbolic
  /// passes got slower folded, 0.54 -> 2.42 ms for the 2D A²: they keep fold_thread_bin_below.)
  std::int64_t numeric_fold_thread_mean = 16;
  /// Warps per team of the warp-row kernels, 1..8 (fewer when their scratch does not fit); a team
  /// holds this × 32 / lanes rows.
  int warp_rows_per_team = 8;
  /// Lanes per row of the warp-row kernels: 8, 16 or 32 (a warp per row); 0 = automatic from
  /// the mean work of the range, separately for the symbolic passes (esc_impl::warp_row_lanes_for)
  /// and the first numeric (esc_impl::numeric_warp_row_lanes_for). On host backends always 1.
  int warp_row_lanes = 0;
  /// Automatic lanes of the symbolic passes (warp_row_lanes 0): 16 (8 from symbolic_lanes8_from
  /// on) when the range's rows average fewer products than this, else 32
  /// (esc_impl::warp_row_lanes_for; 64 before session 32).
  std::int64_t symbolic_lanes16_below = 128;
  /// Automatic lanes of the symbolic passes: 8 (instead of 16) when the range's rows average at
  /// least this many products and fewer than symbolic_lanes16_below; 0: never (session 33, run
  /// 260; esc_impl::warp_row_lanes_for).
  std::int64_t symbolic_lanes8_from = 64;
  /// Lanes per row of the first (search) numeric's warp-row launch alone (8, 16 or 32; 0: as
  /// warp_row_lanes says). For measurements.
  int numeric_warp_row_lanes = 0;
  /// Automatic lanes of the first (search) numeric: at least 16 (instead of 8) when its range's rows
  /// average at least this many products; 0: never, the rule before session 40 (8 lanes up to a
  /// mean of 128). esc_impl::numeric_warp_row_lanes_for says what was measured.
  std::int64_t numeric_lanes16_from = 32;
  /// Automatic lanes of the symbolic passes: 32 for a warp-row range whose rows all fit the
  /// register sort at 32 lanes (at most 32 A entries, 4 × 32 products) but not at the lanes the
  /// mean gives (nor at twice as many), when at least half of the analysis's sampled rows in the
  /// warp-row range (esc_impl::window_sample, kWindowSamples rows) have C windows too wide for the
  /// count pass's bitmap (random columns): such rows would take the hash table, whose compaction
  /// and scratch sort are slow on 8 lanes. The sample runs when A's and B's mean row lengths make
  /// a mean of 32-255 products a row likely with at most 32 entries a row of A. H200 runs 335-336
  /// (session 41, 32 lanes forced): the uniform 10^6-row A² with 9 entries a row (mean 81, 8
  /// lanes, hash table) set up in 12.6 ms on 8 lanes and 3.0 on 32 (cuSPARSE ALG1 10.6), with 10
  /// entries 13.5 -> 4.0 (ALG1 13.0); rows of the same length and work with narrow windows (banded
  /// A², lower bandwidth 4: 1.58 -> 2.60 ms; 2D 9-point A²: 2.08 -> 2.45; 2D 5-point R(AP): 0.45
  /// -> 0.52) were slower on 32. Off: perf_test --esc-no-wide-window-lanes.
  bool wide_window_lanes = true;
  /// The searching numerics' warp-row launch sums a row's products in C's values with global
  /// atomics (reductions done in L2, no return value) instead of in team scratch, where a double's
  /// atomic add is a compare-and-swap loop (1.7-2.7 passes a product in H100 run 254's ncu).
  /// H100 runs 263-264 (session 33; traced first numeric, µs, scratch -> global, both orders of
  /// run 263): 2D R(AP) 194 / 199 -> 193 / 189, 3D 27-point AP 428 -> 371 (order a); the timed
  /// first numeric() of the 2D A², 3D 7-point AP and R(AP), 3D 27-point AP and A² 8-15 % faster in
  /// both runs; the 3D 7-point A²'s 8-17 % slower (0.68-0.70 -> 0.74-0.78 ms), the one loss.
  bool numeric_global_sums = true;
  /// The same for the warp-row range's values in setup()'s count pass (setup_warp_values_mean):
  /// each row's sums added into its stash slice with global atomics instead of team scratch.
  /// H100 run 264: the 3D 7-point R(AP)'s valued count pass 586.0 / 583.9 -> 560.1 / 562.0 µs
  /// (traced medians, both orders); no other product of the set takes this path.
  bool setup_global_sums = true;
  /// Blocks a SM the searching numerics' warp-row launch is compiled for: 5 (at most 48
  /// registers a thread; 62.5 % theoretical occupancy) or 4 (at most 64, 50 %, as the other
  /// warp-row kernels: esc_impl::kWarpRowsMinBlocks). With global sums the launch needs 55
  /// registers at 4 blocks, and ncu (run 267) found it waiting on L2-latency value loads at 50 %
  /// occupancy. H100 run 268 (traced medians, 4 -> 5 blocks, orders a / b): 2D R(AP) first
  /// numeric 194.6 -> 179.3 / 193.2 -> 186.3 µs, 3D 27-point AP 373.7 -> 354.9 / 377.0 -> 352.4;
  /// timed first numeric() of the 2D A² 0.423 -> 0.379 / 0.425 -> 0.387 ms and of the 3D 7-point
  /// AP 0.467 -> 0.416 / 0.480 -> 0.416; 3D 7-point A² within 1 %. Some instantiations keep 8-16
  /// bytes of stack at 48 registers.
  int numeric_min_blocks = 5;
  /// With warp_rows: the count pass of the warp-row range also sorts each row and keeps its
  /// columns (Σ F_i of the range × the ordinal size, released after symbolic), and the fill pass
  /// copies them (one hashing pass instead of two) when they fit this and the memory limit;
  /// 0: always two passes.
  std::size_t stash_limit_bytes = std::size_t(1) << 30;
  /// The stash covers the block bin too (its count pass compacts and sorts each row in scratch
  /// and stashes it; the fill pass copies), within stash_limit_bytes. Off: the block bin hashes
  /// its rows in both passes.
  bool stash_block_bin = true;
  /// With warp_rows: the block bin's symbolic passes and first numeric walk each row's A entries
  /// with the warp-row product walk, a warp per W-entry chunk (esc_warp_rows.hpp,
  /// symbolic_block_rows / numeric_block_rows), when the row's table fits a team's level-0
  /// scratch. Off: the team kernels (a team scan of A's row, a binary search a product).
  bool block_rows = true;
  /// With warp_rows: the symbolic passes of the warp-row range put a row's columns in a bitmap of
  /// its column window (the first to the last column of the B rows it names) instead of the hash
  /// table when the window's bits fit the row's scratch (at most 4 × its table's words); the set
  /// bits, read in order, are C's sorted row (no compaction, no sort). Rows whose window is too
  /// wide, or whose B rows are unsorted so that a column falls outside it, use the hash table.
  bool warp_row_bitmap = true;
  /// With warp_rows: rows whose A row has at most as many entries as the row's lanes and whose
  /// work fits 4 columns a lane are sorted in registers (a bitonic network across the row's lanes,
  /// no scratch table) in the symbolic passes: 0 never; 1 instead of the hash table (rows the
  /// bitmap does not take); 2 before the bitmap as well, except in setup()'s valued count pass;
  /// 3 before the bitmap in every pass. With automatic lanes (warp_row_lanes 0), a warp-row range
  /// whose rows all fit at twice the lanes the mean work gives, but not at those, gets twice the
  /// lanes. H100 runs 311-312 (session 39, both orders, one binary):
  /// the 3D 7-point A² (rows of 7 entries and 49 products on 16 lanes, windows too wide for the
  /// bitmap) had its count pass 2134 -> 733 us with 1 and 680 us with 2, its setup 3.13 -> 1.70-1.72
  /// ms with 1 and 1.64-1.66 ms with 2 (cuSPARSE ALG1 2.34-2.39 ms); the other Laplacian A², AP
  /// and R(AP) setups moved within their spread. Runs 316-317 (with the lanes rule below): 3 took
  /// the uniform 10^6 x 8 A² (valued count pass, 16 lanes) from 2.47-2.48 to 2.27-2.31 ms and was
  /// within the spread of 2 on the Laplacian set, the 4elt Kronecker and the banded A². Hence 3.
  int warp_row_register_sort = 3;
  /// Tests: count the rows that took the bitmap path (EscStats::bitmap_rows; one atomic a row),
  /// those of them whose values came from staged products (EscStats::staged_rows) and the rows
  /// sorted in registers (EscStats::register_rows).
  bool count_bitmap_rows = false;
  /// C (row_map, entries, values: one block) from kkperm's CUDA pool instead of a Kokkos
  /// allocation (a cudaMalloc plus a synchronous header copy in Kokkos 3.4). C's Views are
  /// ordinary managed Kokkos Views either way; the pool memory returns to the pool when the last
  /// of them goes. No effect on host backends.
  bool c_from_pool = true;
  /// Rows kept in place (EscOutputOrder::direct): C's row offsets get a block of their own before
  /// the count pass ends and the scan of the counts writes them there; after nnz(C) comes back
  /// only the entries and values are allocated, and the numeric follows at once. Off (and for the
  /// permuted order): the scan goes to a workspace and a copy kernel moves it into C's one block
  /// once that exists (the way before session 34, one kernel and one launch more after the wait).
  bool c_rows_first = true;
  /// setup() (symbolic + first numeric in one call) writes C's values in the symbolic passes for
  /// rows where that was measured faster than the first numeric (H100 runs 180-184, session 27):
  /// - the thread bin, when it has a kernel of its own: its fill pass carries each product's value
  ///   through the row's sort and writes the sums (2D 5-point AP setup 0.72 -> 0.62 ms, A²
  ///   0.93 -> 0.86);
  /// - the warp-row range, when its rows average at least setup_warp_values_mean products (or fall
  ///   in the band setup_warp_values_band_from..below), and the block bin (setup_block_values):
  ///   once the row's columns are known their count pass sums the values, from the products it
  ///   staged in scratch during the bitmap walk (warp-row rows, setup_stage_row_bytes) or by
  ///   walking the row a second time, stashed with the columns (room for Σ F_i of those rows in
  ///   values too, within stash_limit_bytes) and copied by the fill pass.
  /// The other rows get the first numeric after the fill. Needs lazy_slot_map, not drop_zeros.
  /// Off: setup() is symbolic() then numeric(). Either way the numeric() calls after it behave the
  /// same.
  bool setup_values_in_count = true;
  /// Least mean products a row of the warp-row range for its values in setup()'s count pass; 0:
  /// never. H100 ncu, run 184: the fused count pass against count + numeric kernels, 3D 7-point
  /// R(AP) (mean 322) 641 against 715 µs; 2D 5-point R(AP) (mean 74) 396 against 405 µs; 3D
  /// 7-point A² (mean 48) 3 799 against 3 049 µs. Hence 128.
  std::int64_t setup_warp_values_mean = 128;
  /// setup()'s valued count pass of the warp-row range: a row on the bitmap path keeps each
  /// product's value and window column (10 bytes) in its scratch after the bitmap and its rank
  /// prefix, and sums them from there once its columns are known, instead of walking A's and B's
  /// rows a second time (esc_impl::staged_row_values). Rows' scratch grows to this many bytes a
  /// warp (× lanes / 32 a row) when that keeps their lanes; rows whose products still do not fit,
  /// or whose window exceeds 65 536 columns, take the second walk. 0: never (perf_test
  /// --esc-setup-two-walks). On host backends, bytes a row.
  std::size_t setup_stage_row_bytes = 7168;
  /// Also the warp-row range's values in setup()'s count pass when its rows average at least
  /// band_from and fewer than band_below products (with setup_warp_values_mean > 0; band_below <=
  /// band_from: no band). H100 run 290 (session 36; staged products, sums in scratch): the 2D
  /// 5-point R(AP) (mean 74) setup 0.437 / 0.442 -> 0.412 / 0.413 ms with its values in the count
  /// pass (count with values 241 µs + copy 41, against count 111 + numeric 185), while the 3D
  /// 27-point AP (mean ~118) went 0.705 -> 0.810 ms (549 + 67 against 195 + 358).
  std::int64_t setup_warp_values_band_from = 64;
  std::int64_t setup_warp_values_band_below = 96;
  /// The band applies only when the warp-row range's rows all fit the register sort at the planned
  /// lanes (esc_impl::reg_sort_fits over the range's largest row): their valued count pass is one
  /// walk with no staging in scratch. H200 runs 333-334 (session 41, both orders; the band against
  /// no band): rows on the bitmap or the hash table were faster with the count pass and the first
  /// numeric (2D 5-point R(AP), mean 74: 0.43-0.45 -> 0.40-0.41 ms; banded A², mean 81: 1.56 ->
  /// 1.42; 2D 9-point A², mean 81: 2.08 -> 1.75; uniform 10^6 x 9 A², mean 81, hash table: 12.6 ->
  /// 10.9), register-sorted rows slower (uniform 10^6 x 8 A², mean 64, 16 lanes: 2.01 -> 2.25).
  /// Session 36's H100 run 290, which set the band for the 2D R(AP), predates session 40's lanes
  /// rule for the first numeric. Off: perf_test --esc-setup-warp-band-any-rows (the band for every
  /// range, as before).
  bool setup_warp_values_band_register_only = true;
  /// The fill pass's copy of stashed rows into C takes a warp per 32 rows, their entries as one
  /// flattened range with 4 a lane in flight (esc_impl::copy_stashed_rows_flat), instead of a warp
  /// per row. Off: perf_test --esc-copy-row-warps.
  bool copy_flat = true;
  /// With setup_values_in_count: the block bin's count pass (block_rows, stash_block_bin) sums its
  /// rows' values in a second walk as the warp-row range's long rows do (its rows have over
  /// warp_max products). Off: the block bin gets the first numeric.
  bool setup_block_values = true;
  /// setup(), single-pass symbolic, warp-row range without values in its count pass: the fill pass
  /// leaves that range's columns in the stash and the first numeric, which stages each row's
  /// columns anyway, reads them there and writes them to C (one walk of C's columns instead of a
  /// copy kernel and a reload). Rows the warp-row numeric does not take are copied first, as
  /// before. Off: the fill pass copies every stashed row.
  bool setup_fused_copy = true;
  /// When one kernel takes every row (one bin, or the thread and warp bins alone with the thread
  /// bin folded), the analysis skips the sort that groups rows by bin: perm is the identity and the
  /// kernels take a row's position as the row, one dependent load fewer a row. Off: always sorted.
  bool identity_plan = true;
  /// While the host waits for the analysis's bin plan, the device scans F_i in row order (one
  /// exclusive scan, enqueued behind the plan's read-back); when the plan keeps the rows in order
  /// (identity_plan) that scan is the warp-row range's stash offsets, and the count pass needs no
  /// scan of its own after the wait. Off: the offsets are scanned after the wait, as before
  /// session 32. Only when the sizes make such a plan likely (EscSpgemm::early_scan_pays: not for
  /// a large all-thread-bin product, nor for rows expected above warp_max) and the scan (n + 1
  /// offsets) is at most an eighth of memory_limit_bytes (if set): it stands in for the offsets
  /// the count pass would allocate anyway, or is dropped first.
  bool early_stash_scan = true;
  /// Lanes a row of the CUDA analysis kernel (1, 2, 4, 8, 16 or 32); 0: esc_impl::plan_lanes_for's
  /// choice from the mean row length of A; -1: session 30's rule (a row a thread, a warp a row
  /// for few long rows) (perf_test --esc-plan-lanes).
  int plan_lanes = 0;
  /// Where the analysis kernel would take a row a thread (plan_lanes' rule or 1), a warp takes 32
  /// consecutive rows and loads their entries together, 256 at a time, coalesced and all in flight,
  /// summing each row's part from prefix sums (esc_impl::plan_keys_chunks_launch; CUDA). Off: a
  /// thread walks its row alone, one entry after another (perf_test --esc-plan-row-threads).
  bool plan_row_chunks = true;
  /// Tests: C's values are NaN and its columns -1 right after C is allocated, so that an entry no
  /// kernel writes (setup(), where no caller can poison C first) fails the comparison.
  bool poison_c = false;
};

/// What one symbolic/numeric pair did, for reports and the perf tools.
struct EscStats {
  std::int64_t num_rows = 0, sum_work = 0, max_work = 0, nnz_c = 0;
  std::array<std::int64_t, 4> bin_rows{};      ///< rows in thread / warp / block / global bins
  std::array<std::int64_t, 4> bin_max_work{};
  std::int64_t global_chunks = 0;
  int scratch_level_warp = -1, scratch_level_block = -1;  ///< symbolic; -1: bin empty
  int numeric_level_warp = -1, numeric_level_block = -1;
  std::size_t plan_bytes = 0, c_bytes = 0, buffer_bytes = 0, peak_bytes = 0;
  std::size_t slot_bytes = 0;  ///< slot map kept for numeric (0: none, numeric searches)
  int slot_width = 0;          ///< bytes per slot (2 or 4); 0 without a slot map
  int vector_length = 0;       ///< vector lanes of the slot-map kernels (1 on host)
  /// analysis_s: F_i (on CUDA one kernel that also computes the rows' bin keys and per-bin
  /// counts); the reorder is plan_sort_s (rows grouped by bin: radix sort of the keys, and the
  /// host wait for the bin counts) plus reorder_s (the per-bin launch plans: global-bin chunks,
  /// warp-row range).
  double analysis_s = 0, plan_sort_s = 0, reorder_s = 0, symbolic_s = 0, symbolic_restore_s = 0;
  /// slot map allocation + product offsets, part of symbolic_s (lazy_slot_map: of the second
  /// numeric's numeric_s)
  double slot_build_s = 0;
  double count_s = 0;       ///< count pass + nnz(C) + per-bin maxima, part of symbolic_s
  double fill_s = 0;        ///< C's allocation, row_map scan and fill pass, part of symbolic_s
  double c_alloc_s = 0;     ///< host time of C's allocation(s) alone (wall clock of the call)
  bool numeric_used_slots = false;  ///< last numeric() went through the slot map
  bool numeric_used_gather = false;  ///< last numeric() went through the gather plan
  std::size_t gather_bytes = 0;      ///< gather plan kept for numeric (0: none)
  bool gather_compact = false;       ///< its lists are 4 bytes a product (EscConfig::gather_compact)
  double gather_build_s = 0;         ///< building it (inside the numeric() that built it)
  int gather_lanes = 0;              ///< vector lanes per C entry of the last gather numeric
  int gather_build_lanes = 0;        ///< lanes a row of the kernel that built the gather lists
  std::int64_t warp_row_rows = 0;    ///< rows on the warp-row kernels (0: team kernels only)
  int warp_row_lanes = 0;            ///< lanes per row of the last symbolic's warp-row launches
  int numeric_warp_row_lanes = 0;    ///< lanes per row of the first (search) numeric's warp-row launch
  std::int64_t window_samples = 0;   ///< rows of the warp-row range in the analysis's window sample (0: none ran)
  std::int64_t wide_windows = 0;     ///< of them, rows whose C window is too wide for the bitmap
  bool wide_window_lanes = false;    ///< the sample set the symbolic passes' lanes to 32 (EscConfig::wide_window_lanes)
  bool thread_bin_folded = false;    ///< thread-bin rows went to the warp-row launch
  std::size_t stash_bytes = 0;       ///< single-pass symbolic stash of the last symbolic (0: two passes)
  /// the last setup() summed values in the count pass (EscConfig::setup_values_in_count) for
  /// this many rows (0: none; setup() ran symbolic() and numeric())
  std::int64_t setup_valued_rows = 0;
  /// the last setup() wrote this many rows' stashed columns to C in its first numeric
  /// (EscConfig::setup_fused_copy; 0: the fill pass copied them)
  std::int64_t setup_fused_copy_rows = 0;
  /// the last analysis kept the rows in order (EscConfig::identity_plan: no sort, no perm loads)
  bool identity_plan = false;
  /// the last count pass's stash offsets were the scan made behind the plan's read-back
  /// (EscConfig::early_stash_scan)
  bool early_stash_scan = false;
  /// the last analysis made that scan (used or not)
  bool early_scan_made = false;
  /// rows of the last count pass on the bitmap, warp- and block-row kernels (-1: not counted)
  std::int64_t bitmap_rows = -1;
  /// of them, rows of setup()'s valued warp-row count pass whose values came from staged products
  /// (EscConfig::setup_stage_row_bytes; -1: not counted)
  std::int64_t staged_rows = -1;
  /// rows of the last count pass sorted in registers (EscConfig::warp_row_register_sort; -1: not
  /// counted)
  std::int64_t register_rows = -1;
  double numeric_s = 0, numeric_restore_s = 0;
};

namespace esc_impl {

/**
 * A CRS matrix's row_map (n1 entries), entries and values (nnz each) in one Kokkos allocation:
 * three typed Views that share the block's allocation tracker (the block lives while any of them
 * does), each at a 128-byte aligned offset. Why: a Kokkos 3.4 CUDA allocation is a cudaMalloc plus
 * a synchronous copy of its header; with C in three allocations the "fill" phase of the 2D R(AP)
 * setup took 0.28 ms on the H100 for 45 µs of kernels (run 106), with one 0.20 ms (run 107).
 * Uses the View(tracker, mapping) constructor Kokkos 3.4 keeps for Views built from other Views
 * (the Kokkos this project pins). `from_pool`: the block comes from kkperm's CUDA pool
 * (detail::pooled_view_block: no cudaMalloc, no header copy, no host wait; EscConfig::c_from_pool).
 */
template <class RowView, class EntView, class ValView>
void allocate_crs_block(const std::string& label, std::int64_t n1, std::int64_t nnz, RowView& row,
                        EntView& ent, ValView& val, bool from_pool) {
  using dev = typename RowView::device_type;
  using R = typename RowView::non_const_value_type;
  using E = typename EntView::non_const_value_type;
  using V = typename ValView::non_const_value_type;
  constexpr std::size_t kAlign = 128;
  const auto up = [](std::size_t x) { return (x + kAlign - 1) / kAlign * kAlign; };
  const std::size_t b_row = up(static_cast<std::size_t>(n1) * sizeof(R));
  const std::size_t b_ent = up(static_cast<std::size_t>(nnz) * sizeof(E));
  const std::size_t b_val = static_cast<std::size_t>(nnz) * sizeof(V);
  const Kokkos::View<char*, dev> block =
      from_pool ? kkperm::detail::pooled_view_block<dev>(label, b_row + b_ent + b_val)
                : Kokkos::View<char*, dev>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), b_row + b_ent + b_val);
  KKPERM_REQUIRE(reinterpret_cast<std::uintptr_t>(block.data()) % alignof(V) == 0,
                 "kkperm::spgemm: C's block is not aligned for its values");
  row = kkperm::detail::view_in_block<RowView>(block, 0, static_cast<std::size_t>(n1));
  ent = kkperm::detail::view_in_block<EntView>(block, b_row, static_cast<std::size_t>(nnz));
  val = kkperm::detail::view_in_block<ValView>(block, b_row + b_ent, static_cast<std::size_t>(nnz));
}

/// total = Σ cnt and, per bin b, maxc[b] = the largest cnt(o) over plan positions
/// [bin_off[b], bin_off[b+1]) (o = perm(p) when direct, else p): one launch and one copy to the
/// host (was a reduction and a host wait per quantity: five of each).
/// Each thread loads its kItems positions at once, the five numbers are combined by warp
/// shuffles, then across the team in scratch, and one thread a number adds them atomically. (Was:
/// 2 048 positions a team, walked by two team reductions one load after another: 18 µs for the
/// 144 k rows of the 2D 5-point R(AP) on an H100, run 217's launch trace.)
/// `zero_flag` (a device int, optional): set to 0 by the launch (setup()'s missing-product flag,
/// one launch fewer than a kernel of its own); not touched when the plan is empty (no launch).
template <class Exec, class PermView, class CntView>
void count_stats(const PermView& perm, const CntView& cnt, const std::int64_t bin_off[5], bool direct,
                 std::int64_t& total, std::int64_t maxc[4], int* zero_flag = nullptr) {
  using mem_t = typename Exec::memory_space;
  using ws_t = kkperm::detail::Workspace<mem_t>;
  using policy_t = kkperm::team_policy<Exec>;
  using member_t = typename policy_t::member_type;
  const std::int64_t n = bin_off[4];
  total = 0;
  for (int b = 0; b < 4; ++b) maxc[b] = 0;
  if (n <= 0) return;
  ws_t ws(ws_t::template bytes_for<std::int64_t>(5));
  const auto from = ws.mark();
  auto d = ws.template take<std::int64_t>(5);  // total, then the four maxima
  ws.template zero_since<Exec>(from);
  const std::int64_t o1 = bin_off[1], o2 = bin_off[2], o3 = bin_off[3];
  constexpr bool host = is_host_exec<Exec>();
  const int T = host ? 1 : 256;
  const int W = host ? 1 : 32;
  constexpr int kItems = host ? 2048 : 2;
  const std::int64_t per_team = std::int64_t(T) * kItems;
  policy_t policy(static_cast<int>((n + per_team - 1) / per_team), T);
  policy.set_scratch_size(0, Kokkos::PerTeam(sizeof(std::int64_t) * 5 * (T / W)));
  kkperm::parallel_for(
      "kkperm::spgemm::esc::count_stats", policy, KOKKOS_LAMBDA(const member_t& team) {
        const int tr = team.team_rank();
        if (zero_flag != nullptr && tr == 0 && team.league_rank() == 0) *zero_flag = 0;
        const std::int64_t base = std::int64_t(team.league_rank()) * per_team + tr;
        std::int64_t c[kItems];
#pragma unroll
        for (int j = 0; j < kItems; ++j) {  // every load issued before any use
          const std::int64_t p = base + std::int64_t(j) * T;
          c[j] = p < n ? static_cast<std::int64_t>(cnt(direct ? static_cast<std::int64_t>(perm(p)) : p)) : 0;
        }
        std::int64_t v[5] = {0, 0, 0, 0, 0};  // sum, max of bins 0..3
        for (int j = 0; j < kItems; ++j) {
          const std::int64_t p = base + std::int64_t(j) * T;
          if (p >= n) continue;
          const int bb = p < o1 ? 0 : (p < o2 ? 1 : (p < o3 ? 2 : 3));
          v[0] += c[j];
          // constant indices only: v[1 + bb] put v in local memory (H100 ncu, session 34, run 276)
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (q == bb && c[j] > v[1 + q]) v[1 + q] = c[j];
        }
        v[0] = kkperm::detail::warp_sum(v[0], W);
        for (int q = 1; q < 5; ++q) v[q] = kkperm::detail::warp_max(v[q], W);
        auto* sh = static_cast<std::int64_t*>(team.team_scratch(0).get_shmem(sizeof(std::int64_t) * 5 * (T / W)));
        if (tr % W == 0)
          for (int q = 0; q < 5; ++q) sh[(tr / W) * 5 + q] = v[q];
        team.team_barrier();
        for (int q = tr; q < 5; q += T) {  // counts are >= 0: 0 needs no atomic
          std::int64_t acc = 0;
          for (int w = 0; w < T / W; ++w) {
            const std::int64_t x = sh[w * 5 + q];
            acc = q == 0 ? acc + x : (x > acc ? x : acc);
          }
          if (acc != 0) {
            if (q == 0)
              kkperm::atomic_add_i64(&d(0), acc);
            else
              Kokkos::atomic_fetch_max(&d(q), acc);
          }
        }
      });
  std::int64_t h[5];
  kkperm::detail::read_back<Exec>(h, d.data(), 5, "kkperm::spgemm_symbolic (nnz(C))");
  total = h[0];
  for (int b = 0; b < 4; ++b) maxc[b] = h[1 + b];
}

/// row_map(i) = Σ_{r<i} cnt(r) for i in [0, n].
template <class Exec, class CntView, class RowMap>
void counts_to_rowmap(const CntView& cnt, const RowMap& row_map, std::int64_t n) {
  using off_t = typename RowMap::non_const_value_type;
  exclusive_scan_to<Exec, off_t>("kkperm::spgemm::esc::row_map_scan", n,
                                  KOKKOS_LAMBDA(const std::int64_t i) { return static_cast<off_t>(cnt(i)); },
                                  row_map);
}

/// cnt_orig(perm(p)) = cnt_perm(p).
template <class Exec, class PermView, class CntView>
void unpermute_counts(const PermView& perm, const CntView& cnt_perm, const CntView& cnt_orig,
                      std::int64_t n) {
  kkperm::parallel_for(
      "kkperm::spgemm::esc::unpermute_counts", kkperm::range_policy<Exec>(0, n),
      KOKKOS_LAMBDA(const std::int64_t p) { cnt_orig(perm(p)) = cnt_perm(p); });
}

/// work of the global-bin rows perm[begin, end), copied to the host.
template <class Exec, class PermView, class WorkView>
std::vector<std::int64_t> gather_work(const PermView& perm, const WorkView& work,
                                      std::int64_t begin, std::int64_t end) {
  Kokkos::View<std::int64_t*, typename WorkView::device_type> w("kkperm::esc::global_work",
                                                                end - begin);
  kkperm::parallel_for(
      "kkperm::spgemm::esc::gather_work", kkperm::range_policy<Exec>(0, end - begin),
      KOKKOS_LAMBDA(const std::int64_t r) { w(r) = work(perm(begin + r)); });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
  return std::vector<std::int64_t>(h.data(), h.data() + h.extent(0));
}

}  // namespace esc_impl

template <class Matrix>
class EscSpgemm {
 public:
  using value_type = typename Matrix::non_const_value_type;
  using ordinal_type = typename Matrix::non_const_ordinal_type;
  using offset_type = typename Matrix::non_const_size_type;
  using device_type = typename Matrix::device_type;
  using execution_space = typename Matrix::execution_space;
  using rowmap_view = Kokkos::View<offset_type*, device_type>;
  using entries_view = Kokkos::View<ordinal_type*, device_type>;
  using values_view = Kokkos::View<value_type*, device_type>;
  using perm_view = Kokkos::View<ordinal_type*, device_type>;
  using work_view = Kokkos::View<std::int64_t*, device_type>;
  using flag_view = Kokkos::View<int, device_type>;
  using args_t = esc_impl::EscArgs<Matrix, perm_view, work_view, work_view, rowmap_view,
                                   entries_view, values_view>;

  explicit EscSpgemm(const EscConfig& cfg = EscConfig{}) : cfg_(cfg) { check_config(cfg); }

  static void check_config(const EscConfig& c) {
    KKPERM_REQUIRE(c.thread_max >= 0 && c.thread_max <= esc_impl::kThreadCapacity,
                   "kkperm::spgemm::EscConfig: thread_max " << c.thread_max << " outside [0, "
                                                            << esc_impl::kThreadCapacity << "]");
    KKPERM_REQUIRE(c.thread_max <= c.warp_max && c.warp_max <= c.team_max &&
                       c.team_max <= (std::int64_t(1) << 28),
                   "kkperm::spgemm::EscConfig: thresholds must satisfy thread_max <= warp_max <= "
                   "team_max <= 2^28 (got "
                       << c.thread_max << ", " << c.warp_max << ", " << c.team_max << ")");
    KKPERM_REQUIRE(c.warp_team_size > 0 && c.block_team_size > 0 && c.global_team_size > 0,
                   "kkperm::spgemm::EscConfig: team sizes must be positive");
    KKPERM_REQUIRE(c.warp_row_register_sort >= 0 && c.warp_row_register_sort <= 3,
                   "kkperm::spgemm::EscConfig: warp_row_register_sort " << c.warp_row_register_sort
                                                                        << " is not 0, 1, 2 or 3");
    KKPERM_REQUIRE(c.gather_lanes >= 0 && c.gather_lanes <= 32 && (c.gather_lanes & (c.gather_lanes - 1)) == 0,
                   "kkperm::spgemm::EscConfig: gather_lanes " << c.gather_lanes
                                                              << " is not 0 (auto) or a power of two <= 32");
    KKPERM_REQUIRE(c.warp_rows_per_team >= 1 && c.warp_rows_per_team <= esc_impl::kWarpRowsMaxPerTeam,
                   "kkperm::spgemm::EscConfig: warp_rows_per_team " << c.warp_rows_per_team
                                                                    << " outside [1, 8]");
    KKPERM_REQUIRE(c.warp_row_lanes == 0 || c.warp_row_lanes == 8 || c.warp_row_lanes == 16 ||
                       c.warp_row_lanes == 32,
                   "kkperm::spgemm::EscConfig: warp_row_lanes " << c.warp_row_lanes
                                                                << " is not 0 (auto), 8, 16 or 32");
    KKPERM_REQUIRE(c.numeric_warp_row_lanes == 0 || c.numeric_warp_row_lanes == 8 ||
                       c.numeric_warp_row_lanes == 16 || c.numeric_warp_row_lanes == 32,
                   "kkperm::spgemm::EscConfig: numeric_warp_row_lanes " << c.numeric_warp_row_lanes
                                                                        << " is not 0, 8, 16 or 32");
    KKPERM_REQUIRE(c.gather_build_lanes == 0 || c.gather_build_lanes == 1 || c.gather_build_lanes == 8 ||
                       c.gather_build_lanes == 16 || c.gather_build_lanes == 32,
                   "kkperm::spgemm::EscConfig: gather_build_lanes " << c.gather_build_lanes
                                                                    << " is not 0 (auto), 1, 8, 16 or 32");
    KKPERM_REQUIRE(c.plan_lanes == -1 || c.plan_lanes == 0 || c.plan_lanes == 1 || c.plan_lanes == 2 || c.plan_lanes == 4 ||
                       c.plan_lanes == 8 || c.plan_lanes == 16 || c.plan_lanes == 32,
                   "kkperm::spgemm::EscConfig: plan_lanes " << c.plan_lanes
                                                            << " is not -1 (session 30's rule), 0 (auto), 1, 2, 4, 8, 16 or 32");
    KKPERM_REQUIRE(c.numeric_min_blocks == 4 || c.numeric_min_blocks == 5,
                   "kkperm::spgemm::EscConfig: numeric_min_blocks " << c.numeric_min_blocks << " is not 4 or 5");
    KKPERM_REQUIRE(c.symbolic_lanes8_from >= 0,
                   "kkperm::spgemm::EscConfig: symbolic_lanes8_from " << c.symbolic_lanes8_from << " is negative");
    KKPERM_REQUIRE(c.numeric_lanes16_from >= 0,
                   "kkperm::spgemm::EscConfig: numeric_lanes16_from " << c.numeric_lanes16_from << " is negative");
    KKPERM_REQUIRE(c.symbolic_lanes16_below >= 0,
                   "kkperm::spgemm::EscConfig: symbolic_lanes16_below " << c.symbolic_lanes16_below
                                                                        << " is negative");
    KKPERM_REQUIRE(c.numeric_fold_thread_mean >= 0,
                   "kkperm::spgemm::EscConfig: numeric_fold_thread_mean " << c.numeric_fold_thread_mean
                                                                          << " is negative");
    KKPERM_REQUIRE(c.gather_ordered_max >= 0,
                   "kkperm::spgemm::EscConfig: gather_ordered_max " << c.gather_ordered_max << " is negative");
    KKPERM_REQUIRE(c.global_buffer_bytes >= 1024,
                   "kkperm::spgemm::EscConfig: global_buffer_bytes " << c.global_buffer_bytes
                                                                     << " below 1 KiB");
  }

  const EscConfig& config() const { return cfg_; }
  /// What the last symbolic/numeric did. Phase times are device-event spans on CUDA, filled here
  /// (this waits for the newest timed phase to finish).
  const EscStats& stats() const {
    clock_.resolve();
    return stats_;
  }
  bool has_symbolic() const { return has_symbolic_; }
  /// Whether the next numeric() reads A's or B's index arrays. It does not once the gather plan
  /// exists (built by the third numeric() after a symbolic(), the second with lazy_slot_map off;
  /// never with drop_zeros): it then reads only value arrays at positions fixed by symbolic(),
  /// in bounds whenever nnz(A) and nnz(B) are unchanged (which numeric() checks on the host).
  bool numeric_reads_indices() const { return cfg_.drop_zeros || !gather_ready_; }
  /// The product; valid after symbolic() (structure) and numeric() (values).
  const Matrix& C() const {
    KKPERM_REQUIRE(has_symbolic_, "kkperm::spgemm::EscSpgemm::C: call symbolic() first");
    return C_;
  }

  /// Analysis alone: F_i of every row and the bin plan (rows grouped by bin; kept for symbolic()),
  /// returns {Σ F_i, max F_i}. A caller
  /// that validated A and B itself (the registry plan does, for its guard) calls this and then
  /// symbolic(A, B, /*analyzed=*/true) with the same matrices, so neither the validation nor the
  /// analysis pass runs twice (H100 run 96: 87 + 37 µs of a 3.6 ms R(AP) setup were repeats).
  /// `pending`: the validation of A and B still in flight (esc_impl::PendingVerdict), decided
  /// with the bin plan's read-back before the plan is used.
  std::array<std::int64_t, 2> analyze(const Matrix& A, const Matrix& B, const esc_impl::PendingVerdict& pending = {}) {
    KKPERM_REQUIRE(A.numCols() == B.numRows(), "kkperm::spgemm_symbolic: A is "
                                                   << A.numRows() << " x " << A.numCols()
                                                   << " but B is " << B.numRows() << " x "
                                                   << B.numCols());
    clock_.resolve();  // the previous call's spans, before their marks are reused
    clock_.restart();
    an_m0_ = clock_.mark();
    const std::int64_t n = A.numRows();
    work_ = pooled(work_mem_, "kkperm::esc::work", n);
    perm_ = pooled(perm_mem_, "kkperm::esc::perm", n);
    drop_row_scan();
    // F_i and the bin plan at once (one fused kernel, a radix sort and one host wait on CUDA)
    const kkperm::detail::TraceRegion region("kkperm::spgemm::esc::analyze");
    // The rows keep their order (no sort, perm = identity, kernels skip the perm(p) load) when one
    // kernel takes them all: one bin, or the thread and warp bins alone with the thread bin folded
    // into the warp-row launch (folds_thread_bin, plan_warp_rows' rule); then the thread bin is
    // merged into the warp bin.
    const auto keep_order = [this](const std::int64_t* off) {
      int nonempty = 0;
      for (int b = 0; b < 4; ++b) nonempty += off[b + 1] > off[b];
      return cfg_.identity_plan && (nonempty <= 1 || (off[2] == off[4] && folds_thread_bin(off[1] - off[0])));
    };
    bool identity = false;
    // the column-window sample for the warp-row lanes rule (EscConfig::wide_window_lanes), when
    // A's and B's mean row lengths make its case likely
    std::function<void(std::int64_t*)> sample;
    if (window_sample_pays(A, B)) {
      const auto rA = A.graph.row_map;
      const auto eA = A.graph.entries;
      const auto rB = B.graph.row_map;
      const auto eB = B.graph.entries;
      const std::int64_t fmin = cfg_.thread_max, fmax = cfg_.warp_max;
      sample = [rA, eA, rB, eB, n, fmin, fmax](std::int64_t* words) {
        esc_impl::window_sample<execution_space>(rA, eA, rB, eB, n, fmin, fmax, words);
      };
    }
    std::int64_t sampled[2] = {0, 0};
    const auto sm = esc_impl::analyze_and_plan<execution_space>(
        A.graph.row_map, A.graph.entries, B.graph.row_map, work_, perm_, n, cfg_.thread_max, cfg_.warp_max,
        cfg_.team_max, bin_off_, bin_max_work_, bin_max_ka_, bin_sum_work_, [&] { an_mid_ = clock_.mark(); },
        keep_order, identity, cfg_.plan_lanes, cfg_.plan_row_chunks, pending,
        [this, n, &A, &B] { scan_rows_in_order(n, early_scan_pays(A, B)); }, sample, sampled);
    an_window_samples_ = sample ? sampled[0] : -1;
    an_wide_windows_ = sampled[1];
    ident_ = identity;
    merged_thread_rows_ = 0;
    if (ident_ && bin_off_[1] > bin_off_[0] && bin_off_[2] > bin_off_[1]) {  // thread bin into the warp bin
      merged_thread_rows_ = bin_off_[1] - bin_off_[0];
      bin_max_work_[1] = std::max(bin_max_work_[0], bin_max_work_[1]);
      bin_max_ka_[1] = std::max(bin_max_ka_[0], bin_max_ka_[1]);
      bin_sum_work_[1] += bin_sum_work_[0];
      bin_max_work_[0] = bin_max_ka_[0] = bin_sum_work_[0] = 0;
      bin_off_[1] = bin_off_[0];
    }
    an_sum_ = sm[0];
    an_max_ = sm[1];
    an_rows_ = n;
    an_inner_ = A.numCols();
    an_nnz_a_ = A.nnz();
    an_nnz_b_ = B.nnz();
    analyzed_ = true;
    an_m1_ = clock_.mark();
    return {an_sum_, an_max_};
  }

  /// C's structure. `analyzed`: the caller validated A and B (unsorted allowed) and ran
  /// analyze(A, B) on these same matrices just before; otherwise both happen here.
  void symbolic(const Matrix& A, const Matrix& B, bool analyzed = false) {
    using exec = execution_space;
    KKPERM_REQUIRE(A.numCols() == B.numRows(), "kkperm::spgemm_symbolic: A is "
                                                   << A.numRows() << " x " << A.numCols()
                                                   << " but B is " << B.numRows() << " x "
                                                   << B.numCols());
    if (!analyzed) {
      validate_pair(A, "kkperm::spgemm_symbolic: A", B, "kkperm::spgemm_symbolic: B", /*require_sorted=*/false);
      analyze(A, B);
    } else {
      KKPERM_REQUIRE(analyzed_ && an_rows_ == A.numRows() && an_nnz_a_ == A.nnz() && an_nnz_b_ == B.nnz() &&
                         an_inner_ == A.numCols(),
                     "kkperm::spgemm_symbolic: symbolic(A, B, analyzed = true) without analyze(A, B) "
                     "on these matrices");
    }
    analyzed_ = false;  // one symbolic per analysis
    has_symbolic_ = false;
    warp_valued_ = thread_valued_ = block_valued_ = false;
    slots_ready_ = false;
    gather_ready_ = false;
    release_gather_plan();
    stats_ = EscStats{};
    const std::int64_t n = A.numRows();
    stats_.num_rows = n;
    const bool direct = cfg_.output_order == EscOutputOrder::direct;

    stats_.sum_work = an_sum_;
    stats_.early_scan_made = row_scan_ready_;
    stats_.max_work = an_max_;
    stats_.identity_plan = ident_;
    clock_.span(&stats_.analysis_s, an_m0_, an_mid_);
    clock_.span(&stats_.plan_sort_s, an_mid_, an_m1_);

    auto t0 = clock_.mark();
    for (int b = 0; b < 4; ++b) {  // the bin plan came with the analysis
      stats_.bin_rows[b] = bin_off_[b + 1] - bin_off_[b];
      stats_.bin_max_work[b] = bin_max_work_[b];
    }
    {
      const kkperm::detail::TraceRegion region("kkperm::spgemm::esc::plan_bins");
      plan_global_chunks();
      plan_warp_rows();
    }
    clock_.span(&stats_.reorder_s, t0);
    stats_.plan_bytes = static_cast<std::size_t>(n) * (sizeof(std::int64_t) * 2 + sizeof(ordinal_type));

    // ---- count pass
    t0 = clock_.mark();
    // per-row counts: temporary, from the reusable workspace (no allocation; zeroed by one memset)
    using ws_t = kkperm::detail::Workspace<typename device_type::memory_space>;
    kkperm::detail::TracePhases phase;
    phase.next("kkperm::spgemm::esc::count_workspace");
    // rows first: C's row offsets get a block of their own (allocated while the count pass runs);
    // else they wait in the workspace until C exists
    const bool rows_first = direct && cfg_.c_rows_first;
    ws_t ws(ws_t::template bytes_for<std::int64_t>(n) +
            (rows_first ? 0 : ws_t::template bytes_for<offset_type>(n + 1)));
    const auto cnt_from = ws.mark();
    const work_view cnt(ws.template take<std::int64_t>(n).data(), n);
    ws.template zero_since<exec>(cnt_from);
    const auto row_off = ws.template take<offset_type>(rows_first ? 0 : n + 1);
    args_t g = make_args(A, B, cnt, rowmap_view(), entries_view(), values_view(), direct);
    phase.next("kkperm::spgemm::esc::plan_stash");
    plan_stash(n);
    phase.next("kkperm::spgemm::esc::count_launch");
    run_symbolic_bins(g, /*fill=*/false);
    phase.end();
    std::int64_t nnz = 0;
    phase.next("kkperm::spgemm::esc::count_stats");
    // Enqueued before the wait for nnz(C): C's row offsets (the scan of the counts, copied into C
    // once it exists) and, in setup(), the first numeric's flag reset, so that their host calls
    // overlap the count pass instead of following the wait while the device idles (session 31).
    rowmap_view rowD;
    if (rows_first) {
      try {
        entries_view no_entries;
        values_view no_values;
        allocate_c("kkperm::C::row_map", n + 1, 0, rowD, no_entries, no_values);
      } catch (const std::exception& e) {
        KKPERM_THROW(std::runtime_error, "kkperm::spgemm_symbolic: allocating C's row offsets ("
                                             << n + 1 << " entries) failed: " << e.what());
      }
    }
    if (rows_first)
      esc_impl::counts_to_rowmap<exec>(cnt, rowD, n);
    else
      esc_impl::counts_to_rowmap<exec>(cnt, row_off, n);
    // setup(): the first numeric's missing-product flag is zeroed by the statistics kernel
    const bool fold_reset = in_setup_ && bin_off_[4] > 0;  // (count_stats launches for a non-empty plan)
    if (in_setup_ && !fold_reset) reset_missing();
    esc_impl::count_stats<exec>(perm_, cnt, bin_off_, direct && !ident_, nnz, bin_max_c_,
                                fold_reset ? missing_.data() : nullptr);  // identity: cnt(p)
    if (fold_reset) missing_zeroed_ = true;
    phase.end();
    if (static_cast<std::uint64_t>(nnz) >
        static_cast<std::uint64_t>(std::numeric_limits<offset_type>::max()))
      KKPERM_THROW(EscCapacityError, "kkperm::spgemm_symbolic: nnz(C) = "
                                         << nnz << " overflows the offset type ("
                                         << sizeof(offset_type) << " bytes); use 64-bit offsets");
    stats_.nnz_c = nnz;
    const std::size_t per_copy =
        static_cast<std::size_t>(n + 1) * sizeof(offset_type) +
        static_cast<std::size_t>(nnz) * (sizeof(ordinal_type) + sizeof(value_type));
    stats_.c_bytes = direct ? per_copy : 2 * per_copy;
    stats_.peak_bytes = stats_.plan_bytes + stats_.c_bytes + stats_.buffer_bytes +
                        static_cast<std::size_t>(n) * sizeof(std::int64_t);
    if (cfg_.memory_limit_bytes != 0 && stats_.peak_bytes > cfg_.memory_limit_bytes)
      KKPERM_THROW(EscCapacityError, "kkperm::spgemm_symbolic: C ("
                                         << n << " x " << B.numCols() << ", nnz " << nnz
                                         << ") needs " << stats_.peak_bytes
                                         << " bytes in all (estimate: plan + C + buffers), above "
                                            "the memory limit of "
                                         << cfg_.memory_limit_bytes << " bytes");
    const auto t_fill = clock_.mark();
    clock_.span(&stats_.count_s, t0, t_fill);

    // ---- fill pass
    entries_view entD;
    values_view valD;
    phase.next("kkperm::spgemm::esc::allocate_c");
    try {
      if (rows_first) {
        rowmap_view none;
        allocate_c("kkperm::C", 0, nnz, none, entD, valD);
      } else {
        allocate_c(direct ? "kkperm::C" : "kkperm::esc::C_permuted", n + 1, nnz, rowD, entD, valD);
      }
    } catch (const std::exception& e) {
      KKPERM_THROW(std::runtime_error, "kkperm::spgemm_symbolic: allocating C (nnz " << nnz << ", "
                                           << per_copy << " bytes) failed: " << e.what());
    }
    if (!rows_first) {
      phase.next("kkperm::spgemm::esc::row_map");
      const rowmap_view dst = rowD;
      kkperm::parallel_for(
          "kkperm::spgemm::esc::row_map_copy", kkperm::range_policy<exec>(0, n + 1),
          KOKKOS_LAMBDA(const std::int64_t i) { dst(i) = row_off(i); });
    }
    phase.next("kkperm::spgemm::esc::fill_launch");
    g = make_args(A, B, cnt, rowD, entD, valD, direct);
    defer_begin_ = defer_end_ = 0;
    run_symbolic_bins(g, /*fill=*/true);
    if (defer_end_ <= defer_begin_) release_stash();  // back to the pool (else after the first numeric)
    phase.end();
    const auto t_slots = clock_.mark();
    clock_.span(&stats_.fill_s, t_fill, t_slots);
    slots_pending_ = cfg_.lazy_slot_map;
    numerics_since_symbolic_ = 0;
    phase.next("kkperm::spgemm::esc::slot_map");
    build_slot_map(g, A.nnz(), /*allocate=*/!slots_pending_);
    phase.end();
    const auto t_end = clock_.mark();
    clock_.span(&stats_.slot_build_s, t_slots, t_end);
    clock_.span(&stats_.symbolic_s, t0, t_end);
    if (symbolic_wrote_values()) {  // setup(): the others' values
      const kkperm::detail::TraceRegion rest("kkperm::spgemm::esc::setup_rest_numeric");
      run_numeric_search(g, slot16_, /*record=*/false, /*rest_only=*/true);
      clock_.span(&stats_.numeric_s, t_end);
      stats_.setup_valued_rows = (warp_valued_ ? bin_off_[2] - warp_begin_ : 0) +
                                 (thread_valued_ ? bin_off_[1] - bin_off_[0] : 0) +
                                 (block_valued_ ? bin_off_[3] - bin_off_[2] : 0);
      numerics_since_symbolic_ = 1;  // this was the first numeric
    }

    if (direct) {
      rowC_ = rowD;
      C_ = Matrix("kkperm::C", static_cast<ordinal_type>(n), B.numCols(),
                  static_cast<offset_type>(nnz), valD, rowD, entD);
      rowP_ = rowmap_view();
      entP_ = entries_view();
      valP_ = values_view();
    } else {
      t0 = clock_.mark();
      work_view cnt_orig(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::esc::cnt"), n);
      esc_impl::unpermute_counts<exec>(perm_, cnt, cnt_orig, n);
      rowmap_view rowC;
      entries_view entC;
      values_view valC;
      allocate_c("kkperm::C", n + 1, nnz, rowC, entC, valC);
      esc_impl::counts_to_rowmap<exec>(cnt_orig, rowC, n);
      esc_impl::restore_rows<exec>(perm_, n, rowD, entD, valD, rowC, entC, valC, true,
                                   cfg_.drop_zeros || symbolic_wrote_values());
      rowC_ = rowC;
      clock_.span(&stats_.symbolic_restore_s, t0);
      C_ = Matrix("kkperm::C", static_cast<ordinal_type>(n), B.numCols(),
                  static_cast<offset_type>(nnz), valC, rowC, entC);
      rowP_ = rowD;
      entP_ = entD;
      valP_ = valD;
    }
    a_rows_ = A.numRows();
    a_cols_ = A.numCols();
    b_cols_ = B.numCols();
    a_nnz_ = A.nnz();
    b_nnz_ = B.nnz();
    if (cfg_.check_reuse) {
      const kkperm::detail::TraceRegion hash("kkperm::spgemm::esc::record_structure");
      check_.record(A, B);  // enqueued; numeric() compares
    }
    has_symbolic_ = true;
  }

  /// symbolic(A, B, analyzed) and the first numeric(A, B) in one call, what an AMG setup or a
  /// one-shot product needs: C complete, and the numeric() calls after it behave as after a
  /// symbolic() and one numeric(). With EscConfig::setup_values_in_count the symbolic passes
  /// write the values of the thread bin (its fill pass), of warp-row rows averaging
  /// setup_warp_values_mean products and of the block bin (their count pass; counted in
  /// stats().setup_valued_rows); the other rows, or all of them when that does not apply, get the
  /// first numeric. No structure check between the two (nothing can change A or B in between;
  /// symbolic() records the hash later numeric() calls compare).
  void setup(const Matrix& A, const Matrix& B, bool analyzed = false) {
    values_in_count_ = cfg_.setup_values_in_count && cfg_.lazy_slot_map && !cfg_.drop_zeros;
    in_setup_ = true;
    try {
      symbolic(A, B, analyzed);
    } catch (...) {
      values_in_count_ = in_setup_ = false;
      throw;
    }
    values_in_count_ = in_setup_ = false;
    if (cfg_.drop_zeros || stats_.setup_valued_rows > 0) return;  // C's values are written
    try {
      numeric_run(A, B, /*check=*/false, /*trusted=*/true);
    } catch (...) {  // C may lack columns the fused copy was to write: no structure to reuse
      has_symbolic_ = false;
      defer_begin_ = defer_end_ = 0;
      release_stash();
      throw;
    }
  }

  void numeric(const Matrix& A, const Matrix& B) { numeric_run(A, B, cfg_.check_reuse); }
  // (numeric_run's parts are not marked for LaunchTrace: its kernels name themselves)

  /// numeric(A, B), with the structure check only when `check`; `trusted`: A and B are known to
  /// have symbolic()'s structure (setup()), so no host wait for the search kernels' flag either
  /// (public: nvcc).
  void numeric_run(const Matrix& A, const Matrix& B, bool check, bool trusted = false) {
    using exec = execution_space;
    KKPERM_REQUIRE(has_symbolic_, "kkperm::spgemm_numeric: call symbolic() first");
    KKPERM_REQUIRE(A.numRows() == a_rows_ && A.numCols() == a_cols_ && B.numCols() == b_cols_ &&
                       A.nnz() == a_nnz_ && B.nnz() == b_nnz_,
                   "kkperm::spgemm_numeric: A (" << A.numRows() << " x " << A.numCols() << ", nnz "
                                                 << A.nnz() << ") / B (nnz " << B.nnz()
                                                 << ") differ from those given to symbolic()");
    // With the gather plan, numeric reads only values at positions symbolic() fixed, so it runs
    // before the check's wait (one wait, no idle device between hash and numeric); on a failed
    // check C's values are then unspecified. Paths that read A's and B's indices check first.
    const bool late_check = check && !numeric_reads_indices();
    if (late_check) {
      check_.enqueue(A, B);
    } else if (check) {
      KKPERM_REQUIRE(check_.matches(A, B),
                     "kkperm::spgemm_numeric: the structure of A or B changed since symbolic(); re-run "
                     "symbolic()");
    }
    if (cfg_.drop_zeros) {
      // The structure depends on the values: recompute it (the fill pass writes the values).
      symbolic(A, B);
      clock_.span(&stats_.numeric_s, an_m0_);  // from the analysis symbolic() starts with
      return;
    }
    const bool direct = cfg_.output_order == EscOutputOrder::direct;
    if (clock_.marks() >= 64) {  // keeps the event pool bounded over many re-setups
      clock_.resolve();
      clock_.restart();
    }
    auto t0 = clock_.mark();
    args_t g = direct ? make_args(A, B, work_view(), rowC_, C_.graph.entries, C_.values, true)
                      : make_args(A, B, work_view(), rowP_, entP_, valP_, false);
    if (slots_pending_ && numerics_since_symbolic_ > 0) {  // lazy_slot_map: this one records
      const auto t_s = clock_.mark();
      build_slot_map(g, A.nnz(), /*allocate=*/true);
      slots_pending_ = false;
      clock_.span(&stats_.slot_build_s, t_s);
    }
    ++numerics_since_symbolic_;
    const bool searched = !slots_ready_ && !gather_ready_;
    if (slots_ready_ && !gather_ready_) build_gather_plan(g, A.nnz(), B.nnz());
    stats_.numeric_used_slots = slots_ready_ && !gather_ready_;
    stats_.numeric_used_gather = gather_ready_;
    if (gather_ready_) {
      stats_.gather_lanes = cfg_.gather_lanes > 0 ? cfg_.gather_lanes
                                                  : esc_impl::gather_lanes_for<exec>(stats_.sum_work, stats_.nnz_c);
      if (gather_bits_b_ > 0)
        esc_impl::numeric_gather_compact<exec>(g, stats_.nnz_c, stats_.gather_lanes, gptr_, clist_, gtile_,
                                               gather_bits_b_);
      else
        esc_impl::numeric_gather<exec>(g, stats_.nnz_c, stats_.gather_lanes, gptr_, glist_);
    } else if (slots_ready_ && slot16_.extent(0) > 0) {
      run_numeric_slots(g, slot16_);
    } else if (slots_ready_) {
      run_numeric_slots(g, slot32_);
    } else if (slot32_.extent(0) > 0) {
      run_numeric_search(g, slot32_, true);
    } else {
      run_numeric_search(g, slot16_, slot16_.extent(0) > 0);
    }
    const auto t_num = clock_.mark();
    clock_.span(&stats_.numeric_s, t0, t_num);
    if (!direct) {
      esc_impl::restore_rows<exec>(perm_, stats_.num_rows, rowP_, entP_, valP_, rowC_,
                                   C_.graph.entries, C_.values, false, true);
      clock_.span(&stats_.numeric_restore_s, t_num);
    }
    if (late_check) {
      KKPERM_REQUIRE(check_.verdict(),
                     "kkperm::spgemm_numeric: the structure of A or B changed since symbolic() (C's "
                     "values are unspecified now); re-run symbolic()");
    }
    if (searched) {  // only the search path can see a product outside C's structure
      // With the structure check on, it passed before this numeric ran (the search path reads
      // indices, so it checks first): A and B have symbolic()'s structure and every product has
      // its place in C. Without it, the kernels' flag says whether one fell outside (a host wait).
      if (!check && !trusted) {
        int flag = 0;
        Kokkos::deep_copy(flag, missing_);
        KKPERM_REQUIRE(flag == 0, "kkperm::spgemm_numeric: a product term falls outside C's "
                                  "structure: A or B changed structure since symbolic() (reuse "
                                  "check disabled); re-run symbolic()");
      }
      // every product found its position: the slot map (when allocated) is complete now
      slots_ready_ = slot16_.extent(0) > 0 || slot32_.extent(0) > 0;
    }
  }

  /// Numeric by binary search; with `record` the positions go to `slot`. `rest_only` (setup()
  /// with values in the count pass): all but the rows whose values the symbolic passes wrote (the
  /// warp-row range [warp_begin_, bin_off_[2]) when warp_valued_, the thread bin when
  /// thread_valued_, the block bin when block_valued_) (public: nvcc).
  template <class SlotView>
  void run_numeric_search(const args_t& g, const SlotView& slot, bool record, bool rest_only = false) {
    using exec = execution_space;
    if (!missing_zeroed_) reset_missing();  // (setup(): reset during the symbolic already)
    missing_zeroed_ = false;
    // the symbolic warp-row launch's rows, plus the thread bin when its rows are long enough
    // (numeric_fold_thread_mean; a thread bin of 10^6 rows of ~12 products stays on its thread
    // kernel: the 2D 5-point AP's first numeric went 0.48 -> 1.18 ms on the warp-row kernel in
    // H100 run 101, before lane groups, and 0.32 -> 0.40 ms in run 175)
    // rest_only: the rows the symbolic passes left without values: the thread bin unless its fill
    // pass wrote them or it lies in the valued warp-row range, the warp bin unless that range holds
    // its values
    const bool skip_warp = rest_only && warp_valued_;
    const bool need_thread = !(rest_only && thread_valued_) && !(skip_warp && warp_begin_ == bin_off_[0]);
    const bool folded = warp_rows_ && numeric_begin_ < bin_off_[1] && need_thread;
    const std::int64_t wb = folded ? bin_off_[0] : bin_off_[1], we = skip_warp ? bin_off_[1] : bin_off_[2];
    const std::int64_t mc = std::max(folded ? bin_max_c_[0] : 0, skip_warp ? 0 : bin_max_c_[1]);
    // setup_fused_copy: the stashed columns of [defer_begin_, defer_end_) reach C here, through the
    // warp-row launch when it takes all of those rows, else by the copy the fill pass left out
    const bool deferred = defer_end_ > defer_begin_;
    const bool fused = deferred && warp_rows_ && wb <= defer_begin_ && we >= defer_end_ &&
                       esc_impl::numeric_warp_rows_fit<exec, value_type, ordinal_type>(
                           mc, numeric_lanes_, cfg_.warp_rows_per_team, cfg_.numeric_global_sums);
    if (deferred && !fused)
      esc_impl::copy_stashed_rows<exec>(g, defer_begin_, defer_end_, stash_.view().data(), stash_off_,
                                        cfg_.warp_rows_per_team, nullptr, 0, 0, warp_begin_);
    const esc_impl::StashedCols<ordinal_type, work_view> from{fused ? stash_.view().data() : nullptr, stash_off_,
                                                               defer_begin_, defer_end_, warp_begin_};
    const int lanes = warp_rows_ ? esc_impl::numeric_warp_rows<exec>(g, wb, we, mc, missing_, aprod_, slot, record,
                                                                     numeric_lanes_, cfg_.warp_rows_per_team, from,
                                                                     cfg_.numeric_global_sums, cfg_.numeric_min_blocks)
                                 : 0;
    if (deferred) {
      stats_.setup_fused_copy_rows = fused ? defer_end_ - defer_begin_ : 0;
      release_stash();
      defer_begin_ = defer_end_ = 0;
    }
    if (!skip_warp) stats_.numeric_warp_row_lanes = lanes;
    if (need_thread && !(folded && lanes > 0))
      esc_impl::numeric_thread_bin<exec>(g, bin_off_[0], bin_off_[1], bin_max_c_[0], missing_, aprod_, slot, record);
    if (!skip_warp && lanes == 0)
      esc_impl::numeric_team_bin<exec>(g, bin_off_[1], bin_off_[2], cfg_.warp_team_size,
                                       bin_max_ka_[1], bin_max_c_[1], missing_, aprod_, slot,
                                       record, stats_.numeric_level_warp);
    const bool skip_block = rest_only && block_valued_;
    const bool walked = skip_block || (warp_rows_ && cfg_.block_rows &&
                                       esc_impl::numeric_block_rows<exec>(g, bin_off_[2], bin_off_[3], bin_max_c_[2],
                                                                          bin_max_ka_[2], missing_, aprod_, slot,
                                                                          record));
    if (!walked)
      esc_impl::numeric_team_bin<exec>(g, bin_off_[2], bin_off_[3], cfg_.block_team_size,
                                       bin_max_ka_[2], bin_max_c_[2], missing_, aprod_, slot,
                                       record, stats_.numeric_level_block);
    esc_impl::numeric_global_bin<exec>(g, bin_off_[3], bin_off_[4], cfg_.global_team_size,
                                       missing_, aprod_, slot, record);
  }

  /// The search numerics' flag back to 0, on the stream (a deep_copy of a scalar fences before and
  /// after: a host wait); the next run_numeric_search then skips its own reset (public: nvcc).
  void reset_missing() {
    const auto missing = missing_;
    kkperm::parallel_for(
        "kkperm::spgemm::esc::missing_reset", kkperm::range_policy<execution_space>(0, 1),
        KOKKOS_LAMBDA(const int) { missing() = 0; });
    missing_zeroed_ = true;
  }

  /// Numeric through the slot map (public: nvcc needs kernels reachable from public members).
  template <class SlotView>
  void run_numeric_slots(const args_t& g, const SlotView& slot) {
    using exec = execution_space;
    const int v = stats_.vector_length;
    esc_impl::numeric_thread_bin_slots<exec>(g, bin_off_[0], bin_off_[1], bin_max_c_[0], aprod_, slot);
    esc_impl::numeric_team_bin_slots<exec>(g, bin_off_[1], bin_off_[2], cfg_.warp_team_size, v,
                                           bin_max_c_[1], false, aprod_, slot,
                                           stats_.numeric_level_warp);
    esc_impl::numeric_team_bin_slots<exec>(g, bin_off_[2], bin_off_[3], cfg_.block_team_size, v,
                                           bin_max_c_[2], false, aprod_, slot,
                                           stats_.numeric_level_block);
    int unused = 0;
    esc_impl::numeric_team_bin_slots<exec>(g, bin_off_[3], bin_off_[4], cfg_.global_team_size, v,
                                           0, true, aprod_, slot, unused);
  }

  /// Builds the gather plan from the filled slot map when it fits the limits (else numeric stays
  /// on the slot map), then releases the slot map. Timed in EscStats::gather_build_s.
  void build_gather_plan(const args_t& g, std::int64_t nnz_a, std::int64_t nnz_b) {
    using exec = execution_space;
    const std::int64_t n = stats_.num_rows, nnz_c = stats_.nnz_c, sum = stats_.sum_work;
    constexpr std::int64_t kInt = std::numeric_limits<int>::max();
    constexpr std::int64_t kU32 = std::numeric_limits<std::uint32_t>::max();
    if (cfg_.gather_plan_limit_bytes == 0 || sum == 0 || sum >= kInt || nnz_c >= kInt || n >= kInt ||
        nnz_a > kU32 || nnz_b > kU32)
      return;
    const auto t0 = clock_.mark();
    // 4-byte lists (gather_compact) when the widest A range a tile of 32 C entries names and B's
    // positions fit 32 bits together; the tiles' bases come from the row offsets alone
    const std::int64_t nt = (nnz_c + esc_impl::kGatherTileEntries - 1) / esc_impl::kGatherTileEntries;
    const int bits_b = esc_impl::gather_field_bits(nnz_b);
    bool compact = cfg_.gather_compact && bits_b < 32;
    const std::size_t tile_bytes = static_cast<std::size_t>(2 * nt) * sizeof(std::uint32_t);
    if (cfg_.memory_limit_bytes != 0 && stats_.peak_bytes + tile_bytes > cfg_.memory_limit_bytes) compact = false;
    pooled_t<std::uint32_t> thi_mem;
    if (compact) {
      try {
        const bool small = tile_bytes <= kGatherPoolMaxBytes;
        gtile_ = pooled_if(small, gtile_mem_, "kkperm::esc::gather_tile_base", nt);
        const auto thi = pooled_if(small, thi_mem, "kkperm::esc::gather_tile_end", nt);
        const std::int64_t span = esc_impl::gather_tile_spans<exec>(g, n, nnz_c, gtile_, thi);
        compact = esc_impl::gather_field_bits(span) + bits_b <= 32;
      } catch (const std::exception&) {
        compact = false;
      }
      thi_mem = pooled_t<std::uint32_t>();
      if (!compact) release_compact_list();
    }
    const std::size_t bytes = static_cast<std::size_t>(sum) * (compact ? sizeof(std::uint32_t) : sizeof(std::uint64_t)) +
                              static_cast<std::size_t>(nnz_c + 1) * sizeof(int) +
                              (compact ? static_cast<std::size_t>(nt) * sizeof(std::uint32_t) : 0);
    const std::size_t temp = static_cast<std::size_t>(nnz_c + (g.direct ? 0 : n)) * sizeof(int);
    if (bytes > cfg_.gather_plan_limit_bytes ||
        (cfg_.memory_limit_bytes != 0 && stats_.peak_bytes + bytes + temp > cfg_.memory_limit_bytes)) {
      release_compact_list();
      return;
    }
    // Plans up to kGatherPoolMaxBytes (list and offsets) from the plan pool: no cudaMalloc and no
    // synchronizing cudaFree of Kokkos 3.4 Views; the temporaries go back to the pool
    // stream-ordered at return. Larger plans as Kokkos Views: there the pool was slower.
    const bool from_pool = bytes <= kGatherPoolMaxBytes;
    pooled_t<int> cnt_mem, rbase_mem;
    Kokkos::View<int*, device_type> cnt, rbase;
    try {
      gptr_ = pooled_if(from_pool, gptr_mem_, "kkperm::esc::gather_ptr", nnz_c + 1);
      if (compact)
        clist_ = pooled_if(from_pool, clist_mem_, "kkperm::esc::gather_list32", sum);
      else
        glist_ = pooled_if(from_pool, glist_mem_, "kkperm::esc::gather_list", sum);
      cnt = pooled_if(from_pool, cnt_mem, "kkperm::esc::gather_count", nnz_c);
      rbase = pooled_if(from_pool, rbase_mem, "kkperm::esc::gather_row_base", g.direct ? 0 : n);
    } catch (const std::exception&) {  // not enough memory: stay on the slot map
      release_gather_plan();
      return;
    }
    gather_bits_b_ = compact ? bits_b : 0;
    if (slot16_.extent(0) > 0)
      build_gather_lists(g, slot16_, rbase, cnt);
    else
      build_gather_lists(g, slot32_, rbase, cnt);
    clock_.span(&stats_.gather_build_s, t0);
    stats_.gather_bytes = bytes;
    stats_.gather_compact = compact;
    stats_.peak_bytes += bytes + temp;
    gather_ready_ = true;
    slots_ready_ = false;  // the slot map is not needed any more
    release_slot_map();
  }

  /// Drops the 4-byte gather list and its tile bases (the plan goes back to 8-byte words).
  void release_compact_list() {
    clist_ = Kokkos::View<std::uint32_t*, device_type>();
    gtile_ = Kokkos::View<std::uint32_t*, device_type>();
    clist_mem_ = pooled_t<std::uint32_t>();
    gtile_mem_ = pooled_t<std::uint32_t>();
    gather_bits_b_ = 0;
  }

  /// Drops the gather plan and returns its memory to the plan pool.
  void release_gather_plan() {
    gptr_ = Kokkos::View<int*, device_type>();
    glist_ = Kokkos::View<std::uint64_t*, device_type>();
    gptr_mem_ = pooled_t<int>();
    glist_mem_ = pooled_t<std::uint64_t>();
    release_compact_list();
  }

  /// build_gather_plan with the slot map `slot`: rows with F_i <= gather_ordered_max in product
  /// order, gather_build_lanes lanes a row (auto: from the mean work a row); longer rows (only in
  /// bins whose largest F_i exceeds it) by the long-row passes (public: nvcc).
  template <class SlotView>
  void build_gather_lists(const args_t& g, const SlotView& slot, const Kokkos::View<int*, device_type>& rbase,
                          const Kokkos::View<int*, device_type>& cnt) {
    using exec = execution_space;
    const std::int64_t n = stats_.num_rows, max_work = cfg_.gather_ordered_max;
    // over the non-empty bins: where rows over max_work can start (n: none), and the largest
    // ordered row and C row (the scratch a row: enough for the largest ordered row, within
    // gather_build_row_bytes)
    std::int64_t long_begin = n, max_f = 0, max_c = 0;
    for (int b = 0; b < 4; ++b) {
      if (bin_off_[b + 1] == bin_off_[b]) continue;
      if (bin_max_work_[b] > max_work && long_begin == n) long_begin = bin_off_[b];
      max_f = std::max(max_f, std::min(bin_max_work_[b], max_work));
      max_c = std::max(max_c, bin_max_c_[b]);
    }
    const int lanes = cfg_.gather_build_lanes != 0
                          ? cfg_.gather_build_lanes
                          : esc_impl::gather_build_lanes_for<exec>(n > 0 ? stats_.sum_work / n : 0);
    stats_.gather_build_lanes = lanes;
    const std::int64_t slice = std::min<std::int64_t>(esc_impl::gather_row_scratch_bytes(max_c, max_f),
                                                      static_cast<std::int64_t>(cfg_.gather_build_row_bytes));
    esc_impl::build_gather_plan<exec>(g, n, stats_.nnz_c, stats_.sum_work, max_work, long_begin, lanes, slice,
                                      cfg_.gather_build_match, aprod_, slot, rbase, cnt, gptr_,
                                      esc_impl::GatherListOut<decltype(glist_), decltype(clist_), decltype(gtile_)>{
                                          glist_, clist_, gtile_, gather_bits_b_});
  }

  /// Allocates the slot map and computes aprod_ when they fit the budgets (else leaves them
  /// empty: numeric searches); the next numeric fills the slots. Not with drop_zeros
  /// (numeric re-runs symbolic there). allocate == false (lazy_slot_map, from symbolic()): only
  /// releases a previous map and resets its statistics; a later numeric() calls it again.
  void build_slot_map(const args_t& g, std::int64_t nnz_a, bool allocate) {
    using exec = execution_space;
    slots_ready_ = false;
    release_slot_map();
    stats_.slot_bytes = 0;
    stats_.slot_width = 0;
    stats_.vector_length = esc_impl::vector_length_for<exec>(stats_.sum_work, nnz_a);
    if (!allocate || cfg_.drop_zeros || stats_.sum_work == 0) return;
    std::int64_t max_c = kThreadRowMax;
    for (int b = 1; b <= 3; ++b) max_c = std::max(max_c, bin_max_c_[b]);
    const int width = max_c <= 65536 ? 2 : 4;
    const std::size_t bytes = static_cast<std::size_t>(stats_.sum_work) * width +
                              static_cast<std::size_t>(nnz_a + 1) * sizeof(std::int64_t);
    if (bytes > cfg_.slot_map_limit_bytes) return;
    if (cfg_.memory_limit_bytes != 0 && stats_.peak_bytes + bytes > cfg_.memory_limit_bytes) return;
    try {
      aprod_ = pooled(aprod_mem_, "kkperm::esc::aprod", nnz_a + 1);
      if (width == 2)
        slot16_ = pooled(slot16_mem_, "kkperm::esc::slot16", stats_.sum_work);
      else
        slot32_ = pooled(slot32_mem_, "kkperm::esc::slot32", stats_.sum_work);
    } catch (const std::exception&) {  // not enough memory: numeric searches instead
      release_slot_map();
      return;
    }
    esc_impl::product_offsets<exec>(g, nnz_a, aprod_);
    stats_.slot_bytes = bytes;
    stats_.slot_width = width;
    stats_.peak_bytes += bytes;
  }

  /// Plan views for callers that report the reorder (read-only).
  perm_view permutation() const { return perm_; }
  work_view row_work() const { return work_; }

  // Used by the symbolic passes (public: nvcc needs kernels reachable from public members).
  void run_symbolic_bins(const args_t& g, bool fill) {
    using exec = execution_space;
    // tests: rows of the count pass that took the bitmap path (warp-row and block-row kernels)
    const bool counting = cfg_.count_bitmap_rows && !fill && warp_rows_;
    Kokkos::View<int*, device_type> nbit;  // [0]: bitmap rows, [1]: staged rows, [2]: register rows
    if (counting) nbit = Kokkos::View<int*, device_type>("kkperm::esc::bitmap_rows", 3);
    // setup(): the thread bin's fill pass (when the thread bin is on its own kernel) sums values
    const bool thread_values = fill && values_in_count_ && bin_off_[1] > bin_off_[0];
    const auto read_count = [&] {
      if (!counting) return;
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nbit);
      stats_.bitmap_rows = h(0);
      stats_.staged_rows = h(1);
      stats_.register_rows = h(2);
    };
    if (warp_rows_) {
      const std::int64_t mw = warp_range_max(bin_max_work_);
      const bool stashed = stash_.view().extent(0) > 0;
      const bool block_stashed = stashed && stash_end_ > bin_off_[2];
      if (fill && stashed) {  // single pass: the count pass stashed the rows' columns (and sums)
        const bool any = warp_valued_ || block_valued_;
        // setup(): the warp-row range's first numeric takes its columns from the stash
        // (direct output only: a permuted C is restored to caller order before that numeric)
        const bool defer = values_in_count_ && cfg_.setup_fused_copy && g.direct && !warp_valued_ &&
                           bin_off_[2] > warp_begin_;
        const std::int64_t cb = defer ? bin_off_[2] : warp_begin_;
        const value_type* cv = any ? vstash_.view().data() : nullptr;
        const std::int64_t vb = warp_valued_ ? warp_begin_ : bin_off_[2];
        const std::int64_t ve = block_valued_ ? stash_end_ : bin_off_[2];
        if (cfg_.copy_flat)
          esc_impl::copy_stashed_rows_flat<exec>(g, cb, stash_end_, stash_.view().data(), stash_off_,
                                                 cfg_.warp_rows_per_team, cv, vb, ve, warp_begin_);
        else
          esc_impl::copy_stashed_rows<exec>(g, cb, stash_end_, stash_.view().data(), stash_off_,
                                            cfg_.warp_rows_per_team, cv, vb, ve, warp_begin_);
        if (defer) {
          defer_begin_ = warp_begin_;
          defer_end_ = bin_off_[2];
        }
      }
      int lanes = 0;
      if (!(fill && stashed)) {
        // values in the count pass (setup()) when planned
        value_type* vst = !fill && warp_values_planned_ ? vstash_.view().data() : nullptr;
        lanes = esc_impl::symbolic_warp_rows<exec>(g, warp_begin_, bin_off_[2], fill, mw,
                                                   fill ? nullptr : stash_.view().data(), stash_off_,
                                                   warp_lanes_, cfg_.warp_rows_per_team, cfg_.warp_row_bitmap,
                                                   counting ? nbit.data() : nullptr, vst, cfg_.setup_global_sums,
                                                   cfg_.setup_stage_row_bytes, cfg_.warp_row_register_sort);
        if (!fill) warp_valued_ = vst != nullptr && lanes > 0;
        stats_.warp_row_lanes = lanes;
      }
      if ((fill && stashed) || lanes > 0) {
        if (warp_begin_ > bin_off_[0]) {
          esc_impl::symbolic_thread_bin<exec>(g, bin_off_[0], bin_off_[1], bin_max_work_[0], fill, thread_values);
          if (fill) thread_valued_ = thread_values;
        }
        if (!(fill && block_stashed)) {
          ordinal_type* bstash = block_stashed ? stash_.view().data() : nullptr;
          value_type* bvst = !fill && block_stashed && block_values_planned_ ? vstash_.view().data() : nullptr;
          const bool walked = cfg_.block_rows &&
                              esc_impl::symbolic_block_rows<exec>(g, bin_off_[2], bin_off_[3], fill, bin_max_work_[2],
                                                                  bstash, stash_off_, bin_off_[2] - warp_begin_,
                                                                  cfg_.warp_row_bitmap,
                                                                  counting ? nbit.data() : nullptr, bvst);
          if (!fill) block_valued_ = walked && bvst != nullptr;
          if (!walked)
            esc_impl::symbolic_team_hash_bin<exec>(g, bin_off_[2], bin_off_[3], fill, cfg_.block_team_size,
                                                   bin_max_work_[2], bin_max_ka_[2], stats_.scratch_level_block,
                                                   bstash, stash_off_, bin_off_[2] - warp_begin_);
        }
        run_symbolic_global_bin(g, fill);
        read_count();
        return;
      }
      warp_rows_ = false;  // one warp's table does not fit a team's scratch: team kernels
      warp_begin_ = numeric_begin_ = bin_off_[1];
      stats_.warp_row_rows = 0;
      stats_.thread_bin_folded = false;
      // the stash (planned for the warp-row kernels' count pass) is not written now: two passes
      release_stash();
      stats_.stash_bytes = 0;
    }
    esc_impl::symbolic_thread_bin<exec>(g, bin_off_[0], bin_off_[1], bin_max_work_[0], fill, thread_values);
    if (fill) thread_valued_ = thread_values;
    if (cfg_.drop_zeros || !cfg_.team_bin_hash) {  // drop_zeros: kept set depends on sums
      esc_impl::symbolic_team_bin<exec>(g, bin_off_[1], bin_off_[2], fill, cfg_.warp_team_size,
                                        bin_max_work_[1], bin_max_ka_[1],
                                        stats_.scratch_level_warp);
      esc_impl::symbolic_team_bin<exec>(g, bin_off_[2], bin_off_[3], fill, cfg_.block_team_size,
                                        bin_max_work_[2], bin_max_ka_[2],
                                        stats_.scratch_level_block);
    } else {  // scratch hash table: count without sorting, fill sorts only unique columns
      esc_impl::symbolic_team_hash_bin<exec>(g, bin_off_[1], bin_off_[2], fill,
                                             cfg_.warp_team_size, bin_max_work_[1],
                                             bin_max_ka_[1], stats_.scratch_level_warp, nullptr,
                                             work_view(), 0);
      esc_impl::symbolic_team_hash_bin<exec>(g, bin_off_[2], bin_off_[3], fill,
                                             cfg_.block_team_size, bin_max_work_[2],
                                             bin_max_ka_[2], stats_.scratch_level_block, nullptr,
                                             work_view(), 0);
    }
    run_symbolic_global_bin(g, fill);
  }

  void run_symbolic_global_bin(const args_t& g, bool fill) {
    using exec = execution_space;
    for (std::size_t c = 0; c + 1 < chunk_pos_.size(); ++c) {
      if (cfg_.drop_zeros)
        esc_impl::symbolic_global_chunk<exec>(g, chunk_pos_[c], chunk_pos_[c + 1] - chunk_pos_[c],
                                              fill, cfg_.global_team_size, chunk_off_[c],
                                              key_buf_, val_buf_);
      else
        esc_impl::symbolic_global_hash_chunk<exec>(g, chunk_pos_[c],
                                                   chunk_pos_[c + 1] - chunk_pos_[c], fill,
                                                   cfg_.global_team_size, chunk_off_[c], key_buf_);
    }
  }

 private:

  template <class T>
  using pooled_t = kkperm::detail::PooledArray<T, device_type>;
  /// (Re)allocates `holder` with n elements from the plan pool and returns its View.
  template <class T>
  static Kokkos::View<T*, device_type> pooled(pooled_t<T>& holder, const char* label, std::int64_t n) {
    holder = pooled_t<T>();  // release first: the peak is the new size, not both
    holder = pooled_t<T>(label, static_cast<std::size_t>(n));
    return holder.view();
  }
  /// pooled(holder, label, n) when `from_pool`; else releases `holder` and returns an uninitialized
  /// Kokkos View of its own.
  template <class T>
  static Kokkos::View<T*, device_type> pooled_if(bool from_pool, pooled_t<T>& holder, const char* label,
                                                 std::int64_t n) {
    if (from_pool) return pooled(holder, label, n);
    holder = pooled_t<T>();
    return Kokkos::View<T*, device_type>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                                         static_cast<std::size_t>(n));
  }
  /// A block for C (or its permuted copy), as EscConfig::c_from_pool says; the host time of the
  /// call adds to stats_.c_alloc_s (reset by symbolic()).
  void allocate_c(const std::string& label, std::int64_t n1, std::int64_t nnz, rowmap_view& row, entries_view& ent,
                  values_view& val) {
    const auto a0 = std::chrono::steady_clock::now();
    esc_impl::allocate_crs_block(label, n1, nnz, row, ent, val, cfg_.c_from_pool);
    stats_.c_alloc_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count();
    if (cfg_.poison_c) {
      Kokkos::deep_copy(val, std::numeric_limits<value_type>::quiet_NaN());
      Kokkos::deep_copy(ent, ordinal_type(-1));
    }
  }
  /// The single-pass stash and its offsets back to the pool; no stashed range.
  void release_stash() {
    stash_ = pooled_t<ordinal_type>();
    vstash_ = pooled_t<value_type>();
    warp_values_planned_ = block_values_planned_ = false;
    stash_off_ = work_view();
    stash_off_mem_ = pooled_t<std::int64_t>();
    stash_end_ = 0;
  }
  void release_slot_map() {
    aprod_ = work_view();
    slot16_ = Kokkos::View<std::uint16_t*, device_type>();
    slot32_ = Kokkos::View<std::uint32_t*, device_type>();
    aprod_mem_ = pooled_t<std::int64_t>();
    slot16_mem_ = pooled_t<std::uint16_t>();
    slot32_mem_ = pooled_t<std::uint32_t>();
  }

  args_t make_args(const Matrix& A, const Matrix& B, const work_view& cnt, const rowmap_view& rowC,
                   const entries_view& entC, const values_view& valC, bool direct) const {
    args_t g;
    g.rowA = A.graph.row_map;
    g.rowB = B.graph.row_map;
    g.entA = A.graph.entries;
    g.entB = B.graph.entries;
    g.valA = A.values;
    g.valB = B.values;
    g.perm = perm_;
    g.work = work_;
    g.cnt = cnt;
    g.rowC = rowC;
    g.entC = entC;
    g.valC = valC;
    g.direct = direct;
    g.drop = cfg_.drop_zeros;
    g.ident = ident_;
    return g;
  }

  /// Splits the global-bin rows into chunks whose padded expansion buffers fit the budget
  /// (a single row larger than the budget gets a chunk of its own).
  void plan_global_chunks() {
    chunk_pos_.clear();
    chunk_off_.clear();
    key_buf_ = Kokkos::View<ordinal_type*, device_type>();
    val_buf_ = values_view();
    key_buf_mem_ = pooled_t<ordinal_type>();
    val_buf_mem_ = pooled_t<value_type>();
    stats_.buffer_bytes = 0;
    const std::int64_t b = bin_off_[3], e = bin_off_[4];
    if (e <= b) return;
    const auto w = esc_impl::gather_work<execution_space>(perm_, work_, b, e);
    const std::size_t elem = sizeof(ordinal_type) + (cfg_.drop_zeros ? sizeof(value_type) : 0);
    std::int64_t budget = static_cast<std::int64_t>(cfg_.global_buffer_bytes / elem);
    // slot of a row: the padded expansion (sort path, drop_zeros) or its hash table
    const auto slot = [&](std::int64_t f) {
      return cfg_.drop_zeros ? esc_impl::next_pow2(f) : esc_impl::hash_slots(f);
    };
    for (const auto f : w) budget = std::max(budget, slot(f));
    std::int64_t largest = 0;
    std::vector<std::int64_t> offs{0};
    chunk_pos_.push_back(b);
    for (std::int64_t r = 0; r < e - b; ++r) {
      const std::int64_t P = slot(w[r]);
      if (offs.back() + P > budget) {
        push_chunk(offs);
        largest = std::max(largest, offs.back());
        offs.assign(1, 0);
        chunk_pos_.push_back(b + r);
      }
      offs.push_back(offs.back() + P);
    }
    push_chunk(offs);
    largest = std::max(largest, offs.back());
    chunk_pos_.push_back(e);
    stats_.global_chunks = static_cast<std::int64_t>(chunk_off_.size());
    stats_.buffer_bytes = static_cast<std::size_t>(largest) * elem;
    KKPERM_REQUIRE(cfg_.memory_limit_bytes == 0 || stats_.buffer_bytes <= cfg_.memory_limit_bytes,
                   "kkperm::spgemm_symbolic: a row of C needs an expansion buffer of "
                       << stats_.buffer_bytes << " bytes, above the memory limit of "
                       << cfg_.memory_limit_bytes << " bytes");
    try {
      key_buf_ = pooled(key_buf_mem_, "kkperm::esc::key_buf", largest);  // plan pool: no cudaMalloc
      if (cfg_.drop_zeros) val_buf_ = pooled(val_buf_mem_, "kkperm::esc::val_buf", largest);
    } catch (const std::exception& ex) {
      KKPERM_THROW(std::runtime_error, "kkperm::spgemm_symbolic: allocating the expansion buffer ("
                                           << stats_.buffer_bytes << " bytes) failed: " << ex.what());
    }
  }

  /// The largest of a per-bin statistic (bin_max_work_, bin_max_ka_) over the warp-row range: the
  /// warp bin, and the thread bin when plan_warp_rows folded it in (warp_begin_ set).
  std::int64_t warp_range_max(const std::int64_t (&per_bin)[4]) const {
    return std::max(warp_begin_ < bin_off_[1] ? per_bin[0] : std::int64_t(0), per_bin[1]);
  }
  /// Whether the warp-row kernels take the warp bin (and the thread bin when it is small).
  /// Whether the symbolic passes use the warp-row kernels (plan_warp_rows).
  bool uses_warp_rows() const { return cfg_.warp_rows && cfg_.team_bin_hash && !cfg_.drop_zeros; }
  /// Whether a thread bin of `rows` rows goes into the warp-row launch (plan_warp_rows; the
  /// analysis's identity plan relies on the same rule).
  bool folds_thread_bin(std::int64_t rows) const { return uses_warp_rows() && rows < cfg_.fold_thread_bin_below; }
  void plan_warp_rows() {
    warp_rows_ = uses_warp_rows();
    const bool fold = folds_thread_bin(bin_off_[1] - bin_off_[0]);
    warp_begin_ = fold ? bin_off_[0] : bin_off_[1];
    stats_.thread_bin_folded = (fold && bin_off_[1] > bin_off_[0]) || merged_thread_rows_ > 0;
    stats_.warp_row_rows = warp_rows_ ? bin_off_[2] - warp_begin_ : 0;
    range_work_ = warp_rows_ ? bin_sum_work_[1] + (fold ? bin_sum_work_[0] : 0) : 0;
    warp_lanes_ = cfg_.warp_row_lanes > 0 ? cfg_.warp_row_lanes
                                          : esc_impl::warp_row_lanes_for(range_work_, stats_.warp_row_rows,
                                                                         cfg_.symbolic_lanes16_below,
                                                                         cfg_.symbolic_lanes8_from);
    // register sort (warp_row_register_sort): when the range's rows do not all fit the registers
    // at these lanes but do at twice as many (max A entries <= 2W, max work <= 4 x 2W), take 2W.
    // H100 run 315: the uniform 10^6-row A² with 8 entries a row (F = 64, mean 64: 8 lanes, windows
    // too wide for the bitmap, so the hash table) set up in 7.37 ms on 8 lanes, 2.46 ms on 16
    // (register-sorted), cuSPARSE ALG1 4.24 ms.
    stats_.window_samples = an_window_samples_ > 0 ? an_window_samples_ : 0;
    stats_.wide_windows = an_window_samples_ > 0 ? an_wide_windows_ : 0;
    if (warp_rows_ && cfg_.warp_row_lanes <= 0 && cfg_.warp_row_register_sort > 0 && warp_lanes_ < 32) {
      const std::int64_t mw = warp_range_max(bin_max_work_), mk = warp_range_max(bin_max_ka_);
      if (!esc_impl::reg_sort_fits(mk, mw, warp_lanes_) && esc_impl::reg_sort_fits(mk, mw, 2 * warp_lanes_))
        warp_lanes_ *= 2;
      // rows too wide for the bitmap (sampled): 32 lanes when every row fits the registers there
      // (EscConfig::wide_window_lanes)
      else if (esc_impl::wide_window_lanes_pay(cfg_.wide_window_lanes, warp_lanes_, mk, mw, an_window_samples_,
                                               an_wide_windows_)) {
        warp_lanes_ = 32;
        stats_.wide_window_lanes = true;
      }
    }
    // the searching numerics may fold the thread bin on their own (numeric_fold_thread_mean)
    const std::int64_t n0 = bin_off_[1] - bin_off_[0];
    const bool nfold = warp_rows_ && (fold || (n0 > 0 && cfg_.numeric_fold_thread_mean > 0 &&
                                               bin_sum_work_[0] >= cfg_.numeric_fold_thread_mean * n0));
    numeric_begin_ = nfold ? bin_off_[0] : bin_off_[1];
    const std::int64_t numeric_work = warp_rows_ ? bin_sum_work_[1] + (nfold ? bin_sum_work_[0] : 0) : 0;
    numeric_lanes_ = cfg_.numeric_warp_row_lanes > 0 ? cfg_.numeric_warp_row_lanes
                     : cfg_.warp_row_lanes > 0       ? cfg_.warp_row_lanes
                                                     : esc_impl::numeric_warp_row_lanes_for(numeric_work, bin_off_[2] - numeric_begin_,
                                                                                            cfg_.numeric_lanes16_from);
  }

  /// Single-pass symbolic of the warp-row range, and of the block bin with
  /// EscConfig::stash_block_bin, when the stash (Σ F_i of the stashed rows, in columns) fits
  /// stash_limit_bytes and the memory limit: stash_off_ = exclusive prefix of F over
  /// [warp_begin_, stash_end_) in plan order, stash_ from the plan pool. Else (or when the
  /// allocation fails) both passes hash the rows. Released after the fill pass.
  void plan_stash(std::int64_t n) {
    // the scan made behind the plan's read-back (scan_rows_in_order), held here until the end
    const bool early = row_scan_ready_;
    const pooled_t<std::int64_t> early_mem = scan_mem_;
    const work_view early_off = row_scan_;
    drop_row_scan();
    release_stash();
    stats_.stash_bytes = 0;
    stats_.early_stash_scan = false;
    if (!warp_rows_ || cfg_.stash_limit_bytes == 0) return;
    const std::int64_t b = warp_begin_;
    const bool block = cfg_.stash_block_bin && bin_off_[3] > bin_off_[2];
    const std::int64_t e = block ? bin_off_[3] : bin_off_[2];
    if (e <= b) return;
    // Σ F of the range from the bin plan (no copy back: the device's offsets end at the same sum)
    const std::int64_t total = range_work_ + (block ? bin_sum_work_[2] : 0);
    const std::size_t bytes = static_cast<std::size_t>(total) * sizeof(ordinal_type);
    const std::size_t other = stats_.plan_bytes + static_cast<std::size_t>(n) * sizeof(std::int64_t);
    if (total == 0 || bytes > cfg_.stash_limit_bytes ||
        (cfg_.memory_limit_bytes != 0 && other + bytes > cfg_.memory_limit_bytes))
      return;
    try {
      if (early && ident_ && b == 0 && static_cast<std::int64_t>(early_off.extent(0)) >= e + 1) {
        // rows in order from row 0: the range's offsets are the row-order scan's first e + 1
        stash_off_mem_ = early_mem;
        stash_off_ = early_off;
        stats_.early_stash_scan = true;
      } else {
        stash_off_ = pooled(stash_off_mem_, "kkperm::esc::stash_off", e - b + 1);
        esc_impl::range_work_offsets<execution_space>(perm_, work_, b, e, stash_off_);
      }
      stash_ = pooled_t<ordinal_type>("kkperm::esc::stash", static_cast<std::size_t>(total));
      stash_end_ = e;
      stats_.stash_bytes = bytes;
    } catch (const std::exception&) {  // no memory for it: two passes
      release_stash();
      stats_.stash_bytes = 0;
      return;
    }
    // setup() with values in the count pass: the sums of the warp-row range (rows averaging
    // setup_warp_values_mean products) and of the stashed block bin, at the stash's offsets
    const std::int64_t mean = cfg_.setup_warp_values_mean, rows = stats_.warp_row_rows;
    const std::int64_t lo = cfg_.setup_warp_values_band_from, hi = cfg_.setup_warp_values_band_below;
    // (the band for register-sorted ranges only, EscConfig::setup_warp_values_band_register_only)
    const bool reg_range = cfg_.warp_row_register_sort > 0 &&
                           esc_impl::reg_sort_fits(warp_range_max(bin_max_ka_), warp_range_max(bin_max_work_), warp_lanes_);
    const bool band = hi > lo && range_work_ >= lo * rows && range_work_ < hi * rows &&
                      (reg_range || !cfg_.setup_warp_values_band_register_only);
    const bool warp_values = values_in_count_ && mean > 0 && range_work_ > 0 && (range_work_ >= mean * rows || band);
    const bool block_values = values_in_count_ && block && cfg_.block_rows && cfg_.setup_block_values;
    const std::int64_t count = block_values ? total : (warp_values ? range_work_ : 0);
    const std::size_t vbytes = static_cast<std::size_t>(count) * sizeof(value_type);
    if (vbytes == 0 || bytes + vbytes > cfg_.stash_limit_bytes ||
        (cfg_.memory_limit_bytes != 0 && other + bytes + vbytes > cfg_.memory_limit_bytes))
      return;
    try {
      vstash_ = pooled_t<value_type>("kkperm::esc::value_stash", static_cast<std::size_t>(count));
      stats_.stash_bytes += vbytes;
      warp_values_planned_ = warp_values;
      block_values_planned_ = block_values;
    } catch (const std::exception&) {  // no memory for it: the setup's numeric computes the values
      vstash_ = pooled_t<value_type>();
      warp_values_planned_ = block_values_planned_ = false;
    }
  }

  /// Behind the bin plan's read-back (analyze_and_plan's `behind`): row_scan_(j) = Σ_{r<j} F_r
  /// for j in [0, n], enqueued, when the count pass may use it (EscConfig::early_stash_scan, the
  /// warp-row kernels with a stash, rows possibly kept in order, within the memory limit). plan_stash
  /// takes it as the stash offsets when the plan kept the rows in order, else drops it. No
  /// memory for it: no early scan.
  /// `likely`: early_scan_pays(A, B).
  void scan_rows_in_order(std::int64_t n, bool likely) {
    const std::size_t bytes = static_cast<std::size_t>(n + 1) * sizeof(std::int64_t);
    if (!likely || !cfg_.early_stash_scan || !cfg_.identity_plan || !uses_warp_rows() || cfg_.stash_limit_bytes == 0 ||
        (cfg_.memory_limit_bytes != 0 && bytes > cfg_.memory_limit_bytes / 8) || n <= 0)
      return;
    const kkperm::detail::TraceRegion region("kkperm::spgemm::esc::early_stash_scan");
    try {
      scan_mem_ = pooled_t<std::int64_t>("kkperm::esc::row_scan", static_cast<std::size_t>(n + 1));
      row_scan_ = scan_mem_.view();
      esc_impl::range_work_offsets<execution_space>(perm_, work_, 0, n, row_scan_, /*in_order=*/true);
      row_scan_ready_ = true;
    } catch (const std::exception&) {
      drop_row_scan();
    }
  }

  /// Whether the early scan is likely to be used, from the sizes alone (before the analysis): a
  /// plan keeps its rows in order with a stash when the warp-row kernels take them all, not when
  /// a thread bin too large to fold (fold_thread_bin_below rows or more) takes them, nor when the
  /// rows spread over the warp and block bins (then they are sorted). With the products a row
  /// expected from the mean row lengths, nnz(A) / n × nnz(B) / rows(B):
  /// - at most thread_max (the thread bin's top) with fold_thread_bin_below rows or more: no early
  ///   scan (H100 run 256: the 2D 5-point AP, 10^6 rows of ~12 products all in the thread bin,
  ///   0.510-0.533 -> 0.532-0.541 ms with the unused scan);
  /// - above warp_max (the warp bin's top): no early scan, since such rows spread over the warp
  ///   and block bins and are sorted. (Run 257 had the 3D 27-point R(AP) 0.466-0.480 -> 0.498-0.527
  ///   ms with the unused scan, but run 258 showed that product varying as much between variants
  ///   running the same code.)
  /// Whether analyze() samples C's column windows (EscConfig::wide_window_lanes): A's mean row
  /// length at most 32 (the register sort's limit at 32 lanes) and mean(A row) × mean(B row), the
  /// mean products a row when rows are alike, in [32, 256): the means whose warp-row ranges the
  /// lanes rule gives 8 or 16 lanes (with room for ranges a little off the estimate).
  bool window_sample_pays(const Matrix& A, const Matrix& B) const {
    if (!cfg_.wide_window_lanes || cfg_.warp_row_lanes > 0 || !uses_warp_rows() || cfg_.warp_row_register_sort <= 0)
      return false;
    const double n = static_cast<double>(A.numRows()), nb = static_cast<double>(B.numRows());
    if (n <= 0 || nb <= 0) return false;
    const double ka = static_cast<double>(A.nnz()) / n, est = ka * static_cast<double>(B.nnz()) / nb;
    return ka <= 32 && est >= 32 && est < 256;
  }
  bool early_scan_pays(const Matrix& A, const Matrix& B) const {
    const std::int64_t n = A.numRows(), k = B.numRows();
    if (n <= 0 || k <= 0) return false;
    const double mean = static_cast<double>(A.nnz()) / static_cast<double>(n) *
                        (static_cast<double>(B.nnz()) / static_cast<double>(k));
    if (mean > static_cast<double>(cfg_.warp_max)) return false;
    return n < cfg_.fold_thread_bin_below || mean > static_cast<double>(cfg_.thread_max);
  }
  void drop_row_scan() {
    row_scan_ready_ = false;
    row_scan_ = work_view();
    scan_mem_ = pooled_t<std::int64_t>();
  }

  void push_chunk(const std::vector<std::int64_t>& offs) {
    Kokkos::View<std::int64_t*, device_type> d("kkperm::esc::chunk_off", offs.size());
    auto h = Kokkos::create_mirror_view(d);
    for (std::size_t k = 0; k < offs.size(); ++k) h(k) = offs[k];
    Kokkos::deep_copy(d, h);
    chunk_off_.push_back(d);
  }

  EscConfig cfg_;
  EscStats stats_;
  bool has_symbolic_ = false;
  Matrix C_;
  rowmap_view rowC_;  ///< non-const handle on C_'s row_map
  rowmap_view rowP_;
  entries_view entP_;
  values_view valP_;
  perm_view perm_;
  work_view work_;
  // memory behind perm_, work_ and the slot map (plan pool on CUDA; kkperm/core/pooled_array.hpp)
  pooled_t<ordinal_type> perm_mem_;
  pooled_t<std::int64_t> work_mem_, aprod_mem_;
  pooled_t<std::uint16_t> slot16_mem_;
  pooled_t<std::uint32_t> slot32_mem_;
  pooled_t<ordinal_type> stash_;           ///< single-pass symbolic: stashed columns (count -> fill)
  work_view stash_off_;                    ///< their offsets per range position
  std::int64_t stash_end_ = 0;             ///< stashed range: plan positions [warp_begin_, stash_end_)
  pooled_t<std::int64_t> stash_off_mem_;
  pooled_t<std::int64_t> scan_mem_;  ///< scan_rows_in_order's scan until plan_stash takes or drops it
  work_view row_scan_;
  bool row_scan_ready_ = false;
  pooled_t<value_type> vstash_;  ///< setup(): the count pass's sums of valued rows, at stash offsets
  bool values_in_count_ = false;  ///< setup() asks symbolic() for values in the count pass
  bool warp_valued_ = false;      ///< the last count pass summed the warp-row range's values
  bool thread_valued_ = false;    ///< the last fill pass wrote the thread bin's values
  bool block_valued_ = false;     ///< the last count pass summed the block bin's values
  /// The symbolic passes of the last setup() wrote some rows' values (the rest get a numeric).
  bool symbolic_wrote_values() const { return warp_valued_ || thread_valued_ || block_valued_; }
  /// setup_fused_copy: plan positions whose stashed columns the first numeric writes to C (empty:
  /// none pending).
  std::int64_t defer_begin_ = 0, defer_end_ = 0;
  /// the last analysis kept the rows in order (perm_ is the identity; EscConfig::identity_plan)
  bool ident_ = false;
  /// thread-bin rows the last analysis merged into the warp bin (identity plan)
  std::int64_t merged_thread_rows_ = 0;
  bool warp_values_planned_ = false, block_values_planned_ = false;  ///< vstash_ holds their sums
  std::int64_t bin_off_[5] = {0, 0, 0, 0, 0};
  std::int64_t bin_max_work_[4] = {0, 0, 0, 0};
  std::int64_t bin_max_ka_[4] = {0, 0, 0, 0};
  std::int64_t bin_max_c_[4] = {0, 0, 0, 0};
  std::int64_t bin_sum_work_[4] = {0, 0, 0, 0};
  std::int64_t range_work_ = 0;  ///< Σ F_i of the warp-row range (plan_warp_rows)
  int warp_lanes_ = 32;     ///< lanes per row planned for the warp-row range's symbolic passes
  int numeric_lanes_ = 32;  ///< and for its first (search) numeric
  std::vector<std::int64_t> chunk_pos_;
  std::vector<Kokkos::View<std::int64_t*, device_type>> chunk_off_;
  Kokkos::View<ordinal_type*, device_type> key_buf_;
  values_view val_buf_;
  pooled_t<ordinal_type> key_buf_mem_;  ///< key_buf_'s memory (plan pool)
  pooled_t<value_type> val_buf_mem_;    ///< val_buf_'s memory (plan pool)
  std::int64_t a_rows_ = 0, a_cols_ = 0, b_cols_ = 0, a_nnz_ = 0, b_nnz_ = 0;
  bool analyzed_ = false;  ///< analyze() ran and no symbolic() consumed it yet
  std::int64_t an_window_samples_ = -1;  ///< last analysis's sampled warp-row rows (-1: no sample ran)
  std::int64_t an_wide_windows_ = 0;     ///< of them, rows too wide for the bitmap
  std::int64_t an_rows_ = 0, an_inner_ = 0, an_nnz_a_ = 0, an_nnz_b_ = 0, an_sum_ = 0, an_max_ = 0;
  int an_m0_ = 0, an_mid_ = 0, an_m1_ = 0;  ///< clock marks of the last analysis (start, F_i, plan)
  /// Phase times (device events on CUDA: no fences between the phases; kkperm/core/phase_clock.hpp)
  mutable kkperm::detail::PhaseClock<execution_space> clock_;
  std::int64_t warp_begin_ = 0;  ///< warp-row kernels cover perm[warp_begin_, bin_off_[2])
  std::int64_t numeric_begin_ = 0;  ///< the searching numerics' warp-row launch: from here
  bool warp_rows_ = false;
  esc_impl::StructureCheck<device_type> check_;  ///< structure hash of A and B at symbolic()
  static constexpr std::int64_t kThreadRowMax = esc_impl::kThreadCapacity;
  work_view aprod_;                                ///< slot map: first product of each A nonzero
  Kokkos::View<std::uint16_t*, device_type> slot16_;
  Kokkos::View<std::uint32_t*, device_type> slot32_;
  flag_view missing_{"kkperm::esc::missing"};      ///< raised by the search-based kernels
  bool missing_zeroed_ = false;  ///< missing_ reset since the last search numeric (reset_missing)
  bool in_setup_ = false;        ///< symbolic() runs inside setup(): a search numeric follows
  bool slots_ready_ = false;                       ///< slot map filled by a numeric()
  bool slots_pending_ = false;                     ///< lazy_slot_map: not allocated yet
  int numerics_since_symbolic_ = 0;                ///< numeric() calls since the last symbolic()
  Kokkos::View<int*, device_type> gptr_;           ///< gather plan: list offsets per C entry
  Kokkos::View<std::uint64_t*, device_type> glist_;  ///< gather plan: (pa << 32) | pb per product
  pooled_t<int> gptr_mem_;                         ///< gptr_'s memory (plan pool)
  pooled_t<std::uint64_t> glist_mem_;              ///< glist_'s memory (plan pool)
  /// compact gather list (EscConfig::gather_compact): ((pa - gtile_(e / 32)) << gather_bits_b_) | pb
  Kokkos::View<std::uint32_t*, device_type> clist_;
  Kokkos::View<std::uint32_t*, device_type> gtile_;  ///< first A position a tile of 32 C entries names
  pooled_t<std::uint32_t> clist_mem_, gtile_mem_;
  int gather_bits_b_ = 0;  ///< bits of pb in clist_'s words (0: the 8-byte list glist_ is in use)
  bool gather_ready_ = false;                      ///< gather plan built (slot map released)
  /// Gather plans (list and offsets) up to this size come from the plan pool, with their build
  /// temporaries.
  /// H100 run 161 (2026-11-26), third numeric (the one that builds the plan), pool against Kokkos
  /// Views, same run: R(AP) 2D 5-point (91 MB) 1.039 -> 0.596 ms, 3D 7-point (250 MB) 1.724 ->
  /// 1.333, 3D 27-point AP (259 MB) 1.924 -> 1.631, 2D A^2 (252 MB) 4.280 -> 4.244; but 3D
  /// 7-point A^2 (484 MB) 3.380 -> 3.581 and 3D 27-point A^2 (1.57 GB) 8.319 -> 9.729.
  static constexpr std::size_t kGatherPoolMaxBytes = std::size_t(256) << 20;
};

/// One-shot C = A·B with the ESC kernel (symbolic + numeric).
template <class Matrix>
Matrix esc_multiply(const Matrix& A, const Matrix& B, const EscConfig& cfg = EscConfig{}) {
  EscSpgemm<Matrix> esc(cfg);
  esc.symbolic(A, B);
  esc.numeric(A, B);
  return esc.C();
}

}  // namespace kkperm::spgemm
