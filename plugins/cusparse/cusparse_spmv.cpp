// cuSPARSE SpMV candidates (compiled only with KKPERM_ENABLE_CUDA; see cusparse_spmv.hpp).
#include "cusparse/cusparse_spmv.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kkperm/core/cuda_check.hpp"
#include "kkperm/kernels/spmv/csr_kernels.hpp"

namespace kkperm {

namespace {

template <class T>
constexpr cudaDataType spmv_cuda_type() {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "cuSPARSE SpMV candidates support float and double");
  return std::is_same<T, float>::value ? CUDA_R_32F : CUDA_R_64F;
}
template <class I>
constexpr cusparseIndexType_t spmv_index_type() {
  static_assert(sizeof(I) == 4 || sizeof(I) == 8, "32- or 64-bit indices");
  return sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

template <class Matrix>
class CusparseSpmvPlan final : public SpmvPlan<Matrix> {
  using base = SpmvPlan<Matrix>;
  using typename base::value_type;
  using typename base::x_view;
  using typename base::y_view;
  using ordinal_t = typename Matrix::non_const_ordinal_type;
  using offset_t = typename Matrix::non_const_size_type;
  using exec = typename Matrix::execution_space;
  using device_type = typename Matrix::device_type;
  static_assert(std::is_same<exec, Kokkos::Cuda>::value,
                "cuSPARSE candidates need a Kokkos::Cuda matrix");

 public:
  explicit CusparseSpmvPlan(SpmvCandidate c) : base(c) {
    if (c == SpmvCandidate::cusparse_csr_alg1) alg_ = CUSPARSE_SPMV_CSR_ALG1;
    else if (c == SpmvCandidate::cusparse_csr_alg2) alg_ = CUSPARSE_SPMV_CSR_ALG2;
    else
      KKPERM_THROW(std::invalid_argument, "kkperm::make_cusparse_spmv_plan: "
                                              << to_string(c) << " is not a cuSPARSE candidate");
  }
  ~CusparseSpmvPlan() override { release(); }

  double extra_bytes() const override { return static_cast<double>(buffer_.extent(0)); }
  std::string details() const override {
    return "buffer_bytes=" + std::to_string(buffer_.extent(0));
  }

 protected:
  void prepare_impl(const Matrix& A) override {
    release();
    A_ = A;
    trivial_ = A.numRows() == 0 || A.numCols() == 0 || A.nnz() == 0;
    if (trivial_) return;
    KKPERM_CUSPARSE_CHECK(cusparseCreate(&handle_));
    KKPERM_CUSPARSE_CHECK(cusparseSetStream(handle_, Kokkos::Cuda().cuda_stream()));
    KKPERM_CUSPARSE_CHECK(cusparseCreateCsr(
        &mat_, A.numRows(), A.numCols(), A.nnz(), const_cast<offset_t*>(A.graph.row_map.data()),
        const_cast<ordinal_t*>(A.graph.entries.data()), const_cast<value_type*>(A.values.data()),
        spmv_index_type<offset_t>(), spmv_index_type<ordinal_t>(), CUSPARSE_INDEX_BASE_ZERO,
        spmv_cuda_type<value_type>()));
    // Dense descriptors need some device pointers for bufferSize; run() re-points them.
    Kokkos::View<value_type*, device_type> xt("kkperm::cusparse_spmv::x_probe", A.numCols());
    Kokkos::View<value_type*, device_type> yt("kkperm::cusparse_spmv::y_probe", A.numRows());
    KKPERM_CUSPARSE_CHECK(
        cusparseCreateDnVec(&vx_, A.numCols(), xt.data(), spmv_cuda_type<value_type>()));
    KKPERM_CUSPARSE_CHECK(
        cusparseCreateDnVec(&vy_, A.numRows(), yt.data(), spmv_cuda_type<value_type>()));
    const value_type one = 1, zero = 0;
    std::size_t bytes = 0;
    KKPERM_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                  &one, mat_, vx_, &zero, vy_,
                                                  spmv_cuda_type<value_type>(), alg_, &bytes));
    buffer_ = Kokkos::View<char*, device_type>("kkperm::cusparse_spmv::buffer", bytes);
    Kokkos::fence();
  }

  void run_impl(value_type alpha, const x_view& x, value_type beta,
                const y_view& y) const override {
    if (trivial_) {
      spmv::scale_y<exec>("kkperm::spmv::cusparse::scale", beta, y);
      return;
    }
    if (beta == value_type(0)) Kokkos::deep_copy(exec(), y, value_type(0));
    KKPERM_CUSPARSE_CHECK(cusparseDnVecSetValues(vx_, const_cast<value_type*>(x.data())));
    KKPERM_CUSPARSE_CHECK(cusparseDnVecSetValues(vy_, y.data()));
    KKPERM_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_,
                                       vx_, &beta, vy_, spmv_cuda_type<value_type>(), alg_,
                                       buffer_.data()));
  }

 private:
  void release() {
    // Destruction must not throw: statuses are ignored here on purpose.
    if (vx_) cusparseDestroyDnVec(vx_);
    if (vy_) cusparseDestroyDnVec(vy_);
    if (mat_) cusparseDestroySpMat(mat_);
    if (handle_) cusparseDestroy(handle_);
    vx_ = vy_ = nullptr;
    mat_ = nullptr;
    handle_ = nullptr;
  }

  cusparseSpMVAlg_t alg_ = CUSPARSE_SPMV_CSR_ALG1;
  Matrix A_;
  bool trivial_ = false;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnVecDescr_t vx_ = nullptr, vy_ = nullptr;
  Kokkos::View<char*, device_type> buffer_;
};

}  // namespace

template <class Matrix>
std::unique_ptr<SpmvPlan<Matrix>> make_cusparse_spmv_plan(SpmvCandidate c) {
  return std::make_unique<CusparseSpmvPlan<Matrix>>(c);
}

template std::unique_ptr<SpmvPlan<Crs<double, int, DefaultDevice, int>>>
make_cusparse_spmv_plan<Crs<double, int, DefaultDevice, int>>(SpmvCandidate);
template std::unique_ptr<SpmvPlan<Crs<float, int, DefaultDevice, int>>>
make_cusparse_spmv_plan<Crs<float, int, DefaultDevice, int>>(SpmvCandidate);

}  // namespace kkperm
