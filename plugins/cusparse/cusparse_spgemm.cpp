// cuSPARSE generic-API SpGEMM plans (ALG1/ALG2/ALG3 and the SpGEMMreuse path). CUDA only.
#include "cusparse/cusparse_spgemm.hpp"

#include <cusparse.h>

#include <sstream>
#include <string>
#include <type_traits>

#include "kkperm/core/cuda_check.hpp"
#include "kkperm/core/pooled_array.hpp"

namespace kkperm {

namespace {

template <class V>
cudaDataType cuda_type() {
  static_assert(std::is_same_v<V, double> || std::is_same_v<V, float>, "float or double");
  return std::is_same_v<V, double> ? CUDA_R_64F : CUDA_R_32F;
}

template <class Matrix>
class CusparseSpgemmPlan final : public SpgemmPlan<Matrix> {
 public:
  using V = typename Matrix::non_const_value_type;
  using O = typename Matrix::non_const_ordinal_type;
  using F = typename Matrix::non_const_size_type;
  static_assert(std::is_same_v<O, int> && std::is_same_v<F, int>, "cuSPARSE plans use int32");
  using rowmap_view = typename Matrix::row_map_type::non_const_type;
  using entries_view = typename Matrix::index_type::non_const_type;
  using values_view = typename Matrix::values_type::non_const_type;
  using dev = typename Matrix::device_type;
  using buffer_view = Kokkos::View<char*, dev>;

  CusparseSpgemmPlan(SpgemmCandidate c, const SpgemmPlanOptions& o) : SpgemmPlan<Matrix>(c, o) {
    switch (c) {
      case SpgemmCandidate::cusparse_alg1: alg_ = CUSPARSE_SPGEMM_ALG1; break;
      case SpgemmCandidate::cusparse_alg2: alg_ = CUSPARSE_SPGEMM_ALG2; break;
      case SpgemmCandidate::cusparse_alg3: alg_ = CUSPARSE_SPGEMM_ALG3; break;
      default: alg_ = CUSPARSE_SPGEMM_DEFAULT; reuse_ = true; break;
    }
    KKPERM_CUSPARSE_CHECK(cusparseCreate(&handle_));
    KKPERM_CUSPARSE_CHECK(cusparseSetStream(handle_, Kokkos::Cuda().cuda_stream()));
  }
  ~CusparseSpgemmPlan() override {
    release_descriptors();
    if (handle_) cusparseDestroy(handle_);
  }

  const Matrix& C() const override { return C_; }
  std::string details() const override {
    std::ostringstream os;
    os << "buffers=" << buffer_bytes_ << " nnz_c=" << nnz_;
    return os.str();
  }
  double extra_bytes() const override { return static_cast<double>(buffer_bytes_); }
  /// ALG1-3: symbolic() runs the whole pipeline, values included (SpGEMM_copy fills them).
  bool symbolic_computes_values() const override { return !reuse_; }

 protected:
  void symbolic_impl(const Matrix& A, const Matrix& B) override {
    release_descriptors();
    n_ = A.numRows();
    k_ = A.numCols();
    m_ = B.numCols();
    rowC_ = pooled_array<rowmap_view>("kkperm::cusparse::C::row_map", static_cast<std::size_t>(n_) + 1);
    // zeroed on the stream (what the empty product returns; cuSPARSE overwrites it otherwise)
    KKPERM_CUDA_CHECK(cudaMemsetAsync(rowC_.data(), 0, rowC_.extent(0) * sizeof(F), Kokkos::Cuda().cuda_stream()));
    trivial_ = n_ == 0 || m_ == 0 || A.nnz() == 0 || B.nnz() == 0 || this->estimate().sum_work == 0;
    if (trivial_) {  // C has no entries; cuSPARSE is not called on empty operands
      nnz_ = 0;
      entC_ = entries_view("kkperm::cusparse::C::entries", 0);
      valC_ = values_view("kkperm::cusparse::C::values", 0);
      C_ = Matrix("kkperm::cusparse::C", n_, m_, 0, valC_, rowC_, entC_);
      return;
    }
    make_descriptors(A, B);
    if (reuse_) reuse_symbolic();
    else full_pipeline(/*first=*/true);
    C_ = Matrix("kkperm::cusparse::C", n_, m_, nnz_, valC_, rowC_, entC_);
  }

  void numeric_impl(const Matrix& A, const Matrix& B) override {
    if (trivial_) return;
    KKPERM_CUSPARSE_CHECK(cusparseCsrSetPointers(matA_, ptr(A.graph.row_map), ptr(A.graph.entries),
                                                 ptr(A.values)));
    KKPERM_CUSPARSE_CHECK(cusparseCsrSetPointers(matB_, ptr(B.graph.row_map), ptr(B.graph.entries),
                                                 ptr(B.values)));
    if (reuse_) {
      const V alpha = 1, beta = 0;
      KKPERM_CUSPARSE_CHECK(cusparseSpGEMMreuse_compute(handle_, op_, op_, &alpha, matA_, matB_,
                                                        &beta, matC_, cuda_type<V>(), alg_, desc_));
    } else {
      full_pipeline(/*first=*/false);
    }
  }

 private:
  template <class View>
  static void* ptr(const View& v) {
    return const_cast<void*>(static_cast<const void*>(v.data()));
  }

  void make_descriptors(const Matrix& A, const Matrix& B) {
    KKPERM_CUSPARSE_CHECK(cusparseCreateCsr(&matA_, n_, k_, A.nnz(), ptr(A.graph.row_map),
                                            ptr(A.graph.entries), ptr(A.values), CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                            cuda_type<V>()));
    KKPERM_CUSPARSE_CHECK(cusparseCreateCsr(&matB_, k_, m_, B.nnz(), ptr(B.graph.row_map),
                                            ptr(B.graph.entries), ptr(B.values), CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                            cuda_type<V>()));
    KKPERM_CUSPARSE_CHECK(cusparseCreateCsr(&matC_, n_, m_, 0, rowC_.data(), nullptr, nullptr,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, cuda_type<V>()));
  }

  void release_descriptors() {
    if (desc_) cusparseSpGEMM_destroyDescr(desc_);
    if (matA_) cusparseDestroySpMat(matA_);
    if (matB_) cusparseDestroySpMat(matB_);
    if (matC_) cusparseDestroySpMat(matC_);
    desc_ = nullptr;
    matA_ = matB_ = matC_ = nullptr;
    buf1_ = buf2_ = buf3_ = buf4_ = buf5_ = buffer_view();
    buffer_bytes_ = 0;
  }

  /// Buffers and C come from kkperm's stream-ordered plan pool, as ESC's C does (until session
  /// 38 each was a Kokkos allocation: a cudaMalloc with a synchronous header copy, and a
  /// synchronizing cudaFree when replaced, inside the timed setup).
  static buffer_view alloc(std::size_t bytes, const char* label) {
    return kkperm::detail::pooled_view_block<dev>(std::string(label), bytes ? bytes : 1);
  }
  /// n elements of View type ViewT from one pool block (uninitialized).
  template <class ViewT>
  static ViewT pooled_array(const char* label, std::size_t n) {
    return kkperm::detail::view_in_block<ViewT>(alloc(n * sizeof(typename ViewT::non_const_value_type), label), 0, n);
  }

  /// workEstimation → (estimateMemory) → compute → getSize → copy. first: allocates C.
  void full_pipeline(bool first) {
    const V alpha = 1, beta = 0;
    const auto ct = cuda_type<V>();
    if (desc_) cusparseSpGEMM_destroyDescr(desc_);
    desc_ = nullptr;
    if (!first) {
      // Fresh C descriptor (row_map only, as on the first pass) so the recomputation starts from
      // the documented state rather than a descriptor already pointing at C's arrays.
      if (matC_) cusparseDestroySpMat(matC_);
      matC_ = nullptr;
      KKPERM_CUSPARSE_CHECK(cusparseCreateCsr(&matC_, n_, m_, 0, rowC_.data(), nullptr, nullptr,
                                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                              CUSPARSE_INDEX_BASE_ZERO, cuda_type<V>()));
    }
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&desc_));
    std::size_t size1 = 0, size2 = 0, size3 = 0;
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle_, op_, op_, &alpha, matA_, matB_,
                                                        &beta, matC_, ct, alg_, desc_, &size1,
                                                        nullptr));
    if (first || size1 > buf1_.extent(0)) buf1_ = alloc(size1, "kkperm::cusparse::buf1");
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle_, op_, op_, &alpha, matA_, matB_,
                                                        &beta, matC_, ct, alg_, desc_, &size1,
                                                        buf1_.data()));
    if (alg_ == CUSPARSE_SPGEMM_ALG2 || alg_ == CUSPARSE_SPGEMM_ALG3) {
      const float chunk_fraction = alg_ == CUSPARSE_SPGEMM_ALG3 ? 0.2f : 1.0f;
      KKPERM_CUSPARSE_CHECK(cusparseSpGEMM_estimateMemory(handle_, op_, op_, &alpha, matA_, matB_,
                                                          &beta, matC_, ct, alg_, desc_,
                                                          chunk_fraction, &size3, nullptr,
                                                          nullptr));
      buffer_view buf3 = alloc(size3, "kkperm::cusparse::buf3");
      KKPERM_CUSPARSE_CHECK(cusparseSpGEMM_estimateMemory(handle_, op_, op_, &alpha, matA_, matB_,
                                                          &beta, matC_, ct, alg_, desc_,
                                                          chunk_fraction, &size3, buf3.data(),
                                                          &size2));
    } else {
      KKPERM_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle_, op_, op_, &alpha, matA_, matB_, &beta,
                                                   matC_, ct, alg_, desc_, &size2, nullptr));
    }
    if (first || size2 > buf2_.extent(0)) buf2_ = alloc(size2, "kkperm::cusparse::buf2");
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMM_compute(handle_, op_, op_, &alpha, matA_, matB_, &beta,
                                                 matC_, ct, alg_, desc_, &size2, buf2_.data()));
    std::int64_t rows = 0, cols = 0, nnz = 0;
    KKPERM_CUSPARSE_CHECK(cusparseSpMatGetSize(matC_, &rows, &cols, &nnz));
    if (first) {
      nnz_ = static_cast<F>(nnz);
      entC_ = pooled_array<entries_view>("kkperm::cusparse::C::entries", static_cast<std::size_t>(nnz));
      valC_ = pooled_array<values_view>("kkperm::cusparse::C::values", static_cast<std::size_t>(nnz));
    } else {
      KKPERM_REQUIRE(nnz == nnz_, "kkperm::spgemm_numeric(cusparse): nnz(C) changed from "
                                      << nnz_ << " to " << nnz);
    }
    KKPERM_CUSPARSE_CHECK(cusparseCsrSetPointers(matC_, rowC_.data(), entC_.data(), valC_.data()));
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMM_copy(handle_, op_, op_, &alpha, matA_, matB_, &beta, matC_,
                                              ct, alg_, desc_));
    buffer_bytes_ = buf1_.extent(0) + buf2_.extent(0);
  }

  /// reuse_workEstimation → reuse_nnz → reuse_copy (structure), buffers 4/5 kept for compute.
  void reuse_symbolic() {
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&desc_));
    std::size_t s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMMreuse_workEstimation(handle_, op_, op_, matA_, matB_, matC_,
                                                             alg_, desc_, &s1, nullptr));
    buf1_ = alloc(s1, "kkperm::cusparse::buf1");
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMMreuse_workEstimation(handle_, op_, op_, matA_, matB_, matC_,
                                                             alg_, desc_, &s1, buf1_.data()));
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMMreuse_nnz(handle_, op_, op_, matA_, matB_, matC_, alg_,
                                                  desc_, &s2, nullptr, &s3, nullptr, &s4,
                                                  nullptr));
    buf2_ = alloc(s2, "kkperm::cusparse::buf2");
    buf3_ = alloc(s3, "kkperm::cusparse::buf3");
    buf4_ = alloc(s4, "kkperm::cusparse::buf4");
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMMreuse_nnz(handle_, op_, op_, matA_, matB_, matC_, alg_,
                                                  desc_, &s2, buf2_.data(), &s3, buf3_.data(), &s4,
                                                  buf4_.data()));
    buf1_ = buffer_view();
    buf2_ = buffer_view();
    std::int64_t rows = 0, cols = 0, nnz = 0;
    KKPERM_CUSPARSE_CHECK(cusparseSpMatGetSize(matC_, &rows, &cols, &nnz));
    nnz_ = static_cast<F>(nnz);
    entC_ = pooled_array<entries_view>("kkperm::cusparse::C::entries", static_cast<std::size_t>(nnz));
    valC_ = pooled_array<values_view>("kkperm::cusparse::C::values", static_cast<std::size_t>(nnz));
    KKPERM_CUSPARSE_CHECK(cusparseCsrSetPointers(matC_, rowC_.data(), entC_.data(), valC_.data()));
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMMreuse_copy(handle_, op_, op_, matA_, matB_, matC_, alg_,
                                                   desc_, &s5, nullptr));
    buf5_ = alloc(s5, "kkperm::cusparse::buf5");
    KKPERM_CUSPARSE_CHECK(cusparseSpGEMMreuse_copy(handle_, op_, op_, matA_, matB_, matC_, alg_,
                                                   desc_, &s5, buf5_.data()));
    buf3_ = buffer_view();
    buffer_bytes_ = buf4_.extent(0) + buf5_.extent(0);
  }

  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t matA_ = nullptr, matB_ = nullptr, matC_ = nullptr;
  cusparseSpGEMMDescr_t desc_ = nullptr;
  cusparseSpGEMMAlg_t alg_ = CUSPARSE_SPGEMM_DEFAULT;
  const cusparseOperation_t op_ = CUSPARSE_OPERATION_NON_TRANSPOSE;
  bool reuse_ = false, trivial_ = false;
  O n_ = 0, k_ = 0, m_ = 0;
  F nnz_ = 0;
  rowmap_view rowC_;
  entries_view entC_;
  values_view valC_;
  buffer_view buf1_, buf2_, buf3_, buf4_, buf5_;
  std::size_t buffer_bytes_ = 0;
  Matrix C_;
};

}  // namespace

template <class Matrix>
std::unique_ptr<SpgemmPlan<Matrix>> make_cusparse_spgemm_plan(SpgemmCandidate c,
                                                              const SpgemmPlanOptions& o) {
  return std::make_unique<CusparseSpgemmPlan<Matrix>>(c, o);
}

template std::unique_ptr<SpgemmPlan<Crs<double, int, DefaultDevice, int>>>
make_cusparse_spgemm_plan<Crs<double, int, DefaultDevice, int>>(SpgemmCandidate,
                                                                const SpgemmPlanOptions&);
template std::unique_ptr<SpgemmPlan<Crs<float, int, DefaultDevice, int>>>
make_cusparse_spgemm_plan<Crs<float, int, DefaultDevice, int>>(SpgemmCandidate,
                                                               const SpgemmPlanOptions&);

}  // namespace kkperm
