#pragma once
/**
 * @brief A failed CUDA runtime call as an exception, for kkperm headers that build with every
 * Kokkos backend (the KKPERM_CUDA_CHECK macro of cuda_check.hpp belongs to the CUDA-only plugin
 * code). Defined only when Kokkos has CUDA.
 *   kkperm::detail::throw_if_cuda_error(cudaEventCreate(&e), "kkperm::detail::PhaseClock", "cudaEventCreate");
 */
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <stdexcept>

#include "kkperm/core/error.hpp"

namespace kkperm::detail {
/// Throws std::runtime_error "<who>: <what> failed: <error name> (<error string>)" unless e is
/// cudaSuccess.
inline void throw_if_cuda_error(cudaError_t e, const char* who, const char* what) {
  if (e != cudaSuccess)
    KKPERM_THROW(std::runtime_error,
                 who << ": " << what << " failed: " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e) << ")");
}
}  // namespace kkperm::detail
#endif
