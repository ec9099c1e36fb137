// Times feature sets 1 and 2 (separately and fused), set 3 (SpGEMM features of C = A·A, square A
// only; it validates A and B itself and counts nnz(C) on a row sample with the ESC symbolic
// pass), kkperm::validate(A) on its own, and every
// permutation build, in SpMV-equivalents (median time / median time of one KokkosSparse::spmv of
// the same matrix). Permutation builds run with validate_matrix = false (A validated once, timed
// as "validate") and include their host parts (LPT schedule, RCM, exact greedy), the device
// inverse + bijection check; the result stays on the device. "permuted_crs_<kind>" adds
// PermutedCrsMatrix::build (permuted structure + values) to a build. --json writes every record.
// Quality of the Hamming orders: "quality_<kind>" records carry the order's objective (total
// adjacent line-mask distance; intra-warp distance, rows p and p - Nw, for warp_aware and
// hybrid_2_3), the identity order's, and the exact greedy's when n_row <= --exact-max-rows.
#include <algorithm>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "common/cli.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/timing.hpp"
#include "kkperm/features/spgemm_features.hpp"
#include "kkperm/features/spmv_features.hpp"
#include "kkperm/permute/build.hpp"
#include "kkperm/permute/permuted_crs.hpp"
#include <KokkosSparse_spmv.hpp>

int main(int argc, char** argv) {
  using Matrix = kkperm::Crs<double, int, kkperm::DefaultDevice, std::int64_t>;
  kkperm::perf::ToolSpec spec{
      "kkperm_features", "Times feature sets and permutation builds in SpMV-equivalents",
      {{"--hamming", "MODE", "exact|windowed|automatic for the Hamming orders", "windowed"},
       {"--chunk", "C", "windowed: exact greedy within chunks of C rows (work ~ C * n_row)", "256"},
       {"--chunk-lines", "B", "windowed: cut chunks holding more than B distinct row lines (0 = off)", "1024"},
       {"--perms", "LIST", "all|none|comma list of permutations to build", "all"},
       {"--exact-max-rows", "N", "also build the exact O(n^2) greedy (host) for the quality records when n_row <= N", "0"},
       {"--row-lanes", "LIST", "also time sets 1+2 fused with each listed FeatureParams::row_lanes (1, 2, 4, ..., 32)", ""},
       {"--stage-cols", "LIST", "also time sets 1+2 fused, one lane per row, with each listed FeatureParams::row_stage_cols (0 = automatic)", ""},
       {"--row-pass", "LIST", "also time sets 1+2 fused with each listed FeatureParams::row_pass (automatic, entries, rows)", ""},
       {"--line-counts", "LIST",
        "also time sets 1+2 fused with each listed FeatureParams::line_counts (automatic, stripes, bitmap)", ""}}};
  try {
    auto opt = kkperm::perf::parse_cli(argc, argv, spec);
    if (opt.help) {
      std::cout << kkperm::perf::usage(spec);
      return 0;
    }
    kkperm::perf::KokkosSession kokkos(opt);
    kkperm::perf::ResultWriter out(opt, spec);
    kkperm::PermuteParams pp;
    const std::string mode = opt.get("--hamming", "windowed");
    pp.hamming = mode == "exact" ? kkperm::HammingMode::exact
               : mode == "automatic" ? kkperm::HammingMode::automatic : kkperm::HammingMode::windowed;
    pp.chunk_rows = static_cast<int>(opt.get_double("--chunk", pp.chunk_rows));
    pp.chunk_lines = static_cast<std::int64_t>(opt.get_double("--chunk-lines", static_cast<double>(pp.chunk_lines)));
    KKPERM_REQUIRE(pp.chunk_rows >= 1 && pp.chunk_lines >= 0,
                   "kkperm_features: --chunk must be >= 1 and --chunk-lines >= 0, got " << pp.chunk_rows << " and "
                                                                                        << pp.chunk_lines);
    pp.validate_matrix = false;  // validated once per matrix below, timed separately
    std::vector<kkperm::Permutation> perms;
    {
      const std::string list = opt.get("--perms", "all");
      if (list == "all") {
        perms = kkperm::all_permutations();
      } else if (list != "none") {
        for (const auto& name : kkperm::perf::split_list(list, "kkperm_features: --perms"))
          perms.push_back(kkperm::permutation_from_string(name));
      }
    }
    // Extra fused timings (--row-lanes, --stage-cols), parsed and checked once before any matrix.
    std::vector<std::pair<std::string, kkperm::FeatureParams>> fused_variants;
    auto add_variants = [&](const std::string& flag, const std::string& prefix, std::size_t max_digits,
                            const std::string& expected, auto&& set) {
      const std::string list = opt.get(flag, "");
      if (list.empty()) return;
      const std::string who = "kkperm_features: " + flag;
      for (const auto& item : kkperm::perf::split_list(list, who)) {
        KKPERM_REQUIRE(item.find_first_not_of("0123456789") == std::string::npos && item.size() <= max_digits,
                       who << ": '" << item << "' is not " << expected);
        kkperm::FeatureParams vp;
        set(vp, std::stoi(item));
        vp.check(who.c_str(), sizeof(double));
        fused_variants.emplace_back(prefix + item, vp);
      }
    };
    add_variants("--row-lanes", "features_sets12_fused_lanes", 2, "a power of two from 1 to 32",
                 [](kkperm::FeatureParams& vp, int v) { vp.row_lanes = v; });
    add_variants("--stage-cols", "features_sets12_fused_stage", 5, "0 or a column count in [33, 4096]",
                 [](kkperm::FeatureParams& vp, int v) {
                   vp.row_lanes = 1;
                   vp.row_stage_cols = v;
                 });
    // Named modes (--row-pass, --line-counts): each listed name must be one of `names`.
    auto add_named = [&](const std::string& flag, const std::string& prefix, const std::vector<std::string>& names,
                         auto&& set) {
      const std::string list = opt.get(flag, "");
      if (list.empty()) return;
      const std::string who = "kkperm_features: " + flag;
      for (const auto& item : kkperm::perf::split_list(list, who)) {
        std::string known;
        for (const auto& nm : names) known += (known.empty() ? "'" : ", '") + nm + "'";
        KKPERM_REQUIRE(std::find(names.begin(), names.end(), item) != names.end(),
                       who << ": '" << item << "' is not one of " << known);
        kkperm::FeatureParams vp;
        set(vp, item);
        fused_variants.emplace_back(prefix + item, vp);
      }
    };
    add_named("--row-pass", "features_sets12_fused_pass_", {"automatic", "entries", "rows"},
              [](kkperm::FeatureParams& vp, const std::string& item) {
                using RP = kkperm::FeatureParams::RowPass;
                vp.row_pass = item == "rows" ? RP::rows : item == "entries" ? RP::entries : RP::automatic;
              });
    add_named("--line-counts", "features_sets12_fused_lines_", {"automatic", "stripes", "bitmap"},
              [](kkperm::FeatureParams& vp, const std::string& item) {
                using LC = kkperm::FeatureParams::LineCounts;
                vp.line_counts = item == "stripes" ? LC::stripes : item == "bitmap" ? LC::bitmap : LC::automatic;
              });
    for (std::size_t s = 0; s < opt.sources.size(); ++s) {
      kkperm::perf::progress(s, opt.sources.size(), opt.sources[s].name);
      const auto h = kkperm::perf::load_matrix(opt.sources[s]);
      const auto A = kkperm::to_device<Matrix>(h);
      Kokkos::View<double*, Matrix::memory_space> x("x", A.numCols()), y("y", A.numRows());
      Kokkos::deep_copy(x, 1.0);
      const auto spmv = kkperm::time_median([&] { KokkosSparse::spmv("N", 1.0, A, x, 0.0, y); },
                                            opt.warmup, opt.repeat);
      auto record = [&](const std::string& what, const kkperm::TimingStats& t) {
        nlohmann::json r;
        r["matrix"] = opt.sources[s].name;
        r["n_rows"] = h.num_rows;
        r["nnz"] = h.nnz();
        r["what"] = what;
        r["median_ms"] = t.median_ms;
        r["spmv_median_ms"] = spmv.median_ms;
        r["spmv_equivalents"] = t.median_ms / spmv.median_ms;
        r["samples_ms"] = t.samples_ms;
        r["clock"] = t.clock;
        out.add(r);
        out.flush();
        std::cerr << "  " << what << ": " << t.median_ms << " ms = " << t.median_ms / spmv.median_ms
                  << " SpMV-eq\n";
      };
      const int bud = opt.budget_ms;
      record("spmv", spmv);
      record("validate", kkperm::time_median([&] { kkperm::validate(A, "kkperm_features"); }, opt.warmup, opt.repeat, bud));
      const kkperm::FeatureParams fp;
      record("features_set1_spmm", kkperm::time_median([&] { kkperm::spmv_features_raw(A, fp, kkperm::kSpmmSet); },
                                                       opt.warmup, opt.repeat, bud));
      record("features_set2_format", kkperm::time_median([&] { kkperm::spmv_features_raw(A, fp, kkperm::kFormatSet); },
                                                         opt.warmup, opt.repeat, bud));
      record("features_sets12_fused", kkperm::time_median([&] { kkperm::spmv_features_raw(A, fp, kkperm::kAllSpmvSets); },
                                                          opt.warmup, opt.repeat, bud));
      for (const auto& variant : fused_variants) {
        const kkperm::FeatureParams& vp = variant.second;
        record(variant.first, kkperm::time_median([&] { kkperm::spmv_features_raw(A, vp, kkperm::kAllSpmvSets); },
                                                  opt.warmup, opt.repeat, bud));
      }
      if (A.numRows() == A.numCols())
        record("features_set3_spgemm_AA",
               kkperm::time_median([&] { kkperm::spgemm_features(A, A); }, opt.warmup, opt.repeat, bud));
      const long exact_max = static_cast<long>(opt.get_double("--exact-max-rows", 0));
      const int cpl = fp.cols_per_line(sizeof(double));
      std::vector<int> identity(h.num_rows);
      for (int i = 0; i < h.num_rows; ++i) identity[i] = i;
      for (auto kind : perms) {
        if (kind == kkperm::Permutation::rcm && A.numRows() != A.numCols()) continue;
        const int reps = kkperm::is_hamming(kind) || kind == kkperm::Permutation::rcm ? std::max(1, opt.repeat / 4) : opt.repeat;
        decltype(kkperm::build_permutation(A, kind, pp)) built;  // the last timed build, for the quality record
        record("permute_" + kkperm::to_string(kind),
               kkperm::time_median([&] { built = kkperm::build_permutation(A, kind, pp); }, 1, reps, bud));
        if (kkperm::is_hamming(kind)) {
          const bool intra = kind == kkperm::Permutation::warp_aware || kind == kkperm::Permutation::hybrid_2_3;
          const int nw = pp.feature.warps_per_block;
          auto objective = [&](const std::vector<int>& perm) {
            return intra ? kkperm::total_intra_warp_distance(h, perm, cpl, nw)
                         : kkperm::total_adjacent_distance(h, perm, cpl);
          };
          nlohmann::json q;
          q["matrix"] = opt.sources[s].name;
          q["n_rows"] = h.num_rows;
          q["nnz"] = h.nnz();
          q["what"] = "quality_" + kkperm::to_string(kind);
          q["objective"] = intra ? "intra_warp_distance" : "adjacent_distance";
          q["hamming_mode"] = mode;
          q["order"] = objective(built.to_host().perm);
          q["identity"] = objective(identity);
          if (h.num_rows <= exact_max) {
            auto pe = pp;
            pe.hamming = kkperm::HammingMode::exact;
            q["exact"] = objective(kkperm::build_permutation(A, kind, pe).to_host().perm);
          }
          std::cerr << "  " << q["what"].get<std::string>() << ": " << q["objective"].get<std::string>() << " "
                    << q["order"] << " (identity " << q["identity"]
                    << (q.contains("exact") ? ", exact " + q["exact"].dump() : std::string()) << ")\n";
          out.add(q);
          out.flush();
        }
        if (kind == kkperm::Permutation::plain_sort || kind == kkperm::Permutation::lpt) {
          record("permuted_crs_" + kkperm::to_string(kind), kkperm::time_median([&] {
                   kkperm::PermutedCrsMatrix<Matrix> P;
                   P.build(A, kkperm::build_permutation(A, kind, pp), false);
                 }, 1, reps, bud));
        }
      }
    }
    out.flush();
  } catch (const std::exception& e) {
    std::cerr << "kkperm_features: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
