// kkperm_spgemm: times every SpGEMM candidate of the registry on A², AP and R(AP) (P a
// smoothed-aggregation prolongator of A, R = Pᵀ): symbolic, first numeric, numeric-reuse median
// (device events after warm-up), reorder and restore times separately, nnz(C), Σ|C| checksum, and
// the byte floor (A, B read once, C written once) with the setup's and re-setup's % of its rate.
// Candidates the guard skips are recorded with the reason. JSON/CSV for the trainer.
#include <algorithm>
#include <iostream>

#include "common/cli.hpp"
#include "kkperm/kernels/spgemm/amg.hpp"
#include "spgemm_bench.hpp"

namespace {
using Matrix = kkperm::Crs<double, int, kkperm::DefaultDevice, int>;
using Matrix64 = kkperm::Crs<double, int, kkperm::DefaultDevice, std::int64_t>;

/// time_product with the offset width --offsets asks for (recorded as offset_bits).
nlohmann::json time_any(const kkperm::perf::Options& opt, kkperm::SpgemmCandidate c,
                        const Matrix& A, const Matrix& B, const std::string& name,
                        const std::string& label, const kkperm::SpgemmPlanOptions& po, double peak) {
  nlohmann::json r;
  if (kkperm::perf::offset_bits_for(opt, c, A, B) == 64) {
    r = kkperm::perf::time_product(opt, c, kkperm::perf::with_offset64<Matrix64>(A),
                                   kkperm::perf::with_offset64<Matrix64>(B), name, label, po, peak);
    r["offset_bits"] = 64;
  } else {
    r = kkperm::perf::time_product(opt, c, A, B, name, label, po, peak);
    r["offset_bits"] = 32;
  }
  return r;
}

kkperm::perf::ToolSpec spec() {
  auto flags = kkperm::perf::spgemm_extra_flags();
  flags.push_back({"--products", "LIST", "products to time: A2, AP, RAP", "A2,AP,RAP"});
  flags.push_back({"--list", "", "print the candidates available on this build and exit"});
  return {"kkperm_spgemm", "times every SpGEMM candidate on A^2, AP and R(AP) per matrix", flags};
}
}  // namespace

int main(int argc, char** argv) {
  const auto tool = spec();
  kkperm::perf::Options opt;
  try {
    opt = kkperm::perf::parse_cli(argc, argv, tool);
  } catch (const std::invalid_argument& e) {
    std::cerr << e.what() << "\n" << kkperm::perf::usage(tool);
    return 2;
  }
  if (opt.help) {
    std::cout << kkperm::perf::usage(tool);
    return 0;
  }
  kkperm::perf::KokkosSession kokkos(opt);
  if (opt.has("--list")) {
    for (auto c : kkperm::spgemm_candidates()) std::cout << kkperm::to_string(c) << "\n";
    return 0;
  }
  const auto products = kkperm::perf::split_list(opt.get("--products"), "--products");
  kkperm::SpgemmPlanOptions po;
  if (!kkperm::perf::spgemm_options_or_report(opt, po)) return 2;
  kkperm::perf::ResultWriter out(opt, tool);
  out.set_meta("device", kkperm::perf::device_name());
  double peak = 0.0;
  if (!kkperm::perf::peak_gbs_or_report(opt, out, peak)) return 2;
  kkperm::perf::set_guard_meta(out, po);
  out.set_meta("esc_slot_map_limit_bytes", po.esc.slot_map_limit_bytes);
  out.set_meta("esc_team_bin_hash", po.esc.team_bin_hash);
  out.set_meta("esc_thresholds", {po.esc.thread_max, po.esc.warp_max, po.esc.team_max});
  // requested sizes; on CUDA each kernel clamps to its TeamPolicy::team_size_max
  out.set_meta("esc_team_sizes_requested",
               {po.esc.warp_team_size, po.esc.block_team_size, po.esc.global_team_size});
  int failures = 0;
  for (std::size_t i = 0; i < opt.sources.size(); ++i) {
    const auto& src = opt.sources[i];
    kkperm::perf::progress(i, opt.sources.size(), src.name);
    Matrix A;
    try {
      A = kkperm::to_device<Matrix>(kkperm::perf::load_matrix(src));
    } catch (const std::exception& e) {
      out.add({{"matrix", src.name}, {"status", "error"}, {"reason", e.what()}});
      out.flush();
      ++failures;
      continue;
    }
    Matrix P, R, AP;
    bool have_p = false;
    nlohmann::json setup{{"matrix", src.name}, {"product", "sa_setup"}};
    try {
      const bool need_p = std::find(products.begin(), products.end(), "AP") != products.end() ||
                          std::find(products.begin(), products.end(), "RAP") != products.end();
      if (need_p) {
        kkperm::amg::Aggregates<kkperm::DefaultDevice, int> agg;
        setup["aggregate_ms"] = kkperm::time_host_ms([&] { agg = kkperm::amg::aggregate_mis2(A); });
        Matrix Pt;
        setup["tentative_ms"] = kkperm::time_host_ms([&] {
          Pt = kkperm::amg::tentative_prolongator<Matrix>(agg.labels, agg.num_aggregates, A.numRows());
        });
        double omega = 0;
        setup["smooth_ms"] = kkperm::time_host_ms([&] {
          omega = kkperm::amg::jacobi_omega(A);
          P = kkperm::amg::smooth_prolongator(A, Pt, omega);
        });
        setup["transpose_ms"] = kkperm::time_host_ms([&] { R = kkperm::amg::transpose(P); });
        AP = kkperm::spgemm::esc_multiply(A, P);
        setup["aggregates"] = agg.num_aggregates;
        setup["omega"] = omega;
        setup["nnz_p"] = P.nnz();
        setup["status"] = "ok";
        have_p = true;
        out.add(setup);
      }
    } catch (const std::exception& e) {
      setup["status"] = "error";
      setup["reason"] = e.what();
      out.add(setup);
    }
    for (const auto& prod : products) {
      for (auto c : kkperm::spgemm_candidates()) {
        if (!kkperm::perf::selected(opt, kkperm::to_string(c))) continue;
        nlohmann::json r;
        if (prod == "A2") {
          r = time_any(opt, c, A, A, src.name, "A2", po, peak);
        } else if ((prod == "AP" || prod == "RAP") && have_p) {
          r = prod == "AP" ? time_any(opt, c, A, P, src.name, "AP", po, peak)
                           : time_any(opt, c, R, AP, src.name, "RAP", po, peak);
        } else {
          r = {{"matrix", src.name}, {"product", prod}, {"candidate", kkperm::to_string(c)},
               {"status", "error"}, {"reason", have_p ? "unknown product" : "no prolongator"}};
        }
        if (r["status"] == "error") ++failures;
        std::cerr << "  " << prod << " " << kkperm::to_string(c) << ": " << r["status"].get<std::string>();
        if (r["status"] == "ok")
          std::cerr << " sym " << r["symbolic_ms"].get<double>() << " ms, num "
                    << r["numeric_ms"].get<double>() << " ms, reuse "
                    << r["numeric_reuse_ms"].get<double>() << " ms, nnz(C) " << r["nnz_c"] << ", setup at "
                    << r.value("setup_pct_floor", 0.0) << " % of the byte floor";
        else
          std::cerr << " (" << r["reason"].get<std::string>() << ")";
        std::cerr << "\n";
        out.add(r);
        out.flush();
      }
    }
  }
  out.flush();
  return failures ? 1 : 0;
}
