#pragma once
// Shared by kkperm_spgemm and kkperm_amg: time one product C = A·B for one SpGEMM candidate
// (symbolic, first numeric, numeric-reuse median, reorder and restore reported by the plan) and
// return one JSON record. Library logic stays in the registry; this only times and reports.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/launch_trace.hpp"
#include "kkperm/core/pooled_array.hpp"
#include "kkperm/core/timing.hpp"
#include "kkperm/select/spgemm_candidates.hpp"

namespace kkperm::perf {

/// The value of an integer-valued flag, `dflt` when absent; a fraction is refused naming the flag.
inline int whole_flag(const Options& opt, const char* flag, int dflt) {
  const double v = opt.get_double(flag, double(dflt));
  KKPERM_REQUIRE(v == static_cast<double>(static_cast<int>(v)), flag << " " << v << " is not a whole number");
  return static_cast<int>(v);
}

inline kkperm::SpgemmPlanOptions spgemm_options_from(const Options& opt) {
  kkperm::SpgemmPlanOptions o;
  o.esc.thread_max = static_cast<std::int64_t>(opt.get_double("--esc-thread", 32));
  o.esc.warp_max = static_cast<std::int64_t>(opt.get_double("--esc-warp", 736));
  o.esc.team_max = static_cast<std::int64_t>(opt.get_double("--esc-team", 6144));
  o.esc.block_team_size = static_cast<int>(opt.get_double("--esc-block-threads", 256));
  o.esc.global_team_size = static_cast<int>(opt.get_double("--esc-global-threads", 512));
  o.esc.team_bin_hash = !opt.has("--esc-team-sort");
  o.esc.warp_rows = !opt.has("--esc-team-rows");
  o.esc.c_from_pool = !opt.has("--esc-kokkos-c");
  o.esc.c_rows_first = !opt.has("--esc-row-map-copy");
  o.esc.stash_block_bin = !opt.has("--esc-no-block-stash");
  o.esc.block_rows = !opt.has("--esc-team-block");
  o.esc.warp_row_bitmap = !opt.has("--esc-no-bitmap");
  o.esc.warp_row_register_sort = whole_flag(opt, "--esc-register-sort", o.esc.warp_row_register_sort);
  o.esc.lazy_slot_map = !opt.has("--esc-eager-slots");  // --esc-lazy-slots: the default, still accepted
  o.esc.fold_thread_bin_below = static_cast<std::int64_t>(opt.get_double("--esc-fold-thread-below", 32768));
  o.esc.numeric_fold_thread_mean = static_cast<std::int64_t>(opt.get_double("--esc-numeric-fold-mean", 16));
  o.esc.warp_rows_per_team = static_cast<int>(opt.get_double("--esc-warp-rows-per-team", 8));
  o.esc.warp_row_lanes = static_cast<int>(opt.get_double("--esc-warp-row-lanes", 0));
  o.esc.numeric_warp_row_lanes = static_cast<int>(opt.get_double("--esc-numeric-lanes", 0));
  o.esc.numeric_global_sums = !opt.has("--esc-numeric-scratch-sums");
  o.esc.setup_global_sums = !opt.has("--esc-setup-scratch-sums");
  o.esc.numeric_min_blocks = static_cast<int>(opt.get_double("--esc-numeric-min-blocks", 5));
  o.esc.symbolic_lanes16_below =
      static_cast<std::int64_t>(opt.get_double("--esc-symbolic-lanes16-below", double(o.esc.symbolic_lanes16_below)));
  o.esc.symbolic_lanes8_from =
      static_cast<std::int64_t>(opt.get_double("--esc-symbolic-lanes8-from", double(o.esc.symbolic_lanes8_from)));
  o.esc.numeric_lanes16_from =
      static_cast<std::int64_t>(opt.get_double("--esc-numeric-lanes16-from", double(o.esc.numeric_lanes16_from)));
  const double stash_mib = opt.get_double("--esc-stash-mib", -1);
  if (stash_mib >= 0) o.esc.stash_limit_bytes = static_cast<std::size_t>(stash_mib * 1048576.0);
  const double slot_mib = opt.get_double("--esc-slot-map-mib", -1);
  if (slot_mib >= 0) o.esc.slot_map_limit_bytes = static_cast<std::size_t>(slot_mib * 1048576.0);
  const double gather_mib = opt.get_double("--esc-gather-mib", -1);
  if (gather_mib >= 0) o.esc.gather_plan_limit_bytes = static_cast<std::size_t>(gather_mib * 1048576.0);
  o.esc.gather_lanes = static_cast<int>(opt.get_double("--esc-gather-lanes", 0));
  if (opt.has("--esc-gather-wide")) o.esc.gather_compact = false;
  o.esc.gather_build_lanes = static_cast<int>(opt.get_double("--esc-gather-build-lanes", 0));
  const double row_bytes = opt.get_double("--esc-gather-row-bytes", double(o.esc.gather_build_row_bytes));
  KKPERM_REQUIRE(row_bytes >= 0 && row_bytes <= 1e9, "--esc-gather-row-bytes " << row_bytes << " outside [0, 1e9]");
  o.esc.gather_build_row_bytes = static_cast<std::size_t>(row_bytes);
  o.esc.gather_build_match = opt.has("--esc-gather-build-match");
  o.esc.setup_values_in_count = !opt.has("--esc-setup-split");
  o.esc.setup_warp_values_mean = static_cast<std::int64_t>(opt.get_double("--esc-setup-warp-mean", 128));
  if (opt.has("--esc-setup-two-walks")) o.esc.setup_stage_row_bytes = 0;
  o.esc.setup_warp_values_band_from = static_cast<std::int64_t>(
      opt.get_double("--esc-setup-warp-band-from", double(o.esc.setup_warp_values_band_from)));
  o.esc.setup_warp_values_band_below = static_cast<std::int64_t>(
      opt.get_double("--esc-setup-warp-band-below", double(o.esc.setup_warp_values_band_below)));
  o.esc.setup_warp_values_band_register_only = !opt.has("--esc-setup-warp-band-any-rows");
  o.esc.wide_window_lanes = !opt.has("--esc-no-wide-window-lanes");
  o.esc.copy_flat = !opt.has("--esc-copy-row-warps");
  o.esc.setup_fused_copy = !opt.has("--esc-setup-copy");
  o.esc.setup_block_values = !opt.has("--esc-setup-no-block-values");
  o.esc.identity_plan = !opt.has("--esc-sort-always");
  o.esc.early_stash_scan = !opt.has("--esc-late-stash-scan");
  o.esc.plan_lanes = whole_flag(opt, "--esc-plan-lanes", 0);
  o.esc.plan_row_chunks = !opt.has("--esc-plan-row-threads");
  o.hash_in_validation = !opt.has("--plan-separate-hash");
  o.late_verdict = !opt.has("--plan-validate-first");
  o.trusted_inputs = opt.has("--plan-trusted");
  o.guard.kk_max_row_work =
      static_cast<std::int64_t>(opt.get_double("--kk-max-row-work", double(std::int64_t(1) << 18)));
  o.check_reuse = !opt.has("--no-reuse-check");
  // EscConfig's own rules (the ones every ESC plan checks), here so that a bad --esc-* value is
  // reported before any plan is made (--esc-plan-lanes: -1, 0, 1, 2, 4, 8, 16 or 32)
  kkperm::spgemm::EscSpgemm<kkperm::Crs<double, int, kkperm::DefaultDevice, int>>::check_config(o.esc);
  return o;
}

/// spgemm_options_from, or false after printing why (a bad --esc-* / --kk-* value: the tool exits
/// 2 with the message instead of ending on an uncaught exception).
inline bool spgemm_options_or_report(const Options& opt, kkperm::SpgemmPlanOptions& po) {
  try {
    po = spgemm_options_from(opt);
    // the plan pool's retain threshold (CUDA; process-wide, so set here once, after Kokkos starts)
    if (opt.has("--pool-retain-mib")) {
      const double retain_mib = opt.get_double("--pool-retain-mib", -1);
      KKPERM_REQUIRE(retain_mib >= 0 && retain_mib <= 1e9, "--pool-retain-mib " << retain_mib << " outside [0, 1e9]");
      kkperm::set_pooled_memory_retain_bytes(static_cast<std::uint64_t>(retain_mib * 1048576.0));
    }
    return true;
  } catch (const std::invalid_argument& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
}

/// Metadata every SpGEMM perf result carries: the guard limit in force and where it comes from.
template <class Writer>
void set_guard_meta(Writer& out, const kkperm::SpgemmPlanOptions& po) {
  out.set_meta("kk_max_row_work", po.guard.kk_max_row_work);
  out.set_meta("kk_max_row_work_origin", kkperm::kk_guard_origin());
  out.set_meta("pool_retain_bytes", kkperm::pooled_memory_retain_bytes());
  out.set_meta("plan_trusted_inputs", po.trusted_inputs);
  out.set_meta("plan_check_reuse", po.check_reuse);
  if (po.trusted_inputs)
    std::cerr << "note: --plan-trusted: no validation and no runaway guard (inputs are trusted)\n";
  std::cerr << "note: KK runaway guard kk_max_row_work = " << po.guard.kk_max_row_work << " ("
            << kkperm::kk_guard_origin() << ")\n";
}

/// kkperm's plan pool in a result record (MiB): mapped now and at most, handed out at most.
inline void add_pool_usage(nlohmann::json& r) {
  const auto u = kkperm::pooled_memory_usage();
  r["pool_reserved_mib"] = static_cast<double>(u.reserved_bytes) / 1048576.0;
  r["pool_reserved_high_mib"] = static_cast<double>(u.reserved_high_bytes) / 1048576.0;
  r["pool_used_high_mib"] = static_cast<double>(u.used_high_bytes) / 1048576.0;
}

/// The byte floor in a result record: `<prefix>floor_mb` (kkperm::spgemm_byte_floor, summed over
/// the products it covers) and, for each time `<name>_ms` in `timed`, `<name>_pct_floor`: the
/// floor's time at `peak_gbs` over the measured time, in % (no % when peak_gbs is 0).
inline void add_floor(nlohmann::json& r, const std::string& prefix, double floor_bytes, double peak_gbs,
                      std::initializer_list<const char*> timed) {
  r[prefix + "floor_mb"] = floor_bytes / 1e6;
  if (peak_gbs <= 0) return;
  const double floor_ms = floor_bytes / (peak_gbs * 1e9) * 1e3;
  r[prefix + "floor_us"] = floor_ms * 1e3;
  for (const char* key : timed) {
    const std::string k = key;
    if (!r.contains(k) || !r[k].is_number() || r[k].get<double>() <= 0) continue;
    r[k.substr(0, k.size() - 3) + "_pct_floor"] = 100.0 * floor_ms / r[k].get<double>();
  }
}

/// The same matrix with 64-bit offsets (row_map converted on the device; entries and values
/// shared), for products whose nnz(C) may exceed 2^31 - 1.
template <class Matrix64, class Matrix>
Matrix64 with_offset64(const Matrix& A) {
  using rowmap64 = typename Matrix64::row_map_type::non_const_type;
  const auto n = static_cast<std::int64_t>(A.graph.row_map.extent(0));
  rowmap64 rm(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::perf::row_map64"), n);
  const auto src = A.graph.row_map;
  Kokkos::parallel_for(
      "kkperm::perf::offset64", kkperm::range_policy<typename Matrix::execution_space>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { rm(i) = static_cast<std::int64_t>(src(i)); });
  return Matrix64("kkperm::perf::A64", A.numRows(), A.numCols(), A.nnz(), A.values, rm,
                  A.graph.entries);
}

/// Offset width for candidate `c` on C = A·B under --offsets: 32, 64, or auto = 64 for the
/// ESC candidates (the only ones built for 64-bit offsets) when Σ F_i (an upper bound of
/// nnz(C)) exceeds 2^31 - 1, else 32.
template <class Matrix>
int offset_bits_for(const Options& opt, kkperm::SpgemmCandidate c, const Matrix& A,
                    const Matrix& B) {
  const std::string mode = opt.get("--offsets", "auto");
  if (mode == "32") return 32;
  if (mode == "64") return 64;
  KKPERM_REQUIRE(mode == "auto", "--offsets: expected 32, 64 or auto, got '" << mode << "'");
  if (c != kkperm::SpgemmCandidate::esc && c != kkperm::SpgemmCandidate::esc_permuted) return 32;
  return kkperm::estimate_spgemm_work(A, B).sum_work > std::numeric_limits<int>::max() ? 64 : 32;
}

inline std::vector<ExtraFlag> spgemm_extra_flags() {
  return {{"--peak-gbs", "X",
           "peak bandwidth in GB/s for the % of the byte floor (default: a measured device-to-device copy)"},
          {"--pool-retain-mib", "N",
           "bytes (MiB) kkperm's CUDA plan pool may hold, in use and free, before it returns free memory "
           "at synchronizations (default: a quarter of the device's memory, at least 1024; 1024 before "
           "session 37)"},
          {"--offsets", "32|64|auto",
           "offset width of A, B and C; auto: 64 for esc/esc_permuted when the products exceed "
           "2^31-1 (only the ESC candidates run with 64-bit offsets)",
           "auto"},
          {"--esc-thread", "N", "ESC one-thread bin threshold (<= 32)", "32"},
          {"--esc-warp", "N", "ESC warp bin threshold", "736"},
          {"--esc-team", "N", "ESC block bin threshold", "6144"},
          {"--esc-block-threads", "N", "threads of the ESC block-bin team", "256"},
          {"--esc-global-threads", "N",
           "threads per ESC global-bin row (clamped to the kernel's team_size_max)", "512"},
          {"--esc-slot-map-mib", "N",
           "cap on the ESC slot map kept for numeric (MiB; 0: numeric by binary search; -1: no "
           "cap, only the memory limit)",
           "-1"},
          {"--esc-gather-mib", "N",
           "cap on the ESC gather plan built by the second numeric (MiB; 0: numeric stays on the "
           "slot map; -1: no cap of its own)",
           "-1"},
          {"--esc-gather-lanes", "N",
           "vector lanes per C entry in the ESC gather numeric (power of two <= 32; 0: 32 when "
           "the mean products per entry is >= 32, else 1)",
           "0"},
          {"--esc-gather-wide", "",
           "ESC gather plan: keep the 8-byte product lists (default: 4 bytes a product where "
           "the positions fit)"},
          {"--esc-gather-build-lanes", "N",
           "lanes a row of the kernel building the ESC gather plan (1, 8, 16 or 32; 0: from the "
           "mean products a row)",
           "0"},
          {"--esc-gather-row-bytes", "N",
           "team scratch bytes a row of the ESC gather build may stage its counts and lists in "
           "(0: all rows in global memory)",
           "12288"},
          {"--esc-gather-build-match", "",
           "ESC gather build: rows staged in scratch order a round's products by warp match "
           "(default: scratch atomics, then each list sorted)"},
          {"--esc-team-sort", "",
           "ESC symbolic warp/block bins: bitonic sort of the expanded row (default: hash table)"},
          {"--esc-team-rows", "",
           "ESC warp bin on one 32-thread team per row (default: warp-row kernels, up to 8 rows "
           "per team)"},
          {"--esc-numeric-fold-mean", "N",
           "ESC searching numerics: thread bin into the warp-row launch from this mean products a "
           "row (0: never)",
           "16"},
          {"--esc-warp-rows-per-team", "N", "ESC warp-row kernels: warps per team, 1..8", "8"},
          {"--esc-kokkos-c", "",
           "ESC: allocate C with Kokkos (cudaMalloc + header copy) instead of kkperm's CUDA pool"},
          {"--esc-plan-row-threads", "",
           "ESC analysis kernel: a thread walks its row alone where the rule gives a row a lane (before "
           "session 34) instead of a warp loading 32 rows' entries together"},
          {"--esc-row-map-copy", "",
           "ESC: scan C's row offsets into a workspace and copy them into C's one block after nnz(C) "
           "comes back (before session 34) instead of scanning into C's own row-offset block"},
          {"--esc-warp-row-lanes", "N", "ESC warp-row kernels: lanes per row, 8/16/32 (0: from the mean work)",
           "0"},
          {"--esc-numeric-lanes", "N",
           "ESC warp-row kernels: lanes per row of the first numeric alone, 8/16/32 (0: as "
           "--esc-warp-row-lanes)",
           "0"},
          {"--esc-numeric-scratch-sums", "",
           "ESC searching numerics (warp-row launch): each row's sums in team scratch (default since "
           "session 33: each product added to C's value with a global atomic)"},
          {"--esc-numeric-min-blocks", "N",
           "ESC searching numerics (warp-row launch): blocks a SM it is compiled for, 5 (48 registers; "
           "the default since session 33) or 4 (64)",
           "5"},
          {"--esc-setup-scratch-sums", "",
           "ESC setup(): the warp-row range's values in the count pass summed in team scratch (default "
           "since session 33: into the stash with global atomics)"},
          {"--esc-stash-mib", "N",
           "ESC single-pass symbolic of the warp-row range: largest column stash in MiB (0: two "
           "hashing passes; default 1024)",
           "-1"},
          {"--esc-no-block-stash", "",
           "ESC: the block bin hashes its rows in both symbolic passes (default: its count pass "
           "stashes each sorted row and the fill pass copies)"},
          {"--esc-team-block", "",
           "ESC block bin on the team kernels (default: warp-row walk of each row's chunks)"},
          {"--esc-no-bitmap", "",
           "ESC warp-row symbolic: always the hash table (default: a bitmap of the row's column "
           "window when it fits)"},
          {"--esc-register-sort", "N",
           "ESC warp-row symbolic: rows of at most one A entry a lane and 4 products a lane sorted "
           "in registers; 0 never, 1 instead of the hash table, 2 before the bitmap too (except "
           "setup()'s valued count pass), 3 before the bitmap in every pass",
           "3"},
          {"--esc-fold-thread-below", "N",
           "ESC: thread-bin rows join the warp-row launch when the thread bin has fewer rows", "32768"},
          {"--kk-max-row-work", "N",
           "guard: skip KK above this max row work (default 2^18 is a GUESS, not measured)",
           "262144"},
          {"--esc-lazy-slots", "",
           "ESC: the second numeric (not the first) allocates and fills the slot map: the default "
           "since session 24, accepted for older scripts"},
          {"--esc-eager-slots", "",
           "ESC: the first numeric after symbolic allocates and fills the slot map (the default "
           "before session 24; re-setups reach the gather plan one numeric sooner)"},
          {"--esc-setup-split", "",
           "ESC: setup() runs symbolic() then numeric() instead of writing values in the symbolic "
           "passes where that is faster (thread bin's fill, long warp-row rows' and block rows' count; "
           "the default since session 27)"},
          {"--esc-setup-warp-mean", "N",
           "ESC: setup() sums the warp-row range's values in its count pass when its rows average "
           "at least N products (0: never)", "128"},
          {"--esc-copy-row-warps", "",
           "ESC: the fill pass copies stashed rows into C with a warp per row (default since session "
           "36: a warp per 32 rows, their entries flattened)"},
          {"--esc-setup-warp-band-from", "N",
           "ESC: setup() also sums the warp-row range's values in its count pass when its rows average "
           "at least N and fewer than --esc-setup-warp-band-below products", "64"},
          {"--esc-setup-warp-band-below", "N",
           "ESC: upper end of that band (0: no band; default 96)", "96"},
          {"--esc-setup-warp-band-any-rows", "",
           "ESC: that band for every warp-row range (default since session 41: only for ranges whose rows "
           "all fit the register sort at their lanes)"},
          {"--esc-no-wide-window-lanes", "",
           "ESC warp-row symbolic passes: keep the lanes the mean gives when the analysis's sample finds C "
           "windows too wide for the bitmap (default since session 41: 32 lanes when every row of the range "
           "fits the register sort there)"},
          {"--esc-setup-two-walks", "",
           "ESC setup(): the valued count pass walks each row's products a second time for its values "
           "(default since session 36: bitmap rows keep their products' values in scratch)"},
          {"--esc-setup-no-block-values", "",
           "ESC: setup() leaves the block bin's values to the first numeric (default since session 27: "
           "its count pass sums them)"},
          {"--esc-setup-copy", "",
           "ESC: setup()'s fill pass copies every stashed row to C (default since session 30: the "
           "first numeric writes the warp-row range's columns while it stages them)"},
          {"--esc-sort-always", "",
           "ESC: the analysis always sorts the rows by bin (default since session 30: when one kernel "
           "takes every row, the rows keep their order and the kernels skip the permutation)"},
          {"--esc-symbolic-lanes16-below", "N",
           "ESC warp-row symbolic passes (automatic lanes): 16 lanes a row when the range's rows average "
           "fewer than N products (8 from --esc-symbolic-lanes8-from on), else 32 (64 before session 32)", "128"},
          {"--esc-symbolic-lanes8-from", "N",
           "ESC warp-row symbolic passes (automatic lanes): 8 lanes a row when the range's rows average at "
           "least N products and fewer than --esc-symbolic-lanes16-below (0: never; session 33)", "64"},
          {"--esc-numeric-lanes16-from", "N",
           "ESC first (search) numeric's warp-row launch (automatic lanes): at least 16 lanes a row when the "
           "range's rows average at least N products (0: never, the rule before session 40: 8 lanes up to "
           "a mean of 128)",
           "32"},
          {"--esc-late-stash-scan", "",
           "ESC: the count pass's stash offsets are scanned after the bin plan's read-back (default "
           "since session 32: a row-order scan enqueued behind the read-back serves plans that keep "
           "the rows in order)"},
          {"--esc-plan-lanes", "N",
           "ESC: lanes a row of the CUDA analysis kernel, 1, 2, 4, 8, 16 or 32 (0: from A's mean row "
           "length, the default since session 31; -1: the rule before it, a thread a row, a warp a row "
           "for few long rows)",
           "0"},
          {"--plan-separate-hash", "",
           "symbolic() hashes A and B for numeric()'s structure check in a kernel of its own at the end "
           "(default since session 31: its validation pass adds the hash while it reads the same arrays)"},
          {"--plan-validate-first", "",
           "symbolic() waits for the validation's verdicts before the estimate (default since session "
           "31: ESC reads them back with its bin plan, one host wait)"},
          {"--no-reuse-check", "", "numeric(): skip the structure-hash check (timing without it)"},
          {"--plan-trusted", "",
           "symbolic() trusts A and B (SpgemmPlanOptions::trusted_inputs): no validation pass, no runaway "
           "guard, for every candidate; with --no-reuse-check no structure hash either, so cuSPARSE and "
           "KK are timed as a direct call of their own API (ESC keeps its analysis)"},
          {"--setup-repeat", "N",
           "setups timed per candidate (each a fresh plan: setup() = symbolic + first numeric, "
           "host-timed around fenced calls, after one untimed warm-up plan; as many plans again "
           "timed call by call for symbolic_ms / numeric_ms); the medians are reported",
           "5"},
          {"--trace-setup", "",
           "also trace one more fresh setup() (kkperm/core/launch_trace.hpp): its kernels, copies "
           "and allocations with host and device times, and the device's idle time, as "
           "setup_trace in the JSON (kkperm_amg: ap_setup_trace and rap_setup_trace; the traced setups "
           "are not among the timed ones)"}};
}

/// A launch trace as JSON: the summary and every event (times in µs from the trace's start).
inline nlohmann::json trace_json(const std::vector<kkperm::detail::TraceEvent>& events) {
  const auto s = kkperm::detail::summarize(events);
  nlohmann::json j;
  j["kernels"] = s.kernels;
  j["copies"] = s.copies;
  j["allocations"] = s.allocations;
  j["deallocations"] = s.deallocations;
  j["regions"] = s.regions;
  j["host_span_us"] = s.host_span_us;
  j["device_span_us"] = s.device_span_us;
  j["device_busy_us"] = s.device_busy_us;
  j["device_idle_us"] = s.device_idle_us;
  j["largest_gap_us"] = s.largest_gap_us;
  j["largest_gap_after"] = s.largest_gap_after;
  nlohmann::json ev = nlohmann::json::array();
  for (const auto& e : events)
    ev.push_back({{"kind", kkperm::detail::to_string(e.kind)},
                  {"name", e.name},
                  {"bytes", e.bytes},
                  {"host_begin_us", e.host_begin_us},
                  {"host_end_us", e.host_end_us},
                  {"device_begin_us", e.device_begin_us},
                  {"device_end_us", e.device_end_us}});
  j["events"] = ev;
  return j;
}

/// --setup-repeat (>= 1).
inline int setup_repeat(const Options& opt) {
  const double n = opt.get_double("--setup-repeat", 5);
  if (!(n >= 1 && n <= 1000)) throw std::invalid_argument("--setup-repeat: expected 1..1000, got " + std::to_string(n));
  return static_cast<int>(n);
}

/// Times `candidate` on C = A·B. `label` names the product (A2, AP, RAP...); `peak_gbs` (0: none)
/// gives the setup's and the re-setup's % of the byte floor (add_floor).
template <class Matrix>
nlohmann::json time_product(const Options& opt, kkperm::SpgemmCandidate c, const Matrix& A,
                            const Matrix& B, const std::string& matrix, const std::string& label,
                            const kkperm::SpgemmPlanOptions& po, double peak_gbs) {
  nlohmann::json r;
  r["matrix"] = matrix;
  r["product"] = label;
  r["candidate"] = kkperm::to_string(c);
  r["rows"] = A.numRows();
  r["inner"] = A.numCols();
  r["cols"] = B.numCols();
  r["nnz_a"] = A.nnz();
  r["nnz_b"] = B.nnz();
  try {
    // warm-up plan (first-touch allocations, library handles), not timed
    {
      auto w = kkperm::make_spgemm_plan<Matrix>(c, po);
      w->symbolic(A, B);
      w->numeric(A, B);
      r["sum_work"] = w->estimate().sum_work;
      r["max_work"] = w->estimate().max_work;
    }
    // fresh plans, each timed once (a setup is one-shot; one sample per process varied by up to
    // ~40 % on the H100, session 20). setup_ms: plan->setup() (symbolic + first numeric without
    // the structure check; cuSPARSE ALG1-3 one pipeline, as their symbolic computes the values).
    // symbolic_ms / numeric_ms: other fresh plans timed call by call, the numeric with its check
    // (split_setup_ms = their sum; for ALG1-3 that is two pipelines, the pre-session-23 "setup").
    const int n_setup = setup_repeat(opt);
    std::vector<double> sym, num, split, tot;
    std::unique_ptr<kkperm::SpgemmPlan<Matrix>> plan;
    for (int k = 0; k < n_setup; ++k) {
      plan = kkperm::make_spgemm_plan<Matrix>(c, po);
      sym.push_back(kkperm::time_host_ms([&] { plan->symbolic(A, B); }));
      num.push_back(kkperm::time_host_ms([&] { plan->numeric(A, B); }));
      split.push_back(sym.back() + num.back());
      plan = kkperm::make_spgemm_plan<Matrix>(c, po);
      tot.push_back(kkperm::time_host_ms([&] { plan->setup(A, B); }));
    }
    r["symbolic_ms"] = median_of(sym);
    r["numeric_ms"] = median_of(num);
    r["split_setup_ms"] = median_of(split);
    r["setup_ms"] = median_of(tot);
    r["setup_samples_ms"] = tot;
    if (opt.has("--trace-setup")) {
      auto traced = kkperm::make_spgemm_plan<Matrix>(c, po);
      kkperm::detail::LaunchTrace trace;
      traced->setup(A, B);
      r["setup_trace"] = trace_json(trace.stop());
    }
    // the plan's second and third numeric, each timed once: ESC's lazy slot map is made and filled
    // by the second, its gather plan built by the third (eager slot map: by the second), so the
    // re-setup median below is the steady state whatever --warmup says
    r["numeric_2nd_ms"] = kkperm::time_host_ms([&] { plan->numeric(A, B); });
    r["numeric_3rd_ms"] = kkperm::time_host_ms([&] { plan->numeric(A, B); });
    const auto s = kkperm::time_median([&] { plan->numeric(A, B); }, opt.warmup, opt.repeat,
                                       opt.budget_ms);
    r["numeric_reuse_ms"] = s.median_ms;
    r["numeric_reuse_min_ms"] = s.min_ms;
    r["numeric_reuse_samples_ms"] = s.samples_ms;
    r["clock"] = s.clock;
    r["reorder_ms"] = plan->reorder_ms();
    r["restore_ms"] = plan->restore_ms();
    r["nnz_c"] = plan->C().nnz();
    add_floor(r, "", kkperm::spgemm_byte_floor(A, B, plan->C()), peak_gbs, {"setup_ms", "numeric_reuse_ms"});
    r["extra_bytes"] = plan->extra_bytes();
    r["details"] = plan->details();
    r["reuses_structure"] = kkperm::info(c).numeric_reuses_structure;
    // checksum for cross-candidate agreement: Σ|c_ij| (order-insensitive up to rounding)
    double sum = 0.0;
    const auto vals = plan->C().values;
    Kokkos::parallel_reduce(
        "kkperm::perf::spgemm_checksum",
        kkperm::range_policy<typename Matrix::execution_space>(0, vals.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t k, double& a) {
          a += Kokkos::Experimental::fabs(static_cast<double>(vals(k)));
        },
        sum);
    r["abs_sum_c"] = sum;
    add_pool_usage(r);
    r["status"] = "ok";
  } catch (const kkperm::CandidateNotApplicable& e) {
    r["status"] = "skipped";
    r["reason"] = e.what();
  } catch (const std::exception& e) {
    r["status"] = "error";
    r["reason"] = e.what();
  }
  return r;
}

}  // namespace kkperm::perf
