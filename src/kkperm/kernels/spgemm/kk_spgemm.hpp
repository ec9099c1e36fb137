#pragma once
/**
 * @brief Kokkos Kernels 3.4 SpGEMM through the view-level API, keeping the handle alive so
 * numeric() can run again after value changes (the CrsMatrix-level KK spgemm_numeric destroys
 * its handle). Algorithms: SPGEMM_KK or SPGEMM_KK_MEMORY only (never SPGEMM_DEFAULT: in KK 3.4 it
 * routes to a broken cuSPARSE path on CUDA).
 *
 * Usage: `KkSpgemm<M> kk(KokkosSparse::SPGEMM_KK); kk.symbolic(A, B); kk.numeric(A, B); kk.C();`
 * Preconditions: sorted, unique columns in A and B (checked by the registry plan); A.numCols() ==
 * B.numRows(). KK writes C's columns in numeric() and does not promise sorted rows, so numeric()
 * sorts every row (included in its time; C is always sorted/unique on return). Products with a
 * zero dimension (n, k or m = 0) are answered here (C empty) without calling KK, whose CUDA
 * symbolic divides by the row count.
 */
#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosKernels_SparseUtils.hpp>
#include <KokkosSparse_spgemm_numeric.hpp>
#include <KokkosSparse_spgemm_symbolic.hpp>

#include <memory>

#include "kkperm/core/error.hpp"

namespace kkperm::spgemm {

template <class Matrix>
class KkSpgemm {
 public:
  using value_type = typename Matrix::non_const_value_type;
  using ordinal_type = typename Matrix::non_const_ordinal_type;
  using offset_type = typename Matrix::non_const_size_type;
  using execution_space = typename Matrix::execution_space;
  using memory_space = typename Matrix::memory_space;
  using handle_type = KokkosKernels::Experimental::KokkosKernelsHandle<
      offset_type, ordinal_type, value_type, execution_space, memory_space, memory_space>;
  using rowmap_view = typename Matrix::row_map_type::non_const_type;
  using entries_view = typename Matrix::index_type::non_const_type;
  using values_view = typename Matrix::values_type::non_const_type;

  explicit KkSpgemm(KokkosSparse::SPGEMMAlgorithm algo) : algo_(algo) {
    KKPERM_REQUIRE(algo == KokkosSparse::SPGEMM_KK || algo == KokkosSparse::SPGEMM_KK_MEMORY,
                   "kkperm::spgemm::KkSpgemm: only SPGEMM_KK and SPGEMM_KK_MEMORY are allowed");
  }

  void symbolic(const Matrix& A, const Matrix& B) {
    handle_ = std::make_unique<handle_type>();
    handle_->create_spgemm_handle(algo_);
    n_ = A.numRows();
    k_ = A.numCols();
    m_ = B.numCols();
    rowC_ = rowmap_view("kkperm::kk::C::row_map", static_cast<std::size_t>(n_) + 1);
    degenerate_ = n_ == 0 || k_ == 0 || m_ == 0;
    if (degenerate_) {
      // C has no entries (row_map stays zero). Not handed to KK: on CUDA its symbolic divides by
      // the row count (KokkosSparse_spgemm_impl_symbolic.hpp:1822, `original_overall_flops / m`)
      // and died of SIGFPE on a 0x0 product (cuda-gdb, H100, docs/gpu_test_runs.md run 12).
      handle_.reset();
      nnz_ = 0;
      entC_ = entries_view("kkperm::kk::C::entries", 0);
      valC_ = values_view("kkperm::kk::C::values", 0);
      C_ = Matrix("kkperm::kk::C", n_, m_, nnz_, valC_, rowC_, entC_);
      return;
    }
    KokkosSparse::Experimental::spgemm_symbolic(handle_.get(), n_, k_, m_, A.graph.row_map,
                                                A.graph.entries, false, B.graph.row_map,
                                                B.graph.entries, false, rowC_);
    nnz_ = handle_->get_spgemm_handle()->get_c_nnz();
    entC_ = entries_view("kkperm::kk::C::entries", static_cast<std::size_t>(nnz_));
    valC_ = values_view("kkperm::kk::C::values", static_cast<std::size_t>(nnz_));
    C_ = Matrix("kkperm::kk::C", n_, m_, nnz_, valC_, rowC_, entC_);
  }

  void numeric(const Matrix& A, const Matrix& B) {
    KKPERM_REQUIRE(handle_ != nullptr || degenerate_, "kkperm::spgemm_numeric(kk): call symbolic() first");
    if (degenerate_) return;  // no entries to compute
    KokkosSparse::Experimental::spgemm_numeric(
        handle_.get(), n_, k_, m_, A.graph.row_map, A.graph.entries, A.values, false,
        B.graph.row_map, B.graph.entries, B.values, false, rowC_, entC_, valC_);
    KokkosKernels::Impl::sort_crs_matrix<execution_space>(rowC_, entC_, valC_);
  }

  const Matrix& C() const { return C_; }
  offset_type nnz() const { return nnz_; }

 private:
  KokkosSparse::SPGEMMAlgorithm algo_;
  std::unique_ptr<handle_type> handle_;
  bool degenerate_ = false;  ///< a dimension is 0: C is empty, KK is not called
  ordinal_type n_ = 0, k_ = 0, m_ = 0;
  offset_type nnz_ = 0;
  rowmap_view rowC_;
  entries_view entC_;
  values_view valC_;
  Matrix C_;
};

}  // namespace kkperm::spgemm
