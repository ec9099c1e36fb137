#pragma once
/**
 * @brief cuSPARSE generic-API SpMV candidates (cusparseSpMV CSR_ALG1 / CSR_ALG2). CUDA builds
 * only (KKPERM_ENABLE_CUDA).
 *
 * Usage: through the registry, `kkperm::make_spmv_plan<Matrix>(SpmvCandidate::cusparse_csr_alg1)`.
 * prepare(A) creates the cuSPARSE handle bound to the default Kokkos::Cuda instance's stream
 * (cusparseSetStream), the CSR descriptor over A's own arrays and the work buffer
 * (cusparseSpMV_bufferSize) once. run() re-points the two dense-vector descriptors at the
 * caller's x and y and calls cusparseSpMV on that stream. beta == 0: y is zeroed first (one
 * extra write of y) so a NaN-poisoned y can never leak through the library. Matrices with no
 * rows, columns or nonzeros skip the library (y = beta*y). Every call is KKPERM_CUSPARSE_CHECKed.
 */
#include <memory>

#include "kkperm/select/spmv_candidates.hpp"

namespace kkperm {

/// Plan for cusparse_csr_alg1 / cusparse_csr_alg2. Instantiated for
/// Crs<float|double, int, DefaultDevice, int> (DefaultDevice = Cuda in CUDA builds).
template <class Matrix>
std::unique_ptr<SpmvPlan<Matrix>> make_cusparse_spmv_plan(SpmvCandidate c);

}  // namespace kkperm
