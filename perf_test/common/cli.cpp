#include "common/cli.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "kkperm/core/error.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/timing.hpp"
#include "kkperm/core/types.hpp"
#include "kkperm/core/version.hpp"
#include "kkperm/gen/generators.hpp"
#include "kkperm/io/matrix_market.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace kkperm::perf {
namespace fs = std::filesystem;

namespace {

std::string shell_quote(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-_=./:,+@%") == std::string::npos)
    return a;
  std::string q = "'";
  for (char c : a) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

int parse_int(const std::string& tool, const std::string& flag, const std::string& v, int lo) {
  std::size_t pos = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  KKPERM_REQUIRE(pos == v.size() && !v.empty(),
                 tool << ": " << flag << " expects an integer, got '" << v << "'");
  KKPERM_REQUIRE(x >= lo && x <= 1000000000LL,
                 tool << ": " << flag << " must be in [" << lo << ", 1e9], got " << x);
  return static_cast<int>(x);
}

bool is_matrix_file(const fs::path& p) {
  const std::string n = p.filename().string();
  auto ends = [&](const std::string& s) {
    return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".mtx") || ends(".mtx.gz");
}

std::string matrix_name(const fs::path& p) {
  std::string n = p.filename().string();
  for (const std::string s : {".mtx.gz", ".mtx"})
    if (n.size() > s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0)
      return n.substr(0, n.size() - s.size());
  return n;
}

}  // namespace

std::vector<std::string> split_list(const std::string& s, const std::string& what) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, ',')) {
    KKPERM_REQUIRE(!cur.empty(), what << ": empty item in list '" << s << "'");
    out.push_back(cur);
  }
  KKPERM_REQUIRE(!out.empty(), what << ": empty list");
  return out;
}

std::string Options::get(const std::string& flag, const std::string& fallback) const {
  auto it = extra.find(flag);
  return it == extra.end() ? fallback : it->second;
}

double Options::get_double(const std::string& flag, double fallback) const {
  auto it = extra.find(flag);
  if (it == extra.end()) return fallback;
  std::size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(it->second, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  KKPERM_REQUIRE(pos == it->second.size() && !it->second.empty(),
                 "perf_test: " << flag << " expects a number, got '" << it->second << "'");
  return v;
}

std::string usage(const ToolSpec& spec) {
  std::ostringstream os;
  os << spec.name << ": " << spec.description << "\n\n"
     << "Usage: " << spec.name << " [--amtx FILE|DIR]... [--gen SPEC]... [options]\n\n"
     << "Matrices (at least one; run in the order given):\n"
     << "  --amtx FILE|DIR     Matrix Market file (.mtx/.mtx.gz); a directory adds all of them\n"
     << "  --gen SPEC          generated matrix, e.g. laplace2d:nx=1000,ny=1000\n"
     << "Timing:\n"
     << "  --repeat N          timed repetitions, median reported (default 20)\n"
     << "  --warmup N          untimed warm-up calls (default 5)\n"
     << "  --budget-ms MS      per measurement: stop repeating once the timed samples add up to\n"
     << "                      MS (at least 3 samples; warm-up cut to one call when that call\n"
     << "                      took over MS/4); 0 = off (default). Records keep the sample count\n"
     << "  --cuda DEV          CUDA device id (CUDA builds)\n"
     << "Selection:\n"
     << "  --candidates LIST   'all' (default) or comma-separated candidate names\n"
     << "  --K N[,N...]        dense columns (SpMM), default 1\n"
     << "  --layout left|right dense layout (SpMM), default left\n"
     << "Output:\n"
     << "  --json FILE         JSON {meta: {device, date, command, ...}, results: [...]}\n"
     << "  --csv FILE          CSV with '# key: value' header lines (device, date, command)\n"
     << "  --help              this text\n";
  if (!spec.extra_flags.empty()) {
    os << spec.name << " options:\n";
    for (const auto& f : spec.extra_flags) {
      std::string lhs = f.name + (f.value_name.empty() ? "" : " " + f.value_name);
      os << "  " << std::left << std::setw(20) << lhs << f.help;
      if (!f.default_value.empty()) os << " (default " << f.default_value << ")";
      os << "\n";
    }
  }
  os << "Environment:\n"
     << "  KKPERM_TEAM_CARVEOUT fit|kokkos|PERCENT: shared-memory carveout of kkperm's team kernels\n"
     << "                      on CUDA (default fit: the least shared memory that keeps each launch's\n"
     << "                      occupancy; kokkos: Kokkos 3.4's prefer-shared)\n";
  os << "Arguments starting with --kokkos- are passed to Kokkos.\n";
  os << "\nGenerator families (--gen):\n" << kkperm::gen::spec_help() << "\n";
  return os.str();
}

Options parse_cli(int argc, char** argv, const ToolSpec& spec) {
  Options opt;
  const std::string& tool = spec.name;
  for (int i = 0; i < argc; ++i) {
    if (i) opt.command_line += ' ';
    opt.command_line += shell_quote(argv[i]);
  }
  for (const auto& f : spec.extra_flags)
    if (!f.default_value.empty()) opt.extra[f.name] = f.default_value;
  bool candidates_all = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--kokkos-", 0) == 0) {
      opt.kokkos_args.push_back(arg);
      continue;
    }
    std::string flag = arg, value;
    bool has_inline = false;
    const auto eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_inline = true;
    }
    auto next = [&]() -> std::string {
      if (has_inline) return value;
      KKPERM_REQUIRE(i + 1 < argc, tool << ": " << flag << " needs a value");
      return std::string(argv[++i]);
    };
    if (flag == "--help" || flag == "-h") {
      opt.help = true;
    } else if (flag == "--amtx") {
      const std::string v = next();
      const fs::path p(v);
      std::error_code ec;
      KKPERM_REQUIRE(fs::exists(p, ec), tool << ": --amtx " << v << ": no such file or directory");
      if (fs::is_directory(p, ec)) {
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(p))
          if (e.is_regular_file() && is_matrix_file(e.path())) files.push_back(e.path());
        std::sort(files.begin(), files.end());
        KKPERM_REQUIRE(!files.empty(), tool << ": --amtx " << v << ": directory has no .mtx/.mtx.gz");
        for (const auto& f : files)
          opt.sources.push_back({MatrixSource::Kind::file, f.string(), matrix_name(f)});
      } else {
        opt.sources.push_back({MatrixSource::Kind::file, v, matrix_name(p)});
      }
    } else if (flag == "--gen") {
      const std::string v = next();
      KKPERM_REQUIRE(!v.empty(), tool << ": --gen needs a non-empty spec");
      opt.sources.push_back({MatrixSource::Kind::gen, v, v});
    } else if (flag == "--repeat") {
      opt.repeat = parse_int(tool, flag, next(), 1);
    } else if (flag == "--warmup") {
      opt.warmup = parse_int(tool, flag, next(), 0);
    } else if (flag == "--budget-ms") {
      opt.budget_ms = parse_int(tool, flag, next(), 0);
    } else if (flag == "--cuda") {
      opt.cuda_device = parse_int(tool, flag, next(), 0);
      opt.cuda_device_given = true;
    } else if (flag == "--candidates") {
      const std::string v = next();
      if (v == "all") {
        candidates_all = true;
        opt.candidates.clear();
      } else {
        for (auto& c : split_list(v, tool + ": --candidates")) opt.candidates.push_back(c);
      }
    } else if (flag == "--K") {
      opt.K.clear();
      for (auto& k : split_list(next(), tool + ": --K"))
        opt.K.push_back(parse_int(tool, flag, k, 1));
    } else if (flag == "--layout") {
      opt.layout = next();
      KKPERM_REQUIRE(opt.layout == "left" || opt.layout == "right",
                     tool << ": --layout must be 'left' or 'right', got '" << opt.layout << "'");
    } else if (flag == "--json") {
      opt.json_path = next();
    } else if (flag == "--csv") {
      opt.csv_path = next();
    } else {
      auto it = std::find_if(spec.extra_flags.begin(), spec.extra_flags.end(),
                             [&](const ExtraFlag& f) { return f.name == flag; });
      KKPERM_REQUIRE(it != spec.extra_flags.end(),
                     tool << ": unknown argument '" << arg << "' (see --help)");
      if (it->value_name.empty()) {
        KKPERM_REQUIRE(!has_inline, tool << ": " << flag << " takes no value");
        opt.extra[flag] = "1";
      } else {
        opt.extra[flag] = next();
      }
    }
  }
  if (candidates_all && !opt.candidates.empty()) opt.candidates.clear();
  kkperm::team_carveout_mode();  // a bad KKPERM_TEAM_CARVEOUT is refused here, naming the variable
  if (!opt.help && !opt.has("--list"))  // --list only names the candidates
    KKPERM_REQUIRE(!opt.sources.empty(),
                   tool << ": no matrix given (use --amtx FILE|DIR and/or --gen SPEC; --help)");
  return opt;
}

bool selected(const Options& opt, const std::string& name) {
  return opt.candidates.empty() ||
         std::find(opt.candidates.begin(), opt.candidates.end(), name) != opt.candidates.end();
}

KokkosSession::KokkosSession(const Options& opt) {
  if (Kokkos::is_initialized()) return;
  std::vector<std::string> args = {"kkperm"};
  for (const auto& a : opt.kokkos_args) args.push_back(a);
  if (opt.cuda_device_given) args.push_back("--kokkos-device-id=" + std::to_string(opt.cuda_device));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  Kokkos::initialize(argc, argv.data());
  owns_ = true;
}

KokkosSession::~KokkosSession() {
  if (owns_ && Kokkos::is_initialized()) Kokkos::finalize();
}

HostCsr<double, int, std::int64_t> load_matrix(const MatrixSource& src) {
  if (src.kind == MatrixSource::Kind::file) {
    return kkperm::io::read_matrix_market(src.spec);
  }
  return kkperm::gen::from_spec(src.spec);
}

void progress(std::size_t index, std::size_t count, const std::string& name,
              const std::string& detail) {
  std::cerr << "[" << (index + 1) << "/" << count << "] " << name;
  if (!detail.empty()) std::cerr << "  " << detail;
  std::cerr << std::endl;
}

std::string device_name() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value) {
    int dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
      return std::string(prop.name) + " (device " + std::to_string(dev) + ", sm_" +
             std::to_string(prop.major) + std::to_string(prop.minor) + ")";
    return "CUDA device (name unavailable)";
  }
#endif
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto c = line.find(':');
      if (c != std::string::npos)
        return std::string(Kokkos::DefaultExecutionSpace::name()) + " on " + line.substr(c + 2);
    }
  }
  return std::string(Kokkos::DefaultExecutionSpace::name()) + " on host CPU";
}

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S%z", &tm);
  return buf;
}

ResultWriter::ResultWriter(const Options& opt, const ToolSpec& spec)
    : json_path_(opt.json_path), csv_path_(opt.csv_path) {
  meta_["tool"] = spec.name;
  meta_["device"] = device_name();
  meta_["execution_space"] = Kokkos::DefaultExecutionSpace::name();
  meta_["date"] = now_iso8601();
  meta_["command"] = opt.command_line;
  meta_["kkperm_version"] = kkperm::version();
  meta_["build"] = kkperm::build_info();
  meta_["team_carveout"] = kkperm::team_carveout_name();
  meta_["repeat"] = opt.repeat;
  meta_["warmup"] = opt.warmup;
  meta_["budget_ms"] = opt.budget_ms;
}

void ResultWriter::add(const nlohmann::json& record) { records_.push_back(record); }

double measure_copy_gbs(int repeat) {
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename kkperm::DefaultDevice::memory_space>::accessible;
  const std::size_t bytes = host ? (std::size_t(1) << 27) : (std::size_t(1) << 30);
  const std::size_t n = bytes / sizeof(double);
  Kokkos::View<double*, kkperm::DefaultDevice> a("kkperm::peak::a", n), b("kkperm::peak::b", n);
  Kokkos::deep_copy(a, 1.0);
  const auto s = kkperm::time_median(
      [&] { Kokkos::deep_copy(kkperm::DefaultExecSpace(), b, a); }, 2, std::max(3, repeat));
  return 2.0 * static_cast<double>(bytes) / (s.median_ms * 1e-3) / 1e9;
}

std::vector<ExtraFlag> prep_flags() {
  return {{"--prep-repeat", "N", "fresh plans prepared per candidate; prep_ms is their median, the "
                                 "first one also reported as prep_first_ms", "3"},
          {"--prep-budget-ms", "MS", "stop preparing again once the prep samples add up to MS "
                                     "(at least one)", "2000"}};
}

PrepRepeat prep_repeat(const Options& opt, const std::string& tool) {
  PrepRepeat pr;
  const double n = opt.get_double("--prep-repeat", pr.repeat);
  KKPERM_REQUIRE(n >= 1 && n <= 1000 && n == std::floor(n),
                 tool << ": --prep-repeat must be an integer in [1, 1000], got " << opt.get("--prep-repeat"));
  pr.repeat = static_cast<int>(n);
  pr.budget_ms = opt.get_double("--prep-budget-ms", pr.budget_ms);
  KKPERM_REQUIRE(pr.budget_ms >= 0 && std::isfinite(pr.budget_ms),
                 tool << ": --prep-budget-ms must be a finite number >= 0, got " << opt.get("--prep-budget-ms"));
  return pr;
}

double median_of(std::vector<double> v) {
  KKPERM_REQUIRE(!v.empty(), "kkperm::perf::median_of: no samples");
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

bool peak_gbs_or_report(const Options& opt, ResultWriter& out, double& peak) {
  if (opt.has("--peak-gbs")) {
    try {
      peak = opt.get_double("--peak-gbs", 0.0);  // throws on a non-number
      KKPERM_REQUIRE(peak > 0, "perf_test: --peak-gbs must be a positive number of GB/s, got " << peak);
    } catch (const std::invalid_argument& e) {
      std::cerr << e.what() << "\n";
      return false;
    }
    out.set_meta("peak_gbs_source", "--peak-gbs");
  } else {
    peak = measure_copy_gbs(opt.repeat);
    out.set_meta("peak_gbs_source", "measured device-to-device copy (read+write bytes)");
  }
  out.set_meta("peak_gbs", peak);
  return true;
}

void ResultWriter::set_meta(const std::string& key, const nlohmann::json& value) {
  meta_[key] = value;
}

void ResultWriter::flush() const {
  if (!json_path_.empty()) {
    nlohmann::json doc;
    doc["meta"] = meta_;
    doc["results"] = records_;
    std::ofstream f(json_path_);
    KKPERM_REQUIRE(f.good(), meta_["tool"].get<std::string>() << ": cannot write --json "
                                                               << json_path_);
    f << doc.dump(1) << "\n";
  }
  if (!csv_path_.empty()) {
    std::vector<std::string> cols;
    std::set<std::string> seen;
    for (const auto& r : records_)
      for (auto it = r.begin(); it != r.end(); ++it)
        if (seen.insert(it.key()).second) cols.push_back(it.key());
    std::ofstream f(csv_path_);
    KKPERM_REQUIRE(f.good(), meta_["tool"].get<std::string>() << ": cannot write --csv "
                                                               << csv_path_);
    for (auto it = meta_.begin(); it != meta_.end(); ++it)
      f << "# " << it.key() << ": "
        << (it->is_string() ? it->get<std::string>() : it->dump()) << "\n";
    auto cell = [](const nlohmann::json& v) {
      std::string s = v.is_string() ? v.get<std::string>() : (v.is_null() ? "" : v.dump());
      if (s.find_first_of(",\"\n") != std::string::npos) {
        std::string q = "\"";
        for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
      }
      return s;
    };
    for (std::size_t c = 0; c < cols.size(); ++c) f << (c ? "," : "") << cols[c];
    f << "\n";
    for (const auto& r : records_) {
      for (std::size_t c = 0; c < cols.size(); ++c) {
        f << (c ? "," : "");
        auto it = r.find(cols[c]);
        if (it != r.end()) f << cell(*it);
      }
      f << "\n";
    }
  }
}

}  // namespace kkperm::perf
