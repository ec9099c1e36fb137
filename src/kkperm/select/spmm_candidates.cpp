#include "kkperm/select/spmm_candidates.hpp"

#include <KokkosSparse_spmv.hpp>

#include <sstream>

#include "kkperm/kernels/spmm/c_stationary.hpp"
#include "kkperm/kernels/spmm/row_major.hpp"
#include "kkperm/kernels/spmm/row_set.hpp"
#include "kkperm/select/spmm_own_plan.hpp"

#ifdef KKPERM_ENABLE_CUDA
#include "cusparse/cusparse_spmm.hpp"
#endif

namespace kkperm {

namespace {
using L = SpmmLayout;
using F = SpmmFormat;
// One row per enum entry, in enum order (checked by SpmmCandidates.RegistryTableIsConsistent).
const SpmmCandidateInfo kTable[] = {
    {SpmmCandidate::c_stationary, "c_stationary", "c_stationary", "identity", F::csr, L::left,
     false, "C-stationary: team per column strip x row group, warp per row, lanes split nonzeros"},
    {SpmmCandidate::c_stationary_dcsr, "c_stationary_dcsr", "c_stationary", "identity", F::dcsr,
     L::left, false, "C-stationary over the non-empty rows (DCSR); empty rows scaled by beta"},
    {SpmmCandidate::row_major, "row_major", "row_major", "identity", F::csr, L::right, false,
     "lane group (32 lanes; 16/8 for K <= 16/8) per batch of short rows or one long row, lanes across K, row-major B/Y (GNN-style); very long rows split into segments"},
    {SpmmCandidate::row_major_dcsr, "row_major_dcsr", "row_major", "identity", F::dcsr, L::right,
     false, "row-major kernel over the non-empty rows (DCSR); empty rows scaled by beta"},
    {SpmmCandidate::kk_native_left, "kk_native_left", "kk_native", "identity", F::csr, L::left,
     false, "KokkosSparse::spmv with rank-2 LayoutLeft views"},
    {SpmmCandidate::kk_native_right, "kk_native_right", "kk_native", "identity", F::csr, L::right,
     false, "KokkosSparse::spmv with rank-2 LayoutRight views"},
    {SpmmCandidate::cusparse_csr_alg1_col, "cusparse_csr_alg1_col", "cusparse_alg1", "identity",
     F::csr, L::left, true, "cusparseSpMM CSR_ALG1, column-major B/C"},
    {SpmmCandidate::cusparse_csr_alg1_row, "cusparse_csr_alg1_row", "cusparse_alg1", "identity",
     F::csr, L::right, true, "cusparseSpMM CSR_ALG1, row-major B/C"},
    {SpmmCandidate::cusparse_csr_alg2_col, "cusparse_csr_alg2_col", "cusparse_alg2", "identity",
     F::csr, L::left, true, "cusparseSpMM CSR_ALG2, column-major B/C (where cuSPARSE supports it)"},
    {SpmmCandidate::cusparse_csr_alg2_row, "cusparse_csr_alg2_row", "cusparse_alg2", "identity",
     F::csr, L::right, true, "cusparseSpMM CSR_ALG2, row-major B/C"},
    {SpmmCandidate::cusparse_csr_alg3_col, "cusparse_csr_alg3_col", "cusparse_alg3", "identity",
     F::csr, L::left, true, "cusparseSpMM CSR_ALG3, column-major B/C (where cuSPARSE supports it)"},
    {SpmmCandidate::cusparse_csr_alg3_row, "cusparse_csr_alg3_row", "cusparse_alg3", "identity",
     F::csr, L::right, true, "cusparseSpMM CSR_ALG3, row-major B/C"},
    {SpmmCandidate::c_stationary_plain_sort, "c_stationary_plain_sort", "c_stationary", "plain_sort", F::csr, L::left, false,
     "c_stationary with rows in plain_sort order (results in the caller's order)"},
    {SpmmCandidate::c_stationary_flipped_sort, "c_stationary_flipped_sort", "c_stationary", "flipped_sort", F::csr, L::left, false,
     "c_stationary with rows in flipped_sort order (results in the caller's order)"},
    {SpmmCandidate::c_stationary_lpt, "c_stationary_lpt", "c_stationary", "lpt", F::csr, L::left, false,
     "c_stationary with rows in lpt order (results in the caller's order)"},
    {SpmmCandidate::c_stationary_warp_aware, "c_stationary_warp_aware", "c_stationary", "warp_aware", F::csr, L::left, false,
     "c_stationary with rows in warp_aware order (results in the caller's order)"},
    {SpmmCandidate::c_stationary_cta_aware, "c_stationary_cta_aware", "c_stationary", "cta_aware", F::csr, L::left, false,
     "c_stationary with rows in cta_aware order (results in the caller's order)"},
    {SpmmCandidate::c_stationary_hybrid_1, "c_stationary_hybrid_1", "c_stationary", "hybrid_1", F::csr, L::left, false,
     "c_stationary with rows in hybrid_1 order (results in the caller's order)"},
    {SpmmCandidate::c_stationary_hybrid_2_1, "c_stationary_hybrid_2_1", "c_stationary", "hybrid_2_1", F::csr, L::left, false,
     "c_stationary with rows in hybrid_2_1 order (results in the caller's order)"},
    {SpmmCandidate::c_stationary_hybrid_2_2, "c_stationary_hybrid_2_2", "c_stationary", "hybrid_2_2", F::csr, L::left, false,
     "c_stationary with rows in hybrid_2_2 order (results in the caller's order)"},
    {SpmmCandidate::c_stationary_hybrid_2_3, "c_stationary_hybrid_2_3", "c_stationary", "hybrid_2_3", F::csr, L::left, false,
     "c_stationary with rows in hybrid_2_3 order (results in the caller's order)"},
    {SpmmCandidate::c_stationary_rcm, "c_stationary_rcm", "c_stationary", "rcm", F::csr, L::left, false,
     "c_stationary with rows in rcm order (results in the caller's order)"},
    {SpmmCandidate::row_major_plain_sort, "row_major_plain_sort", "row_major", "plain_sort", F::csr, L::right, false,
     "row_major with rows in plain_sort order (results in the caller's order)"},
    {SpmmCandidate::row_major_flipped_sort, "row_major_flipped_sort", "row_major", "flipped_sort", F::csr, L::right, false,
     "row_major with rows in flipped_sort order (results in the caller's order)"},
    {SpmmCandidate::row_major_lpt, "row_major_lpt", "row_major", "lpt", F::csr, L::right, false,
     "row_major with rows in lpt order (results in the caller's order)"},
    {SpmmCandidate::row_major_warp_aware, "row_major_warp_aware", "row_major", "warp_aware", F::csr, L::right, false,
     "row_major with rows in warp_aware order (results in the caller's order)"},
    {SpmmCandidate::row_major_cta_aware, "row_major_cta_aware", "row_major", "cta_aware", F::csr, L::right, false,
     "row_major with rows in cta_aware order (results in the caller's order)"},
    {SpmmCandidate::row_major_hybrid_1, "row_major_hybrid_1", "row_major", "hybrid_1", F::csr, L::right, false,
     "row_major with rows in hybrid_1 order (results in the caller's order)"},
    {SpmmCandidate::row_major_hybrid_2_1, "row_major_hybrid_2_1", "row_major", "hybrid_2_1", F::csr, L::right, false,
     "row_major with rows in hybrid_2_1 order (results in the caller's order)"},
    {SpmmCandidate::row_major_hybrid_2_2, "row_major_hybrid_2_2", "row_major", "hybrid_2_2", F::csr, L::right, false,
     "row_major with rows in hybrid_2_2 order (results in the caller's order)"},
    {SpmmCandidate::row_major_hybrid_2_3, "row_major_hybrid_2_3", "row_major", "hybrid_2_3", F::csr, L::right, false,
     "row_major with rows in hybrid_2_3 order (results in the caller's order)"},
    {SpmmCandidate::row_major_rcm, "row_major_rcm", "row_major", "rcm", F::csr, L::right, false,
     "row_major with rows in rcm order (results in the caller's order)"},
    {SpmmCandidate::row_major_slab, "row_major_slab", "row_major", "identity", F::csr, L::right, false,
     "row_major over column slabs of B sized to stay in L2 (one launch a slab; device backends)"},
    {SpmmCandidate::row_major_left, "row_major_left", "row_major", "identity", F::csr, L::left, false,
     "row_major for column-major B and Y: each call copies B (and Y when beta != 0) to row-major "
     "buffers made at prepare, runs the row-major kernel there and copies Y back (tiled copies); "
     "a row set under one wave of lane groups runs the kernel on B and Y directly (device backends)"},
    {SpmmCandidate::row_major_chunked, "row_major_chunked", "row_major", "identity", F::csr, L::right, false,
     "row_major whose per-row walk gives each team a chunk of consecutive rows, its lane groups "
     "taking them in turn, so that shared columns of B can hit in L1 (device backends)"},
    {SpmmCandidate::row_major_tiled, "row_major_tiled", "row_major", "identity", F::csr, L::right, false,
     "row-major B and Y; rows cut into tiles of consecutive rows with few distinct columns, whose B "
     "rows a team stages in shared memory once per tile (built at prepare; pays on banded rows and "
     "dense blocks)"},
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == static_cast<std::size_t>(SpmmCandidate::count_),
              "every SpmmCandidate needs one row in kTable");

/// KokkosSparse::spmv with rank-2 views (KK's own multivector SpMV).
template <class Matrix>
class KkNativeSpmmPlan final : public SpmmPlan<Matrix> {
  using base = SpmmPlan<Matrix>;
  using typename base::b_left;
  using typename base::b_right;
  using typename base::value_type;
  using typename base::y_left;
  using typename base::y_right;

 public:
  using base::base;

 protected:
  void prepare_impl(const Matrix& A) override { A_ = A; }
  void run_impl(value_type alpha, const b_left& B, value_type beta,
                const y_left& Y) const override {
    if (this->K() == 0 || this->num_rows() == 0) return;
    KokkosSparse::spmv("N", alpha, A_, B, beta, Y);
  }
  void run_impl(value_type alpha, const b_right& B, value_type beta,
                const y_right& Y) const override {
    if (this->K() == 0 || this->num_rows() == 0) return;
    KokkosSparse::spmv("N", alpha, A_, B, beta, Y);
  }

 private:
  Matrix A_;
};

}  // namespace

const SpmmCandidateInfo& info(SpmmCandidate c) {
  const auto i = static_cast<int>(c);
  KKPERM_REQUIRE(i >= 0 && i < static_cast<int>(SpmmCandidate::count_),
                 "kkperm::info: invalid SpmmCandidate value " << i);
  return kTable[i];
}
std::string to_string(SpmmCandidate c) { return info(c).name; }
std::string to_string(SpmmLayout l) { return l == SpmmLayout::left ? "left" : "right"; }
std::string to_string(SpmmFormat f) { return f == SpmmFormat::csr ? "csr" : "dcsr"; }

SpmmCandidate spmm_candidate_from_string(const std::string& name) {
  std::ostringstream valid;
  for (const auto& row : kTable) {
    if (name == row.name) return row.id;
    valid << (&row == kTable ? "" : ", ") << row.name;
  }
  KKPERM_THROW(std::invalid_argument, "kkperm::spmm_candidate_from_string: unknown SpMM candidate '"
                                          << name << "'; valid: " << valid.str());
}

SpmmLayout spmm_layout_from_string(const std::string& name) {
  if (name == "left") return SpmmLayout::left;
  if (name == "right") return SpmmLayout::right;
  KKPERM_THROW(std::invalid_argument, "kkperm::spmm_layout_from_string: unknown layout '"
                                          << name << "'; valid: left, right");
}

bool available(SpmmCandidate c) {
#ifdef KKPERM_ENABLE_CUDA
  if (info(c).cuda_only) return std::is_same<DefaultExecSpace, Kokkos::Cuda>::value;
  return true;
#else
  return !info(c).cuda_only;
#endif
}

std::vector<SpmmCandidate> all_spmm_candidates() {
  std::vector<SpmmCandidate> out;
  for (const auto& row : kTable) out.push_back(row.id);
  return out;
}

std::vector<SpmmCandidate> spmm_candidates() {
  std::vector<SpmmCandidate> out;
  for (const auto& row : kTable)
    if (available(row.id)) out.push_back(row.id);
  return out;
}

template <class Matrix>
std::unique_ptr<SpmmPlan<Matrix>> make_spmm_plan(SpmmCandidate c) {
  KKPERM_REQUIRE(available(c), "kkperm::make_spmm_plan: candidate " << to_string(c)
                                                                    << " is not available on this build");
  const std::string kernel = info(c).kernel;
  if (kernel == "c_stationary" || kernel == "row_major")
    return std::make_unique<OwnSpmmPlan<Matrix>>(c);
  if (kernel == "kk_native") return std::make_unique<KkNativeSpmmPlan<Matrix>>(c);
#ifdef KKPERM_ENABLE_CUDA
  if (kernel.rfind("cusparse", 0) == 0) return make_cusparse_spmm_plan<Matrix>(c);
#endif
  KKPERM_THROW(std::invalid_argument, "kkperm::make_spmm_plan: no plan for " << to_string(c));
}

template std::unique_ptr<SpmmPlan<Crs<double, int, DefaultDevice, int>>>
make_spmm_plan<Crs<double, int, DefaultDevice, int>>(SpmmCandidate);
template std::unique_ptr<SpmmPlan<Crs<float, int, DefaultDevice, int>>>
make_spmm_plan<Crs<float, int, DefaultDevice, int>>(SpmmCandidate);

}  // namespace kkperm
