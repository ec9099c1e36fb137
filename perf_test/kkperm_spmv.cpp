// kkperm_spmv: times every SpMV candidate of the registry on each matrix: prep ms (the median of
// --prep-repeat fresh prepares; the first, with the process's one-time costs, as prep_first_ms),
// median ms (device events after warm-up), GB/s against the CSR byte floor and % of a peak
// bandwidth, GFLOP/s and the max error against the serial double reference. JSON/CSV for the
// trainer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>

#include "common/cli.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/timing.hpp"
#include "kkperm/kernels/spmv/reference.hpp"
#include "kkperm/kernels/spmv/spmv_config.hpp"
#include "kkperm/select/spmv_candidates.hpp"

namespace {

using kkperm::perf::Options;

const kkperm::perf::ToolSpec kSpec = [] {
  kkperm::perf::ToolSpec spec{
    "kkperm_spmv",
    "times every SpMV candidate (y = alpha*A*x + beta*y) per matrix",
    {{"--peak-gbs", "X", "peak bandwidth in GB/s for '% of peak' (default: measured D2D copy)"},
     {"--precision", "f64|f32|both", "value type(s) to run", "f64"},
     {"--alpha", "A", "alpha", "1"},
     {"--beta", "B", "beta (0 = y not read; counts in the byte floor)", "0"},
     {"--seed", "S", "seed of the random x and y", "12345"},
     {"--list", "", "print the candidates available on this build and exit"}}};
  for (auto& f : kkperm::perf::prep_flags()) spec.extra_flags.push_back(f);
  return spec;
}();

template <class T>
void run_matrix(const Options& opt, const kkperm::perf::MatrixSource& src,
                const kkperm::HostCsr<double, int, std::int64_t>& g, double peak_gbs,
                kkperm::perf::ResultWriter& out) {
  using Matrix = kkperm::Crs<T, int, kkperm::DefaultDevice, int>;
  const char* tname = std::is_same<T, float>::value ? "f32" : "f64";
  const Matrix A = kkperm::to_device<Matrix>(g);
  kkperm::validate(A, "kkperm_spmv");
  const auto h = kkperm::to_host(A);
  const int n = h.num_rows, m = h.num_cols;
  const T alpha = static_cast<T>(opt.get_double("--alpha", 1.0));
  const T beta = static_cast<T>(opt.get_double("--beta", 0.0));
  std::mt19937_64 rng(static_cast<std::uint64_t>(opt.get_double("--seed", 12345)));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);

  Kokkos::View<T*, kkperm::DefaultDevice> x("x", m), y("y", n), y0("y0", n);
  auto hx = Kokkos::create_mirror_view(x);
  auto hy0 = Kokkos::create_mirror_view(y0);
  std::vector<double> xd(m), yref(n, 0.0);
  for (int j = 0; j < m; ++j) xd[j] = hx(j) = static_cast<T>(dist(rng));
  for (int i = 0; i < n; ++i) {
    hy0(i) = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(dist(rng));
    yref[i] = beta == T(0) ? 0.0 : static_cast<double>(hy0(i));
  }
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y0, hy0);
  kkperm::spmv::csr_reference<double>(h, alpha, xd, beta, yref);
  const auto mag = kkperm::spmv::abs_row_products<double>(h, xd);
  const nlohmann::json matrix_fields = kkperm::perf::matrix_record(src, h);

  const auto prep = kkperm::perf::prep_repeat(opt, "kkperm_spmv");  // checked in main
  for (auto c : kkperm::all_spmv_candidates()) {
    const std::string cname = kkperm::to_string(c);
    if (!kkperm::perf::selected(opt, cname)) continue;
    const auto& inf = kkperm::info(c);
    nlohmann::json r = matrix_fields;
    r["value_type"] = tname;
    r["candidate"] = cname;
    r["kernel"] = inf.kernel;
    r["permutation"] = inf.permutation;
    r["format"] = kkperm::to_string(inf.format);
    r["alpha"] = static_cast<double>(alpha);
    r["beta"] = static_cast<double>(beta);
    if (!kkperm::available(c)) {
      r["status"] = "unavailable";
      out.add(r);
      continue;
    }
    try {
      auto plan = kkperm::perf::timed_prepare(
          prep, [&] { return kkperm::make_spmv_plan<Matrix>(c); },
          [&](auto& p) { p->prepare(A); }, r);
      const double prep_ms = r["prep_ms"].get<double>();
      r["details"] = plan->details();
      r["extra_bytes"] = plan->extra_bytes();
      // Correctness run on a fresh copy of y0 (NaN-poisoned when beta == 0).
      Kokkos::deep_copy(y, y0);
      plan->run(alpha, x, beta, y);
      Kokkos::fence();
      auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      double max_abs = 0.0, max_rel = 0.0;
      for (int i = 0; i < n; ++i) {
        const double d = std::abs(static_cast<double>(hy(i)) - yref[i]);
        const double scale = std::abs(static_cast<double>(alpha)) * mag[i] +
                             std::abs(static_cast<double>(beta) *
                                      (beta == T(0) ? 0.0 : static_cast<double>(hy0(i))));
        if (!(d <= max_abs)) max_abs = std::isnan(d) ? INFINITY : d;
        const double rel = scale > 0 ? d / scale : d;
        if (!(rel <= max_rel)) max_rel = std::isnan(rel) ? INFINITY : rel;
      }
      r["max_abs_err"] = max_abs;
      r["max_rel_err"] = max_rel;  // relative to alpha*sum|a||x| + |beta*y0| per row
      // Timing: y keeps being updated in place (beta != 0) or overwritten (beta == 0); the
      // byte floor counts y read only when beta != 0.
      const auto s = kkperm::time_median([&] { plan->run(alpha, x, beta, y); }, opt.warmup,
                                         opt.repeat, opt.budget_ms);
      const double bytes = plan->bytes_moved(beta != T(0));
      r["median_ms"] = s.median_ms;
      r["min_ms"] = s.min_ms;
      r["max_ms"] = s.max_ms;
      r["mean_ms"] = s.mean_ms;
      r["clock"] = s.clock;
      r["bytes_floor"] = bytes;
      r["gbs"] = s.median_ms > 0 ? bytes / (s.median_ms * 1e-3) / 1e9 : 0.0;
      r["pct_peak"] = peak_gbs > 0 ? 100.0 * r["gbs"].get<double>() / peak_gbs : 0.0;
      // The candidate's own floor (< bytes_floor only for narrower-index formats, SELL16).
      const double own = plan->own_bytes(beta != T(0));
      r["own_bytes"] = own;
      r["pct_peak_own"] = peak_gbs > 0 && s.median_ms > 0
                              ? 100.0 * own / (s.median_ms * 1e-3) / 1e9 / peak_gbs
                              : 0.0;
      r["gflops"] = s.median_ms > 0
                        ? kkperm::spmv_flops(h.nnz()) / (s.median_ms * 1e-3) / 1e9
                        : 0.0;
      r["samples_ms"] = s.samples_ms;
      if (const auto* P = plan->permuted_matrix()) {
        // Row-permuted candidate: also the time in permuted space (a solver that keeps its
        // vectors permuted pays no x gather; y is not scattered in either mode).
        Kokkos::View<T*, kkperm::DefaultDevice> xp("xp", m), yp("yp", n);
        if (P->symmetric()) P->to_permuted(x, xp);
        else Kokkos::deep_copy(xp, x);
        P->to_permuted(y, yp);
        const auto sp = kkperm::time_median([&] { plan->run_permuted(alpha, xp, beta, yp); },
                                            opt.warmup, opt.repeat, opt.budget_ms);
        r["median_ms_permuted_space"] = sp.median_ms;
      }
      r["status"] = "ok";
      std::printf("  %-4s %-28s prep %9.3f ms  median %9.4f ms  %8.2f GB/s (%5.1f%% of peak)  "
                  "%8.2f GFLOP/s  max_rel_err %.2e  %s\n",
                  tname, cname.c_str(), prep_ms, s.median_ms, r["gbs"].get<double>(),
                  r["pct_peak"].get<double>(), r["gflops"].get<double>(), max_rel,
                  plan->details().c_str());
    } catch (const kkperm::CandidateNotApplicable& e) {
      r["status"] = "skipped";
      r["reason"] = e.what();
      std::printf("  %-4s %-28s skipped: %s\n", tname, cname.c_str(), e.what());
    } catch (const std::exception& e) {
      r["status"] = "error";
      r["reason"] = e.what();
      std::printf("  %-4s %-28s ERROR: %s\n", tname, cname.c_str(), e.what());
    }
    std::fflush(stdout);
    out.add(r);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  try {
    opt = kkperm::perf::parse_cli(argc, argv, kSpec);
    if (opt.help) {
      std::cout << kkperm::perf::usage(kSpec);
      return 0;
    }
    for (const auto& c : opt.candidates) kkperm::spmv_candidate_from_string(c);  // validate
    const std::string prec = opt.get("--precision", "f64");
    if (prec != "f64" && prec != "f32" && prec != "both")
      throw std::invalid_argument("kkperm_spmv: --precision must be f64, f32 or both, got '" +
                                  prec + "'");
    (void)kkperm::perf::prep_repeat(opt, "kkperm_spmv");  // a bad --prep-* value: exit 2
  } catch (const std::invalid_argument& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  kkperm::perf::KokkosSession kokkos(opt);
  if (opt.has("--list")) {
    for (auto c : kkperm::all_spmv_candidates())
      std::cout << kkperm::to_string(c) << (kkperm::available(c) ? "" : " (unavailable)") << "  "
                << kkperm::info(c).description << "\n";
    return 0;
  }
  kkperm::perf::ResultWriter out(opt, kSpec);
  double peak = 0.0;
  if (!kkperm::perf::peak_gbs_or_report(opt, out, peak)) return 2;
  std::cerr << "kkperm_spmv on " << out.meta()["device"].get<std::string>() << ", peak "
            << peak << " GB/s" << std::endl;
  const std::string prec = opt.get("--precision", "f64");
  int failures = 0;
  for (std::size_t i = 0; i < opt.sources.size(); ++i) {
    const auto& src = opt.sources[i];
    try {
      double load_ms = 0;
      kkperm::HostCsr<double, int, std::int64_t> g;
      load_ms = kkperm::time_host_ms([&] { g = kkperm::perf::load_matrix(src); });
      kkperm::perf::progress(i, opt.sources.size(), src.name,
                             std::to_string(g.num_rows) + " x " + std::to_string(g.num_cols) +
                                 ", nnz " + std::to_string(g.nnz()) + ", loaded in " +
                                 std::to_string(static_cast<int>(load_ms)) + " ms");
      if (prec != "f32") run_matrix<double>(opt, src, g, peak, out);
      if (prec != "f64") run_matrix<float>(opt, src, g, peak, out);
    } catch (const std::exception& e) {
      ++failures;
      kkperm::perf::progress(i, opt.sources.size(), src.name, std::string("FAILED: ") + e.what());
      nlohmann::json r;
      r["matrix"] = src.name;
      r["source"] = src.spec;
      r["status"] = "error";
      r["reason"] = e.what();
      out.add(r);
    }
    out.flush();
  }
  out.flush();
  return failures ? 1 : 0;
}
