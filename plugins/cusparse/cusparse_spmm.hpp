#pragma once
/**
 * @brief cuSPARSE generic-API SpMM candidates (cusparseSpMM CSR_ALG1/ALG2/ALG3, column- and
 * row-major dense B/C). CUDA builds only (KKPERM_ENABLE_CUDA).
 *
 * Usage: through the registry, `kkperm::make_spmm_plan<Matrix>(SpmmCandidate::cusparse_csr_alg1_col)`.
 * prepare(A, K) creates the cuSPARSE handle (on the default Kokkos::Cuda instance's stream), the
 * CSR and dense-matrix descriptors and the work buffer once, and runs cusparseSpMM_preprocess for
 * ALG1/ALG3 (the algorithms it accelerates). An algorithm/layout pair cuSPARSE rejects
 * (CUSPARSE_STATUS_NOT_SUPPORTED at buffer-size time) throws kkperm::CandidateNotApplicable.
 * run() only re-points the dense descriptors at the caller's B and Y and calls cusparseSpMM.
 */
#include <memory>

#include "kkperm/select/spmm_candidates.hpp"

namespace kkperm {

/// Plan for one of the cusparse_csr_alg* candidates. Instantiated for
/// Crs<float|double, int, DefaultDevice, int> (DefaultDevice = Cuda in CUDA builds).
template <class Matrix>
std::unique_ptr<SpmmPlan<Matrix>> make_cusparse_spmm_plan(SpmmCandidate c);

}  // namespace kkperm
