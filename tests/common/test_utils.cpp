#include "common/test_utils.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <iostream>
#include <random>
#include <stdexcept>

namespace kkperm::test {

std::string matrices_dir() {
  if (const char* env = std::getenv("KKPERM_MATRICES_DIR")) return env;
  return KKPERM_DEFAULT_MATRICES_DIR;
}

std::vector<std::string> list_files(const std::string& sub, const std::string& suffix) {
  std::vector<std::string> out;
  const std::string dir = matrices_dir() + "/" + sub;
  DIR* d = opendir(dir.c_str());
  // A missing folder would silently turn every real-matrix test into a loop over nothing.
  if (!d)
    throw std::runtime_error("kkperm tests: matrices folder '" + dir +
                             "' not found (the tests expect ../shared/matrices beside the clone; "
                             "set KKPERM_MATRICES_DIR to the folder holding real/ and malformed/)");
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, HostCsr<double, int, std::int64_t>>> tiny_corner_matrices() {
  using H = HostCsr<double, int, std::int64_t>;
  std::vector<std::pair<std::string, H>> out;
  out.push_back({"0x0", H{}});
  H one;
  one.num_rows = one.num_cols = 1;
  one.row_map = {0, 1};
  one.entries = {0};
  one.values = {-3.25};
  out.push_back({"1x1", one});
  H zero_nnz;
  zero_nnz.num_rows = 5;
  zero_nnz.num_cols = 7;
  zero_nnz.row_map.assign(6, 0);
  out.push_back({"5x7_no_entries", zero_nnz});
  return out;
}

std::uint64_t fresh_seed() {
  if (const char* env = std::getenv("KKPERM_TEST_SEED")) return std::strtoull(env, nullptr, 10);
  static std::uint64_t base = [] {
    std::uint64_t s = std::random_device{}() ^
                      std::uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    std::cerr << "[kkperm test] base seed " << s << " (set KKPERM_TEST_SEED to replay)\n";
    return s;
  }();
  static std::uint64_t counter = 0;
  return base + 0x9E3779B97F4A7C15ull * (++counter);
}

}  // namespace kkperm::test
