#pragma once
// Helpers shared by kkperm tests: where the shared matrices live, a per-test seed, poisoning.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kkperm/core/host_csr.hpp"

namespace kkperm::test {

/// Folder with real/ and malformed/ (env KKPERM_MATRICES_DIR beats the configured default).
std::string matrices_dir();
/// Every file name (not path) in matrices_dir()/sub whose name ends with `suffix`, sorted.
std::vector<std::string> list_files(const std::string& sub, const std::string& suffix);
/// A fresh seed per run (env KKPERM_TEST_SEED pins it); printed via RecordProperty by callers.
std::uint64_t fresh_seed();

/// The hand-built corner matrices every kernel test starts from: 0 x 0, a 1 x 1 with one entry
/// (-3.25), and 5 x 7 with no entries at all, named "0x0", "1x1", "5x7_no_entries".
std::vector<std::pair<std::string, HostCsr<double, int, std::int64_t>>> tiny_corner_matrices();

/// Value used to poison outputs before a kernel runs so unwritten entries fail comparisons.
template <class T>
T poison() {
  if constexpr (std::numeric_limits<T>::has_quiet_NaN) return std::numeric_limits<T>::quiet_NaN();
  else return std::numeric_limits<T>::max();
}

}  // namespace kkperm::test
