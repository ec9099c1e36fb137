#include "kkperm/core/version.hpp"

#include <Kokkos_Core.hpp>

namespace kkperm {

std::string version() { return "0.1.0"; }

std::string build_info() {
  std::string s = "kkperm " + version() + ", Kokkos " + std::to_string(KOKKOS_VERSION / 10000) +
                  "." + std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                  std::to_string(KOKKOS_VERSION % 100) + ", default execution space " +
                  Kokkos::DefaultExecutionSpace::name();
#ifdef KKPERM_ENABLE_CUDA
  s += ", cuSPARSE paths on";
#else
  s += ", cuSPARSE paths off";
#endif
  return s;
}

}  // namespace kkperm
