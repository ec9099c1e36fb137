#pragma once
/**
 * @brief cuSPARSE generic-API SpGEMM candidates (CUDA builds only, KKPERM_ENABLE_CUDA).
 *
 * Usage: through the registry, `kkperm::make_spgemm_plan<Matrix>(SpgemmCandidate::cusparse_alg2)`.
 * - cusparse_alg1/alg2/alg3: cusparseSpGEMM_workEstimation (two-pass buffer query),
 *   ALG2/ALG3 cusparseSpGEMM_estimateMemory (two-pass, chunk fraction 0.2 for ALG3),
 *   cusparseSpGEMM_compute (two-pass for ALG1), cusparseSpMatGetSize, cusparseSpGEMM_copy.
 *   symbolic() runs that whole pipeline (C complete); numeric() reruns it into the same C arrays
 *   (the non-reuse API has no values-only phase).
 * - cusparse_reuse: symbolic() = cusparseSpGEMMreuse_workEstimation, _nnz, _copy (C structure);
 *   numeric() = cusparseSpGEMMreuse_compute only (values), descriptors re-pointed at the caller's
 *   A/B arrays first. cuSPARSE's own enum CUSPARSE_SPGEMM_DEFAULT is used for reuse (this is
 *   cuSPARSE's, not KK's SPGEMM_DEFAULT, which kkperm never uses).
 * Every call is KKPERM_CUSPARSE_CHECKed; the handle's stream is the default Kokkos::Cuda
 * instance's. Preconditions: sorted unique columns (checked by the plan base), int indices.
 * Output columns are sorted (cuSPARSE SpGEMM produces sorted rows).
 */
#include <memory>

#include "kkperm/select/spgemm_candidates.hpp"

namespace kkperm {

/// Instantiated for Crs<float|double, int, DefaultDevice, int> (DefaultDevice = Cuda here).
template <class Matrix>
std::unique_ptr<SpgemmPlan<Matrix>> make_cusparse_spgemm_plan(SpgemmCandidate c,
                                                              const SpgemmPlanOptions& o);

}  // namespace kkperm
