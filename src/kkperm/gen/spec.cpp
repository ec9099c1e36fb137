// Generator spec strings: "family:key=value,...", one table lists every family and key.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kkperm/core/error.hpp"
#include "kkperm/gen/generators.hpp"
#include "kkperm/io/matrix_market.hpp"

namespace kkperm::gen {
namespace {

constexpr const char* who = "kkperm::gen::from_spec";

enum class Kind { integer, real, boolean, text };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::integer:
      return "integer";
    case Kind::real:
      return "number";
    case Kind::boolean:
      return "0|1|true|false";
    case Kind::text:
      return "text";
  }
  return "?";
}

struct Key {
  std::string name;
  Kind kind;
  std::string default_value;  ///< empty: required (or see `fallback`)
  std::string help;
  std::string fallback = {};  ///< when not given and no default: the value of this other key
};

/// Parsed, typed key values of one spec (given or defaulted).
class Args {
 public:
  std::map<std::string, std::string> raw;
  std::int64_t i(const std::string& k) const { return parse_int(k, raw.at(k)); }
  double d(const std::string& k) const { return parse_real(k, raw.at(k)); }
  bool b(const std::string& k) const { return parse_bool(k, raw.at(k)); }
  const std::string& s(const std::string& k) const { return raw.at(k); }
  std::uint64_t seed() const {
    const std::int64_t v = i("seed");
    KKPERM_REQUIRE(v >= 0, who << ": seed = " << v << " must be >= 0");
    return static_cast<std::uint64_t>(v);
  }

  static std::int64_t parse_int(const std::string& k, const std::string& v) {
    errno = 0;
    char* end = nullptr;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (!v.empty() && end == v.c_str() + v.size() && errno == 0) return x;
    // Also accept integral values written in floating notation, e.g. 2e7.
    const double d = parse_real(k, v, "an integer");
    KKPERM_REQUIRE(std::floor(d) == d && std::fabs(d) < 9.0e18,
                   who << ": bad value '" << v << "' for key '" << k << "' (expected an integer)");
    return static_cast<std::int64_t>(d);
  }
  static double parse_real(const std::string& k, const std::string& v,
                           const char* expected = "a number") {
    errno = 0;
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    KKPERM_REQUIRE(
        !v.empty() && end == v.c_str() + v.size() && errno == 0 && std::isfinite(x),
        who << ": bad value '" << v << "' for key '" << k << "' (expected " << expected << ")");
    return x;
  }
  static bool parse_bool(const std::string& k, const std::string& v) {
    if (v == "1" || v == "true") return true;
    if (v == "0" || v == "false") return false;
    KKPERM_THROW(std::invalid_argument, who << ": bad value '" << v << "' for key '" << k
                                            << "' (expected 0, 1, true or false)");
  }
};

struct Family {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  std::vector<Key> keys;
  std::function<GenCsr(const Args&)> build;
};

const Key seed_key{"seed", Kind::integer, "1", "random seed (>= 0)"};

const std::vector<Family>& families() {
  static const std::vector<Family> table = {
      {"laplace2d5",
       {"laplace2d"},
       "2D 5-point Laplacian on an nx x ny grid (diag 4, off-diag -1)",
       {{"nx", Kind::integer, "", "grid points in x"},
        {"ny", Kind::integer, "", "grid points in y", "nx"}},
       [](const Args& a) { return laplace2d_5pt(a.i("nx"), a.i("ny")); }},
      {"laplace2d9",
       {},
       "2D 9-point Laplacian (diag 8, off-diag -1)",
       {{"nx", Kind::integer, "", "grid points in x"},
        {"ny", Kind::integer, "", "grid points in y", "nx"}},
       [](const Args& a) { return laplace2d_9pt(a.i("nx"), a.i("ny")); }},
      {"laplace3d7",
       {"laplace3d"},
       "3D 7-point Laplacian on nx x ny x nz (diag 6, off-diag -1)",
       {{"nx", Kind::integer, "", "grid points in x"},
        {"ny", Kind::integer, "", "grid points in y", "nx"},
        {"nz", Kind::integer, "", "grid points in z", "nx"}},
       [](const Args& a) { return laplace3d_7pt(a.i("nx"), a.i("ny"), a.i("nz")); }},
      {"laplace3d27",
       {},
       "3D 27-point Laplacian (diag 26, off-diag -1)",
       {{"nx", Kind::integer, "", "grid points in x"},
        {"ny", Kind::integer, "", "grid points in y", "nx"},
        {"nz", Kind::integer, "", "grid points in z", "nx"}},
       [](const Args& a) { return laplace3d_27pt(a.i("nx"), a.i("ny"), a.i("nz")); }},
      {"uniform",
       {"random"},
       "uniform random columns; row length nnz, or uniform in [nnz_min, nnz_max] when both set",
       {{"rows", Kind::integer, "", "number of rows"},
        {"cols", Kind::integer, "", "number of columns", "rows"},
        {"nnz", Kind::integer, "16", "entries per row (fixed)"},
        {"nnz_min", Kind::integer, "-1", "min entries per row (-1: use nnz)"},
        {"nnz_max", Kind::integer, "-1", "max entries per row (-1: use nnz)"},
        seed_key},
       [](const Args& a) {
         const std::int64_t lo = a.i("nnz_min"), hi = a.i("nnz_max");
         KKPERM_REQUIRE((lo == -1) == (hi == -1),
                        who << ": uniform needs both nnz_min and nnz_max, or neither");
         if (lo == -1) return random_uniform(a.i("rows"), a.i("cols"), a.i("nnz"), a.seed());
         return random_uniform(a.i("rows"), a.i("cols"), lo, hi, a.seed());
       }},
      {"powerlaw",
       {"chunglu"},
       "Chung-Lu power law, n x n, mean row length deg, degree tail exponent gamma",
       {{"n", Kind::integer, "", "rows = columns"},
        {"deg", Kind::real, "16", "mean entries per row, in (0, n/2]"},
        {"gamma", Kind::real, "2.1", "power-law exponent (> 1)"},
        {"shuffle", Kind::boolean, "1", "relabel rows/cols randomly (hubs scattered)"},
        seed_key},
       [](const Args& a) {
         return power_law(a.i("n"), a.d("deg"), a.d("gamma"), a.seed(), a.b("shuffle"));
       }},
      {"banded",
       {"band"},
       "n x n band [i-lower, i+upper], diagonal always, off-diagonals with probability fill",
       {{"n", Kind::integer, "", "rows = columns"},
        {"lower", Kind::integer, "2", "lower bandwidth"},
        {"upper", Kind::integer, "", "upper bandwidth", "lower"},
        {"fill", Kind::real, "1", "probability of each off-diagonal band entry, (0, 1]"},
        seed_key},
       [](const Args& a) {
         return banded(a.i("n"), a.i("lower"), a.i("upper"), a.d("fill"), a.seed());
       }},
      {"block",
       {"blockdiag"},
       "block diagonal of dense blocks; size fixed, or uniform in [size_min, size_max] when set",
       {{"blocks", Kind::integer, "", "number of blocks"},
        {"size", Kind::integer, "8", "block size (fixed)"},
        {"size_min", Kind::integer, "-1", "min block size (-1: use size)"},
        {"size_max", Kind::integer, "-1", "max block size (-1: use size)"},
        seed_key},
       [](const Args& a) {
         const std::int64_t lo = a.i("size_min"), hi = a.i("size_max");
         KKPERM_REQUIRE((lo == -1) == (hi == -1),
                        who << ": block needs both size_min and size_max, or neither");
         if (lo == -1) return block_diagonal(a.i("blocks"), a.i("size"), a.seed());
         return block_diagonal(a.i("blocks"), lo, hi, a.seed());
       }},
      {"arrow",
       {},
       "n x n: first dense_rows rows and dense_cols columns full, plus the diagonal",
       {{"n", Kind::integer, "", "rows = columns"},
        {"dense_rows", Kind::integer, "1", "number of full rows"},
        {"dense_cols", Kind::integer, "", "number of full columns", "dense_rows"},
        seed_key},
       [](const Args& a) {
         return arrow(a.i("n"), a.i("dense_rows"), a.i("dense_cols"), a.seed());
       }},
      {"hypersparse",
       {},
       "n x n, round(frac*n) random non-empty rows with nnz random columns each",
       {{"n", Kind::integer, "", "rows = columns"},
        {"frac", Kind::real, "0.01", "fraction of non-empty rows, [0, 1]"},
        {"nnz", Kind::integer, "8", "entries per non-empty row"},
        seed_key},
       [](const Args& a) { return hypersparse(a.i("n"), a.d("frac"), a.i("nnz"), a.seed()); }},
      {"kron",
       {"kronecker"},
       "pattern of a Matrix Market file expanded as P (x) K_1 (x) ... until nnz >= target",
       {{"file", Kind::text, "", "pattern source (.mtx or .mtx.gz)"},
        {"nnz", Kind::integer, "10000000",
         "target nnz (result has nnz in [target, target*block^2))"},
        {"block", Kind::integer, "2", "seed block size k, [2, 16]"},
        {"density", Kind::real, "0.5", "off-diagonal density of each seed block, [0, 1]"},
        {"jitter", Kind::real, "0", "probability an entry moves to a nearby column, [0, 1]"},
        seed_key},
       [](const Args& a) {
         const GenCsr p = io::read_matrix_market(a.s("file"));
         KroneckerOptions o;
         const std::int64_t k = a.i("block");
         KKPERM_REQUIRE(k >= 2 && k <= 16, who << ": block = " << k << " must be in [2, 16]");
         o.block = static_cast<int>(k);
         o.density = a.d("density");
         o.jitter = a.d("jitter");
         return kronecker(p, a.i("nnz"), a.seed(), o);
       }},
  };
  return table;
}

std::string family_list() {
  std::string out;
  for (const auto& f : families()) out += (out.empty() ? "" : ", ") + f.name;
  return out;
}

struct Parsed {
  const Family* family = nullptr;
  Args args;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

Parsed parse(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string fam = trim(spec.substr(0, colon));
  Parsed out;
  for (const auto& f : families()) {
    if (f.name == fam) out.family = &f;
    for (const auto& al : f.aliases)
      if (al == fam) out.family = &f;
  }
  KKPERM_REQUIRE(out.family != nullptr, who << ": unknown family '" << fam << "' in spec '" << spec
                                            << "' (known: " << family_list() << ")");
  const Family& f = *out.family;
  std::map<std::string, std::string> given;
  if (colon != std::string::npos) {
    std::stringstream rest(spec.substr(colon + 1));
    std::string item;
    while (std::getline(rest, item, ',')) {
      item = trim(item);
      if (item.empty()) continue;
      const auto eq = item.find('=');
      KKPERM_REQUIRE(eq != std::string::npos,
                     who << ": '" << item << "' in spec '" << spec << "' is not key=value");
      const std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
      bool known = false;
      for (const auto& k : f.keys) known = known || k.name == key;
      if (!known) {
        std::string keys;
        for (const auto& k : f.keys) keys += (keys.empty() ? "" : ", ") + k.name;
        KKPERM_THROW(std::invalid_argument, who << ": unknown key '" << key << "' for family '"
                                                << f.name << "' (keys: " << keys << ")");
      }
      KKPERM_REQUIRE(!given.count(key),
                     who << ": key '" << key << "' given twice in '" << spec << "'");
      KKPERM_REQUIRE(!value.empty(), who << ": key '" << key << "' has an empty value");
      given[key] = value;
    }
  }
  for (const auto& k : f.keys) {
    std::string v;
    if (given.count(k.name))
      v = given[k.name];
    else if (!k.default_value.empty())
      v = k.default_value;
    else if (!k.fallback.empty())
      continue;  // resolved below, once its source is known
    else
      KKPERM_THROW(std::invalid_argument, who << ": family '" << f.name << "' needs key '" << k.name
                                              << "' (" << k.help << ")");
    // Validate the type now, so errors name the key even if the generator never reads it.
    switch (k.kind) {
      case Kind::integer:
        Args::parse_int(k.name, v);
        break;
      case Kind::real:
        Args::parse_real(k.name, v);
        break;
      case Kind::boolean:
        Args::parse_bool(k.name, v);
        break;
      case Kind::text:
        break;
    }
    out.args.raw[k.name] = v;
  }
  for (const auto& k : f.keys)
    if (!out.args.raw.count(k.name)) out.args.raw[k.name] = out.args.raw.at(k.fallback);
  return out;
}

}  // namespace

GenCsr from_spec(const std::string& spec) {
  const Parsed p = parse(spec);
  try {
    return p.family->build(p.args);
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    if (msg.rfind(who, 0) == 0) throw;  // already ours
    KKPERM_THROW(std::invalid_argument, who << ": '" << spec << "': " << msg);
  } catch (const std::runtime_error& e) {  // e.g. io::ParseError reading the kron pattern
    KKPERM_THROW(std::invalid_argument, who << ": '" << spec << "': " << e.what());
  }
}

std::string normalize_spec(const std::string& spec) {
  const Parsed p = parse(spec);
  std::string out = p.family->name + ":";
  bool first = true;
  for (const auto& k : p.family->keys) {
    out += (first ? "" : ",") + k.name + "=" + p.args.raw.at(k.name);
    first = false;
  }
  return out;
}

std::string spec_help() {
  std::ostringstream os;
  os << "Generator spec: FAMILY:key=value,key=value,...  (integers may be written as 2e7;\n"
     << "values, including file paths, cannot contain ',')\n";
  for (const auto& f : families()) {
    os << "  " << f.name;
    for (const auto& al : f.aliases) os << " | " << al;
    os << "  -- " << f.description << "\n";
    for (const auto& k : f.keys) {
      os << "      " << k.name << " (" << kind_name(k.kind) << ", ";
      if (!k.default_value.empty())
        os << "default " << k.default_value;
      else if (!k.fallback.empty())
        os << "default = " << k.fallback;
      else
        os << "required";
      os << "): " << k.help << "\n";
    }
  }
  os << "Every family except the Laplacians draws values uniformly from [-1, 1) without 0.\n"
     << "Examples: laplace2d5:nx=1000,ny=1000  powerlaw:n=1000000,deg=16,gamma=2.1,seed=7\n"
     << "          kron:file=A.mtx.gz,nnz=2e7,seed=3";
  return os.str();
}

}  // namespace kkperm::gen
