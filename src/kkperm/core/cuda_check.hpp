#pragma once
/**
 * @brief Checked CUDA / cuSPARSE calls (CUDA builds only). Each failure throws
 * std::runtime_error naming the call, file, line and the library's own error string.
 */
#ifdef KKPERM_ENABLE_CUDA
#include <cuda_runtime.h>
#include <cusparse.h>

#include "kkperm/core/error.hpp"

#define KKPERM_CUDA_CHECK(call)                                                             \
  do {                                                                                      \
    cudaError_t kkperm_cuda_err_ = (call);                                                  \
    if (kkperm_cuda_err_ != cudaSuccess)                                                    \
      KKPERM_THROW(std::runtime_error, "CUDA error " << cudaGetErrorName(kkperm_cuda_err_)  \
                                                     << " (" << cudaGetErrorString(kkperm_cuda_err_) \
                                                     << ") in " #call " at " << __FILE__ << ":" \
                                                     << __LINE__);                          \
  } while (0)

#define KKPERM_CUSPARSE_CHECK(call)                                                         \
  do {                                                                                      \
    cusparseStatus_t kkperm_sp_err_ = (call);                                               \
    if (kkperm_sp_err_ != CUSPARSE_STATUS_SUCCESS)                                          \
      KKPERM_THROW(std::runtime_error, "cuSPARSE error " << cusparseGetErrorName(kkperm_sp_err_) \
                                                         << " (" << cusparseGetErrorString(kkperm_sp_err_) \
                                                         << ") in " #call " at " << __FILE__ \
                                                         << ":" << __LINE__);               \
  } while (0)
#endif
