#pragma once
/**
 * @brief The SpMV candidate registry: the single list of SpMV variants that can run (kernel x
 * permutation x format). perf_test, the tests, the collector and the selector enumerate it.
 *
 * Usage:
 *   for (kkperm::SpmvCandidate c : kkperm::spmv_candidates()) {       // available on this build
 *     auto plan = kkperm::make_spmv_plan<kkperm::Crs<double, int, kkperm::DefaultDevice, int>>(c);
 *     plan->prepare(A);                       // may throw kkperm::CandidateNotApplicable
 *     plan->run(alpha, x, beta, y);           // y = alpha*A*x + beta*y, many times
 *   }
 *
 * Preconditions: A passes kkperm::validate (sorted, unique columns); x has A.numCols() and y
 * A.numRows() entries, both in A's memory space, not aliased. beta == 0 never reads y (a NaN in
 * y does not propagate). A plan keeps views of A (and of what prepare() built): A's structure
 * and values must not change between prepare() and run() unless prepare() is called again.
 * Adding a candidate = one enum entry + one row in the table in spmv_candidates.cpp (+ one case
 * in make_spmv_plan for a new kernel family; row-permuted variants only need their table row).
 */
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "kkperm/core/error.hpp"
#include "kkperm/core/types.hpp"
#include "kkperm/permute/permutation.hpp"
#include "kkperm/permute/permuted_crs.hpp"
#include "kkperm/select/candidate_common.hpp"

namespace kkperm {

/// Every SpMV variant kkperm knows. The value order is stable within a release (the trainer's
/// JSON uses names, never numbers).
enum class SpmvCandidate : int {
  csr_scalar = 0,     ///< thread per row
  csr_vector,         ///< team/warp per row, vector length from mean nnz/row
  csr_warp_dynamic,   ///< persistent warps fetch rows from a global atomic counter
  csr_warp_tiled,     ///< x staged in team scratch per column tile (banded / few columns)
  csr_merge,          ///< equal-nnz chunks, binary search of row_map, atomics at chunk borders
  csr_merge_path,     ///< Merrill-Garland merge path: partition, consume, carry-out fix-up
  ell,                ///< ELLPACK, k = max nnz/row, column-major
  coo,                ///< COO, segmented reduction over equal-nnz chunks
  hyb,                ///< ELL(k) + COO, k from the row-length histogram (Bell & Garland)
  hyb_mu,             ///< ELL(k) + COO, k = ceil(mean nnz/row)
  sell_c_sigma,       ///< SELL-C-sigma (C = 32, sigma = 256)
  sell_i16,           ///< SELL-32-256 with 16-bit column offsets (escapes for far columns)
  sell_i16_wide,      ///< the same with sigma = 2048 (evener slices, less x locality)
  dcsr,               ///< doubly compressed rows: only non-empty rows are visited
  kk_native,          ///< KokkosSparse::spmv
  cusparse_csr_alg1,  ///< cusparseSpMV CUSPARSE_SPMV_CSR_ALG1 (CUDA builds)
  cusparse_csr_alg2,  ///< cusparseSpMV CUSPARSE_SPMV_CSR_ALG2 (CUDA builds)
  // Row-permuted CSR kernels "kernel@permutation": prepare() builds the permutation
  // (kkperm::build_permutation) and the permuted matrix (PermutedCrsMatrix); run() writes y in
  // the caller's row order (the kernel stores row q's result at y(P(q)); RCM, being
  // symmetric, also gathers x once per call). run_permuted() works in permuted space.
  // Subset: csr_scalar and csr_vector get every row permutation of the permutation paper
  // plus RCM (load balance across the lanes of a warp / threads of a block and x locality
  // both matter there). csr_warp_dynamic hands rows out from an atomic counter, so static
  // load-balancing orders (flipped sort, LPT, hybrid-1) only reorder the queue: it keeps
  // plain_sort (longest rows first = dynamic LPT) and the locality orders warp_aware,
  // cta_aware and RCM; the hybrids 2.x only re-break ties of those and are left out.
  // The other kernels are not permuted: merge/merge-path/COO split nonzeros evenly (load
  // balance is by construction), ELL/HYB/SELL have their own row orders, and KK native and
  // cuSPARSE are measured as the baselines they are.
  csr_scalar_plain_sort,
  csr_scalar_flipped_sort,
  csr_scalar_lpt,
  csr_scalar_warp_aware,
  csr_scalar_cta_aware,
  csr_scalar_hybrid_1,
  csr_scalar_hybrid_2_1,
  csr_scalar_hybrid_2_2,
  csr_scalar_hybrid_2_3,
  csr_scalar_rcm,
  csr_vector_plain_sort,
  csr_vector_flipped_sort,
  csr_vector_lpt,
  csr_vector_warp_aware,
  csr_vector_cta_aware,
  csr_vector_hybrid_1,
  csr_vector_hybrid_2_1,
  csr_vector_hybrid_2_2,
  csr_vector_hybrid_2_3,
  csr_vector_rcm,
  csr_warp_dynamic_plain_sort,
  csr_warp_dynamic_warp_aware,
  csr_warp_dynamic_cta_aware,
  csr_warp_dynamic_rcm,
  count_  ///< not a candidate: number of entries
};

/// Storage the kernel reads after prepare().
enum class SpmvFormat : int { csr, ell, coo, hyb, sell, sell16, dcsr };

/// Static description of a candidate (one row of the registry table).
struct SpmvCandidateInfo {
  SpmvCandidate id;
  const char* name;         ///< stable string, e.g. "csr_vector"
  const char* kernel;       ///< kernel family, e.g. "csr_vector", "cusparse_alg1"
  const char* permutation;  ///< row permutation applied in prepare ("identity" = none)
  SpmvFormat format;
  bool cuda_only;
  const char* description;
  /// Row permutation built in prepare() through PermutedCrsMatrix (identity = none; SELL's own
  /// sigma-window sort is part of its format, not listed here).
  Permutation row_permutation = Permutation::identity;
  /// The unpermuted candidate running the same kernel (count_ = this candidate itself).
  SpmvCandidate base = SpmvCandidate::count_;
};

const SpmvCandidateInfo& info(SpmvCandidate c);
std::string to_string(SpmvCandidate c);
std::string to_string(SpmvFormat f);
/// Inverse of to_string; throws std::invalid_argument listing the valid names.
SpmvCandidate spmv_candidate_from_string(const std::string& name);
/// Same, as an overload set shared with the other registries: from_string(s, c).
inline void from_string(const std::string& name, SpmvCandidate& out) {
  out = spmv_candidate_from_string(name);
}
/// Whether `c` exists on this build (CUDA-only candidates are absent from Serial builds).
bool available(SpmvCandidate c);
/// The unpermuted candidate with the same kernel ("csr_vector@lpt" -> csr_vector; c itself
/// for unpermuted candidates).
SpmvCandidate spmv_base_candidate(SpmvCandidate c);
/// Every candidate of the enum, available or not, in enum order.
std::vector<SpmvCandidate> all_spmv_candidates();
/// The candidates available on this build, in enum order: what callers enumerate.
std::vector<SpmvCandidate> spmv_candidates();

/**
 * @brief A prepared SpMV plan for one candidate and one matrix type
 * `Matrix = KokkosSparse::CrsMatrix<V, O, Device, void, F>`.
 *
 * prepare(A) builds whatever the candidate needs (permutation, converted format, cuSPARSE
 * descriptors and buffer); callers time it separately. run() only launches kernels on the
 * default instance of Matrix's execution space and returns without fencing.
 */
template <class Matrix>
class SpmvPlan {
 public:
  using matrix_type = Matrix;
  using value_type = typename Matrix::non_const_value_type;
  using ordinal_type = typename Matrix::non_const_ordinal_type;
  using offset_type = typename Matrix::non_const_size_type;
  using device_type = typename Matrix::device_type;
  using execution_space = typename Matrix::execution_space;
  using x_view = Kokkos::View<const value_type*, device_type>;
  using y_view = Kokkos::View<value_type*, device_type>;

  explicit SpmvPlan(SpmvCandidate c) : candidate_(c) {}
  virtual ~SpmvPlan() = default;
  SpmvPlan(const SpmvPlan&) = delete;
  SpmvPlan& operator=(const SpmvPlan&) = delete;

  SpmvCandidate candidate() const { return candidate_; }
  std::string name() const { return to_string(candidate_); }
  bool prepared() const { return prepared_; }
  ordinal_type num_rows() const { return num_rows_; }
  ordinal_type num_cols() const { return num_cols_; }
  offset_type nnz() const { return nnz_; }

  /// Builds the plan for A (validated structure is the caller's job: see kkperm::validate).
  /// Throws CandidateNotApplicable when the candidate's limits exclude A.
  void prepare(const Matrix& A) {
    prepared_ = false;
    num_rows_ = A.numRows();
    num_cols_ = A.numCols();
    nnz_ = A.nnz();
    prepare_impl(A);
    prepared_ = true;
  }

  /// y = alpha*A*x + beta*y. Checks sizes and that prepare() ran.
  void run(value_type alpha, const x_view& x, value_type beta, const y_view& y) const {
    KKPERM_REQUIRE(prepared_, "kkperm::spmv(" << name() << "): run() before prepare()");
    KKPERM_REQUIRE(x.extent(0) == static_cast<std::size_t>(num_cols_),
                   "kkperm::spmv(" << name() << "): x has " << x.extent(0)
                                   << " entries, A has " << num_cols_ << " columns");
    KKPERM_REQUIRE(y.extent(0) == static_cast<std::size_t>(num_rows_),
                   "kkperm::spmv(" << name() << "): y has " << y.extent(0) << " entries, A has "
                                   << num_rows_ << " rows");
    KKPERM_REQUIRE(num_rows_ == 0 || num_cols_ == 0 || x.data() != y.data(),
                   "kkperm::spmv(" << name() << "): x and y alias");
    run_impl(alpha, x, beta, y);
  }

  /// Byte floor of one call (CSR: values + indices + row_map + x + y written + y read if
  /// beta != 0). The same for every candidate, so GB/s compares candidates fairly.
  double bytes_moved(bool beta_nonzero = true) const {
    return spmv_byte_floor(num_rows_, num_cols_, nnz_, sizeof(value_type), sizeof(ordinal_type),
                           sizeof(offset_type), beta_nonzero);
  }
  /**
   * @brief Row-permuted candidates only (else nullptr): the PermutedCrsMatrix built by
   * prepare(). Use its to_permuted()/from_permuted() to move vectors once per solve and
   * run_permuted() in between.
   */
  virtual const PermutedCrsMatrix<Matrix>* permuted_matrix() const { return nullptr; }

  /// y_p = alpha*A_p*x_p + beta*y_p entirely in permuted space (A_p = permuted_matrix()):
  /// no gathers. Throws std::invalid_argument for candidates without a row permutation.
  void run_permuted(value_type alpha, const x_view& xp, value_type beta,
                    const y_view& yp) const {
    KKPERM_REQUIRE(prepared_, "kkperm::spmv(" << name() << "): run_permuted() before prepare()");
    KKPERM_REQUIRE(permuted_matrix() != nullptr,
                   "kkperm::spmv(" << name() << "): run_permuted() needs a row-permuted candidate");
    KKPERM_REQUIRE(xp.extent(0) == static_cast<std::size_t>(num_cols_) &&
                       yp.extent(0) == static_cast<std::size_t>(num_rows_),
                   "kkperm::spmv(" << name() << "): run_permuted() got x with " << xp.extent(0)
                                   << " and y with " << yp.extent(0) << " entries for a "
                                   << num_rows_ << " x " << num_cols_ << " matrix");
    KKPERM_REQUIRE(num_rows_ == 0 || num_cols_ == 0 || xp.data() != yp.data(),
                   "kkperm::spmv(" << name() << "): x and y alias");
    run_permuted_impl(alpha, xp, beta, yp);
  }

  /**
   * @brief The candidate's own byte floor: what its kernels must read and write at least. The
   * CSR floor (bytes_moved) for every candidate that reads A's CSR arrays or a copy of them with
   * the same index width; less for formats with narrower indices (SELL16), so their GB/s
   * against bytes_moved() can pass the CSR floor's bandwidth.
   */
  virtual double own_bytes(bool beta_nonzero = true) const { return bytes_moved(beta_nonzero); }

  /// Bytes of device memory the plan holds beyond A itself (format copies, buffers).
  virtual double extra_bytes() const { return 0.0; }
  /// Short human-readable facts chosen at prepare (e.g. "k=12, coo_nnz=301").
  virtual std::string details() const { return {}; }

 protected:
  virtual void prepare_impl(const Matrix& A) = 0;
  virtual void run_impl(value_type alpha, const x_view& x, value_type beta,
                        const y_view& y) const = 0;
  virtual void run_permuted_impl(value_type, const x_view&, value_type, const y_view&) const {}

 private:
  SpmvCandidate candidate_;
  bool prepared_ = false;
  ordinal_type num_rows_ = 0;
  ordinal_type num_cols_ = 0;
  offset_type nnz_ = 0;
};

/**
 * @brief Creates the plan object for candidate `c` (not yet prepared). Throws
 * std::invalid_argument when `c` is not available on this build.
 * Explicitly instantiated for Crs<float|double, int, DefaultDevice, int> in spmv_candidates.cpp.
 */
template <class Matrix>
std::unique_ptr<SpmvPlan<Matrix>> make_spmv_plan(SpmvCandidate c);

extern template std::unique_ptr<SpmvPlan<Crs<double, int, DefaultDevice, int>>>
make_spmv_plan<Crs<double, int, DefaultDevice, int>>(SpmvCandidate);
extern template std::unique_ptr<SpmvPlan<Crs<float, int, DefaultDevice, int>>>
make_spmv_plan<Crs<float, int, DefaultDevice, int>>(SpmvCandidate);

}  // namespace kkperm
