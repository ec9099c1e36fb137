#pragma once
/**
 * @brief The one command line shared by every kkperm perf_test, plus matrix loading, progress
 * lines and JSON/CSV result files that record device, date and the exact command line.
 *
 * Usage (in a perf_test main):
 *   kkperm::perf::ToolSpec spec{"kkperm_spmv", "Times every SpMV candidate", {{"--peak-gbs", "X",
 *                               "measured/declared peak GB/s for % of byte floor"}}};
 *   auto opt = kkperm::perf::parse_cli(argc, argv, spec);   // throws std::invalid_argument
 *   if (opt.help) { std::cout << kkperm::perf::usage(spec); return 0; }
 *   kkperm::perf::KokkosSession kokkos(opt);                  // honours --cuda DEV
 *   kkperm::perf::ResultWriter out(opt, spec);
 *   for (std::size_t i = 0; i < opt.sources.size(); ++i) {
 *     kkperm::perf::progress(i, opt.sources.size(), opt.sources[i].name);
 *     auto h = kkperm::perf::load_matrix(opt.sources[i]);
 *     ... out.add(record); out.flush();
 *   }
 *
 * Common flags: --amtx FILE|DIR (repeatable; a directory adds every *.mtx / *.mtx.gz in it,
 * sorted), --gen SPEC (repeatable, kkperm::gen::from_spec), --repeat N, --warmup N, --budget-ms MS, --cuda DEV,
 * --candidates all|A,B,C, --K N[,N...], --layout left|right, --json FILE, --csv FILE, --help.
 * Flags accept `--flag value` and `--flag=value`. Arguments starting with `--kokkos-` are left to
 * Kokkos. Anything else is an error naming the flag.
 */
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <Kokkos_Core.hpp>

#include "kkperm/core/host_csr.hpp"
#include "kkperm/core/timing.hpp"

namespace kkperm::perf {

/// A tool-specific flag (beyond the common ones); `value_name` empty means a boolean switch.
struct ExtraFlag {
  std::string name;        ///< e.g. "--peak-gbs"
  std::string value_name;  ///< e.g. "X"; empty for a switch
  std::string help;
  std::string default_value = {};
};

struct ToolSpec {
  std::string name;         ///< executable name, e.g. "kkperm_spmv"
  std::string description;  ///< one line
  std::vector<ExtraFlag> extra_flags = {};
};

/// One matrix to run on, from a file or a generator spec, in command-line order.
struct MatrixSource {
  enum class Kind { file, gen };
  Kind kind = Kind::file;
  std::string spec;  ///< path or generator spec
  std::string name;  ///< file name without .mtx/.mtx.gz, or the spec itself
};

struct Options {
  std::vector<MatrixSource> sources;
  int repeat = 20;
  int warmup = 5;
  int budget_ms = 0;  ///< --budget-ms: time budget per measurement (kkperm::time_median), 0 = off
  int cuda_device = 0;
  bool cuda_device_given = false;
  std::vector<std::string> candidates;  ///< empty = all
  std::vector<int> K = {1};
  std::string layout = "left";
  std::string json_path;
  std::string csv_path;
  bool help = false;
  std::map<std::string, std::string> extra;  ///< tool flags: name -> value ("1" for switches)
  std::string command_line;                  ///< argv joined, shell-quoted where needed
  std::vector<std::string> kokkos_args;      ///< --kokkos-* arguments, passed to Kokkos

  bool has(const std::string& flag) const { return extra.count(flag) != 0; }
  /// Value of a tool flag: the given one, else its ExtraFlag default, else `fallback`.
  std::string get(const std::string& flag, const std::string& fallback = "") const;
  double get_double(const std::string& flag, double fallback) const;
};

/// Parses argv. Throws std::invalid_argument ("kkperm_spmv: unknown flag --foo ...") on any
/// unknown flag, missing or malformed value, or unreadable --amtx path.
Options parse_cli(int argc, char** argv, const ToolSpec& spec);
/// The --help text (common flags + the tool's own).
std::string usage(const ToolSpec& spec);
/// Splits "a,b,c" (empty pieces are an error naming `what`).
std::vector<std::string> split_list(const std::string& s, const std::string& what);
/// True when `name` is selected by --candidates (empty list = all).
bool selected(const Options& opt, const std::string& name);

/// Keeps Kokkos initialised for main's scope, on device --cuda DEV when given.
class KokkosSession {
 public:
  explicit KokkosSession(const Options& opt);
  ~KokkosSession();
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;

 private:
  bool owns_ = false;
};

/// Loads a source as HostCsr<double, int, int64> (kkperm::io / kkperm::gen).
HostCsr<double, int, std::int64_t> load_matrix(const MatrixSource& src);

/// The fields every perf_test record starts with: matrix, source, rows, cols, nnz, mean and max
/// nnz per row, empty rows.
template <class V, class O, class F>
nlohmann::json matrix_record(const MatrixSource& src, const HostCsr<V, O, F>& h) {
  std::int64_t max_len = 0, empty_rows = 0;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(h.num_rows); ++i) {
    const std::int64_t len = static_cast<std::int64_t>(h.row_map[i + 1] - h.row_map[i]);
    max_len = len > max_len ? len : max_len;
    empty_rows += len == 0;
  }
  const auto n = static_cast<std::int64_t>(h.num_rows);
  const auto nnz = static_cast<std::int64_t>(h.nnz());
  return {{"matrix", src.name},
          {"source", src.spec},
          {"rows", n},
          {"cols", static_cast<std::int64_t>(h.num_cols)},
          {"nnz", nnz},
          {"mean_nnz_row", n ? static_cast<double>(nnz) / static_cast<double>(n) : 0.0},
          {"max_nnz_row", max_len},
          {"empty_rows", empty_rows}};
}

/// "[i+1/n] name" on stderr (always shown; one line per matrix).
void progress(std::size_t index, std::size_t count, const std::string& name,
              const std::string& detail = "");

/// Name of the device the default execution space runs on (GPU name, or host CPU model).
std::string device_name();
/// Current local date and time, ISO 8601.
std::string now_iso8601();

/**
 * @brief Collects one JSON object per measurement and writes --json (an object with "meta" and
 * "results") and/or --csv (a `# key: value` comment header with device, date, command, then a
 * header row of the union of keys in first-seen order). flush() rewrites both files so a run
 * cut short keeps what it measured.
 */
class ResultWriter {
 public:
  ResultWriter(const Options& opt, const ToolSpec& spec);
  void add(const nlohmann::json& record);
  void set_meta(const std::string& key, const nlohmann::json& value);
  void flush() const;
  const nlohmann::json& meta() const { return meta_; }
  const std::vector<nlohmann::json>& records() const { return records_; }

 private:
  std::string json_path_, csv_path_;
  nlohmann::json meta_;
  std::vector<nlohmann::json> records_;
};

/**
 * @brief Prep timing of the SpMV and SpMM tools: `--prep-repeat N` fresh plans are prepared one
 * after another (each fenced, the previous plan destroyed first), and `prep_ms` is the median.
 * The first prepare of a process also pays one-time costs that no later plan pays: on the H200
 * (session 43, run 348) the first candidate of every `kkperm_spmm` process took 57-84 ms to
 * prepare where its second K took 0.5-1.1 ms. That first sample is kept as `prep_first_ms`, all
 * of them as `prep_samples_ms`. `--prep-budget-ms MS` stops repeating once the samples so far add
 * up to MS (at least one sample), so a candidate whose prep takes seconds is not repeated.
 * Usage: list prep_flags() in the ToolSpec, read prep_repeat(opt) after parse_cli (throws
 * std::invalid_argument for N < 1 or MS < 0), then
 *   auto plan = kkperm::perf::timed_prepare(pr, [&] { return make_plan(c); },
 *                                           [&](auto& p) { p->prepare(A); }, record);
 */
struct PrepRepeat {
  int repeat = 3;
  double budget_ms = 2000.0;
};
/// The --prep-repeat and --prep-budget-ms flags (defaults 3 and 2000).
std::vector<ExtraFlag> prep_flags();
/// Reads them from `opt` (tool name in the message of a bad value).
PrepRepeat prep_repeat(const Options& opt, const std::string& tool);
/// Median of v (mean of the middle two for an even count); v not empty (std::invalid_argument).
double median_of(std::vector<double> v);

/// Makes and prepares plans as PrepRepeat says, records prep_ms / prep_first_ms / prep_samples_ms
/// in `r`, and returns the last plan (prepared). Exceptions of make or prepare propagate.
template <class Make, class Prepare>
auto timed_prepare(const PrepRepeat& pr, Make&& make, Prepare&& prepare, nlohmann::json& r) -> decltype(make()) {
  std::vector<double> samples;
  double total = 0.0;
  decltype(make()) plan;
  for (int i = 0; i < pr.repeat; ++i) {
    plan = decltype(make())();  // the previous plan's memory goes back before the next prepare
    plan = make();
    const double ms = kkperm::time_host_ms([&] { prepare(plan); });
    samples.push_back(ms);
    total += ms;
    if (total >= pr.budget_ms) break;
  }
  r["prep_ms"] = median_of(samples);
  r["prep_first_ms"] = samples.front();
  r["prep_samples_ms"] = samples;
  return plan;
}

/// Device-to-device copy bandwidth in GB/s (read + write bytes over the median time of a copy of
/// 1 GiB on a GPU, 128 MiB on a host backend): the practical peak that "% of the byte floor"
/// divides by.
double measure_copy_gbs(int repeat);

/// The peak for "% of the byte floor" into `peak`: --peak-gbs X when given (the tool must list
/// that flag), else measure_copy_gbs(opt.repeat); records it and its source in `out`'s meta
/// (peak_gbs, peak_gbs_source). False, with the reason on stderr, when --peak-gbs is not positive.
bool peak_gbs_or_report(const Options& opt, ResultWriter& out, double& peak);

}  // namespace kkperm::perf
