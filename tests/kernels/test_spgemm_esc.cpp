// ESC SpGEMM vs the serial Gustavson reference: exact structure, values within the bound of the
// arithmetic (kkperm::spgemm::spgemm_tolerance), fresh seeded inputs, outputs poisoned.
#include <gtest/gtest.h>
#include <set>

#include "kkperm/kernels/spgemm/esc_spgemm.hpp"
#include "kernels/spgemm_test_helpers.hpp"

namespace {
using namespace kkperm::test::spgemm;
using kkperm::spgemm::EscConfig;
using kkperm::spgemm::EscOutputOrder;
using kkperm::spgemm::EscSpgemm;
using kkperm::spgemm::reference_multiply;

/// Configurations every product is checked under: defaults, tiny thresholds so small inputs
/// cross all four bins (and the global bin is split into many chunks), permuted output, and
/// numeric through the gather plan (default, from the second numeric on), the slot map
/// (gather_plan_limit_bytes = 0) or by binary search (slot_map_limit_bytes = 0).
std::vector<std::pair<std::string, EscConfig>> configs() {
  std::vector<std::pair<std::string, EscConfig>> out;
  out.emplace_back("default", EscConfig{});
  EscConfig tiny;
  tiny.thread_max = 2;
  tiny.warp_max = 9;
  tiny.team_max = 40;
  tiny.global_buffer_bytes = 1024;
  tiny.gather_ordered_max = 6;  // most rows take the gather plan's long-row (atomic) passes
  out.emplace_back("tiny_bins", tiny);
  EscConfig perm = tiny;
  perm.output_order = EscOutputOrder::permuted_then_restore;
  out.emplace_back("tiny_bins_permuted", perm);
  EscConfig permd;
  permd.output_order = EscOutputOrder::permuted_then_restore;
  out.emplace_back("default_permuted", permd);
  EscConfig sort = tiny;
  sort.team_bin_hash = false;  // symbolic warp/block bins by bitonic sort of the expanded row
  out.emplace_back("tiny_bins_sort", sort);
  EscConfig lanes = perm;
  lanes.gather_lanes = 4;  // vector lanes per C entry in the gather numeric (auto gives 1 on host)
  out.emplace_back("tiny_bins_permuted_gather_lanes4", lanes);
  EscConfig wide = permd;
  wide.gather_compact = false;  // the gather plan's 8-byte lists (default: 4 bytes a product)
  out.emplace_back("default_permuted_gather_wide", wide);
  EscConfig wide_lanes = lanes;
  wide_lanes.gather_compact = false;
  out.emplace_back("tiny_bins_permuted_gather_lanes4_wide", wide_lanes);
  EscConfig build32 = tiny;
  build32.gather_build_lanes = 32;      // the gather lists' lane-group kernel (one lane on host)
  build32.gather_build_row_bytes = 160;  // short rows staged in scratch, the others in global memory
  out.emplace_back("tiny_bins_gather_build_lanes32", build32);
  EscConfig build8 = permd;
  build8.gather_build_lanes = 8;
  out.emplace_back("default_permuted_gather_build_lanes8", build8);
  EscConfig build16 = permd;
  build16.gather_build_lanes = 16;
  build16.gather_build_row_bytes = 0;  // every row in global memory
  out.emplace_back("default_permuted_gather_build_lanes16_global", build16);
  EscConfig slots = tiny;
  slots.gather_plan_limit_bytes = 0;
  out.emplace_back("tiny_bins_slots", slots);
  EscConfig slots_perm = perm;
  slots_perm.gather_plan_limit_bytes = 0;
  out.emplace_back("tiny_bins_permuted_slots", slots_perm);
  EscConfig search = tiny;
  search.slot_map_limit_bytes = 0;
  out.emplace_back("tiny_bins_search", search);
  EscConfig search_perm = perm;
  search_perm.slot_map_limit_bytes = 0;
  out.emplace_back("tiny_bins_permuted_search", search_perm);
  // warp bin on one team per row (the kernels before the warp-row ones), and warp-row kernels
  // without the thread bin folded into them (the defaults fold it: test inputs are small)
  EscConfig team_rows = tiny;
  team_rows.warp_rows = false;
  out.emplace_back("tiny_bins_team_rows", team_rows);
  EscConfig numeric_fold = tiny;
  numeric_fold.fold_thread_bin_below = 0;     // symbolic: thread bin on its thread kernel
  numeric_fold.numeric_fold_thread_mean = 1;  // searching numerics: thread bin in the warp-row launch
  out.emplace_back("tiny_bins_numeric_fold", numeric_fold);
  EscConfig no_fold = tiny;
  no_fold.fold_thread_bin_below = 0;
  no_fold.numeric_fold_thread_mean = 0;
  out.emplace_back("tiny_bins_no_fold", no_fold);
  EscConfig two_pass = tiny;  // the warp-row range hashed in both passes (no single-pass stash)
  two_pass.stash_limit_bytes = 0;
  out.emplace_back("tiny_bins_two_pass", two_pass);
  EscConfig no_fold_search = search_perm;
  no_fold_search.fold_thread_bin_below = 0;
  no_fold_search.numeric_fold_thread_mean = 0;
  out.emplace_back("tiny_bins_permuted_search_no_fold", no_fold_search);
  // lane groups on the warp-row kernels (CUDA: 8 or 16 lanes a row, several rows a warp; host
  // backends run one lane whatever is asked): symbolic passes and the first (search) numeric
  EscConfig lanes8d;
  lanes8d.warp_row_lanes = 8;
  out.emplace_back("default_lanes8", lanes8d);
  EscConfig lanes8 = search_perm;
  lanes8.warp_row_lanes = 8;
  out.emplace_back("tiny_bins_permuted_search_lanes8", lanes8);
  EscConfig lanes16 = two_pass;
  lanes16.warp_row_lanes = 16;
  lanes16.warp_rows_per_team = 3;
  out.emplace_back("tiny_bins_two_pass_lanes16_3warps", lanes16);
  // warp-row symbolic always on the hash table (the default takes a row's column-window bitmap
  // when it fits), in both passes and single-pass
  EscConfig no_bitmap;
  no_bitmap.warp_row_bitmap = false;
  out.emplace_back("default_no_bitmap", no_bitmap);
  EscConfig no_bitmap2 = two_pass;
  no_bitmap2.warp_row_bitmap = false;
  out.emplace_back("tiny_bins_two_pass_no_bitmap", no_bitmap2);
  // warp-row rows sorted in registers (at most one A entry and 4 products a lane): never, instead
  // of the hash table only, and before the bitmap except in the valued count pass (the default:
  // before the bitmap in every pass), single-pass and two-pass
  EscConfig reg_off;
  reg_off.warp_row_register_sort = 0;
  out.emplace_back("default_no_register_sort", reg_off);
  EscConfig reg_hash;
  reg_hash.warp_row_register_sort = 1;
  out.emplace_back("default_register_for_hash", reg_hash);
  EscConfig reg_first;
  reg_first.warp_row_register_sort = 2;
  out.emplace_back("default_register_first", reg_first);
  EscConfig reg_first16 = two_pass;
  reg_first16.warp_row_register_sort = 2;
  reg_first16.warp_row_lanes = 16;
  out.emplace_back("tiny_bins_two_pass_lanes16_register_first", reg_first16);
  // the row sums of the searching numerics and of setup()'s valued count pass in team scratch
  // (the defaults add them in C's values / the stash with global atomics), with the thread bin
  // folded into the numerics' warp-row launch
  EscConfig ssums;
  ssums.numeric_global_sums = false;
  ssums.setup_global_sums = false;
  ssums.numeric_fold_thread_mean = 1;
  out.emplace_back("default_scratch_sums", ssums);
  EscConfig ssums_perm = search_perm;
  ssums_perm.numeric_global_sums = false;
  ssums_perm.setup_global_sums = false;
  out.emplace_back("tiny_bins_permuted_search_scratch_sums", ssums_perm);
  // C's row offsets scanned into a workspace and copied into C's one block after nnz(C) (the
  // default scans them into a block of their own); and C from Kokkos allocations, not the pool
  EscConfig rm_copy;
  rm_copy.c_rows_first = false;
  out.emplace_back("default_row_map_copy", rm_copy);
  // the fill pass's copy of stashed rows with a warp per row (the default: a warp per 32 rows)
  EscConfig copy_rw = tiny;
  copy_rw.copy_flat = false;
  out.emplace_back("tiny_bins_copy_row_warps", copy_rw);
  EscConfig kokkos_c = tiny;
  kokkos_c.c_from_pool = false;
  out.emplace_back("tiny_bins_kokkos_c", kokkos_c);
  EscConfig mb4 = search_perm;  // the searching numerics compiled for 4 blocks a SM (CUDA; default 5)
  mb4.numeric_min_blocks = 4;
  out.emplace_back("tiny_bins_permuted_search_4_blocks", mb4);
  // the slot map made and filled by the first numeric instead of the second (lazy_slot_map is
  // the default)
  for (auto [name, cfg] : {std::make_pair(std::string("default"), EscConfig{}),
                           std::make_pair(std::string("tiny_bins_permuted"), perm),
                           std::make_pair(std::string("tiny_bins_slots"), slots)}) {
    cfg.lazy_slot_map = false;
    out.emplace_back(name + "_eager_slots", cfg);
  }
  return out;
}

/// The numeric path a config must have taken: slot map whenever allowed and there is work (after
/// the first numeric; with lazy_slot_map after the second, and never after the first).
template <class Esc>
void expect_numeric_path(const Esc& esc, const EscConfig& cfg, const std::string& what, bool first = true) {
  const auto& s = esc.stats();
  if (first && cfg.lazy_slot_map) {
    EXPECT_EQ(s.slot_bytes, 0u) << what << ": lazy slot map built by the first numeric";
  } else if (cfg.slot_map_limit_bytes > 0 && !cfg.drop_zeros && s.sum_work > 0) {
    EXPECT_GT(s.slot_bytes, 0u) << what << ": slot map not built";
    EXPECT_TRUE(s.slot_width == 2 || s.slot_width == 4) << what;
  } else {
    EXPECT_EQ(s.slot_bytes, 0u) << what << ": slot map built although not allowed";
  }
}

/// Numeric path of a numeric() that follows another one on the same structure: whenever a slot
/// map was allocated (the first numeric after symbolic searches and fills it), through the
/// gather plan built from it when the config allows one, else through the slot map.
/// lazy_second: the second numeric of a lazy_slot_map config, which searches again and fills the
/// slot map it has just made (neither the slot map nor a gather plan is used yet).
template <class Esc>
void expect_reuse_path(const Esc& esc, const std::string& what, bool lazy_second = false) {
  const auto& s = esc.stats();
  if (lazy_second) {
    EXPECT_FALSE(s.numeric_used_gather) << what;
    EXPECT_FALSE(s.numeric_used_slots) << what;
    EXPECT_EQ(s.gather_bytes, 0u) << what;
    expect_numeric_path(esc, esc.config(), what, /*first=*/false);
    return;
  }
  const bool gather = s.slot_bytes > 0 && esc.config().gather_plan_limit_bytes > 0;
  EXPECT_EQ(s.numeric_used_gather, gather) << what;
  EXPECT_EQ(s.gather_bytes > 0, gather) << what;
  // test inputs are small: A offsets within a tile and B positions always fit 32 bits together
  EXPECT_EQ(s.gather_compact, gather && esc.config().gather_compact) << what;
  EXPECT_EQ(s.numeric_used_slots, s.slot_bytes > 0 && !gather) << what;
}

void poison_values(const Matrix& C) {
  Kokkos::deep_copy(C.values, kkperm::test::poison<double>());
}

/// symbolic + (poisoned) numeric under every config, each compared to the reference.
void check_product(const Host& hA, const Host& hB, const std::string& what) {
  const auto ref = reference_multiply(hA, hB);
  const auto A = kkperm::to_device<Matrix>(hA);
  const auto B = kkperm::to_device<Matrix>(hB);
  for (const auto& [name, cfg] : configs()) {
    EscSpgemm<Matrix> esc(cfg);
    esc.symbolic(A, B);
    poison_values(esc.C());
    esc.numeric(A, B);
    EXPECT_FALSE(esc.stats().numeric_used_slots);  // first numeric searches (and records)
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what + " [" + name + "]"));
    EXPECT_EQ(esc.stats().nnz_c, static_cast<std::int64_t>(ref.C.nnz()));
    expect_numeric_path(esc, cfg, what + " [" + name + "]");
    if (cfg.lazy_slot_map) {  // the second numeric searches again, allocating and filling the slot map
      poison_values(esc.C());
      esc.numeric(A, B);
      expect_reuse_path(esc, what + " [" + name + "], second numeric", /*lazy_second=*/true);
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what + " [" + name + "], second numeric"));
    }
    for (const char* nth : {"next numeric", "the one after"}) {  // builds, then reuses the gather plan
      poison_values(esc.C());
      esc.numeric(A, B);
      expect_reuse_path(esc, what + " [" + name + "], " + nth);
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what + " [" + name + "], " + nth));
    }
    // setup(): symbolic and the first numeric in one call (values summed in the count pass where
    // that applies); C is NaN from its allocation on, and the numerics after it take the same
    // paths as after symbolic() + numeric()
    EscConfig pc = cfg;
    pc.poison_c = true;
    pc.setup_warp_values_mean = 1;  // the warp-row range's values in the count pass whatever its rows
    EscSpgemm<Matrix> es(pc);
    es.setup(A, B);
    const std::string sw = what + " [" + name + "], setup";
    EXPECT_TRUE(matches_reference(kkperm::to_host(es.C()), ref, sw));
    EXPECT_EQ(es.stats().nnz_c, static_cast<std::int64_t>(ref.C.nnz())) << sw;
    if (!cfg.lazy_slot_map || !cfg.setup_values_in_count || cfg.drop_zeros)
      EXPECT_EQ(es.stats().setup_valued_rows, 0) << sw;
    expect_numeric_path(es, pc, sw);
    for (int k = 0; k < (cfg.lazy_slot_map ? 3 : 2); ++k) {
      poison_values(es.C());
      es.numeric(A, B);
      const std::string nw = sw + ", numeric " + std::to_string(k + 2);
      expect_reuse_path(es, nw, cfg.lazy_slot_map && k == 0);
      EXPECT_TRUE(matches_reference(kkperm::to_host(es.C()), ref, nw));
    }
    // setup() with the warp-row range left to the first numeric (no values in its count pass):
    // with a stash, that numeric writes the range's columns to C (setup_fused_copy); C's columns
    // are -1 from the allocation on
    pc.setup_warp_values_mean = std::int64_t(1) << 40;
    pc.setup_warp_values_band_below = 0;
    EscSpgemm<Matrix> ef(pc);
    ef.setup(A, B);
    const std::string fw = what + " [" + name + "], setup, numeric-written columns";
    EXPECT_TRUE(matches_reference(kkperm::to_host(ef.C()), ref, fw));
    poison_values(ef.C());
    ef.numeric(A, B);
    EXPECT_TRUE(matches_reference(kkperm::to_host(ef.C()), ref, fw + ", numeric 2"));
  }
}
}  // namespace

TEST(EscSpgemm, SquareRandomMatchesReference) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto A = random_csr(300, 300, 0, 12, seed);
  check_product(A, A, "A^2 seed " + std::to_string(seed));
}

TEST(EscSpgemm, RectangularMatchesReference) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto A = random_csr(137, 53, 0, 9, seed);
  const auto B = random_csr(53, 291, 0, 30, seed + 1);
  check_product(A, B, "A*B seed " + std::to_string(seed));
}

TEST(EscSpgemm, EmptyRowsColumnsAndDegenerateShapes) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  // A with many empty rows, B with empty rows (so some nonempty A rows have F_i = 0) and
  // columns that never appear.
  auto A = random_csr(80, 60, 0, 3, seed);
  auto B = random_csr(60, 70, 0, 2, seed + 7);
  check_product(A, B, "sparse/empty seed " + std::to_string(seed));
  check_product(random_csr(0, 0, 0, 0, 1), random_csr(0, 0, 0, 0, 1), "0x0");
  check_product(random_csr(5, 0, 0, 0, 1), random_csr(0, 7, 0, 0, 1), "5x0 * 0x7");
  check_product(random_csr(4, 6, 0, 0, 1), random_csr(6, 3, 1, 3, seed), "empty A");
  check_product(random_csr(1, 1, 1, 1, seed), random_csr(1, 1, 1, 1, seed + 1), "1x1");
}

// Rows whose work sits just below, at and just above every default threshold (32, 736, 6144):
// B has 5000 rows of 7 entries and 5000 rows of 1 entry (columns in [0, 3000), so the
// contraction merges many duplicates); A's row picks B rows to hit F_i exactly.
TEST(EscSpgemm, RowsCrossingEveryBinMatchReference) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  Host B;
  B.num_rows = 10000;
  B.num_cols = 3000;
  B.row_map.assign(10001, 0);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (int i = 0; i < 10000; ++i) {
    const int len = i < 5000 ? 7 : 1;
    std::vector<int> cols;
    while (static_cast<int>(cols.size()) < len) {
      const int c = static_cast<int>(rng() % 3000);
      if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    for (int c : cols) {
      B.entries.push_back(c);
      B.values.push_back(val(rng));
    }
    B.row_map[i + 1] = static_cast<int>(B.entries.size());
  }
  // rows of the four bins interleaved, so the plan must regroup them (stable within a bin)
  const std::vector<int> targets = {6145, 0, 737, 33, 1, 9000, 735, 31, 6143, 736, 32, 6144};
  Host A;
  A.num_rows = static_cast<int>(targets.size());
  A.num_cols = 10000;
  A.row_map.assign(targets.size() + 1, 0);
  for (std::size_t r = 0; r < targets.size(); ++r) {
    const int T = targets[r];
    const int a = std::min(T / 7, 1200);
    const int b = T - 7 * a;  // <= 5000 for every target above
    std::vector<int> ks;
    std::vector<int> pool7(5000), pool1(5000);
    for (int k = 0; k < 5000; ++k) pool7[k] = k, pool1[k] = 5000 + k;
    std::shuffle(pool7.begin(), pool7.end(), rng);
    std::shuffle(pool1.begin(), pool1.end(), rng);
    ks.insert(ks.end(), pool7.begin(), pool7.begin() + a);
    ks.insert(ks.end(), pool1.begin(), pool1.begin() + b);
    std::sort(ks.begin(), ks.end());
    for (int k : ks) {
      A.entries.push_back(k);
      A.values.push_back(val(rng));
    }
    A.row_map[r + 1] = static_cast<int>(A.entries.size());
  }
  const auto work = kkperm::spgemm::reference_row_work(A, B);
  for (std::size_t r = 0; r < targets.size(); ++r) ASSERT_EQ(work[r], targets[r]);

  const auto ref = reference_multiply(A, B);
  const auto dA = kkperm::to_device<Matrix>(A);
  const auto dB = kkperm::to_device<Matrix>(B);
  const auto A2 = revalue(A, seed + 5), B2 = revalue(B, seed + 6);
  const auto ref2 = reference_multiply(A2, B2);
  const auto dA2 = kkperm::to_device<Matrix>(A2), dB2 = kkperm::to_device<Matrix>(B2);
  for (int variant = 0; variant < 22; ++variant) {
    EscConfig cfg;
    cfg.output_order = variant % 2 ? EscOutputOrder::permuted_then_restore : EscOutputOrder::direct;
    if (variant % 4 >= 2) cfg.slot_map_limit_bytes = 0;  // numeric by binary search
    // 0-3: warp-row kernels, thread bin folded in; 4-7: not folded; 8-11: one team per row;
    // 12-17: folded, with 8, 16 and 32 lanes a row; 18-19: folded, block bin not stashed (it
    // hashes in both passes; 8-11 do too, on the team kernels); 20-21: folded, block bin on the
    // team kernels (not the warp-row walk), stashed
    if (variant >= 4 && variant < 8) {
      cfg.fold_thread_bin_below = 0;
      cfg.numeric_fold_thread_mean = 0;
    }
    if (variant >= 8 && variant < 12) cfg.warp_rows = false;
    if (variant >= 12 && variant < 18) cfg.warp_row_lanes = 8 << ((variant - 12) / 2);
    if (variant >= 18 && variant < 20) cfg.stash_block_bin = false;
    if (variant >= 20) cfg.block_rows = false;
    cfg.global_buffer_bytes = 16 * 1024;  // the 6145 and 9000 rows each get their own chunk
    const std::string what = "bin crossing, variant " + std::to_string(variant);
    EscSpgemm<Matrix> esc(cfg);
    esc.symbolic(dA, dB);
    poison_values(esc.C());
    esc.numeric(dA, dB);
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what));
    expect_numeric_path(esc, cfg, what);
    // numeric re-setups after a value change, every bin (lazy slot map: the first searches and
    // fills the slot map, the second takes the gather plan or the slot map)
    for (int r = 0; r < (cfg.lazy_slot_map ? 2 : 1); ++r) {
      const std::string rw = what + ", reuse " + std::to_string(r);
      poison_values(esc.C());
      esc.numeric(dA2, dB2);
      expect_reuse_path(esc, rw, cfg.lazy_slot_map && r == 0);
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref2, rw));
    }
    const auto& s = esc.stats();
    // bins: {0,1,31,32} thread; {33,735,736} warp; {737,6143,6144} block; {6145,9000} global.
    // Bin key is max(F_i, nnz(A row)) and nnz(A row) <= F_i here.
    EXPECT_EQ(s.bin_rows[0], 4);
    EXPECT_EQ(s.bin_rows[1], 3);
    EXPECT_EQ(s.bin_rows[2], 3);
    EXPECT_EQ(s.bin_rows[3], 2);
    EXPECT_EQ(s.global_chunks, 2);
    EXPECT_EQ(s.max_work, 9000);
    EXPECT_EQ(s.bin_max_work[0], 32);
    EXPECT_EQ(s.bin_max_work[1], 736);
    EXPECT_EQ(s.bin_max_work[2], 6144);
    EXPECT_EQ(s.bin_max_work[3], 9000);
    const bool folded = variant < 4 || variant >= 12;
    EXPECT_EQ(s.warp_row_rows, folded ? 7 : (variant < 8 ? 3 : 0)) << what;
    EXPECT_EQ(s.thread_bin_folded, folded) << what;
    // single-pass stash of the warp-row range and the block bin: Σ F_i of their rows (block:
    // 737 + 6143 + 6144 = 13024), 4-byte columns
    const bool warp_rows = variant < 8 || variant >= 12;
    const unsigned block_stash = warp_rows && (variant < 18 || variant >= 20) ? 13024u : 0u;
    EXPECT_EQ(s.stash_bytes, ((folded ? 1568u : (variant < 8 ? 1504u : 0u)) + block_stash) * 4u) << what;
    // lanes a row: one on host backends; the asked number on CUDA (these tables fit), else the
    // automatic choice for the range's mean work (1568 / 7 or 1504 / 3 products: 32 lanes)
    const bool host = kkperm::spgemm::esc_impl::is_host_exec<Kokkos::DefaultExecutionSpace>();
    const auto want_lanes = [&](bool numeric) {
      return host ? 1
                  : (cfg.warp_row_lanes > 0 ? cfg.warp_row_lanes
                  : numeric   ? kkperm::spgemm::esc_impl::numeric_warp_row_lanes_for(
                                    folded ? 1568 : 1504, folded ? 7 : 3, cfg.numeric_lanes16_from)
                              : kkperm::spgemm::esc_impl::warp_row_lanes_for(folded ? 1568 : 1504, folded ? 7 : 3,
                                                                             cfg.symbolic_lanes16_below,
                                                                             cfg.symbolic_lanes8_from));
    };
    EXPECT_EQ(s.warp_row_lanes, warp_rows ? want_lanes(false) : 0) << what;
    if (variant % 4 >= 2)  // search numeric: the first numeric ran the warp-row kernel too
      EXPECT_EQ(s.numeric_warp_row_lanes, warp_rows ? want_lanes(true) : 0) << what;
    // the plan: rows grouped by bin, in increasing row order inside each bin
    std::vector<int> expect_perm;
    for (int b = 0; b < 4; ++b)
      for (std::size_t r = 0; r < targets.size(); ++r)
        if (kkperm::spgemm::esc_impl::bin_of(targets[r], cfg.thread_max, cfg.warp_max, cfg.team_max) == b)
          expect_perm.push_back(static_cast<int>(r));
    const auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), esc.permutation());
    EXPECT_EQ(std::vector<int>(hp.data(), hp.data() + hp.extent(0)), expect_perm) << what;
    EXPECT_EQ(s.sum_work, std::accumulate(targets.begin(), targets.end(), std::int64_t(0)));
  }
}

// Input policy: unsorted columns and duplicate entries are merged (duplicates add up).
TEST(EscSpgemm, UnsortedAndDuplicateInputsAreMerged) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto A = random_csr(120, 90, 0, 10, seed);
  const auto B = random_csr(90, 110, 0, 10, seed + 1);
  const auto As = scramble(A, seed + 2), Bs = scramble(B, seed + 3);
  ASSERT_GT(As.nnz(), A.nnz());  // duplicates present
  // The reference on scrambled inputs merges the same way; structure equals the clean product.
  const auto ref_clean = reference_multiply(A, B);
  const auto ref = reference_multiply(As, Bs);
  EXPECT_EQ(ref.C.row_map, ref_clean.C.row_map);
  EXPECT_EQ(ref.C.entries, ref_clean.C.entries);
  for (const auto& [name, cfg] : configs()) {
    EscSpgemm<Matrix> esc(cfg);
    const auto dA = kkperm::to_device<Matrix>(As), dB = kkperm::to_device<Matrix>(Bs);
    esc.symbolic(dA, dB);
    poison_values(esc.C());
    esc.numeric(dA, dB);
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, "scrambled [" + name + "]"));
    EXPECT_TRUE(kkperm::check_crs(esc.C()).ok());  // output sorted and unique
  }
}

/// Banded n x n with `half` entries each side of the diagonal (narrow column windows).
Host banded_csr(int n, int half, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  Host h;
  h.num_rows = n;
  h.num_cols = n;
  h.row_map.assign(static_cast<std::size_t>(n) + 1, 0);
  for (int r = 0; r < n; ++r) {
    for (int c = std::max(0, r - half); c <= std::min(n - 1, r + half); ++c) {
      h.entries.push_back(c);
      h.values.push_back(val(rng));
    }
    h.row_map[r + 1] = static_cast<int>(h.entries.size());
  }
  return h;
}

// The warp-row symbolic's bitmap path (a row's columns as bits of its column window) against
// the reference and against the hash path: narrow windows (banded: every row on the bitmap),
// unsorted B rows (columns outside the first-to-last window send rows back to the hash table),
// and windows too wide for the row's scratch.
TEST(EscSpgemm, BitmapRowsMatchReferenceAndFallBack) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto band = banded_csr(400, 5, seed);
  const auto band_scrambled = scramble(band, seed + 1);
  const auto wide = random_csr(300, 20000, 1, 6, seed + 2);
  const auto wideB = random_csr(20000, 20000, 1, 6, seed + 3);
  struct Case {
    std::string name;
    Host A, B;
  };
  const auto wide_band = banded_csr(300, 20, seed + 4);  // F up to 41² = 1681: the block bin too
  // block-bin rows whose window needs more words than their own table (F = 740: 1024 slots,
  // ~1250 words) but fits the largest row's (F = 1700: 4096 slots): B's rows spread over 40000
  // columns, sorted
  Host wideA, wideB2;
  {
    std::mt19937_64 rng(seed + 5);
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    wideB2.num_rows = 200;
    wideB2.num_cols = 40000;
    wideB2.row_map.assign(201, 0);
    for (int r = 0; r < 200; ++r) {
      for (int j = 0; j < 10; ++j) {
        wideB2.entries.push_back(j * 4000 + static_cast<int>(rng() % 4000));
        wideB2.values.push_back(val(rng));
      }
      wideB2.row_map[r + 1] = static_cast<int>(wideB2.entries.size());
    }
    wideA.num_rows = 2;
    wideA.num_cols = 200;
    wideA.row_map = {0, 74, 244};
    for (int k = 0; k < 74; ++k) wideA.entries.push_back(k);
    for (int k = 0; k < 170; ++k) wideA.entries.push_back(k);
    for (std::size_t k = 0; k < wideA.entries.size(); ++k) wideA.values.push_back(val(rng));
  }
  const std::vector<Case> cases{{"banded", band, band},
                                {"block bin, window beyond the row's table", wideA, wideB2},
                                {"banded, block bin", wide_band, wide_band},
                                {"banded, B unsorted", band, band_scrambled},
                                {"wide windows", wide, wideB}};
  for (const auto& cs : cases) {
    const auto ref = reference_multiply(cs.A, cs.B);
    const auto dA = kkperm::to_device<Matrix>(cs.A), dB = kkperm::to_device<Matrix>(cs.B);
    std::int64_t rows_with_work = 0;
    for (const auto w : kkperm::spgemm::reference_row_work(cs.A, cs.B)) rows_with_work += w > 0;
    for (const bool bitmap : {true, false})
      for (const std::size_t stash : {std::size_t(1) << 30, std::size_t(0)}) {
        EscConfig cfg;
        cfg.warp_row_bitmap = bitmap;
        cfg.count_bitmap_rows = true;
        cfg.stash_limit_bytes = stash;
        const std::string what = cs.name + (bitmap ? ", bitmap" : ", hash") + (stash ? ", stash" : ", two pass");
        EscSpgemm<Matrix> esc(cfg);
        esc.symbolic(dA, dB);
        poison_values(esc.C());
        esc.numeric(dA, dB);
        EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what));
        EXPECT_TRUE(kkperm::check_crs(esc.C()).ok()) << what;
        const auto& s = esc.stats();
        // every row on the warp-row kernels (the block bin's on the block-row walk)
        ASSERT_EQ(s.warp_row_rows + s.bin_rows[2], s.num_rows) << what;
        if (cs.name == "banded, block bin") ASSERT_GT(s.bin_rows[2], 0) << what;
        if (cs.name.rfind("block bin", 0) == 0) {
          ASSERT_EQ(s.bin_rows[2], 2) << what;
          EXPECT_EQ(s.bitmap_rows, bitmap ? 2 : 0) << what;
        }
        if (!bitmap) {
          EXPECT_EQ(s.bitmap_rows, 0) << what;
        } else if (cs.name.rfind("block bin", 0) == 0) {
          // checked above
        } else if (cs.name.rfind("banded", 0) == 0 && cs.name.find("unsorted") == std::string::npos) {
          EXPECT_EQ(s.bitmap_rows, rows_with_work) << what;
        } else {
          // scrambled: rows whose B rows' first/last columns are not their extremes fall back;
          // wide: windows of ~20000 columns do not fit the rows' scratch
          EXPECT_LT(s.bitmap_rows, rows_with_work) << what;
          EXPECT_GE(s.bitmap_rows, 0) << what;
        }
      }
  }
}

// Warp-row rows of at most one A entry a lane and 4 products a lane sorted in registers
// (EscConfig::warp_row_register_sort): never, instead of the hash table (default), and before the
// bitmap too; count and fill passes, single-pass and two-pass, 8/16/32 lanes a row (CUDA; host
// backends run one lane: rows of at most one A entry and 4 products), and setup()'s valued count
// pass. Rows with many duplicate columns across their B rows, unsorted B rows, windows too wide
// for the bitmap, A rows longer than the lanes and rows just above the register limit.
TEST(EscSpgemm, RegisterSortedRowsMatchReference) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  struct Case {
    std::string name;
    Host A, B;
  };
  const auto dupB = random_csr(64, 48, 0, 12, seed + 1);
  const std::vector<Case> cases{
      {"duplicates", random_csr(300, 64, 0, 12, seed), dupB},
      {"duplicates, B unsorted", random_csr(300, 64, 0, 12, seed + 2), scramble(dupB, seed + 3)},
      {"wide windows", random_csr(300, 20000, 1, 10, seed + 4), random_csr(20000, 20000, 1, 10, seed + 5)},
      {"one A entry", random_csr(300, 200, 0, 1, seed + 6), random_csr(200, 300, 0, 6, seed + 7)},
      {"long A rows", random_csr(300, 2000, 20, 40, seed + 8), random_csr(2000, 3000, 0, 2, seed + 9)},
      // 8 entries a row, F = 64 everywhere: the mean work alone gives 8 lanes, where no row fits
      {"8 x 8 entries", random_csr(300, 2000, 8, 8, seed + 10), random_csr(2000, 20000, 8, 8, seed + 11)}};
  for (const auto& cs : cases) {
    const auto ref = reference_multiply(cs.A, cs.B);
    const auto work = kkperm::spgemm::reference_row_work(cs.A, cs.B);
    const auto dA = kkperm::to_device<Matrix>(cs.A), dB = kkperm::to_device<Matrix>(cs.B);
    // rows that fit the registers on W lanes: at most W entries of A, at most 4W products
    const auto fitting = [&](int W) {
      std::int64_t n = 0;
      for (int i = 0; i < cs.A.num_rows; ++i)
        n += cs.A.row_map[i + 1] - cs.A.row_map[i] <= W && work[i] <= 4 * std::int64_t(W);
      return n;
    };
    for (const int reg : {0, 1, 2, 3})
      for (const bool bitmap : {true, false})
        for (const int lanes : {0, 8, 16, 32})
          for (const std::size_t stash : {std::size_t(1) << 30, std::size_t(0)}) {
            EscConfig cfg;
            cfg.warp_row_register_sort = reg;
            cfg.warp_row_bitmap = bitmap;
            cfg.warp_row_lanes = lanes;
            cfg.stash_limit_bytes = stash;
            cfg.count_bitmap_rows = true;
            const std::string what = cs.name + ", register sort " + std::to_string(reg) +
                                     (bitmap ? ", bitmap" : ", hash") + ", lanes " + std::to_string(lanes) +
                                     (stash ? ", stash" : ", two pass");
            EscSpgemm<Matrix> esc(cfg);
            esc.symbolic(dA, dB);
            poison_values(esc.C());
            esc.numeric(dA, dB);
            EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what));
            EXPECT_TRUE(kkperm::check_crs(esc.C()).ok()) << what;
            const auto& st = esc.stats();
            ASSERT_EQ(st.warp_row_rows, st.num_rows) << what;  // every row on the warp-row kernels
            // the rows that fit the registers with the count pass's lanes
            const int W = st.warp_row_lanes;
            ASSERT_TRUE(W == 1 || W == 8 || W == 16 || W == 32) << what << ": lanes " << W;
            const std::int64_t fit = fitting(W);
            if (reg == 0) {
              EXPECT_EQ(st.register_rows, 0) << what;
            } else if (reg >= 2 || !bitmap) {  // every row that fits is sorted in registers
              EXPECT_EQ(st.register_rows, fit) << what;
            } else {  // rows the bitmap took are not sorted
              EXPECT_LE(st.register_rows, fit) << what;
              EXPECT_LE(st.register_rows + st.bitmap_rows, st.num_rows) << what;
            }
            if (reg >= 2) EXPECT_LE(st.bitmap_rows + st.register_rows, st.num_rows) << what;
            // the cases reach the register sort: host backends (one lane) with the one-entry rows
            // only; CUDA with every case, the long A rows (20-40 entries) on 32 lanes only
            if (cs.name == "one A entry" || (W > 1 && (cs.name != "long A rows" || W == 32) &&
                                              (cs.name != "8 x 8 entries" || W >= 16)))
              EXPECT_GT(fit, 0) << what;
            // automatic lanes (CUDA): twice the mean work's 8 when every row then fits
            if (W > 1 && lanes == 0 && cs.name == "8 x 8 entries") {
              EXPECT_EQ(W, reg > 0 ? 16 : 8) << what;
              if (reg >= 2 || (reg == 1 && !bitmap)) EXPECT_EQ(st.register_rows, st.num_rows) << what;
            }
            // setup(): symbolic and first numeric in one, the warp-row range's values in the count
            // pass whatever its mean work (register sort 3: those rows sorted in registers too)
            EscConfig scfg = cfg;
            scfg.poison_c = true;
            scfg.setup_warp_values_mean = 1;
            EscSpgemm<Matrix> one(scfg);
            one.setup(dA, dB);
            EXPECT_TRUE(matches_reference(kkperm::to_host(one.C()), ref, "setup [" + what + "]"));
            EXPECT_TRUE(kkperm::check_crs(one.C()).ok()) << what;
            const auto& so = one.stats();
            if (stash != 0) EXPECT_EQ(so.setup_valued_rows >= so.warp_row_rows, true) << what;
            if (reg == 3 && stash != 0) EXPECT_EQ(so.register_rows, fitting(so.warp_row_lanes)) << "setup [" + what + "]";
          }
  }
}

TEST(EscSpgemm, NumericReuseAfterValueChangeEqualsFreshProduct) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hA = random_csr(200, 150, 0, 14, seed);
  const auto hB = random_csr(150, 180, 0, 14, seed + 1);
  for (const auto& [name, cfg] : configs()) {
    EscSpgemm<Matrix> esc(cfg);
    esc.symbolic(kkperm::to_device<Matrix>(hA), kkperm::to_device<Matrix>(hB));
    esc.numeric(kkperm::to_device<Matrix>(hA), kkperm::to_device<Matrix>(hB));
    for (int round = 0; round < 3; ++round) {  // lazy_slot_map: round 0 fills the slot map
      const auto hA2 = revalue(hA, seed + 10 + round), hB2 = revalue(hB, seed + 20 + round);
      const auto A2 = kkperm::to_device<Matrix>(hA2), B2 = kkperm::to_device<Matrix>(hB2);
      poison_values(esc.C());
      esc.numeric(A2, B2);
      expect_reuse_path(esc, "reuse [" + name + "]", cfg.lazy_slot_map && round == 0);
      const auto reused = kkperm::to_host(esc.C());
      EXPECT_TRUE(matches_reference(reused, reference_multiply(hA2, hB2), "reuse [" + name + "]"));
      const auto fresh = kkperm::to_host(kkperm::spgemm::esc_multiply(A2, B2, cfg));
      EXPECT_EQ(reused.row_map, fresh.row_map);
      EXPECT_EQ(reused.entries, fresh.entries);
      // Same kernels, same summation order except atomics in team bins: bounded by the reference
      // check above; on Serial (no concurrency) they are bitwise equal.
      if (kkperm::spgemm::esc_impl::is_host_exec<Matrix::execution_space>())
        EXPECT_EQ(reused.values, fresh.values);
    }
  }
}

// setup() with values in the symbolic passes (the default): the thread bin's rows (on their own
// kernel) are summed by its fill pass, the warp-row range's (when its rows average
// setup_warp_values_mean products: 1 here) and the block bin's by their count pass, the global
// bin by a numeric after the fill;
// same structure as symbolic() + numeric() and values within the reference's bound. Without the
// stash, or with rows below the mean, only the thread bin is summed; with eager slot maps or
// switched off it is symbolic() + numeric() (no valued rows); a value change after it re-sets up
// as after symbolic() + numeric().
TEST(EscSpgemm, SetupSumsValuesInTheCountPass) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hA = random_csr(260, 190, 0, 16, seed);
  const auto hB = random_csr(190, 240, 0, 16, seed + 1);
  const auto hA3 = random_csr(300, 190, 0, 3, seed + 2);  // F <= 9: the thread bin alone
  const auto hB3 = random_csr(190, 240, 0, 3, seed + 3);
  EscConfig tiny;  // every bin populated: thread (own kernel), warp-row range, block, global
  tiny.setup_warp_values_mean = 1;
  tiny.thread_max = 2;
  tiny.warp_max = 40;
  tiny.team_max = 120;
  tiny.fold_thread_bin_below = 0;
  EscConfig tiny_nfold = tiny;
  tiny_nfold.numeric_fold_thread_mean = 1;  // the thread bin's numeric on the warp-row kernel
  EscConfig tiny_perm = tiny;
  tiny_perm.output_order = EscOutputOrder::permuted_then_restore;
  EscConfig off = tiny, no_stash = tiny, eager = tiny, warp_values_off = tiny, team_rows = tiny;
  off.setup_values_in_count = false;
  no_stash.stash_limit_bytes = 0;
  eager.lazy_slot_map = false;
  warp_values_off.setup_warp_values_mean = 0;  // the thread bin alone
  team_rows.warp_rows = false;
  EscConfig thread_only;  // all rows in the thread bin, on its own kernel
  thread_only.fold_thread_bin_below = 0;
  EscConfig warp_mean = tiny;  // the warp-row range's rows are too short for values in the count
  warp_mean.setup_warp_values_mean = 1 << 20;
  warp_mean.setup_warp_values_band_below = 0;
  EscConfig dflt_warp;
  dflt_warp.setup_warp_values_mean = 1;
  EscConfig block_off = tiny;
  block_off.setup_block_values = false;
  EscConfig no_bitmap = tiny;  // the hash-table path of the warp-row and block-row count passes
  no_bitmap.warp_row_bitmap = false;
  EscConfig warp_mean_copy = warp_mean;  // the fill pass copies the warp-row range itself
  warp_mean_copy.setup_fused_copy = false;
  EscConfig warp_mean_perm = warp_mean;  // permuted output: C is restored before the numeric
  warp_mean_perm.output_order = EscOutputOrder::permuted_then_restore;
  EscConfig ssums = tiny, ssums_nb = no_bitmap;  // the count pass's sums in team scratch
  ssums.setup_global_sums = ssums_nb.setup_global_sums = false;
  // the valued count pass's second walk for every row (the default sums bitmap rows from their
  // staged products), and staging only where the rows' own tables leave room (rows of more than
  // ~96 products walk twice)
  EscConfig two_walks = tiny, dflt_two_walks = dflt_warp, stage_some = dflt_warp, ssums_two = ssums;
  two_walks.setup_stage_row_bytes = dflt_two_walks.setup_stage_row_bytes = 0;
  ssums_two.setup_stage_row_bytes = 0;
  stage_some.setup_stage_row_bytes = 16;
  // the band of mean products (setup_warp_values_band_*) with the mean threshold out of reach:
  // rows inside the band are valued, a band above them leaves them to the first numeric
  EscConfig band_in = warp_mean, band_out = warp_mean;
  band_in.setup_warp_values_band_from = 1;
  band_in.setup_warp_values_band_below = 1 << 20;
  band_out.setup_warp_values_band_from = 1 << 19;
  band_out.setup_warp_values_band_below = 1 << 20;
  EscConfig copy_rw = tiny;  // stashed rows copied into C with a warp per row
  copy_rw.copy_flat = false;
  struct Case {
    std::string name;
    EscConfig cfg;
    bool sparse;               // the F <= 9 product
    bool warp, thread, block;  // expected to be summed in setup()'s symbolic passes
    bool fused_copy = false;   // the first numeric writes the warp-row range's columns
  };
  const std::vector<Case> cases = {
      {"default_warp_values", dflt_warp, false, true, false, false},
      {"default_warp_values_two_walks", dflt_two_walks, false, true, false, false},
      {"default_warp_values_stage_some", stage_some, false, true, false, false},
      {"tiny_two_walks", two_walks, false, true, true, true},
      {"tiny_copy_row_warps", copy_rw, false, true, true, true},
      {"tiny_band_in", band_in, false, true, true, true},
      {"tiny_band_out", band_out, false, false, true, true, true},
      {"tiny_scratch_sums_two_walks", ssums_two, false, true, true, true},
      {"tiny", tiny, false, true, true, true},
      {"tiny_warp_mean", warp_mean, false, false, true, true, true},
      {"tiny_warp_mean_copy", warp_mean_copy, false, false, true, true},
      {"tiny_warp_mean_permuted", warp_mean_perm, false, false, true, true},
      {"tiny_block_off", block_off, false, true, true, false},
      {"tiny_no_bitmap", no_bitmap, false, true, true, true},
      {"tiny_scratch_sums", ssums, false, true, true, true},
      {"tiny_no_bitmap_scratch_sums", ssums_nb, false, true, true, true},
      {"tiny_numeric_fold", tiny_nfold, false, true, true, true},
      {"tiny_permuted", tiny_perm, false, true, true, true},
      {"warp_values_off", warp_values_off, false, false, true, true, true},
      {"no_stash", no_stash, false, false, true, false},
      {"team_rows", team_rows, false, false, true, false},
      {"thread_only", thread_only, true, false, true, false},
      {"off", off, false, false, false, false},
      {"eager_slots", eager, false, false, false, false}};
  // each case with the register sort before the bitmap in every pass (the default, 3) and with
  // the valued count pass trying the bitmap first (2: its staged products are checked below; with
  // 3, valued rows that fit the registers stage their products there instead)
  for (const auto& c : cases)
    for (const int reg : {3, 2}) {
      const auto& hX = c.sparse ? hA3 : hA;
      const auto& hY = c.sparse ? hB3 : hB;
      const auto ref = reference_multiply(hX, hY);
      const auto A = kkperm::to_device<Matrix>(hX), B = kkperm::to_device<Matrix>(hY);
      EscConfig cfg = c.cfg;
      cfg.poison_c = true;
      cfg.count_bitmap_rows = true;
      cfg.warp_row_register_sort = reg;
      const std::string name = c.name + ", register sort " + std::to_string(reg);
      EscSpgemm<Matrix> split(cfg), fused(cfg);
      split.symbolic(A, B);
      split.numeric(A, B);
      fused.setup(A, B);
      const auto& st = fused.stats();
      const std::int64_t want =
          (c.warp ? st.warp_row_rows : 0) + (c.thread ? st.bin_rows[0] : 0) + (c.block ? st.bin_rows[2] : 0);
      EXPECT_GT(c.warp || c.thread || c.block ? st.setup_valued_rows : 1, 0) << name;
      EXPECT_EQ(st.setup_valued_rows, want) << name;
      EXPECT_EQ(st.setup_fused_copy_rows, c.fused_copy ? st.warp_row_rows : 0) << name;
      // staged products: the warp-row range's valued bitmap rows, all of them when they fit
      if (!c.warp || !cfg.warp_row_bitmap || cfg.setup_stage_row_bytes == 0) {
        EXPECT_LE(st.staged_rows, 0) << name;  // -1: not counted (no warp-row kernels)
      } else if (reg == 3) {
        EXPECT_LE(st.staged_rows, st.bitmap_rows) << name;
        EXPECT_LE(st.staged_rows + st.register_rows, st.warp_row_rows) << name;
      } else if (name.find("stage_some") != std::string::npos) {
        EXPECT_GT(st.staged_rows, 0) << name;
        EXPECT_LT(st.staged_rows, st.warp_row_rows) << name;
      } else {
        EXPECT_GT(st.staged_rows, 0) << name;
        EXPECT_LE(st.staged_rows, st.warp_row_rows) << name;
        EXPECT_LE(st.staged_rows, st.bitmap_rows) << name;
      }
      if (c.fused_copy) EXPECT_GT(st.warp_row_rows, 0) << name;
      if (name.rfind("tiny", 0) == 0) {  // the other bins are not empty: their numeric ran after the fill
        EXPECT_GT(st.bin_rows[0], 0) << name;
        EXPECT_GT(st.bin_rows[2], 0) << name;
        EXPECT_GT(st.bin_rows[3], 0) << name;
      }
      const auto hs = kkperm::to_host(split.C()), hf = kkperm::to_host(fused.C());
      EXPECT_EQ(hf.row_map, hs.row_map) << name;
      EXPECT_EQ(hf.entries, hs.entries) << name;
      EXPECT_TRUE(matches_reference(hf, ref, "setup [" + name + "]"));
      for (int round = 0; round < 3; ++round) {  // re-setups with new values, as after numeric()
        const auto hA2 = revalue(hX, seed + 10 + round), hB2 = revalue(hY, seed + 20 + round);
        const auto A2 = kkperm::to_device<Matrix>(hA2), B2 = kkperm::to_device<Matrix>(hB2);
        poison_values(fused.C());
        fused.numeric(A2, B2);
        const std::string w = "setup [" + name + "], re-setup " + std::to_string(round);
        expect_reuse_path(fused, w, cfg.lazy_slot_map && round == 0);
        EXPECT_TRUE(matches_reference(kkperm::to_host(fused.C()), reference_multiply(hA2, hB2), w));
      }
    }
}

// identity_plan: when one kernel takes every row (one bin, or the thread and warp bins with the
// thread bin folded) the analysis keeps the rows in order; C is the same as with the sort, through
// symbolic() + numeric() and setup(), and the plan says which it did.
TEST(EscSpgemm, IdentityPlanWhenOneKernelTakesEveryRow) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hA = random_csr(240, 200, 0, 14, seed);  // rows of 0..~200 products: thread and warp bins
  const auto hB = random_csr(200, 230, 0, 14, seed + 1);
  const auto hS = random_csr(240, 200, 0, 2, seed + 2);  // F <= 4: the thread bin alone
  EscConfig dflt, sorted, tiny, thread_own, late, limited;
  sorted.identity_plan = false;
  late.early_stash_scan = false;  // the stash offsets scanned after the plan's read-back
  limited.memory_limit_bytes = std::size_t(1) << 30;  // as plans set it: the early scan still fits
  tiny.warp_max = 40;  // block rows too: several kernels, sorted
  tiny.team_max = 120;
  thread_own.fold_thread_bin_below = 0;  // the thread bin on its own kernel
  struct Case {
    const char* name;
    const Host* a;
    EscConfig cfg;
    bool identity;
  };
  const std::vector<Case> cases = {{"thread + warp, folded", &hA, dflt, true},
                                   {"thread + warp, folded, late scan", &hA, late, true},
                                   {"thread + warp, folded, memory limit", &hA, limited, true},
                                   {"thread + warp, sort asked", &hA, sorted, false},
                                   {"block rows", &hA, tiny, false},
                                   {"thread + warp, thread kernel", &hA, thread_own, false},
                                   {"thread bin alone", &hS, thread_own, true}};
  for (const auto& c : cases) {
    const auto ref = reference_multiply(*c.a, hB);
    const auto A = kkperm::to_device<Matrix>(*c.a), B = kkperm::to_device<Matrix>(hB);
    EscConfig cfg = c.cfg;
    cfg.poison_c = true;
    EscSpgemm<Matrix> split(cfg), one(cfg);
    split.symbolic(A, B);
    split.numeric(A, B);
    one.setup(A, B);
    for (const auto* e : {&split, &one}) {
      const std::string what = std::string(c.name) + (e == &one ? ", setup" : ", symbolic + numeric");
      EXPECT_EQ(e->stats().identity_plan, c.identity) << what;
      // the row-order scan made behind the plan's read-back is the stash offsets of a plan in order
      EXPECT_EQ(e->stats().early_stash_scan, c.identity && c.cfg.early_stash_scan && e->stats().stash_bytes > 0)
          << what;
      EXPECT_TRUE(matches_reference(kkperm::to_host(e->C()), ref, what));
    }
    // made unless switched off, no order is kept, or the sizes say thread bin only (hS: ~7 products
    // a row with fold_thread_bin_below 0) or above the warp bin ("block rows": ~49 against 40)
    EXPECT_EQ(split.stats().early_scan_made, c.cfg.early_stash_scan && c.cfg.identity_plan && c.a == &hA &&
                                                 std::string(c.name) != "block rows")
        << c.name;
    if (std::string(c.name) == "thread + warp, folded" || std::string(c.name) == "thread + warp, folded, memory limit") {
      EXPECT_GT(split.stats().stash_bytes, 0u);
      EXPECT_TRUE(split.stats().early_stash_scan);
      EXPECT_TRUE(one.stats().early_stash_scan);
    }
    const auto& st = split.stats();
    if (std::string(c.name) == "thread + warp, folded") {  // both bins had rows: merged into one
      EXPECT_EQ(st.bin_rows[0], 0);
      EXPECT_EQ(st.bin_rows[1], st.num_rows);
      EXPECT_TRUE(st.thread_bin_folded);
    }
    if (std::string(c.name) == "thread + warp, sort asked") EXPECT_GT(st.bin_rows[0], 0);
    if (std::string(c.name) == "block rows") EXPECT_GT(st.bin_rows[2], 0);
  }
}

// No early scan where the sizes say the plan will not use it (EscSpgemm::early_scan_pays): a
// product of 40 000 rows (above fold_thread_bin_below) of ~4 products each stays in the thread bin;
// with rows of ~40 products it is made (and used: one warp-row range in row order); with rows
// expected above warp_max (set to 30 here) it is not.
TEST(EscSpgemm, EarlyScanOnlyWhereAStashIsLikely) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hB = random_csr(300, 300, 1, 3, seed + 1);
  for (const int per_row : {2, 20}) {
    const auto hA = random_csr(40000, 300, per_row - 1, per_row + 1, seed);
    const auto ref = reference_multiply(hA, hB);
    const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
    EscConfig cfg;
    cfg.poison_c = true;
    EscSpgemm<Matrix> esc(cfg);
    esc.setup(A, B);
    const std::string what = "A rows of ~" + std::to_string(per_row) + " entries";
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what));
    EXPECT_EQ(esc.stats().early_scan_made, per_row == 20) << what;
    EXPECT_EQ(esc.stats().early_stash_scan, per_row == 20 && esc.stats().identity_plan) << what;
    EscConfig low = cfg;  // ~40 products a row expected, above this warp bin's top
    low.thread_max = 16;
    low.warp_max = 30;
    EscSpgemm<Matrix> e2(low);
    e2.setup(A, B);
    EXPECT_TRUE(matches_reference(kkperm::to_host(e2.C()), ref, what + ", warp_max 30"));
    EXPECT_FALSE(e2.stats().early_scan_made) << what << ", warp_max 30";
  }
}

// The analysis kernel's lanes a row (CUDA: 1 to 32 lanes walk a row of A; host: a row a thread
// whatever is asked) do not change the plan: the same F_i sums and bins, the same C. Rows of 0 to
// ~60 entries of A, so a group of lanes meets empty, short and longer-than-the-group rows; a
// group's rows at the end of the last team lie past n.
/// Every analysis kernel (EscConfig::plan_lanes 1-32, the automatic rule and session 30's; a row a
/// lane with and without plan_row_chunks, whose CUDA kernel walks 32 rows' entries together) gives
/// the same Σ F, max F and bins, and setup() the reference product.
void expect_same_plan_every_lanes(const Host& hA, const Host& hB, EscConfig base) {
  const auto ref = reference_multiply(hA, hB);
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  base.poison_c = true;
  std::int64_t sum0 = -1, max0 = -1;
  kkperm::spgemm::EscStats first;
  for (const bool chunks : {true, false}) {
    for (const int lanes : {1, 2, 4, 8, 16, 32, 0, -1}) {
      if (!chunks && lanes != 1 && lanes != 0) continue;  // the switch only matters for a row a lane
      SCOPED_TRACE("plan_lanes " + std::to_string(lanes) + (chunks ? ", row chunks" : ", row threads"));
      EscConfig cfg = base;
      cfg.plan_lanes = lanes;
      cfg.plan_row_chunks = chunks;
      EscSpgemm<Matrix> esc(cfg);
      const auto sm = esc.analyze(A, B);
      esc.setup(A, B, /*analyzed=*/true);
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, "setup"));
      if (sum0 < 0) {
        sum0 = sm[0];
        max0 = sm[1];
        first = esc.stats();
        EXPECT_GT(first.bin_rows[1], 0);
        EXPECT_GT(first.bin_rows[2], 0);
        continue;
      }
      EXPECT_EQ(sm[0], sum0);
      EXPECT_EQ(sm[1], max0);
      for (int b = 0; b < 4; ++b) {
        EXPECT_EQ(esc.stats().bin_rows[b], first.bin_rows[b]) << b;
        EXPECT_EQ(esc.stats().bin_max_work[b], first.bin_max_work[b]) << b;
      }
    }
  }
}

TEST(EscSpgemm, AnalysisLanesGiveTheSamePlan) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  EscConfig base;
  base.warp_max = 100;  // the warp and block bins both get rows: the sorted plan
  expect_same_plan_every_lanes(random_csr(1001, 300, 0, 60, seed), random_csr(300, 280, 0, 9, seed + 1), base);
  // Short rows (a mean under 24: a row a lane), empty ones, and every 97th row 300-900 entries
  // long, so that a warp's entries span several 256-entry chunks of the row-chunk kernel and one
  // row crosses chunk borders; 1 013 rows (the last warp and team partly empty).
  Host hA = random_csr(1013, 1500, 0, 6, seed + 2);
  const Host longs = random_csr(1013, 1500, 300, 900, seed + 3);
  Host mixed;
  mixed.num_rows = hA.num_rows;
  mixed.num_cols = hA.num_cols;
  mixed.row_map.assign(1, 0);
  for (int i = 0; i < hA.num_rows; ++i) {
    const Host& src = i % 97 == 5 ? longs : hA;
    for (int p = src.row_map[i]; p < src.row_map[i + 1]; ++p) {
      mixed.entries.push_back(src.entries[p]);
      mixed.values.push_back(src.values[p]);
    }
    mixed.row_map.push_back(static_cast<int>(mixed.entries.size()));
  }
  EscConfig base2;
  base2.thread_max = 8;
  base2.warp_max = 200;  // thread, warp and block bins all get rows
  expect_same_plan_every_lanes(mixed, random_csr(1500, 200, 0, 5, seed + 4), base2);
}

// The automatic lanes a row of the warp-row kernels: the symbolic passes take 16 lanes below
// EscConfig::symbolic_lanes16_below products a row on average (128 since session 32) and 32 from
// there; the first numeric about 16 products a lane, 8 to 32 lanes, at least 16 from a mean of
// EscConfig::numeric_lanes16_from; no rows: 32.
TEST(EscSpgemm, WarpRowLanesRule) {
  using kkperm::spgemm::esc_impl::warp_row_lanes_for;
  EXPECT_EQ(warp_row_lanes_for(48 * 10, 10), 16);  // the 3D 7-point A²'s mean
  EXPECT_EQ(warp_row_lanes_for(63 * 10 + 9, 10), 16);
  EXPECT_EQ(warp_row_lanes_for(64 * 10, 10), 8);
  EXPECT_EQ(warp_row_lanes_for(74 * 10, 10), 8);  // the 2D 5-point R(AP)'s mean
  EXPECT_EQ(warp_row_lanes_for(127 * 10 + 9, 10), 8);
  EXPECT_EQ(warp_row_lanes_for(128 * 10, 10), 32);
  EXPECT_EQ(warp_row_lanes_for(322 * 10, 10), 32);  // the 3D 7-point R(AP)'s
  EXPECT_EQ(warp_row_lanes_for(74 * 10, 10, 128, 0), 16);  // 8 lanes off: session 32's rule
  EXPECT_EQ(warp_row_lanes_for(74 * 10, 10, 64, 0), 32);   // session 31's threshold
  EXPECT_EQ(warp_row_lanes_for(74 * 10, 10, 64), 32);      // no 8-lane band below 64
  EXPECT_EQ(warp_row_lanes_for(63 * 10, 10, 64), 16);
  EXPECT_EQ(warp_row_lanes_for(74 * 10, 10, 0), 32);  // 0: always a warp a row
  EXPECT_EQ(warp_row_lanes_for(100 * 10, 10, 128, 96), 8);
  EXPECT_EQ(warp_row_lanes_for(90 * 10, 10, 128, 96), 16);
  EXPECT_EQ(warp_row_lanes_for(0, 0), 32);
  // the first numeric: 8 lanes below a mean of numeric_lanes16_from (32 since session 40), 16 up to
  // 256 (about 16 products a lane), 32 above
  using kkperm::spgemm::esc_impl::numeric_warp_row_lanes_for;
  EXPECT_EQ(numeric_warp_row_lanes_for(25 * 10, 10), 8);  // the 2D 5-point A²'s mean
  EXPECT_EQ(numeric_warp_row_lanes_for(31 * 10 + 9, 10), 8);
  EXPECT_EQ(numeric_warp_row_lanes_for(32 * 10, 10), 16);
  EXPECT_EQ(numeric_warp_row_lanes_for(48 * 10, 10), 16);  // the 3D 7-point A²'s
  EXPECT_EQ(numeric_warp_row_lanes_for(74 * 10, 10), 16);
  EXPECT_EQ(numeric_warp_row_lanes_for(200 * 10, 10), 16);
  EXPECT_EQ(numeric_warp_row_lanes_for(256 * 10, 10), 16);
  EXPECT_EQ(numeric_warp_row_lanes_for(257 * 10, 10), 32);
  EXPECT_EQ(numeric_warp_row_lanes_for(322 * 10, 10), 32);
  EXPECT_EQ(numeric_warp_row_lanes_for(74 * 10, 10, 0), 8);  // 0: the rule before session 40
  EXPECT_EQ(numeric_warp_row_lanes_for(128 * 10, 10, 0), 8);
  EXPECT_EQ(numeric_warp_row_lanes_for(129 * 10, 10, 0), 16);
  EXPECT_EQ(numeric_warp_row_lanes_for(48 * 10, 10, 64), 8);
  EXPECT_EQ(numeric_warp_row_lanes_for(0, 0), 32);
  EscConfig bad;
  bad.symbolic_lanes16_below = -1;
  EXPECT_THROW(EscSpgemm<Matrix>{bad}, std::invalid_argument);
  EscConfig bad8;
  bad8.symbolic_lanes8_from = -1;
  EXPECT_THROW(EscSpgemm<Matrix>{bad8}, std::invalid_argument);
  EscConfig bad_numeric16;
  bad_numeric16.numeric_lanes16_from = -1;
  EXPECT_THROW(EscSpgemm<Matrix>{bad_numeric16}, std::invalid_argument);
  EscConfig bad_blocks;
  bad_blocks.numeric_min_blocks = 6;
  EXPECT_THROW(EscSpgemm<Matrix>{bad_blocks}, std::invalid_argument);
}

// The window rule's pieces: the bitmap cap (4 x the row's hash table in 32-bit words) and the
// lanes decision (32 when every row fits the register sort there and not at the planned lanes or
// twice them, with at least half of the sampled rows too wide).
TEST(EscSpgemm, WideWindowLanesRule) {
  using kkperm::spgemm::esc_impl::wide_window_lanes_pay;
  using kkperm::spgemm::esc_impl::window_too_wide;
  // F = 81: a table of 128 slots, so at most 512 words (16 384 columns) of 4-byte columns
  EXPECT_FALSE(window_too_wide(16384, 81, 4));
  EXPECT_TRUE(window_too_wide(16385, 81, 4));
  EXPECT_FALSE(window_too_wide(32768, 81, 8));  // 8-byte columns: twice the table's words
  EXPECT_TRUE(window_too_wide(32769, 81, 8));
  EXPECT_FALSE(window_too_wide(0, 81, 4));  // empty rows
  EXPECT_FALSE(window_too_wide(100000, 0, 4));
  EXPECT_TRUE(wide_window_lanes_pay(true, 8, 9, 81, 256, 128));  // the uniform 9-entry A²'s rows
  EXPECT_FALSE(wide_window_lanes_pay(true, 8, 9, 81, 256, 127));  // fewer than half wide
  EXPECT_FALSE(wide_window_lanes_pay(false, 8, 9, 81, 256, 256));
  EXPECT_FALSE(wide_window_lanes_pay(true, 32, 9, 81, 256, 256));
  EXPECT_FALSE(wide_window_lanes_pay(true, 8, 33, 81, 256, 256));   // A rows too long for 32 lanes
  EXPECT_FALSE(wide_window_lanes_pay(true, 8, 9, 129, 256, 256));   // work too large for 32 lanes
  EXPECT_FALSE(wide_window_lanes_pay(true, 8, 8, 32, 256, 256));    // fits the planned 8 lanes
  EXPECT_TRUE(wide_window_lanes_pay(true, 16, 20, 100, 10, 5));
  EXPECT_FALSE(wide_window_lanes_pay(true, 8, 9, 81, 0, 0));  // nothing sampled
  EXPECT_FALSE(wide_window_lanes_pay(true, 8, 9, 81, -1, 0));
}

// esc_impl::window_sample against a host count of the same sampled rows: their F_i, their C
// windows from B's first and last columns, the F range and the bitmap cap; on products whose
// windows are all wide, all narrow, and mixed with rows of every length.
TEST(EscSpgemm, WindowSampleMatchesHostCount) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  using exec = Matrix::execution_space;
  struct Case {
    std::string name;
    Host A, B;
  };
  const std::vector<Case> cases{
      {"wide", random_csr(700, 400, 9, 9, seed), random_csr(400, 1000000, 9, 9, seed + 1)},
      {"narrow", random_csr(700, 400, 9, 9, seed + 2), banded_csr(400, 4, seed + 3)},
      {"mixed lengths", random_csr(300, 500, 0, 20, seed + 4), random_csr(500, 60000, 0, 12, seed + 5)},
      {"fewer rows than samples", random_csr(100, 400, 1, 12, seed + 6), random_csr(400, 80000, 1, 12, seed + 7)},
      {"empty", random_csr(0, 400, 0, 0, seed + 8), random_csr(400, 50, 1, 3, seed + 9)}};
  for (const auto& cs : cases)
    for (const auto& fr : std::vector<std::pair<std::int64_t, std::int64_t>>{{32, 736}, {0, 1 << 30}, {100, 50}}) {
      const std::string what = cs.name + ", F in (" + std::to_string(fr.first) + ", " + std::to_string(fr.second) + "]";
      const auto dA = kkperm::to_device<Matrix>(cs.A), dB = kkperm::to_device<Matrix>(cs.B);
      Kokkos::View<std::int64_t*, Matrix::memory_space> out("out", 2);
      kkperm::spgemm::esc_impl::window_sample<exec>(dA.graph.row_map, dA.graph.entries, dB.graph.row_map,
                                                    dB.graph.entries, cs.A.num_rows, fr.first, fr.second, out.data());
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      const std::int64_t n = cs.A.num_rows, S = std::min<std::int64_t>(n, kkperm::spgemm::esc_impl::kWindowSamples);
      std::int64_t want = 0, wide = 0;
      for (std::int64_t s = 0; s < S; ++s) {
        const std::int64_t i = s * n / S;
        std::int64_t f = 0, lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
        for (int p = cs.A.row_map[i]; p < cs.A.row_map[i + 1]; ++p) {
          const int k = cs.A.entries[p];
          const int b0 = cs.B.row_map[k], b1 = cs.B.row_map[k + 1];
          if (b1 <= b0) continue;
          f += b1 - b0;
          lo = std::min<std::int64_t>(lo, cs.B.entries[b0]);
          hi = std::max<std::int64_t>(hi, cs.B.entries[b1 - 1]);
        }
        if (f > fr.first && f <= fr.second) {
          ++want;
          // the cap written out: 4 x the row's hash table (next power of two >= F + F / 4 + 1) in words
          std::int64_t H = 1;
          while (H < f + f / 4 + 1) H *= 2;
          wide += (hi - lo + 1 + 31) / 32 > 4 * H;
        }
      }
      EXPECT_EQ(h(0), want) << what;
      EXPECT_EQ(h(1), wide) << what;
      if (cs.name == "wide" && fr.first == 32) EXPECT_EQ(h(1), 256) << what;  // every sampled row
      if (cs.name == "narrow") EXPECT_EQ(h(1), 0) << what;
      if (cs.name == "mixed lengths" && fr.first == 0) EXPECT_GT(h(0), 200) << what;
    }
}

// setup() on a product whose rows (9 A entries, 81 products: 8 lanes from the mean) have random
// columns over 10^6 (too wide for the bitmap): the sample sends the symbolic passes to 32 lanes,
// where every row fits the register sort, and the values band sums them in the count pass; the
// same rows with narrow windows keep 8 lanes and, not register-sorted, get the first numeric
// (EscConfig::setup_warp_values_band_register_only). C matches the reference either way.
TEST(EscSpgemm, WideWindowsTakeThirtyTwoLanes) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hA = random_csr(600, 400, 9, 9, seed);
  const auto wideB = random_csr(400, 1000000, 9, 9, seed + 1);
  const auto narrowB = banded_csr(400, 4, seed + 2);  // up to 9 entries a row, narrow windows
  for (const bool wide : {true, false})
    for (const int variant : {0, 1, 2}) {  // 0 default, 1 rule off, 2 band for any rows
      const auto& hB = wide ? wideB : narrowB;
      const auto ref = reference_multiply(hA, hB);
      const auto dA = kkperm::to_device<Matrix>(hA), dB = kkperm::to_device<Matrix>(hB);
      EscConfig cfg;
      cfg.poison_c = true;
      if (variant == 1) cfg.wide_window_lanes = false;
      if (variant == 2) cfg.setup_warp_values_band_register_only = false;
      const std::string what = std::string(wide ? "wide" : "narrow") + ", variant " + std::to_string(variant);
      EscSpgemm<Matrix> esc(cfg);
      esc.setup(dA, dB);
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what));
      EXPECT_TRUE(kkperm::check_crs(esc.C()).ok()) << what;
      const auto& st = esc.stats();
      ASSERT_EQ(st.warp_row_rows, st.num_rows) << what;
      EXPECT_EQ(st.window_samples, variant == 1 ? 0 : 256) << what;
      EXPECT_EQ(st.wide_windows, variant == 1 ? 0 : (wide ? 256 : 0)) << what;
      const bool lanes32 = wide && variant != 1;
      EXPECT_EQ(st.wide_window_lanes, lanes32) << what;
      // values in the count pass: register-sorted (32 lanes) or the band for any rows
      const bool valued = lanes32 || variant == 2;
      EXPECT_EQ(st.setup_valued_rows, valued ? st.num_rows : 0) << what;
      esc.numeric(dA, dB);  // a numeric after the setup: the same C
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what + ", numeric"));
    }
}

// lazy_slot_map across symbolic() calls: a new symbolic (other structure) drops the filled slot
// map and gather plan, its first numeric searches without one and the second makes it again.
TEST(EscSpgemm, LazySlotMapStartsOverAfterSymbolic) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  EscConfig cfg;
  cfg.lazy_slot_map = true;
  EscSpgemm<Matrix> esc(cfg);
  for (int pass = 0; pass < 2; ++pass) {
    const auto hA = random_csr(150 + 40 * pass, 120, 1, 12, seed + 10 * pass);
    const auto hB = random_csr(120, 130, 1, 12, seed + 10 * pass + 1);
    const auto ref = reference_multiply(hA, hB);
    const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
    esc.symbolic(A, B);
    for (int n = 0; n < 4; ++n) {
      poison_values(esc.C());
      esc.numeric(A, B);
      const std::string what = "pass " + std::to_string(pass) + ", numeric " + std::to_string(n);
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, what));
      EXPECT_EQ(esc.stats().slot_bytes > 0 || esc.stats().gather_bytes > 0, n >= 1) << what;
      EXPECT_EQ(esc.stats().numeric_used_gather, n >= 2) << what;
    }
  }
}

// The gather plan keeps each product list in product order for rows of C with up to 4096
// products (filled by a thread or a lane group per row), so repeated re-setups give bitwise-equal
// values on a GPU too, whichever kernel built the lists, and they equal the search path's values
// on host backends.
TEST(EscSpgemm, GatherNumericIsBitwiseReproducible) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hA = random_csr(400, 300, 0, 20, seed);
  const auto hB = random_csr(300, 350, 0, 20, seed + 1);
  const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
  std::vector<double> first_build;  // values of the first (order, lanes) case
  // lanes a row of the build kernel, its scratch a row, warp-match order in scratch: a thread a
  // row; lane groups with the rows staged in scratch (all, some, none)
  struct Build {
    int lanes;
    std::size_t row_bytes;
    bool match;
  };
  const Build builds[] = {{1, 0, false},    {8, 12288, false},  {16, 0, false},
                          {32, 12288, false}, {32, 400, false}, {32, 400, true}};
  for (auto order : {EscOutputOrder::direct, EscOutputOrder::permuted_then_restore})
  for (const auto& [build_lanes, row_bytes, match] : builds) {
    EscConfig cfg;
    cfg.output_order = order;
    cfg.gather_build_lanes = build_lanes;
    cfg.gather_build_row_bytes = row_bytes;
    cfg.gather_build_match = match;
    EscSpgemm<Matrix> esc(cfg);
    esc.symbolic(A, B);
    esc.numeric(A, B);
    const auto searched = kkperm::to_host(esc.C());
    if (cfg.lazy_slot_map) esc.numeric(A, B);  // searches again and fills the slot map
    std::vector<std::vector<double>> runs;
    for (int r = 0; r < 3; ++r) {
      poison_values(esc.C());
      esc.numeric(A, B);
      ASSERT_TRUE(esc.stats().numeric_used_gather);
      runs.push_back(kkperm::to_host(esc.C()).values);
    }
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), reference_multiply(hA, hB), "gather"));
    EXPECT_EQ(runs[0], runs[1]);
    EXPECT_EQ(runs[0], runs[2]);
    EXPECT_EQ(esc.stats().gather_build_lanes, build_lanes);
    if (first_build.empty()) first_build = runs[0];
    EXPECT_EQ(runs[0], first_build) << "build lanes " << build_lanes << ", row bytes " << row_bytes
                                    << ", match " << match;
    if (kkperm::spgemm::esc_impl::is_host_exec<Matrix::execution_space>())
      EXPECT_EQ(runs[0], searched.values);
  }
  // 4-byte and 8-byte lists name the same products in the same order: the same bits, also on a
  // GPU, with a thread or vector lanes per C entry
  for (int lanes : {0, 4}) {
    std::vector<double> wide_values;
    for (bool compact : {false, true}) {
      EscConfig cfg;
      cfg.gather_compact = compact;
      cfg.gather_lanes = lanes;
      EscSpgemm<Matrix> esc(cfg);
      esc.symbolic(A, B);
      for (int r = 0; r < 3; ++r) esc.numeric(A, B);  // search, slot map, gather plan
      poison_values(esc.C());
      esc.numeric(A, B);
      ASSERT_TRUE(esc.stats().numeric_used_gather);
      EXPECT_EQ(esc.stats().gather_compact, compact);
      const auto values = kkperm::to_host(esc.C()).values;
      if (!compact) wide_values = values;
      else EXPECT_EQ(values, wide_values) << "lanes " << lanes;
    }
  }
}

// The 4-byte gather list needs bits(nnz(B)) plus the bits of the widest A range a tile of 32 C
// entries can name to fit 32; otherwise the 8-byte lists stay. A one-row A names all its 4500
// entries from one tile (13 bits); B has 4500 x 120 = 540 000 entries (20 bits): 33 bits, wide.
// With 1500 entries (11 bits) and 180 000 (18 bits) it fits.
TEST(EscSpgemm, GatherListCompactOnlyWhereItFits) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  for (const auto& [k, fits] : {std::pair<int, bool>{4500, false}, std::pair<int, bool>{1500, true}}) {
    const auto hA = random_csr(1, k, k, k, seed);   // one dense row
    const auto hB = random_csr(k, 400, 120, 120, seed + 1);
    ASSERT_EQ(hA.nnz(), k);
    ASSERT_EQ(hB.nnz(), std::int64_t(k) * 120);
    const auto A = kkperm::to_device<Matrix>(hA), B = kkperm::to_device<Matrix>(hB);
    EscSpgemm<Matrix> esc;
    esc.symbolic(A, B);
    for (int r = 0; r < 3; ++r) esc.numeric(A, B);
    poison_values(esc.C());
    esc.numeric(A, B);
    ASSERT_TRUE(esc.stats().numeric_used_gather) << k;
    EXPECT_EQ(esc.stats().gather_compact, fits) << k;
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), reference_multiply(hA, hB),
                                  "gather list, k = " + std::to_string(k)));
  }
}

// Stored zeros and cancellation: kept by default (structural product), dropped with drop_zeros.
// Integer values keep every sum exact, so "exactly zero" is the same for reference and kernel.
TEST(EscSpgemm, ExplicitZerosKeptUnlessDropRequested) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto A = random_csr(150, 100, 0, 10, seed);
  auto B = random_csr(100, 120, 0, 10, seed + 1);
  for (auto& v : A.values) v = static_cast<double>(static_cast<int>(rng() % 5) - 2);  // -2..2
  for (auto& v : B.values) v = static_cast<double>(static_cast<int>(rng() % 3) - 1);  // -1..1
  const auto keep = reference_multiply(A, B, false);
  const auto drop = reference_multiply(A, B, true);
  ASSERT_LT(drop.C.nnz(), keep.C.nnz());  // the test exercises dropping
  for (auto [name, cfg] : configs()) {
    const auto dA = kkperm::to_device<Matrix>(A), dB = kkperm::to_device<Matrix>(B);
    cfg.drop_zeros = false;
    EXPECT_TRUE(matches_reference(kkperm::to_host(kkperm::spgemm::esc_multiply(dA, dB, cfg)), keep,
                                  "keep zeros [" + name + "]"));
    cfg.drop_zeros = true;
    EscSpgemm<Matrix> esc(cfg);
    esc.symbolic(dA, dB);
    poison_values(esc.C());
    esc.numeric(dA, dB);
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), drop, "drop zeros [" + name + "]"));
    // With drop_zeros the structure follows the values: numeric() with values that make dropped
    // positions nonzero (all ones: nothing cancels) yields the full structural product.
    auto A2 = A;
    for (auto& v : A2.values) v = 1.0;
    auto B2 = B;
    for (auto& v : B2.values) v = 1.0;
    esc.numeric(kkperm::to_device<Matrix>(A2), kkperm::to_device<Matrix>(B2));
    const auto ref2 = reference_multiply(A2, B2, true);
    EXPECT_EQ(ref2.C.nnz(), keep.C.nnz());
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref2, "drop zeros, new values [" + name + "]"));
  }
}

TEST(EscSpgemm, RejectsBadInputsClearly) {
  const auto A = kkperm::to_device<Matrix>(random_csr(10, 8, 1, 3, 5));
  const auto B = kkperm::to_device<Matrix>(random_csr(9, 8, 1, 3, 6));
  EscSpgemm<Matrix> esc;
  try {
    esc.symbolic(A, B);
    ADD_FAILURE() << "dimension mismatch accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kkperm::spgemm_symbolic"), std::string::npos) << e.what();
  }
  EXPECT_THROW(esc.numeric(A, A), std::invalid_argument);  // numeric before symbolic
  auto hbad = random_csr(8, 8, 1, 3, 7);
  hbad.entries[0] = 8;  // out of range
  const auto bad = kkperm::to_device<Matrix>(hbad);
  EXPECT_THROW(esc.symbolic(bad, bad), std::invalid_argument);
  // numeric with a different structure than symbolic
  const auto S = kkperm::to_device<Matrix>(random_csr(8, 8, 1, 3, 8));
  const auto T = kkperm::to_device<Matrix>(random_csr(8, 8, 1, 3, 9));
  esc.symbolic(S, S);
  if (S.nnz() == T.nnz()) {
    EXPECT_THROW(esc.numeric(T, T), std::invalid_argument);
  }
  EXPECT_THROW(esc.numeric(A, A), std::invalid_argument);
  // without the structure check, the first (search) numeric's flag catches a product outside C:
  // B2 = S with one entry moved to a column that C = S·S lacks in that entry's rows
  for (const bool gsums : {false, true}) {  // sums in scratch, or in C's values (global atomics)
    EscConfig unchecked;
    unchecked.check_reuse = false;
    unchecked.numeric_global_sums = gsums;
    unchecked.numeric_fold_thread_mean = 1;  // every row on the warp-row numeric
    EscSpgemm<Matrix> e3(unchecked);
    const auto hS = kkperm::to_host(S);
    e3.symbolic(S, S);
    auto hB2 = hS;
    const auto hC = kkperm::to_host(e3.C());
    bool moved = false;
    for (int k = 0; k < hS.num_rows && !moved; ++k)  // B row k, used by rows i of S with S(i, k)
      for (auto q = hS.row_map[k]; q < hS.row_map[k + 1] && !moved; ++q)
        for (int c = 0; c < hS.num_cols && !moved; ++c) {
          bool absent_in_some_row = false;
          for (int i = 0; i < hS.num_rows; ++i)
            for (auto p = hS.row_map[i]; p < hS.row_map[i + 1]; ++p)
              if (hS.entries[p] == k &&
                  std::find(hC.entries.begin() + hC.row_map[i], hC.entries.begin() + hC.row_map[i + 1], c) ==
                      hC.entries.begin() + hC.row_map[i + 1])
                absent_in_some_row = true;
          if (absent_in_some_row) {
            hB2.entries[q] = c;
            moved = true;
          }
        }
    ASSERT_TRUE(moved);
    try {
      e3.numeric(S, kkperm::to_device<Matrix>(hB2));
      ADD_FAILURE() << "a product outside C's structure went unnoticed without the check"
                    << (gsums ? " (global sums)" : "");
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("falls outside C's structure"), std::string::npos) << e.what();
    }
  }
  // symbolic(..., analyzed = true) needs analyze() on the same matrices just before, once
  {
    EscSpgemm<Matrix> e2;
    EXPECT_THROW(e2.symbolic(S, S, /*analyzed=*/true), std::invalid_argument);
    e2.analyze(S, S);
    EXPECT_THROW(e2.symbolic(S, A, /*analyzed=*/true), std::invalid_argument);  // other B
    e2.analyze(S, S);
    e2.symbolic(S, S, /*analyzed=*/true);
    EXPECT_THROW(e2.symbolic(S, S, /*analyzed=*/true), std::invalid_argument);  // analysis used up
    EXPECT_THROW(e2.analyze(A, B), std::invalid_argument);                     // dimension mismatch
  }
  // memory limit: a too-large product is refused before allocating C
  EscConfig small;
  small.memory_limit_bytes = 64;
  EscSpgemm<Matrix> tiny(small);
  EXPECT_THROW(tiny.symbolic(S, S), std::invalid_argument);
  // config checks
  EscConfig c1;
  c1.thread_max = 33;
  EXPECT_THROW(EscSpgemm<Matrix>{c1}, std::invalid_argument);
  EscConfig c2;
  c2.warp_max = 10000;  // above team_max
  EXPECT_THROW(EscSpgemm<Matrix>{c2}, std::invalid_argument);
  for (int bad_lanes : {-1, 3, 64}) {
    EscConfig c3;
    c3.gather_lanes = bad_lanes;
    EXPECT_THROW(EscSpgemm<Matrix>{c3}, std::invalid_argument) << bad_lanes;
  }
  for (int bad_lanes : {-1, 2, 4, 12, 64}) {  // gather build lanes: 0 (auto), 1, 8, 16 or 32
    EscConfig c5;
    c5.gather_build_lanes = bad_lanes;
    EXPECT_THROW(EscSpgemm<Matrix>{c5}, std::invalid_argument) << bad_lanes;
  }
  {
    EscConfig c6;
    c6.gather_ordered_max = -1;
    EXPECT_THROW(EscSpgemm<Matrix>{c6}, std::invalid_argument);
    EscConfig c7;
    c7.numeric_fold_thread_mean = -1;
    EXPECT_THROW(EscSpgemm<Matrix>{c7}, std::invalid_argument);
  }
  for (int bad_lanes : {-2, 3, 12, 64}) {  // analysis lanes: -1 (session 30), 0 (auto), 1, 2, 4, 8, 16 or 32
    EscConfig c8;
    c8.plan_lanes = bad_lanes;
    EXPECT_THROW(EscSpgemm<Matrix>{c8}, std::invalid_argument) << bad_lanes;
  }
  for (int bad_lanes : {-1, 1, 4, 12, 64}) {  // warp-row lanes: 0 (auto), 8, 16 or 32
    EscConfig c4;
    c4.warp_row_lanes = bad_lanes;
    EXPECT_THROW(EscSpgemm<Matrix>{c4}, std::invalid_argument) << bad_lanes;
    EscConfig c5;
    c5.numeric_warp_row_lanes = bad_lanes;
    EXPECT_THROW(EscSpgemm<Matrix>{c5}, std::invalid_argument) << bad_lanes;
  }
}

TEST(EscSpgemm, RealMatricesSquareAndWithTransposeMatchReference) {
  const auto mats = real_matrices(60000);
  ASSERT_FALSE(mats.empty()) << "no real matrices under " << kkperm::test::matrices_dir();
  int checked = 0;
  EscConfig tiny;
  tiny.thread_max = 4;
  tiny.warp_max = 30;
  tiny.team_max = 200;
  for (const auto& [file, h] : mats) {
    const Host B = h.num_rows == h.num_cols ? h : transpose(h);
    if (kkperm::spgemm::reference_row_work(h, B).empty() && h.num_rows != 0) continue;
    const auto w = kkperm::spgemm::reference_row_work(h, B);
    if (std::accumulate(w.begin(), w.end(), std::int64_t(0)) > 3000000) continue;
    const auto ref = reference_multiply(h, B);
    const auto dA = kkperm::to_device<Matrix>(h), dB = kkperm::to_device<Matrix>(B);
    for (const auto& cfg : {EscConfig{}, tiny}) {
      EscSpgemm<Matrix> esc(cfg);
      esc.symbolic(dA, dB);
      poison_values(esc.C());
      esc.numeric(dA, dB);
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, file));
    }
    ++checked;
  }
  ::testing::Test::RecordProperty("real_matrices_checked", std::to_string(checked));
  EXPECT_GT(checked, 10);
}

// The flip bitonic network the CUDA kernels sort with (team_sort_n with 64-bit indices, the
// warp-row fill with 32-bit ones): host backends heap-sort instead, so the network itself is
// checked here by running its comparators step by step exactly as a team would (every comparator
// of a step, then the next step), on random lengths that are and are not powers of two, with
// duplicates, carrying values, for both index types.
template <class I>
void check_flip_bitonic_network(std::mt19937_64& rng) {
  for (I n : {0, 1, 2, 3, 5, 7, 8, 9, 31, 64, 100, 127, 129, 1000, 4097}) {
    std::vector<int> keys(static_cast<std::size_t>(n));
    for (auto& k : keys) k = static_cast<int>(rng() % static_cast<std::uint64_t>(n / 2 + 1));
    std::vector<int> vals(keys.size());
    for (std::size_t t = 0; t < vals.size(); ++t) vals[t] = keys[t] * 7 + 3;  // tied to its key
    auto expect = keys;
    std::sort(expect.begin(), expect.end());
    const I P = static_cast<I>(kkperm::spgemm::esc_impl::next_pow2(n > 0 ? n : 1));
    for (I size = 2; size <= P; size <<= 1)
      for (I stride = size >> 1; stride > 0; stride >>= 1)
        for (I t = 0; t < P / 2; ++t)
          kkperm::spgemm::esc_impl::flip_bitonic_step(keys.data(), vals.data(), n, size, stride, t, true);
    EXPECT_EQ(keys, expect) << "n = " << n << ", index bytes " << sizeof(I);
    for (std::size_t t = 0; t < vals.size(); ++t) ASSERT_EQ(vals[t], keys[t] * 7 + 3) << "n = " << n;
  }
}

TEST(EscSpgemm, FlipBitonicNetworkSortsAnyLength) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  check_flip_bitonic_network<std::int64_t>(rng);
  check_flip_bitonic_network<int>(rng);
}

// The 32-bit open-addressing insert of the warp-row kernels (a host loop stands in for the lanes:
// the CAS is the same): every distinct column is reported inserted exactly once, the table then
// holds exactly the distinct columns, at load up to the kernels' 0.8, including columns that
// share their low bits (multiples of the table size) and columns near 2^31.
TEST(EscSpgemm, HashInsert32KeepsEachColumnOnce) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int F : {1, 2, 7, 32, 74, 100, 500, 736}) {
    int H = 1;
    while (H < F + (F >> 2) + 1) H <<= 1;
    for (int pattern = 0; pattern < 3; ++pattern) {
      std::vector<int> cols(static_cast<std::size_t>(F));
      for (int t = 0; t < F; ++t) {
        const int r = static_cast<int>(rng() % static_cast<std::uint64_t>(F));  // duplicates
        cols[static_cast<std::size_t>(t)] = pattern == 0 ? r : (pattern == 1 ? r * H : 2147483647 - r);
      }
      std::vector<int> table(static_cast<std::size_t>(H), -1);
      int inserted = 0;
      for (int c : cols) inserted += kkperm::spgemm::esc_impl::hash_insert32(table.data(), H, c, -1);
      std::set<int> distinct(cols.begin(), cols.end());
      std::set<int> held;
      for (int c : table)
        if (c != -1) EXPECT_TRUE(held.insert(c).second) << "column " << c << " twice, F = " << F;
      EXPECT_EQ(inserted, static_cast<int>(distinct.size())) << "F = " << F << ", pattern " << pattern;
      EXPECT_EQ(held, distinct) << "F = " << F << ", pattern " << pattern;
    }
  }
}

// A C row with more than 65536 entries needs 32-bit slots (16-bit otherwise): row 0 of A touches
// ten B rows that together cover 70000 distinct columns (global bin, one row of C with 70000
// entries); the other rows are small. Fresh product and reuse after a value change.
TEST(EscSpgemm, SlotMapWideRowsUse32BitSlots) {
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  const int m = 70000;
  std::vector<int> perm_cols(m);
  std::iota(perm_cols.begin(), perm_cols.end(), 0);
  std::shuffle(perm_cols.begin(), perm_cols.end(), rng);
  Host B;
  B.num_rows = 10;
  B.num_cols = m;
  B.row_map.assign(11, 0);
  for (int k = 0; k < 10; ++k) {
    std::vector<int> cols(perm_cols.begin() + k * 7000, perm_cols.begin() + (k + 1) * 7000);
    std::sort(cols.begin(), cols.end());
    for (int c : cols) {
      B.entries.push_back(c);
      B.values.push_back(val(rng));
    }
    B.row_map[k + 1] = static_cast<int>(B.entries.size());
  }
  Host A = random_csr(5, 10, 0, 2, seed + 1);
  Host A0;  // row 0 = all ten B rows, then A's rows
  A0.num_rows = 6;
  A0.num_cols = 10;
  A0.row_map.assign(7, 0);
  for (int k = 0; k < 10; ++k) {
    A0.entries.push_back(k);
    A0.values.push_back(val(rng));
  }
  A0.row_map[1] = 10;
  for (int i = 0; i < 5; ++i) {
    for (int p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
      A0.entries.push_back(A.entries[p]);
      A0.values.push_back(A.values[p]);
    }
    A0.row_map[i + 2] = static_cast<int>(A0.entries.size());
  }
  const auto dA = kkperm::to_device<Matrix>(A0), dB = kkperm::to_device<Matrix>(B);
  const auto A2 = revalue(A0, seed + 2), B2 = revalue(B, seed + 3);
  for (auto order : {EscOutputOrder::direct, EscOutputOrder::permuted_then_restore})
  for (const bool gather : {true, false})
  for (const bool lazy : {true, false}) {
    EscConfig cfg;
    cfg.output_order = order;
    cfg.lazy_slot_map = lazy;
    if (!gather) cfg.gather_plan_limit_bytes = 0;  // the 32-bit slot kernels themselves
    EscSpgemm<Matrix> esc(cfg);
    esc.symbolic(dA, dB);
    EXPECT_EQ(esc.stats().slot_width, lazy ? 0 : 4);
    EXPECT_GE(esc.stats().bin_rows[3], 1);  // row 0 (and rows of A touching 7000-entry B rows)
    for (int n = 0; n < (lazy ? 2 : 1); ++n) {  // lazy: the second numeric makes the slot map
      poison_values(esc.C());
      esc.numeric(dA, dB);
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), reference_multiply(A0, B), "wide row"));
    }
    EXPECT_EQ(esc.stats().slot_width, 4);
    poison_values(esc.C());
    esc.numeric(kkperm::to_device<Matrix>(A2), kkperm::to_device<Matrix>(B2));
    EXPECT_EQ(esc.stats().numeric_used_gather, gather);  // built from the 32-bit slot map
    EXPECT_EQ(esc.stats().numeric_used_slots, !gather);
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), reference_multiply(A2, B2),
                                  "wide row, reuse"));
  }
  // every other product here has rows of ≤ 65536 entries: 16-bit slots
  EscConfig eager;
  eager.lazy_slot_map = false;
  EscSpgemm<Matrix> small(eager);
  small.symbolic(kkperm::to_device<Matrix>(A), dB);
  if (small.stats().sum_work > 0) EXPECT_EQ(small.stats().slot_width, 2);
}

// 64-bit offsets (size_type = int64): the path that lets nnz(C) exceed 2^31 - 1 on a device
// that holds it. A CPU cannot hold such a product, so the same kernels are checked here on small
// products through the int64-offset type, every config (bins, permuted output, slot map/search),
// fresh and after a value change.
TEST(EscSpgemm, Offset64ProductsMatchReference) {
  using Matrix64 = kkperm::Crs<double, int, kkperm::DefaultDevice, std::int64_t>;
  const auto seed = kkperm::test::fresh_seed();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  const auto hA = random_csr(220, 180, 0, 14, seed);
  const auto hB = random_csr(180, 240, 0, 40, seed + 1);
  const auto ref = reference_multiply(hA, hB);
  const auto hA2 = revalue(hA, seed + 2), hB2 = revalue(hB, seed + 3);
  const auto ref2 = reference_multiply(hA2, hB2);
  const auto A = kkperm::to_device<Matrix64>(hA), B = kkperm::to_device<Matrix64>(hB);
  for (const auto& [name, cfg] : configs()) {
    EscSpgemm<Matrix64> esc(cfg);
    esc.symbolic(A, B);
    static_assert(sizeof(decltype(esc.C().graph.row_map(0))) == 8, "64-bit offsets");
    Kokkos::deep_copy(esc.C().values, kkperm::test::poison<double>());
    esc.numeric(A, B);
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, "int64 offsets [" + name + "]"));
    expect_numeric_path(esc, cfg, "int64 offsets [" + name + "]");
    Kokkos::deep_copy(esc.C().values, kkperm::test::poison<double>());
    esc.numeric(kkperm::to_device<Matrix64>(hA2), kkperm::to_device<Matrix64>(hB2));
    expect_reuse_path(esc, "int64 reuse [" + name + "]", cfg.lazy_slot_map);
    EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref2, "int64 reuse [" + name + "]"));
  }
}

// nnz(C) that overflows 32-bit offsets is refused with EscCapacityError before C is allocated;
// the memory limit too, stating the bytes needed.
TEST(EscSpgemm, CapacityErrorsStateWhatIsNeeded) {
  const auto S = kkperm::to_device<Matrix>(random_csr(40, 40, 2, 6, 8));
  EscConfig small;
  small.memory_limit_bytes = 64;
  EscSpgemm<Matrix> tiny(small);
  try {
    tiny.symbolic(S, S);
    ADD_FAILURE() << "memory limit not enforced";
  } catch (const kkperm::spgemm::EscCapacityError& e) {
    EXPECT_NE(std::string(e.what()).find("bytes in all"), std::string::npos) << e.what();
  }
  // memory limit between the product's needs without and with a slot map: C is built, the slot
  // map is left out (numeric searches) instead of failing; with lazy_slot_map (the default) the
  // slot map is made, or left out, by the second numeric
  const auto hS = kkperm::to_host(S), hS2 = revalue(hS, 99);
  const auto S2 = kkperm::to_device<Matrix>(hS2);
  const auto ref = reference_multiply(hS, hS), ref2 = reference_multiply(hS2, hS2);
  for (const bool lazy : {true, false}) {
    const std::string mode = lazy ? " (lazy slot map)" : " (eager slot map)";
    const int makes = lazy ? 2 : 1;  // numerics up to and including the one that makes the slot map
    EscConfig base;
    base.lazy_slot_map = lazy;
    EscSpgemm<Matrix> probe(base);
    probe.symbolic(S, S);
    const std::size_t peak_sym = probe.stats().peak_bytes;  // eager: with the slot map
    for (int n = 0; n < makes; ++n) probe.numeric(S, S);
    const std::size_t slot = probe.stats().slot_bytes;
    ASSERT_GT(slot, 0u) << mode;
    const std::size_t plain = lazy ? peak_sym : peak_sym - slot;  // plan + C + buffers
    ASSERT_EQ(probe.stats().peak_bytes, plain + slot) << mode;
    // symbolic and makes + 1 poisoned numerics of X·X under `limit`, `check` after each
    const auto under_limit = [&](std::size_t limit, const Matrix& X, const auto& check) {
      EscConfig cfg = base;
      cfg.memory_limit_bytes = limit;
      EscSpgemm<Matrix> esc(cfg);
      esc.symbolic(X, X);
      for (int n = 0; n <= makes; ++n) {
        poison_values(esc.C());
        esc.numeric(X, X);
        check(esc, n);
      }
    };
    under_limit(plain + slot / 2, S, [&](const EscSpgemm<Matrix>& esc, int) {
      EXPECT_EQ(esc.stats().slot_bytes, 0u) << mode;
      EXPECT_FALSE(esc.stats().numeric_used_slots || esc.stats().numeric_used_gather) << mode;
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref, "no slot map under the memory limit" + mode));
    });
    // memory limit that admits the slot map but not the gather plan: numeric stays on the slot map
    probe.numeric(S, S);
    ASSERT_GT(probe.stats().gather_bytes, 0u) << mode;
    under_limit(plain + slot + probe.stats().gather_bytes / 2, S2, [&](const EscSpgemm<Matrix>& esc, int n) {
      if (n < makes) return;  // the slot map is complete from here on
      EXPECT_GT(esc.stats().slot_bytes, 0u) << mode;
      EXPECT_TRUE(esc.stats().numeric_used_slots) << mode;
      EXPECT_FALSE(esc.stats().numeric_used_gather) << mode;
      EXPECT_EQ(esc.stats().gather_bytes, 0u) << mode;
      EXPECT_TRUE(matches_reference(kkperm::to_host(esc.C()), ref2, "no gather plan under the memory limit" + mode));
    });
  }
}
