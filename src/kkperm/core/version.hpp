#pragma once
/** @brief kkperm's version and a one-line description of the build (backend, Kokkos version). */
#include <string>

namespace kkperm {
std::string version();
std::string build_info();
}  // namespace kkperm
