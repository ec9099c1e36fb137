// cuSPARSE SpMM candidates (compiled only with KKPERM_ENABLE_CUDA; see cusparse_spmm.hpp).
#include "cusparse/cusparse_spmm.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#include "kkperm/core/cuda_check.hpp"
#include "kkperm/kernels/spmm/spmm_common.hpp"

namespace kkperm {

namespace {

template <class T>
constexpr cudaDataType cuda_type() {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "cuSPARSE SpMM candidates support float and double");
  return std::is_same<T, float>::value ? CUDA_R_32F : CUDA_R_64F;
}
template <class I>
constexpr cusparseIndexType_t index_type() {
  static_assert(sizeof(I) == 4 || sizeof(I) == 8, "32- or 64-bit indices");
  return sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

template <class Matrix>
class CusparseSpmmPlan final : public SpmmPlan<Matrix> {
  using base = SpmmPlan<Matrix>;
  using typename base::b_left;
  using typename base::b_right;
  using typename base::value_type;
  using typename base::y_left;
  using typename base::y_right;
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  using offset_t = typename Matrix::non_const_size_type;
  using exec = typename Matrix::execution_space;
  static_assert(std::is_same<exec, Kokkos::Cuda>::value,
                "cuSPARSE candidates need a Kokkos::Cuda matrix");

 public:
  explicit CusparseSpmmPlan(SpmmCandidate c) : base(c) {
    switch (c) {
      case SpmmCandidate::cusparse_csr_alg1_col:
      case SpmmCandidate::cusparse_csr_alg1_row: alg_ = CUSPARSE_SPMM_CSR_ALG1; break;
      case SpmmCandidate::cusparse_csr_alg2_col:
      case SpmmCandidate::cusparse_csr_alg2_row: alg_ = CUSPARSE_SPMM_CSR_ALG2; break;
      case SpmmCandidate::cusparse_csr_alg3_col:
      case SpmmCandidate::cusparse_csr_alg3_row: alg_ = CUSPARSE_SPMM_CSR_ALG3; break;
      default:
        KKPERM_THROW(std::invalid_argument,
                     "kkperm::make_cusparse_spmm_plan: " << to_string(c) << " is not a cuSPARSE candidate");
    }
    order_ = info(c).layout == SpmmLayout::left ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW;
  }
  ~CusparseSpmmPlan() override { release(); }

  double extra_bytes() const override { return static_cast<double>(buffer_.extent(0)); }
  std::string details() const override {
    return "buffer_bytes=" + std::to_string(buffer_.extent(0)) +
           (trivial_ ? " trivial(beta*Y)" : "") + (preprocessed_ ? " preprocessed" : "");
  }

 protected:
  void prepare_impl(const Matrix& A) override {
    release();
    A_ = A;
    const std::int64_t n = A.numRows(), m = A.numCols(), K = this->K();
    trivial_ = n == 0 || m == 0 || K == 0 || A.nnz() == 0;
    if (trivial_) return;  // Y = beta*Y (or nothing): no cuSPARSE call needed
    KKPERM_CUSPARSE_CHECK(cusparseCreate(&handle_));
    KKPERM_CUSPARSE_CHECK(cusparseSetStream(handle_, exec().cuda_stream()));
    constexpr auto vt = cuda_type<value_type>();
    KKPERM_CUSPARSE_CHECK(cusparseCreateCsr(
        &matA_, n, m, A.nnz(), const_cast<offset_t*>(A.graph.row_map.data()),
        const_cast<ordinal_t*>(A.graph.entries.data()), const_cast<value_type*>(A.values.data()),
        index_type<offset_t>(), index_type<ordinal_t>(), CUSPARSE_INDEX_BASE_ZERO, vt));
    // Scratch B/Y so preprocess sees valid pointers; run() re-points the descriptors.
    const bool col = order_ == CUSPARSE_ORDER_COL;
    Kokkos::View<value_type*, typename Matrix::device_type> Bs("kkperm::cusparse_spmm::B0", m * K);
    Kokkos::View<value_type*, typename Matrix::device_type> Ys("kkperm::cusparse_spmm::Y0", n * K);
    KKPERM_CUSPARSE_CHECK(cusparseCreateDnMat(&matB_, m, K, col ? m : K, Bs.data(), vt, order_));
    KKPERM_CUSPARSE_CHECK(cusparseCreateDnMat(&matY_, n, K, col ? n : K, Ys.data(), vt, order_));
    const value_type one = 1, zero = 0;
    std::size_t bytes = 0;
    const cusparseStatus_t st =
        cusparseSpMM_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA_, matB_, &zero,
                                matY_, vt, alg_, &bytes);
    if (st == CUSPARSE_STATUS_NOT_SUPPORTED) {
      release();
      throw CandidateNotApplicable(this->name() + ": cuSPARSE reports this algorithm/layout/type "
                                   "combination as not supported (" +
                                   cusparseGetErrorString(st) + ")");
    }
    KKPERM_CUSPARSE_CHECK(st);
    buffer_ = Kokkos::View<char*, typename Matrix::device_type>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::cusparse_spmm::buffer"),
        bytes > 0 ? bytes : 1);
    if (alg_ == CUSPARSE_SPMM_CSR_ALG1 || alg_ == CUSPARSE_SPMM_CSR_ALG3) {
      KKPERM_CUSPARSE_CHECK(cusparseSpMM_preprocess(
          handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA_,
          matB_, &zero, matY_, vt, alg_, buffer_.data()));
      preprocessed_ = true;
    }
    exec().fence();  // scratch B/Y die at scope end
  }

  void run_impl(value_type alpha, const b_left& B, value_type beta,
                const y_left& Y) const override {
    launch(alpha, B.data(), beta, Y);
  }
  void run_impl(value_type alpha, const b_right& B, value_type beta,
                const y_right& Y) const override {
    launch(alpha, B.data(), beta, Y);
  }

 private:
  template <class YView>
  void launch(value_type alpha, const value_type* B, value_type beta, const YView& Y) const {
    if (trivial_) {
      if (A_.numRows() > 0 && this->K() > 0) kernels::spmm::scale_all(exec(), beta, Y);
      return;
    }
    constexpr auto vt = cuda_type<value_type>();
    KKPERM_CUSPARSE_CHECK(cusparseDnMatSetValues(matB_, const_cast<value_type*>(B)));
    KKPERM_CUSPARSE_CHECK(cusparseDnMatSetValues(matY_, Y.data()));
    KKPERM_CUSPARSE_CHECK(cusparseSpMM(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA_, matB_,
                                       &beta, matY_, vt, alg_, buffer_.data()));
  }

  void release() {
    // Destructors must not throw: failures here are reported by the next checked call.
    if (matA_) cusparseDestroySpMat(matA_);
    if (matB_) cusparseDestroyDnMat(matB_);
    if (matY_) cusparseDestroyDnMat(matY_);
    if (handle_) cusparseDestroy(handle_);
    matA_ = nullptr;
    matB_ = matY_ = nullptr;
    handle_ = nullptr;
    buffer_ = {};
    preprocessed_ = false;
  }

  cusparseSpMMAlg_t alg_ = CUSPARSE_SPMM_CSR_ALG1;
  cusparseOrder_t order_ = CUSPARSE_ORDER_COL;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t matA_ = nullptr;
  cusparseDnMatDescr_t matB_ = nullptr;
  cusparseDnMatDescr_t matY_ = nullptr;
  Kokkos::View<char*, typename Matrix::device_type> buffer_;
  Matrix A_;
  bool trivial_ = false;
  bool preprocessed_ = false;
};

}  // namespace

template <class Matrix>
std::unique_ptr<SpmmPlan<Matrix>> make_cusparse_spmm_plan(SpmmCandidate c) {
  return std::make_unique<CusparseSpmmPlan<Matrix>>(c);
}

template std::unique_ptr<SpmmPlan<Crs<double, int, DefaultDevice, int>>>
make_cusparse_spmm_plan<Crs<double, int, DefaultDevice, int>>(SpmmCandidate);
template std::unique_ptr<SpmmPlan<Crs<float, int, DefaultDevice, int>>>
make_cusparse_spmm_plan<Crs<float, int, DefaultDevice, int>>(SpmmCandidate);

}  // namespace kkperm
