#pragma once
/**
 * @brief The SpMM candidate registry: the single list of SpMM variants that can run (kernel x
 * permutation x format x layout of B/Y). perf_test, the tests, the collector and the selector
 * enumerate it. Same shape as the SpMV registry (spmv_candidates.hpp).
 *
 * Usage:
 *   for (kkperm::SpmmCandidate c : kkperm::spmm_candidates()) {       // available on this build
 *     auto plan = kkperm::make_spmm_plan<kkperm::Crs<double, int, kkperm::DefaultDevice, int>>(c);
 *     plan->prepare(A, K);                    // may throw kkperm::CandidateNotApplicable
 *     if (plan->layout() == kkperm::SpmmLayout::left) plan->run(alpha, B_left, beta, Y_left);
 *     else                                            plan->run(alpha, B_right, beta, Y_right);
 *   }
 *
 * Preconditions: A passes kkperm::validate (sorted, unique columns); B is A.numCols() x K and
 * Y is A.numRows() x K, both contiguous (LayoutLeft or LayoutRight as the candidate's layout()),
 * in A's memory space, not aliased. beta == 0 never reads Y (NaN in Y does not propagate). A
 * plan keeps views of A (and of what prepare() built): A's structure and values must not change
 * between prepare() and run() unless prepare() is called again. K is fixed at prepare() (the
 * cuSPARSE descriptors and buffer depend on it); run() with another K is an error.
 * Adding a candidate = one enum entry + one row in the table in spmm_candidates.cpp + one case
 * in make_spmm_plan.
 */
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "kkperm/core/error.hpp"
#include "kkperm/core/types.hpp"
#include "kkperm/select/candidate_common.hpp"

namespace kkperm {

/// Every SpMM variant kkperm knows. The value order is stable within a release (the trainer's
/// JSON uses names, never numbers).
enum class SpmmCandidate : int {
  c_stationary = 0,       ///< C-stationary kernel, B/Y column-major, rows in A's order
  c_stationary_dcsr,      ///< C-stationary over the non-empty rows only (DCSR)
  row_major,              ///< lane group per batch of rows, lanes across K, B/Y row-major
  row_major_dcsr,         ///< row-major kernel over the non-empty rows only (DCSR)
  kk_native_left,         ///< KokkosSparse::spmv rank-2, LayoutLeft multivectors
  kk_native_right,        ///< KokkosSparse::spmv rank-2, LayoutRight multivectors
  cusparse_csr_alg1_col,  ///< cusparseSpMM CUSPARSE_SPMM_CSR_ALG1, column-major (CUDA builds)
  cusparse_csr_alg1_row,  ///< cusparseSpMM CUSPARSE_SPMM_CSR_ALG1, row-major (CUDA builds)
  cusparse_csr_alg2_col,  ///< cusparseSpMM CUSPARSE_SPMM_CSR_ALG2, column-major (CUDA builds)
  cusparse_csr_alg2_row,  ///< cusparseSpMM CUSPARSE_SPMM_CSR_ALG2, row-major (CUDA builds)
  cusparse_csr_alg3_col,  ///< cusparseSpMM CUSPARSE_SPMM_CSR_ALG3, column-major (CUDA builds)
  cusparse_csr_alg3_row,  ///< cusparseSpMM CUSPARSE_SPMM_CSR_ALG3, row-major (CUDA builds)
  c_stationary_plain_sort, ///< C-stationary, rows in kkperm::Permutation::plain_sort order
  c_stationary_flipped_sort, ///< C-stationary, rows in kkperm::Permutation::flipped_sort order
  c_stationary_lpt,      ///< C-stationary, rows in kkperm::Permutation::lpt order
  c_stationary_warp_aware, ///< C-stationary, rows in kkperm::Permutation::warp_aware order
  c_stationary_cta_aware, ///< C-stationary, rows in kkperm::Permutation::cta_aware order
  c_stationary_hybrid_1, ///< C-stationary, rows in kkperm::Permutation::hybrid_1 order
  c_stationary_hybrid_2_1, ///< C-stationary, rows in kkperm::Permutation::hybrid_2_1 order
  c_stationary_hybrid_2_2, ///< C-stationary, rows in kkperm::Permutation::hybrid_2_2 order
  c_stationary_hybrid_2_3, ///< C-stationary, rows in kkperm::Permutation::hybrid_2_3 order
  c_stationary_rcm,      ///< C-stationary, rows in kkperm::Permutation::rcm order
  row_major_plain_sort,  ///< row-major kernel, rows in kkperm::Permutation::plain_sort order
  row_major_flipped_sort, ///< row-major kernel, rows in kkperm::Permutation::flipped_sort order
  row_major_lpt,         ///< row-major kernel, rows in kkperm::Permutation::lpt order
  row_major_warp_aware,  ///< row-major kernel, rows in kkperm::Permutation::warp_aware order
  row_major_cta_aware,   ///< row-major kernel, rows in kkperm::Permutation::cta_aware order
  row_major_hybrid_1,    ///< row-major kernel, rows in kkperm::Permutation::hybrid_1 order
  row_major_hybrid_2_1,  ///< row-major kernel, rows in kkperm::Permutation::hybrid_2_1 order
  row_major_hybrid_2_2,  ///< row-major kernel, rows in kkperm::Permutation::hybrid_2_2 order
  row_major_hybrid_2_3,  ///< row-major kernel, rows in kkperm::Permutation::hybrid_2_3 order
  row_major_rcm,         ///< row-major kernel, rows in kkperm::Permutation::rcm order
  row_major_slab,        ///< row-major kernel, columns in slabs whose part of B fits L2 (device)
  row_major_left,        ///< row-major kernel on column-major B/Y through row-major copies per call
  row_major_chunked,     ///< row-major kernel, a team walks a chunk of consecutive rows (device)
  row_major_tiled,       ///< row-major, B's rows staged in shared memory per tile of rows
  count_                  ///< not a candidate: number of entries
};

/// Memory layout of B and Y a candidate takes.
enum class SpmmLayout : int { left, right };
/// Storage of A the kernel reads after prepare().
enum class SpmmFormat : int { csr, dcsr };

/// Static description of a candidate (one row of the registry table).
struct SpmmCandidateInfo {
  SpmmCandidate id;
  const char* name;         ///< stable string, e.g. "c_stationary_dcsr"
  const char* kernel;       ///< kernel family: "c_stationary", "row_major", "kk_native", "cusparse_alg1", ...
  const char* permutation;  ///< row permutation applied in prepare ("identity" = none)
  SpmmFormat format;
  SpmmLayout layout;
  bool cuda_only;
  const char* description;
};

const SpmmCandidateInfo& info(SpmmCandidate c);
std::string to_string(SpmmCandidate c);
std::string to_string(SpmmLayout l);
std::string to_string(SpmmFormat f);
/// Inverse of to_string; throws std::invalid_argument listing the valid names.
SpmmCandidate spmm_candidate_from_string(const std::string& name);
/// "left"/"right"; throws std::invalid_argument otherwise.
SpmmLayout spmm_layout_from_string(const std::string& name);
inline void from_string(const std::string& name, SpmmCandidate& out) {
  out = spmm_candidate_from_string(name);
}
/// Whether `c` exists on this build (CUDA-only candidates are absent from Serial builds).
bool available(SpmmCandidate c);
/// Every candidate of the enum, available or not, in enum order.
std::vector<SpmmCandidate> all_spmm_candidates();
/// The candidates available on this build, in enum order: what callers enumerate.
std::vector<SpmmCandidate> spmm_candidates();

/// Minimum bytes one SpMM must move in CSR: A once (values + column indices + row_map), B read
/// once (num_cols x K), Y written once and read once when beta != 0.
inline double spmm_byte_floor(std::int64_t num_rows, std::int64_t num_cols, std::int64_t nnz,
                              std::int64_t K, std::size_t value_bytes, std::size_t ordinal_bytes,
                              std::size_t offset_bytes, bool beta_nonzero) {
  const double n = static_cast<double>(num_rows), m = static_cast<double>(num_cols),
               k = static_cast<double>(K);
  double bytes = crs_bytes(num_rows, nnz, value_bytes, ordinal_bytes, offset_bytes) + m * k * value_bytes +
                 n * k * value_bytes;
  if (beta_nonzero) bytes += n * k * value_bytes;
  return bytes;
}
/// Flops of one SpMM: 2 per nonzero per column of B (the alpha/beta scaling is not counted).
inline double spmm_flops(std::int64_t nnz, std::int64_t K) {
  return 2.0 * static_cast<double>(nnz) * static_cast<double>(K);
}

/**
 * @brief A prepared SpMM plan for one candidate, one matrix type
 * `Matrix = KokkosSparse::CrsMatrix<V, O, Device, void, F>` and one K.
 *
 * prepare(A, K) builds whatever the candidate needs (permuted / compressed rows, cuSPARSE
 * descriptors, buffer and preprocessing); callers time it separately. run() only launches work
 * on the default instance of Matrix's execution space and returns without fencing. Only the
 * run() overload of the candidate's layout() is accepted.
 */
template <class Matrix>
class SpmmPlan {
 public:
  using matrix_type = Matrix;
  using value_type = typename Matrix::non_const_value_type;
  using ordinal_type = typename Matrix::non_const_ordinal_type;
  using offset_type = typename Matrix::non_const_size_type;
  using device_type = typename Matrix::device_type;
  using execution_space = typename Matrix::execution_space;
  using b_left = Kokkos::View<const value_type**, Kokkos::LayoutLeft, device_type>;
  using y_left = Kokkos::View<value_type**, Kokkos::LayoutLeft, device_type>;
  using b_right = Kokkos::View<const value_type**, Kokkos::LayoutRight, device_type>;
  using y_right = Kokkos::View<value_type**, Kokkos::LayoutRight, device_type>;

  explicit SpmmPlan(SpmmCandidate c) : candidate_(c) {}
  virtual ~SpmmPlan() = default;
  SpmmPlan(const SpmmPlan&) = delete;
  SpmmPlan& operator=(const SpmmPlan&) = delete;

  SpmmCandidate candidate() const { return candidate_; }
  std::string name() const { return to_string(candidate_); }
  SpmmLayout layout() const { return info(candidate_).layout; }
  bool prepared() const { return prepared_; }
  ordinal_type num_rows() const { return num_rows_; }
  ordinal_type num_cols() const { return num_cols_; }
  offset_type nnz() const { return nnz_; }
  std::int64_t K() const { return K_; }

  /// Builds the plan for A and K columns (validated structure is the caller's job).
  /// Throws CandidateNotApplicable when the candidate's limits exclude A or K.
  void prepare(const Matrix& A, std::int64_t K) {
    KKPERM_REQUIRE(K >= 0, "kkperm::spmm(" << name() << "): K must be >= 0, got " << K);
    prepared_ = false;
    num_rows_ = A.numRows();
    num_cols_ = A.numCols();
    nnz_ = A.nnz();
    K_ = K;
    prepare_impl(A);
    prepared_ = true;
  }

  /// Y = alpha*A*B + beta*Y, column-major B/Y (candidates with layout() == left).
  void run(value_type alpha, const b_left& B, value_type beta, const y_left& Y) const {
    check(SpmmLayout::left, B.extent(0), B.extent(1), Y.extent(0), Y.extent(1), B.data(),
          Y.data(), B.span_is_contiguous() && Y.span_is_contiguous());
    run_impl(alpha, B, beta, Y);
  }
  /// Y = alpha*A*B + beta*Y, row-major B/Y (candidates with layout() == right).
  void run(value_type alpha, const b_right& B, value_type beta, const y_right& Y) const {
    check(SpmmLayout::right, B.extent(0), B.extent(1), Y.extent(0), Y.extent(1), B.data(),
          Y.data(), B.span_is_contiguous() && Y.span_is_contiguous());
    run_impl(alpha, B, beta, Y);
  }

  /// Byte floor of one call (the same for every candidate, so GB/s compares them fairly).
  double bytes_moved(bool beta_nonzero = true) const {
    return spmm_byte_floor(num_rows_, num_cols_, nnz_, K_, sizeof(value_type),
                           sizeof(ordinal_type), sizeof(offset_type), beta_nonzero);
  }
  double flops() const { return spmm_flops(nnz_, K_); }
  /// Bytes of device memory the plan holds beyond A itself (permuted copies, buffers).
  virtual double extra_bytes() const { return 0.0; }
  /// Short human-readable facts chosen at prepare (e.g. "nonempty_rows=812").
  virtual std::string details() const { return {}; }

 protected:
  virtual void prepare_impl(const Matrix& A) = 0;
  /// Default: the layout this candidate does not take (never reached: run() checks first).
  virtual void run_impl(value_type, const b_left&, value_type, const y_left&) const {
    KKPERM_ASSERT(false, name() << " has no LayoutLeft path");
  }
  virtual void run_impl(value_type, const b_right&, value_type, const y_right&) const {
    KKPERM_ASSERT(false, name() << " has no LayoutRight path");
  }

 private:
  void check(SpmmLayout l, std::size_t b0, std::size_t b1, std::size_t y0, std::size_t y1,
             const void* bp, const void* yp, bool contiguous) const {
    KKPERM_REQUIRE(prepared_, "kkperm::spmm(" << name() << "): run() before prepare()");
    KKPERM_REQUIRE(l == layout(), "kkperm::spmm(" << name() << "): takes Layout"
                                                  << (layout() == SpmmLayout::left ? "Left" : "Right")
                                                  << " B and Y, got Layout"
                                                  << (l == SpmmLayout::left ? "Left" : "Right"));
    KKPERM_REQUIRE(b0 == static_cast<std::size_t>(num_cols_) && y0 == static_cast<std::size_t>(num_rows_),
                   "kkperm::spmm(" << name() << "): B is " << b0 << " x " << b1 << " and Y " << y0
                                   << " x " << y1 << ", A is " << num_rows_ << " x " << num_cols_);
    KKPERM_REQUIRE(b1 == static_cast<std::size_t>(K_) && y1 == static_cast<std::size_t>(K_),
                   "kkperm::spmm(" << name() << "): B has " << b1 << " and Y " << y1
                                   << " columns, the plan was prepared for K = " << K_);
    KKPERM_REQUIRE(contiguous, "kkperm::spmm(" << name() << "): B and Y must be contiguous");
    KKPERM_REQUIRE(bp == nullptr || yp == nullptr || bp != yp,
                   "kkperm::spmm(" << name() << "): B and Y alias");
  }

  SpmmCandidate candidate_;
  bool prepared_ = false;
  ordinal_type num_rows_ = 0;
  ordinal_type num_cols_ = 0;
  offset_type nnz_ = 0;
  std::int64_t K_ = 0;
};

/**
 * @brief Creates the plan object for candidate `c` (not yet prepared). Throws
 * std::invalid_argument when `c` is not available on this build.
 * Explicitly instantiated for Crs<float|double, int, DefaultDevice, int> in spmm_candidates.cpp.
 */
template <class Matrix>
std::unique_ptr<SpmmPlan<Matrix>> make_spmm_plan(SpmmCandidate c);

extern template std::unique_ptr<SpmmPlan<Crs<double, int, DefaultDevice, int>>>
make_spmm_plan<Crs<double, int, DefaultDevice, int>>(SpmmCandidate);
extern template std::unique_ptr<SpmmPlan<Crs<float, int, DefaultDevice, int>>>
make_spmm_plan<Crs<float, int, DefaultDevice, int>>(SpmmCandidate);

}  // namespace kkperm
