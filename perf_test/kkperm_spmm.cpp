// kkperm_spmm: times every SpMM candidate of the registry (Y = alpha*A*B + beta*Y, B with K
// columns) on each matrix and each K: prep ms (the median of --prep-repeat fresh prepares; the
// first, with the process's one-time costs, as prep_first_ms), median ms (device events after
// warm-up), GFLOP/s, GB/s against the CSR byte floor, and the max error against a double
// reference on a sample of columns. JSON/CSV for the trainer and scripts/gpu/bench_spmm.sh.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <random>

#include "common/cli.hpp"
#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/timing.hpp"
#include "kkperm/select/spmm_candidates.hpp"

namespace {

using kkperm::perf::Options;

const kkperm::perf::ToolSpec kSpec = [] {
  kkperm::perf::ToolSpec spec{
    "kkperm_spmm",
    "times every SpMM candidate (Y = alpha*A*B + beta*Y, B dense with K columns) per matrix",
    {{"--precision", "f64|f32|both", "value type(s) to run", "f64"},
     {"--alpha", "A", "alpha", "1"},
     {"--beta", "B", "beta (0 = Y not read; counts in the byte floor)", "0"},
     {"--seed", "S", "seed of the random B and Y", "12345"},
     {"--all-layouts", "", "run candidates of both layouts (default: only --layout's)"},
     {"--check-cols", "N", "columns of Y checked against the double reference (first, last, "
                           "random others)", "8"},
     {"--list", "", "print the candidates available on this build and exit"}}};
  for (auto& f : kkperm::perf::prep_flags()) spec.extra_flags.push_back(f);
  return spec;
}();

template <class T>
void run_matrix(const Options& opt, const kkperm::perf::MatrixSource& src,
                const kkperm::HostCsr<double, int, std::int64_t>& g, int K,
                kkperm::perf::ResultWriter& out) {
  using Matrix = kkperm::Crs<T, int, kkperm::DefaultDevice, int>;
  using Plan = kkperm::SpmmPlan<Matrix>;
  const char* tname = std::is_same<T, float>::value ? "f32" : "f64";
  const Matrix A = kkperm::to_device<Matrix>(g);
  kkperm::validate(A, "kkperm_spmm");
  const auto h = kkperm::to_host(A);  // values rounded to T, as the kernels see them
  const std::int64_t n = h.num_rows, m = h.num_cols;
  const T alpha = static_cast<T>(opt.get_double("--alpha", 1.0));
  const T beta = static_cast<T>(opt.get_double("--beta", 0.0));
  std::mt19937_64 rng(static_cast<std::uint64_t>(opt.get_double("--seed", 12345)) + K);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);

  // B and Y0 in both layouts (filled from one row-major host buffer).
  std::vector<T> Bv(static_cast<std::size_t>(m) * K), Y0v(static_cast<std::size_t>(n) * K);
  for (auto& v : Bv) v = static_cast<T>(dist(rng));
  for (auto& v : Y0v)
    v = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(dist(rng));
  auto fill = [&](auto& view, const std::vector<T>& src_v) {
    auto hv = Kokkos::create_mirror_view(view);
    for (std::size_t r = 0; r < hv.extent(0); ++r)
      for (std::size_t c = 0; c < hv.extent(1); ++c) hv(r, c) = src_v[r * K + c];
    Kokkos::deep_copy(view, hv);
  };

  // Double reference on a column sample: first, last and random others.
  const int ncheck = std::min<int>(K, std::max(1, static_cast<int>(opt.get_double("--check-cols", 8))));
  std::vector<int> cols;
  if (K > 0) {
    cols.push_back(0);
    if (K > 1) cols.push_back(K - 1);
    std::uniform_int_distribution<int> cd(0, K - 1);
    while (static_cast<int>(cols.size()) < ncheck) {
      const int c = cd(rng);
      if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    }
  }
  std::vector<double> yref(static_cast<std::size_t>(n) * cols.size()),
      scale(yref.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < cols.size(); ++j) {
      double s = 0, mag = 0;
      for (auto k = h.row_map[i]; k < h.row_map[i + 1]; ++k) {
        const double p = double(h.values[k]) * double(Bv[std::size_t(h.entries[k]) * K + cols[j]]);
        s += p;
        mag += std::abs(p);
      }
      const double y0 = beta == T(0) ? 0.0 : double(Y0v[std::size_t(i) * K + cols[j]]);
      yref[i * cols.size() + j] = double(alpha) * s + double(beta) * y0;
      scale[i * cols.size() + j] = std::abs(double(alpha)) * mag + std::abs(double(beta) * y0);
    }
  const nlohmann::json matrix_fields = kkperm::perf::matrix_record(src, h);

  typename Plan::y_left Yl, Y0l;
  typename Plan::y_right Yr, Y0r;
  Kokkos::View<T**, Kokkos::LayoutLeft, kkperm::DefaultDevice> Bl;
  Kokkos::View<T**, Kokkos::LayoutRight, kkperm::DefaultDevice> Br;
  const bool all_layouts = opt.has("--all-layouts");
  bool have_left = false, have_right = false;

  const auto prep = kkperm::perf::prep_repeat(opt, "kkperm_spmm");  // checked in main
  for (auto c : kkperm::all_spmm_candidates()) {
    const std::string cname = kkperm::to_string(c);
    const auto& inf = kkperm::info(c);
    if (!kkperm::perf::selected(opt, cname)) continue;
    if (!all_layouts && kkperm::to_string(inf.layout) != opt.layout) continue;
    nlohmann::json r = matrix_fields;
    r["value_type"] = tname;
    r["K"] = K;
    r["candidate"] = cname;
    r["kernel"] = inf.kernel;
    r["permutation"] = inf.permutation;
    r["format"] = kkperm::to_string(inf.format);
    r["layout"] = kkperm::to_string(inf.layout);
    r["alpha"] = static_cast<double>(alpha);
    r["beta"] = static_cast<double>(beta);
    if (!kkperm::available(c)) {
      r["status"] = "unavailable";
      out.add(r);
      continue;
    }
    try {
      auto plan = kkperm::perf::timed_prepare(
          prep, [&] { return kkperm::make_spmm_plan<Matrix>(c); },
          [&](auto& p) { p->prepare(A, K); }, r);
      const double prep_ms = r["prep_ms"].get<double>();
      r["details"] = plan->details();
      r["extra_bytes"] = plan->extra_bytes();
      const bool left = inf.layout == kkperm::SpmmLayout::left;
      // Dense operands of this layout, created on first use.
      if (left && !have_left) {
        have_left = true;
        Bl = decltype(Bl)("B", m, K);
        Yl = decltype(Yl)("Y", n, K);
        Y0l = decltype(Y0l)("Y0", n, K);
        fill(Bl, Bv);
        fill(Y0l, Y0v);
      }
      if (!left && !have_right) {
        have_right = true;
        Br = decltype(Br)("B", m, K);
        Yr = decltype(Yr)("Y", n, K);
        Y0r = decltype(Y0r)("Y0", n, K);
        fill(Br, Bv);
        fill(Y0r, Y0v);
      }
      auto run_once = [&] {
        if (left) plan->run(alpha, Bl, beta, Yl);
        else plan->run(alpha, Br, beta, Yr);
      };
      // Correctness run on a fresh copy of Y0 (NaN-poisoned when beta == 0).
      if (left) Kokkos::deep_copy(Yl, Y0l);
      else Kokkos::deep_copy(Yr, Y0r);
      run_once();
      Kokkos::fence();
      double max_abs = 0.0, max_rel = 0.0;
      auto check = [&](const auto& Yh) {
        for (std::int64_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j < cols.size(); ++j) {
            const std::size_t idx = i * cols.size() + j;
            const double d = std::abs(double(Yh(i, cols[j])) - yref[idx]);
            if (!(d <= max_abs)) max_abs = std::isnan(d) ? INFINITY : d;
            const double rel = scale[idx] > 0 ? d / scale[idx] : d;
            if (!(rel <= max_rel)) max_rel = std::isnan(rel) ? INFINITY : rel;
          }
      };
      if (left) check(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Yl));
      else check(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Yr));
      r["max_abs_err"] = max_abs;
      r["max_rel_err"] = max_rel;  // relative to |alpha| sum|a||b| + |beta y0| per entry
      r["checked_cols"] = cols.size();
      const auto s = kkperm::time_median(run_once, opt.warmup, opt.repeat, opt.budget_ms);
      const double bytes = plan->bytes_moved(beta != T(0));
      r["median_ms"] = s.median_ms;
      r["min_ms"] = s.min_ms;
      r["max_ms"] = s.max_ms;
      r["mean_ms"] = s.mean_ms;
      r["clock"] = s.clock;
      r["bytes_floor"] = bytes;
      r["gbs"] = s.median_ms > 0 ? bytes / (s.median_ms * 1e-3) / 1e9 : 0.0;
      r["gflops"] = s.median_ms > 0 ? plan->flops() / (s.median_ms * 1e-3) / 1e9 : 0.0;
      r["samples_ms"] = s.samples_ms;
      r["status"] = "ok";
      std::printf("  %-4s K=%-4d %-22s prep %9.3f ms  median %9.4f ms  %8.2f GFLOP/s  %8.2f GB/s"
                  "  max_rel_err %.2e  %s\n",
                  tname, K, cname.c_str(), prep_ms, s.median_ms, r["gflops"].get<double>(),
                  r["gbs"].get<double>(), max_rel, plan->details().c_str());
    } catch (const kkperm::CandidateNotApplicable& e) {
      r["status"] = "skipped";
      r["reason"] = e.what();
      std::printf("  %-4s K=%-4d %-22s skipped: %s\n", tname, K, cname.c_str(), e.what());
    } catch (const std::exception& e) {
      r["status"] = "error";
      r["reason"] = e.what();
      std::printf("  %-4s K=%-4d %-22s ERROR: %s\n", tname, K, cname.c_str(), e.what());
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
    for (const auto& c : opt.candidates) kkperm::spmm_candidate_from_string(c);  // validate
    for (int K : opt.K)
      if (K < 1 || K > 512)
        throw std::invalid_argument("kkperm_spmm: --K values must be in [1, 512], got " +
                                    std::to_string(K));
    const std::string prec = opt.get("--precision", "f64");
    if (prec != "f64" && prec != "f32" && prec != "both")
      throw std::invalid_argument("kkperm_spmm: --precision must be f64, f32 or both, got '" +
                                  prec + "'");
    (void)kkperm::perf::prep_repeat(opt, "kkperm_spmm");  // a bad --prep-* value: exit 2
  } catch (const std::invalid_argument& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  kkperm::perf::KokkosSession kokkos(opt);
  if (opt.has("--list")) {
    for (auto c : kkperm::all_spmm_candidates())
      std::cout << kkperm::to_string(c) << (kkperm::available(c) ? "" : " (unavailable)") << "  "
                << kkperm::info(c).description << "\n";
    return 0;
  }
  kkperm::perf::ResultWriter out(opt, kSpec);
  const std::string prec = opt.get("--precision", "f64");
  int failures = 0;
  for (std::size_t i = 0; i < opt.sources.size(); ++i) {
    const auto& src = opt.sources[i];
    kkperm::perf::progress(i, opt.sources.size(), src.name);
    try {
      const auto g = kkperm::perf::load_matrix(src);
      for (int K : opt.K) {
        if (prec == "f64" || prec == "both") run_matrix<double>(opt, src, g, K, out);
        if (prec == "f32" || prec == "both") run_matrix<float>(opt, src, g, K, out);
        out.flush();
      }
    } catch (const std::exception& e) {
      ++failures;
      std::cerr << "kkperm_spmm: " << src.name << ": " << e.what() << "\n";
      nlohmann::json r;
      r["matrix"] = src.name;
      r["source"] = src.spec;
      r["status"] = "error";
      r["reason"] = e.what();
      out.add(r);
      out.flush();
    }
  }
  out.flush();
  return failures == 0 ? 0 : 1;
}
