// SpMV candidate registry: the table of candidates and one plan class per kernel family.
#include "kkperm/select/spmv_candidates.hpp"

#include <KokkosSparse_spmv.hpp>

#include <limits>
#include <sstream>

#include "kkperm/core/crs_utils.hpp"
#include "kkperm/formats/spmv_formats.hpp"
#include "kkperm/kernels/spmv/csr_kernels.hpp"
#include "kkperm/kernels/spmv/format_kernels.hpp"
#include "kkperm/permute/build.hpp"

#ifdef KKPERM_ENABLE_CUDA
#include "cusparse/cusparse_spmv.hpp"
#endif

namespace kkperm {

namespace {

// One row per candidate, in enum order (checked at first use).
const SpmvCandidateInfo kTable[] = {
    {SpmvCandidate::csr_scalar, "csr_scalar", "csr_scalar", "identity", SpmvFormat::csr, false,
     "CSR, one thread per row"},
    {SpmvCandidate::csr_vector, "csr_vector", "csr_vector", "identity", SpmvFormat::csr, false,
     "CSR, one warp/vector per row, lanes from mean nnz/row"},
    {SpmvCandidate::csr_warp_dynamic, "csr_warp_dynamic", "csr_warp_dynamic", "identity",
     SpmvFormat::csr, false, "CSR, persistent warps fetching rows from an atomic counter"},
    {SpmvCandidate::csr_warp_tiled, "csr_warp_tiled", "csr_warp_tiled", "identity",
     SpmvFormat::csr, false, "CSR, x staged in scratch per column tile"},
    {SpmvCandidate::csr_merge, "csr_merge", "csr_merge", "identity", SpmvFormat::csr, false,
     "CSR, equal-nnz chunks with atomics at chunk borders"},
    {SpmvCandidate::csr_merge_path, "csr_merge_path", "csr_merge_path", "identity",
     SpmvFormat::csr, false, "CSR merge path: team per tile of rows + nonzeros in scratch, carry fix-up"},
    {SpmvCandidate::ell, "ell", "ell", "identity", SpmvFormat::ell, false,
     "ELLPACK, k = max nnz/row"},
    {SpmvCandidate::coo, "coo", "coo", "identity", SpmvFormat::coo, false,
     "COO, segmented reduction"},
    {SpmvCandidate::hyb, "hyb", "hyb", "identity", SpmvFormat::hyb, false,
     "ELL(k) + COO, k from the row-length histogram"},
    {SpmvCandidate::hyb_mu, "hyb_mu", "hyb", "identity", SpmvFormat::hyb, false,
     "ELL(k) + COO, k = ceil(mean nnz/row)"},
    {SpmvCandidate::sell_c_sigma, "sell_c_sigma", "sell_c_sigma", "sigma_window_sort",
     SpmvFormat::sell, false, "SELL-32-256"},
    {SpmvCandidate::sell_i16, "sell_i16", "sell16", "sigma_window_sort", SpmvFormat::sell16,
     false, "SELL-32-256 with 16-bit column offsets from a per-slice base (local columns)"},
    {SpmvCandidate::sell_i16_wide, "sell_i16_wide", "sell16", "sigma_window_sort",
     SpmvFormat::sell16, false, "SELL-32-2048 with 16-bit column offsets (evener slices)"},
    {SpmvCandidate::dcsr, "dcsr", "csr_vector", "identity", SpmvFormat::dcsr, false,
     "DCSR: warp per non-empty row, empty rows only scaled"},
    {SpmvCandidate::kk_native, "kk_native", "kk_native", "identity", SpmvFormat::csr, false,
     "KokkosSparse::spmv"},
    {SpmvCandidate::cusparse_csr_alg1, "cusparse_csr_alg1", "cusparse_alg1", "identity",
     SpmvFormat::csr, true, "cusparseSpMV CUSPARSE_SPMV_CSR_ALG1"},
    {SpmvCandidate::cusparse_csr_alg2, "cusparse_csr_alg2", "cusparse_alg2", "identity",
     SpmvFormat::csr, true, "cusparseSpMV CUSPARSE_SPMV_CSR_ALG2"},
    // Row-permuted CSR kernels (see the enum for the subset and why).
    {SpmvCandidate::csr_scalar_plain_sort, "csr_scalar@plain_sort", "csr_scalar", "plain_sort", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by rows by warp load (stable, descending)", Permutation::plain_sort,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_scalar_flipped_sort, "csr_scalar@flipped_sort", "csr_scalar", "flipped_sort", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by plain sort, alternate Nw-groups reversed", Permutation::flipped_sort,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_scalar_lpt, "csr_scalar@lpt", "csr_scalar", "lpt", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by LPT greedy warp assignment", Permutation::lpt,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_scalar_warp_aware, "csr_scalar@warp_aware", "csr_scalar", "warp_aware", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by intra-warp cache-line reuse greedy", Permutation::warp_aware,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_scalar_cta_aware, "csr_scalar@cta_aware", "csr_scalar", "cta_aware", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by inter-warp (CTA) cache-line reuse greedy", Permutation::cta_aware,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_scalar_hybrid_1, "csr_scalar@hybrid_1", "csr_scalar", "hybrid_1", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by load sort, ties by adjacent-row distance", Permutation::hybrid_1,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_scalar_hybrid_2_1, "csr_scalar@hybrid_2_1", "csr_scalar", "hybrid_2_1", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by CTA-aware, ties by warp load", Permutation::hybrid_2_1,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_scalar_hybrid_2_2, "csr_scalar@hybrid_2_2", "csr_scalar", "hybrid_2_2", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by CTA-aware, ties by intra-warp distance", Permutation::hybrid_2_2,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_scalar_hybrid_2_3, "csr_scalar@hybrid_2_3", "csr_scalar", "hybrid_2_3", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by warp-aware, ties by warp load", Permutation::hybrid_2_3,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_scalar_rcm, "csr_scalar@rcm", "csr_scalar", "rcm", SpmvFormat::csr, false,
     "CSR thread per row on rows permuted by reverse Cuthill-McKee (symmetric, x gathered)", Permutation::rcm,
     SpmvCandidate::csr_scalar},
    {SpmvCandidate::csr_vector_plain_sort, "csr_vector@plain_sort", "csr_vector", "plain_sort", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by rows by warp load (stable, descending)", Permutation::plain_sort,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_vector_flipped_sort, "csr_vector@flipped_sort", "csr_vector", "flipped_sort", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by plain sort, alternate Nw-groups reversed", Permutation::flipped_sort,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_vector_lpt, "csr_vector@lpt", "csr_vector", "lpt", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by LPT greedy warp assignment", Permutation::lpt,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_vector_warp_aware, "csr_vector@warp_aware", "csr_vector", "warp_aware", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by intra-warp cache-line reuse greedy", Permutation::warp_aware,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_vector_cta_aware, "csr_vector@cta_aware", "csr_vector", "cta_aware", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by inter-warp (CTA) cache-line reuse greedy", Permutation::cta_aware,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_vector_hybrid_1, "csr_vector@hybrid_1", "csr_vector", "hybrid_1", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by load sort, ties by adjacent-row distance", Permutation::hybrid_1,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_vector_hybrid_2_1, "csr_vector@hybrid_2_1", "csr_vector", "hybrid_2_1", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by CTA-aware, ties by warp load", Permutation::hybrid_2_1,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_vector_hybrid_2_2, "csr_vector@hybrid_2_2", "csr_vector", "hybrid_2_2", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by CTA-aware, ties by intra-warp distance", Permutation::hybrid_2_2,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_vector_hybrid_2_3, "csr_vector@hybrid_2_3", "csr_vector", "hybrid_2_3", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by warp-aware, ties by warp load", Permutation::hybrid_2_3,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_vector_rcm, "csr_vector@rcm", "csr_vector", "rcm", SpmvFormat::csr, false,
     "CSR vector per row on rows permuted by reverse Cuthill-McKee (symmetric, x gathered)", Permutation::rcm,
     SpmvCandidate::csr_vector},
    {SpmvCandidate::csr_warp_dynamic_plain_sort, "csr_warp_dynamic@plain_sort", "csr_warp_dynamic", "plain_sort", SpmvFormat::csr, false,
     "CSR dynamic warps on rows permuted by rows by warp load (stable, descending)", Permutation::plain_sort,
     SpmvCandidate::csr_warp_dynamic},
    {SpmvCandidate::csr_warp_dynamic_warp_aware, "csr_warp_dynamic@warp_aware", "csr_warp_dynamic", "warp_aware", SpmvFormat::csr, false,
     "CSR dynamic warps on rows permuted by intra-warp cache-line reuse greedy", Permutation::warp_aware,
     SpmvCandidate::csr_warp_dynamic},
    {SpmvCandidate::csr_warp_dynamic_cta_aware, "csr_warp_dynamic@cta_aware", "csr_warp_dynamic", "cta_aware", SpmvFormat::csr, false,
     "CSR dynamic warps on rows permuted by inter-warp (CTA) cache-line reuse greedy", Permutation::cta_aware,
     SpmvCandidate::csr_warp_dynamic},
    {SpmvCandidate::csr_warp_dynamic_rcm, "csr_warp_dynamic@rcm", "csr_warp_dynamic", "rcm", SpmvFormat::csr, false,
     "CSR dynamic warps on rows permuted by reverse Cuthill-McKee (symmetric, x gathered)", Permutation::rcm,
     SpmvCandidate::csr_warp_dynamic},
};
constexpr int kCount = static_cast<int>(SpmvCandidate::count_);
static_assert(sizeof(kTable) / sizeof(kTable[0]) == kCount, "one table row per candidate");

// ---------------------------------------------------------------------------------------------
// Plans. The kernels live in kernels/spmv; plans only hold prepared state and dispatch.

template <class Matrix>
class CsrPlan final : public SpmvPlan<Matrix> {
  using base = SpmvPlan<Matrix>;
  using typename base::execution_space;
  using typename base::ordinal_type;
  using typename base::value_type;
  using typename base::x_view;
  using typename base::y_view;
  using device_type = typename base::device_type;

 public:
  using base::base;
  std::string details() const override {
    std::ostringstream os;
    os << "vector_length=" << vl_;
    if (this->candidate() == SpmvCandidate::csr_warp_tiled) os << ", team_size=" << ts_;
    return os.str();
  }
  double extra_bytes() const override {
    return static_cast<double>(bmin_.span() + bmax_.span()) * sizeof(ordinal_type) +
           static_cast<double>(start_row_.span() + start_nz_.span()) * sizeof(std::int64_t) +
           static_cast<double>(carry_row_.span()) * sizeof(ordinal_type) +
           static_cast<double>(carry_val_.span()) * sizeof(value_type);
  }

 protected:
  void prepare_impl(const Matrix& A) override {
    A_ = A;
    const double mean =
        A.numRows() ? static_cast<double>(A.nnz()) / static_cast<double>(A.numRows()) : 0.0;
    vl_ = spmv::vector_length_for(mean, spmv::CsrVectorConfig::min_vector_length,
                                  spmv::CsrVectorConfig::max_vector_length);
    const SpmvCandidate c = this->candidate();
    if (c == SpmvCandidate::csr_warp_dynamic) {
      counter_ = Kokkos::View<unsigned long long*, device_type>("kkperm::spmv::counter", 1);
    } else if (c == SpmvCandidate::csr_warp_tiled) {
      const int lvl = spmv::launch_vector_length<execution_space>(vl_);
      ts_ = spmv::team_size_for<execution_space>(spmv::CsrWarpTiledConfig::threads_per_team, lvl);
      const std::int64_t nb = (static_cast<std::int64_t>(A.numRows()) + ts_ - 1) / ts_;
      bmin_ = Kokkos::View<ordinal_type*, device_type>("kkperm::spmv::tiled::bmin", nb);
      bmax_ = Kokkos::View<ordinal_type*, device_type>("kkperm::spmv::tiled::bmax", nb);
      spmv::csr_block_col_range<execution_space>(A.graph.row_map, A.graph.entries, A.numRows(),
                                                 ts_, bmin_, bmax_);
      // Every team stages x over its whole column range: for scattered columns that is
      // ~num_cols per team (quadratic), so the candidate is refused beyond the staging limit.
      const std::int64_t staged = spmv::csr_tiled_staged_columns<execution_space>(bmin_, bmax_);
      const double limit =
          std::max(spmv::CsrWarpTiledConfig::max_stage_ratio * static_cast<double>(A.nnz()),
                   static_cast<double>(spmv::CsrWarpTiledConfig::min_staged));
      if (static_cast<double>(staged) > limit)
        KKPERM_THROW(CandidateNotApplicable,
                     "kkperm::spmv::csr_warp_tiled: teams would stage "
                         << staged << " x entries for " << A.nnz() << " nonzeros, above the limit "
                         << limit << " (max(" << spmv::CsrWarpTiledConfig::max_stage_ratio
                         << " * nnz, " << spmv::CsrWarpTiledConfig::min_staged
                         << ")): columns too scattered for tiling");
    } else if (c == SpmvCandidate::csr_merge_path) {
      // The tile partition depends on row_map only: computed once here, reused by every run.
      const std::int64_t nt = spmv::csr_merge_path_tiles(A.numRows(), A.nnz());
      start_row_ = Kokkos::View<std::int64_t*, device_type>("kkperm::spmv::mp::row", nt + 1);
      start_nz_ = Kokkos::View<std::int64_t*, device_type>("kkperm::spmv::mp::nz", nt + 1);
      carry_row_ = Kokkos::View<ordinal_type*, device_type>("kkperm::spmv::mp::crow", nt);
      carry_val_ = Kokkos::View<value_type*, device_type>("kkperm::spmv::mp::cval", nt);
      spmv::csr_merge_path_partition<execution_space>(A.graph.row_map, A.numRows(), A.nnz(),
                                                      start_row_, start_nz_);
    }
  }

  void run_impl(value_type alpha, const x_view& x, value_type beta,
                const y_view& y) const override {
    using E = execution_space;
    const auto& rm = A_.graph.row_map;
    const auto& en = A_.graph.entries;
    const auto& va = A_.values;
    switch (this->candidate()) {
      case SpmvCandidate::csr_scalar:
        spmv::csr_scalar<E>(alpha, rm, en, va, x, beta, y, false,
                            Kokkos::View<ordinal_type*, device_type>());
        break;
      case SpmvCandidate::csr_vector:
        spmv::csr_vector<E>("kkperm::spmv::csr_vector", alpha, rm, en, va, x, beta, y, false,
                            Kokkos::View<ordinal_type*, device_type>(), A_.numRows(), vl_);
        break;
      case SpmvCandidate::csr_warp_dynamic:
        spmv::csr_warp_dynamic<E>(alpha, rm, en, va, x, beta, y, counter_, vl_, false,
                                  Kokkos::View<ordinal_type*, device_type>());
        break;
      case SpmvCandidate::csr_warp_tiled:
        spmv::csr_warp_tiled<E>(alpha, rm, en, va, x, beta, y, bmin_, bmax_, ts_, vl_);
        break;
      case SpmvCandidate::csr_merge:
        spmv::csr_merge<E>(alpha, rm, en, va, x, beta, y);
        break;
      case SpmvCandidate::csr_merge_path:
        spmv::csr_merge_path<E>(alpha, rm, en, va, x, beta, y, start_row_, start_nz_,
                                carry_row_, carry_val_);
        break;
      case SpmvCandidate::kk_native:
        KokkosSparse::spmv("N", alpha, A_, x, beta, y);
        break;
      default:
        KKPERM_ASSERT(false, "CsrPlan cannot run " << to_string(this->candidate()));
    }
  }

 private:
  Matrix A_;
  int vl_ = 1, ts_ = 1;
  Kokkos::View<unsigned long long*, device_type> counter_;
  Kokkos::View<ordinal_type*, device_type> bmin_, bmax_;
  Kokkos::View<std::int64_t*, device_type> start_row_, start_nz_;
  Kokkos::View<ordinal_type*, device_type> carry_row_;
  Kokkos::View<value_type*, device_type> carry_val_;
};

/**
 * Row-permuted CSR kernels: prepare() builds P (build_permutation on A's space, default
 * PermuteParams: Nt = 32, Nw = 32, 128-byte lines, windowed Hamming greedy beyond 2048 rows)
 * and A_p = PermutedCrsMatrix. run() launches the base kernel on A_p with the output map P,
 * so row q's result lands in y(P(q)) and y is read (beta != 0) at the same place: no y
 * gather/scatter passes. RCM permutes columns too; x is gathered into x_p once per call.
 */
template <class Matrix>
class PermutedCsrPlan final : public SpmvPlan<Matrix> {
  using base = SpmvPlan<Matrix>;
  using typename base::execution_space;
  using typename base::ordinal_type;
  using typename base::value_type;
  using typename base::x_view;
  using typename base::y_view;
  using device_type = typename base::device_type;

 public:
  using base::base;
  std::string details() const override { return details_; }
  double extra_bytes() const override {
    const auto& M = ap_.matrix();
    return static_cast<double>(M.graph.row_map.span()) * sizeof(typename Matrix::size_type) +
           static_cast<double>(M.graph.entries.span() + ap_.perm().span() +
                               ap_.inverse().span()) *
               sizeof(ordinal_type) +
           static_cast<double>(M.values.span() + xwork_.span()) * sizeof(value_type) +
           static_cast<double>(ap_.gather_map().span()) * sizeof(typename Matrix::size_type);
  }
  const PermutedCrsMatrix<Matrix>* permuted_matrix() const override { return &ap_; }

 protected:
  void prepare_impl(const Matrix& A) override {
    const auto& inf = info(this->candidate());
    kernel_ = inf.base;
    const Permutation kind = inf.row_permutation;
    if (kind == Permutation::rcm && A.numRows() != A.numCols())
      KKPERM_THROW(CandidateNotApplicable, "kkperm::spmv::" << inf.name
                                               << ": RCM is a symmetric permutation and needs a "
                                                  "square matrix, got "
                                               << A.numRows() << " x " << A.numCols());
    PermuteParams pp;
    pp.validate_matrix = false;  // plan precondition: A validated by the caller (see the header)
    const auto P = build_permutation(A, kind, pp);  // device-resident: no host round trip
    ap_ = PermutedCrsMatrix<Matrix>();
    ap_.build(A, P, false);
    xwork_ = Kokkos::View<value_type*, device_type>();
    if (ap_.symmetric())
      xwork_ = Kokkos::View<value_type*, device_type>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::permuted::x"),
          A.numCols());
    const double mean =
        A.numRows() ? static_cast<double>(A.nnz()) / static_cast<double>(A.numRows()) : 0.0;
    vl_ = spmv::vector_length_for(mean, spmv::CsrVectorConfig::min_vector_length,
                                  spmv::CsrVectorConfig::max_vector_length);
    if (kernel_ == SpmvCandidate::csr_warp_dynamic && counter_.extent(0) == 0)
      counter_ = Kokkos::View<unsigned long long*, device_type>("kkperm::spmv::counter", 1);
    std::ostringstream os;
    os << "permutation=" << to_string(kind) << (ap_.symmetric() ? " (symmetric)" : "")
       << ", vector_length=" << vl_;
    details_ = os.str();
  }

  void run_impl(value_type alpha, const x_view& x, value_type beta,
                const y_view& y) const override {
    if (ap_.symmetric()) {
      ap_.to_permuted(x, xwork_);
      launch(alpha, xwork_, beta, y, true);
    } else {
      launch(alpha, x, beta, y, true);
    }
  }
  void run_permuted_impl(value_type alpha, const x_view& xp, value_type beta,
                         const y_view& yp) const override {
    launch(alpha, xp, beta, yp, false);
  }

 private:
  template <class XV>
  void launch(value_type alpha, const XV& x, value_type beta, const y_view& y,
              bool to_caller_order) const {
    using E = execution_space;
    const auto& M = ap_.matrix();
    const auto& rm = M.graph.row_map;
    const auto& en = M.graph.entries;
    const auto& va = M.values;
    const Kokkos::View<ordinal_type*, device_type> out = ap_.perm();
    switch (kernel_) {
      case SpmvCandidate::csr_scalar:
        spmv::csr_scalar<E>(alpha, rm, en, va, x, beta, y, to_caller_order, out);
        break;
      case SpmvCandidate::csr_vector:
        spmv::csr_vector<E>("kkperm::spmv::csr_vector_permuted", alpha, rm, en, va, x, beta, y,
                            false, out, M.numRows(), vl_, to_caller_order, out);
        break;
      case SpmvCandidate::csr_warp_dynamic:
        spmv::csr_warp_dynamic<E>(alpha, rm, en, va, x, beta, y, counter_, vl_, to_caller_order,
                                  out);
        break;
      default:
        KKPERM_ASSERT(false, "PermutedCsrPlan cannot run kernel " << to_string(kernel_));
    }
  }

  SpmvCandidate kernel_ = SpmvCandidate::csr_scalar;
  PermutedCrsMatrix<Matrix> ap_;
  Kokkos::View<value_type*, device_type> xwork_;
  Kokkos::View<unsigned long long*, device_type> counter_;
  int vl_ = 1;
  std::string details_;
};

/// Throws CandidateNotApplicable when `slots` padded slots exceed max(fill * nnz, min_slots).
inline void check_fill(const char* who, std::int64_t slots, std::int64_t nnz, double fill,
                       std::int64_t min_slots) {
  const double limit = std::max(fill * static_cast<double>(nnz), static_cast<double>(min_slots));
  if (static_cast<double>(slots) > limit)
    KKPERM_THROW(CandidateNotApplicable,
                 who << ": " << slots << " padded slots for " << nnz << " nonzeros exceed the limit "
                     << limit << " (max(" << fill << " * nnz, " << min_slots << "))");
}

/// Throws CandidateNotApplicable when `slots` padded slots do not fit the offset type F (the
/// slice pointers of SELL-C-sigma and SELL16 are stored in it).
template <class F>
void check_slots_fit(const std::string& who, std::int64_t slots) {
  if (slots > static_cast<std::int64_t>(std::numeric_limits<F>::max()))
    KKPERM_THROW(CandidateNotApplicable,
                 who << ": " << slots << " padded slots do not fit the matrix's offset type");
}

template <class Matrix>
class FormatPlan final : public SpmvPlan<Matrix> {
  using base = SpmvPlan<Matrix>;
  using typename base::execution_space;
  using typename base::offset_type;
  using typename base::ordinal_type;
  using typename base::value_type;
  using typename base::x_view;
  using typename base::y_view;
  using device_type = typename base::device_type;
  template <class T>
  using dview = Kokkos::View<T*, device_type>;

 public:
  using base::base;
  std::string details() const override { return details_; }
  double extra_bytes() const override { return extra_; }
  double own_bytes(bool beta_nonzero = true) const override {
    if (own_nnz_bytes_ < 0) return this->bytes_moved(beta_nonzero);
    const double vb = sizeof(value_type);
    return own_nnz_bytes_ + vb * static_cast<double>(this->num_cols()) +
           vb * static_cast<double>(this->num_rows()) * (beta_nonzero ? 2.0 : 1.0);
  }

 protected:
  void prepare_impl(const Matrix& A) override {
    const std::int64_t nnz = static_cast<std::int64_t>(A.nnz());
    std::ostringstream os;
    const SpmvCandidate c = this->candidate();
    k_ = 0;
    ell_cols_ = coo_rows_ = coo_cols_ = sell_perm_ = nonempty_ = empty_ = dview<ordinal_type>();
    ell_vals_ = coo_vals_ = dview<value_type>();
    sell_ptr_ = dview<offset_type>();
    sell16_base_ = dview<ordinal_type>();
    sell16_len_ = sell16_offs_ = dview<std::uint16_t>();
    own_nnz_bytes_ = -1.0;
    A_ = Matrix();
    // Every format is built on A's execution space from A's views (formats/spmv_formats.hpp
    // device_*; the host builders there are their serial twins): nothing goes through the host
    // but k's row-length histogram (max length + 1 counts) and a few scalars.
    const auto& rm = A.graph.row_map;
    if (c == SpmvCandidate::ell || c == SpmvCandidate::hyb || c == SpmvCandidate::hyb_mu) {
      const std::int64_t n = static_cast<std::int64_t>(A.numRows());
      if (c == SpmvCandidate::ell) {
        k_ = formats::device_max_row_length<execution_space>(rm);
        check_fill("kkperm::spmv::ell", k_ * n, nnz, spmv::EllConfig::max_fill,
                   spmv::EllConfig::min_slots);
      } else if (c == SpmvCandidate::hyb) {
        k_ = formats::device_hyb_k_histogram<execution_space>(
            rm, spmv::HybConfig::relative_speed, spmv::HybConfig::breakeven_rows);
      } else {
        k_ = n == 0 ? 0 : (nnz + n - 1) / n;  // = formats::hyb_k_mean
      }
      const auto hy = formats::device_build_hyb<execution_space, device_type>(
          rm, A.graph.entries, A.values, static_cast<std::int64_t>(A.numCols()), k_);
      ell_cols_ = hy.ell_cols;
      ell_vals_ = hy.ell_vals;
      coo_rows_ = hy.coo_rows;
      coo_cols_ = hy.coo_cols;
      coo_vals_ = hy.coo_vals;
      os << "k=" << k_ << ", coo_nnz=" << hy.coo_vals.extent(0);
    } else if (c == SpmvCandidate::coo) {
      A_ = A;  // columns and values are A's own arrays
      coo_rows_ = dview<ordinal_type>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kkperm::spmv::coo::rows"), nnz);
      formats::device_expand_rows<execution_space>(rm, coo_rows_);
    } else if (c == SpmvCandidate::sell_c_sigma) {
      const std::int64_t C = spmv::SellConfig::C, sigma = spmv::SellConfig::sigma;
      auto s = formats::device_sell_layout<execution_space, device_type, value_type, ordinal_type>(
          rm, static_cast<std::int64_t>(A.numCols()), C, sigma);
      check_fill("kkperm::spmv::sell_c_sigma", s.slots, nnz, spmv::SellConfig::max_fill,
                 spmv::SellConfig::min_slots);
      check_slots_fit<offset_type>("kkperm::spmv::sell_c_sigma", s.slots);
      formats::device_sell_fill<execution_space>(s, rm, A.graph.entries, A.values);
      sell_ptr_ = s.slice_ptr;
      sell_perm_ = s.perm;
      ell_cols_ = s.cols;
      ell_vals_ = s.vals;
      os << "C=" << C << ", sigma=" << sigma << ", slots=" << s.slots;
    } else if (c == SpmvCandidate::sell_i16 || c == SpmvCandidate::sell_i16_wide) {
      const std::int64_t C = spmv::Sell16Config::C;
      const std::int64_t sigma = c == SpmvCandidate::sell_i16 ? spmv::Sell16Config::sigma
                                                               : spmv::Sell16Config::sigma_wide;
      const std::string who = "kkperm::spmv::" + to_string(c);
      auto s = formats::device_sell16_layout<execution_space, device_type, value_type>(
          rm, A.graph.entries, static_cast<std::int64_t>(A.numCols()), C, sigma);
      if (s.max_lane > formats::sell16_max_lane)
        KKPERM_THROW(CandidateNotApplicable,
                     who << ": a row takes "
                         << s.max_lane << " slots (entries + escapes; 16-bit lane lengths hold "
                         << "at most " << formats::sell16_max_lane << ")");
      if (static_cast<double>(s.escapes) > spmv::Sell16Config::max_escape_fraction * nnz)
        KKPERM_THROW(CandidateNotApplicable,
                     who << ": " << s.escapes << " escape slots (column jumps over "
                         << formats::sell16_max_offset << ") for " << nnz << " nonzeros exceed "
                         << spmv::Sell16Config::max_escape_fraction << " * nnz: columns too "
                            "scattered for 16-bit offsets");
      check_fill(who.c_str(), s.slots, nnz, spmv::Sell16Config::max_fill,
                 spmv::Sell16Config::min_slots);
      check_slots_fit<offset_type>(who, s.slots);
      formats::device_sell16_fill<execution_space>(s, rm, A.graph.entries, A.values);
      sell_ptr_ = s.slice_ptr;
      sell_perm_ = s.perm;
      sell16_base_ = s.slice_base;
      sell16_len_ = s.lane_len;
      sell16_offs_ = s.offs;
      ell_vals_ = s.vals;
      // What the kernel reads at least: each nonzero's and escape's value and offset, each
      // lane's length and row, each slice's pointer and base, x once, y (+ y read if beta != 0).
      const double lanes = static_cast<double>(s.perm.extent(0));
      const double nsl = static_cast<double>(s.num_slices);
      own_nnz_bytes_ = static_cast<double>(nnz + s.escapes) *
                           (sizeof(value_type) + sizeof(std::uint16_t)) +
                       lanes * (sizeof(std::uint16_t) + sizeof(ordinal_type)) +
                       nsl * (sizeof(offset_type) + sizeof(ordinal_type));
      const double n_rows = static_cast<double>(A.numRows());
      const double mean_lane = n_rows > 0 ? static_cast<double>(nnz + s.escapes) / n_rows : 0.0;
      sell16_batch_ = spmv::Sell16Config::batch_for(mean_lane);
      os << "C=" << C << ", sigma=" << sigma << ", slots=" << s.slots
         << ", escapes=" << s.escapes << ", batch=" << sell16_batch_.slots
         << (sell16_batch_.predicated ? "p" : "");
    } else if (c == SpmvCandidate::dcsr) {
      A_ = A;
      formats::device_dcsr_rows<execution_space>(A.graph.row_map, nonempty_, empty_);
      const std::size_t ne = nonempty_.extent(0);
      const double mean = ne == 0 ? 0.0 : static_cast<double>(nnz) / static_cast<double>(ne);
      vl_ = spmv::vector_length_for(mean, spmv::CsrVectorConfig::min_vector_length,
                                    spmv::CsrVectorConfig::max_vector_length);
      os << "nonempty_rows=" << ne << ", vector_length=" << vl_;
    } else {
      KKPERM_ASSERT(false, "FormatPlan cannot prepare " << to_string(c));
    }
    details_ = os.str();
    extra_ = static_cast<double>(ell_cols_.span() + coo_rows_.span() + coo_cols_.span() +
                                 sell_perm_.span() + nonempty_.span() + empty_.span()) *
                 sizeof(ordinal_type) +
             static_cast<double>(ell_vals_.span() + coo_vals_.span()) * sizeof(value_type) +
             static_cast<double>(sell_ptr_.span()) * sizeof(offset_type) +
             static_cast<double>(sell16_base_.span()) * sizeof(ordinal_type) +
             static_cast<double>(sell16_len_.span() + sell16_offs_.span()) * sizeof(std::uint16_t);
  }

  void run_impl(value_type alpha, const x_view& x, value_type beta,
                const y_view& y) const override {
    using E = execution_space;
    switch (this->candidate()) {
      case SpmvCandidate::ell:
        spmv::ell<E>("kkperm::spmv::ell", alpha, k_, ell_cols_, ell_vals_, x, beta, y);
        break;
      case SpmvCandidate::hyb:
      case SpmvCandidate::hyb_mu:
        spmv::ell<E>("kkperm::spmv::hyb::ell", alpha, k_, ell_cols_, ell_vals_, x, beta, y);
        spmv::coo_accumulate<E>("kkperm::spmv::hyb::coo", alpha, coo_rows_, coo_cols_,
                                coo_vals_, x, y);
        break;
      case SpmvCandidate::coo:
        spmv::coo<E>(alpha, coo_rows_, A_.graph.entries, A_.values, x, beta, y);
        break;
      case SpmvCandidate::sell_c_sigma:
        spmv::sell<E>(alpha, static_cast<std::int64_t>(spmv::SellConfig::C), sell_ptr_,
                      sell_perm_, ell_cols_, ell_vals_, x, beta, y);
        break;
      case SpmvCandidate::sell_i16:
      case SpmvCandidate::sell_i16_wide:
        if (sell16_batch_.slots == 8)
          spmv::sell16<E, spmv::Sell16Config::C, 8, true>(alpha, sell_ptr_, sell_perm_,
                                                          sell16_base_, sell16_len_,
                                                          sell16_offs_, ell_vals_, x, beta, y);
        else if (sell16_batch_.predicated)
          spmv::sell16<E, spmv::Sell16Config::C, 4, true>(alpha, sell_ptr_, sell_perm_,
                                                          sell16_base_, sell16_len_,
                                                          sell16_offs_, ell_vals_, x, beta, y);
        else
          spmv::sell16<E, spmv::Sell16Config::C, 4, false>(alpha, sell_ptr_, sell_perm_,
                                                           sell16_base_, sell16_len_,
                                                           sell16_offs_, ell_vals_, x, beta, y);
        break;
      case SpmvCandidate::dcsr:
        spmv::csr_vector<E>("kkperm::spmv::dcsr", alpha, A_.graph.row_map, A_.graph.entries,
                            A_.values, x, beta, y, true, nonempty_,
                            static_cast<std::int64_t>(nonempty_.extent(0)), vl_);
        spmv::scale_rows<E>("kkperm::spmv::dcsr::empty", beta, empty_, y);
        break;
      default:
        KKPERM_ASSERT(false, "FormatPlan cannot run " << to_string(this->candidate()));
    }
  }

 private:
  Matrix A_;
  std::int64_t k_ = 0;
  int vl_ = 1;
  std::string details_;
  double extra_ = 0.0;
  dview<ordinal_type> ell_cols_, coo_rows_, coo_cols_, sell_perm_, nonempty_, empty_;
  dview<value_type> ell_vals_, coo_vals_;
  dview<offset_type> sell_ptr_;
  dview<ordinal_type> sell16_base_;
  dview<std::uint16_t> sell16_len_, sell16_offs_;
  spmv::Sell16Config::Batch sell16_batch_{4, true};  ///< Sell16Config::batch_for
  double own_nnz_bytes_ = -1.0;  ///< SELL16's bytes besides x and y (< 0: the CSR floor)
};

}  // namespace

const SpmvCandidateInfo& info(SpmvCandidate c) {
  const int i = static_cast<int>(c);
  KKPERM_REQUIRE(i >= 0 && i < kCount, "kkperm::info: invalid SpmvCandidate value " << i);
  KKPERM_ASSERT(kTable[i].id == c, "SpMV registry table out of enum order at " << i);
  return kTable[i];
}

std::string to_string(SpmvCandidate c) { return info(c).name; }

std::string to_string(SpmvFormat f) {
  switch (f) {
    case SpmvFormat::csr: return "csr";
    case SpmvFormat::ell: return "ell";
    case SpmvFormat::coo: return "coo";
    case SpmvFormat::hyb: return "hyb";
    case SpmvFormat::sell: return "sell";
    case SpmvFormat::sell16: return "sell16";
    case SpmvFormat::dcsr: return "dcsr";
  }
  return "unknown";
}

SpmvCandidate spmv_candidate_from_string(const std::string& name) {
  for (const auto& row : kTable)
    if (name == row.name) return row.id;
  std::ostringstream valid;
  for (int i = 0; i < kCount; ++i) valid << (i ? ", " : "") << kTable[i].name;
  KKPERM_THROW(std::invalid_argument, "kkperm::spmv_candidate_from_string: unknown SpMV "
                                      "candidate '"
                                          << name << "' (valid: " << valid.str() << ")");
}

bool available(SpmvCandidate c) {
  const auto& row = info(c);
  if (!row.cuda_only) return true;
#if defined(KKPERM_ENABLE_CUDA) && defined(KOKKOS_ENABLE_CUDA)
  return std::is_same<DefaultExecSpace, Kokkos::Cuda>::value;
#else
  return false;
#endif
}

SpmvCandidate spmv_base_candidate(SpmvCandidate c) {
  const auto& row = info(c);
  return row.base == SpmvCandidate::count_ ? c : row.base;
}

std::vector<SpmvCandidate> all_spmv_candidates() {
  std::vector<SpmvCandidate> out;
  for (const auto& row : kTable) out.push_back(row.id);
  return out;
}

std::vector<SpmvCandidate> spmv_candidates() {
  std::vector<SpmvCandidate> out;
  for (const auto& row : kTable)
    if (available(row.id)) out.push_back(row.id);
  return out;
}

template <class Matrix>
std::unique_ptr<SpmvPlan<Matrix>> make_spmv_plan(SpmvCandidate c) {
  KKPERM_REQUIRE(available(c), "kkperm::make_spmv_plan: candidate " << to_string(c)
                                                                    << " is not available on this "
                                                                       "build (CUDA only)");
  switch (c) {
    case SpmvCandidate::csr_scalar:
    case SpmvCandidate::csr_vector:
    case SpmvCandidate::csr_warp_dynamic:
    case SpmvCandidate::csr_warp_tiled:
    case SpmvCandidate::csr_merge:
    case SpmvCandidate::csr_merge_path:
    case SpmvCandidate::kk_native:
      return std::make_unique<CsrPlan<Matrix>>(c);
    case SpmvCandidate::ell:
    case SpmvCandidate::coo:
    case SpmvCandidate::hyb:
    case SpmvCandidate::hyb_mu:
    case SpmvCandidate::sell_c_sigma:
    case SpmvCandidate::sell_i16:
    case SpmvCandidate::sell_i16_wide:
    case SpmvCandidate::dcsr:
      return std::make_unique<FormatPlan<Matrix>>(c);
    case SpmvCandidate::cusparse_csr_alg1:
    case SpmvCandidate::cusparse_csr_alg2:
#ifdef KKPERM_ENABLE_CUDA
      return make_cusparse_spmv_plan<Matrix>(c);
#else
      break;
#endif
    case SpmvCandidate::count_:
      break;
    default:
      if (info(c).row_permutation != Permutation::identity)
        return std::make_unique<PermutedCsrPlan<Matrix>>(c);
      break;
  }
  KKPERM_THROW(std::invalid_argument,
               "kkperm::make_spmv_plan: no plan for candidate " << static_cast<int>(c));
}

// Explicit instantiations (the types perf_test, tests and the plugin use).
template std::unique_ptr<SpmvPlan<Crs<double, int, DefaultDevice, int>>>
make_spmv_plan<Crs<double, int, DefaultDevice, int>>(SpmvCandidate);
template std::unique_ptr<SpmvPlan<Crs<float, int, DefaultDevice, int>>>
make_spmv_plan<Crs<float, int, DefaultDevice, int>>(SpmvCandidate);

}  // namespace kkperm
