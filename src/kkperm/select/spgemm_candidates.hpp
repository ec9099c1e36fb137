#pragma once
/**
 * @brief The SpGEMM candidate registry (C = A·B): every SpGEMM variant that can run, a runaway
 * guard, and one plan class with a symbolic/numeric split.
 *
 * Usage:
 *   for (kkperm::SpgemmCandidate c : kkperm::spgemm_candidates()) {
 *     auto plan = kkperm::make_spgemm_plan<Matrix>(c);
 *     plan->symbolic(A, B);   // may throw kkperm::CandidateNotApplicable (guard, with reason)
 *     plan->numeric(A, B);    // values; again after A/B value changes (same structure)
 *     // or plan->setup(A, B): both in one call, the first numeric without the structure check
 *     use(plan->C());
 *   }
 *
 * Input policy: the ESC candidates accept unsorted columns and duplicate entries (merged,
 * duplicates add up); the KK and cuSPARSE candidates require sorted, unique columns and throw
 * std::invalid_argument otherwise (sort/merge first with kkperm/core/crs_sort.hpp). Every plan
 * returns C with sorted, unique columns. numeric() checks that A and B keep the dims, nnz and
 * structure hash seen by symbolic().
 * Guard: symbolic() first estimates Σ F_i and max F_i (F_i = Σ_{k∈row i of A} nnz(B row k)) on
 * the device and skips (CandidateNotApplicable, message = reason) a candidate whose known limits
 * would be exceeded; see spgemm_guard_reason.
 */
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kkperm/core/crs_utils.hpp"
#include "kkperm/core/error.hpp"
#include "kkperm/core/types.hpp"
#include "kkperm/kernels/spgemm/esc_spgemm.hpp"
#include "kkperm/select/candidate_common.hpp"

namespace kkperm {

enum class SpgemmCandidate : int {
  esc = 0,               ///< own ESC, rows binned by work, written in place
  esc_permuted,          ///< own ESC, C produced in permuted order then restored
  kk_spgemm_kk,          ///< KK 3.4 view-level SPGEMM_KK (handle kept for numeric reuse)
  kk_spgemm_kk_memory,   ///< KK 3.4 view-level SPGEMM_KK_MEMORY
  cusparse_alg1,         ///< cusparseSpGEMM CUSPARSE_SPGEMM_ALG1 (CUDA builds)
  cusparse_alg2,         ///< cusparseSpGEMM CUSPARSE_SPGEMM_ALG2 (+ estimateMemory)
  cusparse_alg3,         ///< cusparseSpGEMM CUSPARSE_SPGEMM_ALG3 (+ estimateMemory, chunked)
  cusparse_reuse,        ///< cusparseSpGEMMreuse_* (numeric-only recomputation)
  count_
};

struct SpgemmCandidateInfo {
  SpgemmCandidate id;
  const char* name;
  const char* kernel;
  bool cuda_only;
  bool accepts_unsorted;        ///< unsorted / duplicate columns merged rather than rejected
  bool numeric_reuses_structure;///< false: numeric() recomputes everything (cuSPARSE ALG1-3)
  const char* description;
};

const SpgemmCandidateInfo& info(SpgemmCandidate c);
std::string to_string(SpgemmCandidate c);
SpgemmCandidate spgemm_candidate_from_string(const std::string& name);
inline void from_string(const std::string& name, SpgemmCandidate& out) {
  out = spgemm_candidate_from_string(name);
}
bool available(SpgemmCandidate c);
std::vector<SpgemmCandidate> all_spgemm_candidates();
std::vector<SpgemmCandidate> spgemm_candidates();

/// Cheap device-side estimate used by the guard (one pass over A's nonzeros).
struct SpgemmWorkEstimate {
  std::int64_t num_rows = 0, inner = 0, num_cols = 0, nnz_a = 0, nnz_b = 0;
  std::int64_t sum_work = 0;  ///< Σ F_i = number of products a_ik·b_kj (upper bound of nnz(C))
  std::int64_t max_work = 0;  ///< max F_i
};

/// The estimate's sizes (everything but the work sums).
template <class Matrix>
SpgemmWorkEstimate spgemm_work_sizes(const Matrix& A, const Matrix& B) {
  SpgemmWorkEstimate e;
  e.num_rows = A.numRows();
  e.inner = A.numCols();
  e.num_cols = B.numCols();
  e.nnz_a = A.nnz();
  e.nnz_b = B.nnz();
  return e;
}

/// The runaway guard's estimate: sizes, Σ F_i and max F_i by one reduction over A's rows (no
/// per-row array: until session 38 the F_i went to a Kokkos View nobody read, a cudaMalloc and a
/// synchronizing cudaFree in every cuSPARSE or KK symbolic).
template <class Matrix>
SpgemmWorkEstimate estimate_spgemm_work(const Matrix& A, const Matrix& B) {
  SpgemmWorkEstimate e = spgemm_work_sizes(A, B);
  spgemm::esc_impl::row_work_sum_max<typename Matrix::execution_space>(
      A.graph.row_map, A.graph.entries, B.graph.row_map, A.numRows(), e.sum_work, e.max_work);
  return e;
}

/**
 * Known limits of the candidates. Values are stated with their origin; change them only with a
 * measurement.
 */
struct SpgemmGuardLimits {
  /// KK 3.4 SPGEMM_KK / KK_MEMORY runaway guard. THE VALUE 2^18 IS A GUESS, NOT A MEASUREMENT:
  /// the only observation is that KK 3.4 did not finish A² of a 1M-row power-law matrix in
  /// 7 minutes on an H200 (team observation; that matrix's max row work was not recorded).
  /// Nothing says where between "finishes" and "runs away" the threshold lies, nor that max row
  /// work is the right predictor. Pin it with a sweep (perf_test/kkperm_spgemm --gen powerlaw:...
  /// --candidates kk_spgemm_kk --kk-max-row-work 1e12 under a timeout, growing n) and record
  /// the measurement here; kk_guard_origin() is reported with every perf result until then.
  std::int64_t kk_max_row_work = std::int64_t(1) << 18;
  /// Device memory the guard may plan with; 0: query the device (CUDA) / unlimited (host).
  std::size_t device_bytes = 0;
  double memory_fraction = 0.8;  ///< of device_bytes usable by one product's temporaries
};

/// Where the KK guard limit comes from, for perf output next to the value ("guess" until a
/// measurement replaces the default).
inline const char* kk_guard_origin() {
  return "guess: not measured; only known point is KK 3.4 A^2 of a 1M-row power-law matrix "
         "not finishing in 7 min on an H200 (max row work unrecorded)";
}

/// Device memory in bytes (cudaMemGetInfo total on CUDA builds; 0 = unknown on host builds).
std::size_t device_memory_bytes();

/// Empty when `c` may run on this product; otherwise the reason it is skipped.
std::string spgemm_guard_reason(SpgemmCandidate c, const SpgemmWorkEstimate& e,
                                std::size_t value_bytes, const SpgemmGuardLimits& lim);

struct SpgemmPlanOptions {
  spgemm::EscConfig esc;          ///< for the esc / esc_permuted candidates
  SpgemmGuardLimits guard;
  bool check_reuse = true;        ///< numeric(): verify structure hash of A and B
  /// symbolic() hashes A and B (check_reuse) in its validation pass, which reads the same index
  /// arrays, instead of a hash kernel of its own (off: perf_test --plan-separate-hash).
  bool hash_in_validation = true;
  /// A candidate whose estimate can take the validation's verdicts along with its own read-back
  /// (ESC on CUDA: with the bin plan) does so; off: symbolic() waits for the verdicts first
  /// (perf_test --plan-validate-first).
  bool late_verdict = true;
  /// The caller vouches that A and B are valid CRS matrices (sorted columns where the candidate
  /// needs them) and that the product fits: symbolic() runs no validation pass and no runaway
  /// guard (the ESC candidates still run their analysis, which their plan is made of; the others'
  /// estimate() then has sum_work = max_work = -1, not computed). Invalid input is then undefined
  /// behaviour, as in a direct cuSPARSE or Kokkos Kernels call. For callers that validated once
  /// and call again (AMG re-setups), and for timing the candidates without kkperm's checks
  /// (perf_test --plan-trusted). Default off.
  bool trusted_inputs = false;
};

/**
 * @brief A SpGEMM plan for one candidate and matrix type `Matrix = Crs<V, O, Device, F>`.
 * symbolic() builds C's structure (and whatever the candidate keeps); numeric() computes C's
 * values. Callers time both separately. Plans hold views of what they built, not of A and B.
 */
template <class Matrix>
class SpgemmPlan {
 public:
  using matrix_type = Matrix;
  using execution_space = typename Matrix::execution_space;

  SpgemmPlan(SpgemmCandidate c, const SpgemmPlanOptions& o) : candidate_(c), opts_(o) {}
  virtual ~SpgemmPlan() = default;
  SpgemmPlan(const SpgemmPlan&) = delete;
  SpgemmPlan& operator=(const SpgemmPlan&) = delete;

  SpgemmCandidate candidate() const { return candidate_; }
  std::string name() const { return to_string(candidate_); }
  const SpgemmWorkEstimate& estimate() const { return est_; }
  bool has_symbolic() const { return has_symbolic_; }

  void symbolic(const Matrix& A, const Matrix& B) { symbolic_common(A, B, false); }

  void numeric(const Matrix& A, const Matrix& B) {
    const std::string who = "kkperm::spgemm_numeric(" + name() + ")";
    KKPERM_REQUIRE(has_symbolic_, who << ": call symbolic() first");
    KKPERM_REQUIRE(A.numRows() == est_.num_rows && A.numCols() == est_.inner &&
                       B.numCols() == est_.num_cols && A.nnz() == est_.nnz_a &&
                       B.nnz() == est_.nnz_b,
                   who << ": A or B differ in dims/nnz from those given to symbolic()");
    // A numeric that reads no index array of A or B (numeric_reads_indices() false) runs before
    // the check's wait: the device goes from hash to numeric without waiting on the host, and a
    // failed check leaves C's values unspecified. Any other numeric waits for the check first.
    const bool late_check = opts_.check_reuse && !numeric_reads_indices();
    if (late_check)
      check_.enqueue(A, B);
    else if (opts_.check_reuse)
      KKPERM_REQUIRE(check_.matches(A, B), who << ": the structure of A or B changed since symbolic()");
    numeric_impl(A, B);
    if (late_check)
      KKPERM_REQUIRE(check_.verdict(), who << ": the structure of A or B changed since symbolic() "
                                              "(C's values are unspecified now)");
  }

  /// symbolic(A, B) then the first numeric(A, B), as one call: what an AMG setup or a one-shot
  /// product needs. Nothing can change A or B between the two here, so the first numeric skips
  /// the structure check that numeric() makes (a hash of A's and B's index arrays and a host
  /// wait); symbolic() still records the hash that later numeric() calls compare against.
  /// Candidates whose symbolic() already computes C's values (cuSPARSE ALG1-3: one
  /// workEstimation/compute/copy pipeline) do not run a numeric here: their one-shot product is
  /// that single pipeline, and a setup timed as symbolic + numeric would count it twice.
  /// A candidate may do both at once (setup_symbolic_impl: ESC sums values in its count pass).
  void setup(const Matrix& A, const Matrix& B) {
    const bool values = symbolic_common(A, B, true);
    if (!values && !symbolic_computes_values()) numeric_impl(A, B);
  }

  /// The product (structure after symbolic(), values after numeric()).
  virtual const Matrix& C() const = 0;
  /// Short facts chosen at symbolic (bins, buffer sizes...).
  virtual std::string details() const { return {}; }
  /// Device bytes held by the plan beyond C (buffers, plan arrays).
  virtual double extra_bytes() const { return 0.0; }
  /// Time (ms) of putting C back in caller order, when the candidate does that separately.
  virtual double restore_ms() const { return 0.0; }
  /// Time (ms) of building the row reorder, when the candidate has one.
  virtual double reorder_ms() const { return 0.0; }
  /// Whether the next numeric() reads index arrays of A or B. A candidate returns false only when
  /// its numeric reads nothing but A's and B's values at positions fixed by symbolic() (in bounds
  /// while nnz(A) and nnz(B) are unchanged, which numeric() checks first).
  virtual bool numeric_reads_indices() const { return true; }
  /// Whether symbolic() leaves C complete, values included (then setup() skips the numeric).
  virtual bool symbolic_computes_values() const { return false; }

 protected:
  /// The guard's work estimate; a candidate that needs the same pass anyway (ESC) overrides this
  /// to keep what it computed. `check` holds the validation of A and B, maybe still in flight
  /// (SpgemmPlanOptions::late_verdict): nothing may index memory through A or B unguarded before
  /// check.check() (or check.check(words) with words read back from check.verdict_words()) has
  /// returned; the plan calls check.check() itself after this returns or throws.
  virtual SpgemmWorkEstimate estimate_impl(const Matrix& A, const Matrix& B, detail::PairCheck<Matrix>& check) {
    check.check();
    if (opts_.trusted_inputs) {  // no guard: the sizes only
      SpgemmWorkEstimate e = spgemm_work_sizes(A, B);
      e.sum_work = e.max_work = -1;
      return e;
    }
    return estimate_spgemm_work(A, B);
  }
  /// Runs right after estimate_impl(A, B) with the same matrices.
  virtual void symbolic_impl(const Matrix& A, const Matrix& B) = 0;
  virtual void numeric_impl(const Matrix& A, const Matrix& B) = 0;
  /// setup()'s symbolic: returns true when it wrote C's values as well (then setup() runs no
  /// numeric). Default: symbolic_impl, false.
  virtual bool setup_symbolic_impl(const Matrix& A, const Matrix& B) {
    symbolic_impl(A, B);
    return false;
  }
  const SpgemmPlanOptions& options() const { return opts_; }

 private:
  /// symbolic(); with `setup`, through setup_symbolic_impl. Returns whether C's values are written.
  bool symbolic_common(const Matrix& A, const Matrix& B, bool setup) {
    has_symbolic_ = false;
    const std::string who = "kkperm::spgemm_symbolic(" + name() + ")";
    KKPERM_REQUIRE(A.numCols() == B.numRows(), who << ": A is " << A.numRows() << " x "
                                                   << A.numCols() << " but B is " << B.numRows()
                                                   << " x " << B.numCols());
    const bool sorted = !info(candidate_).accepts_unsorted;
    // The validation enqueued (and, with check_reuse, the structure hash numeric() compares
    // against, from the same reads); its verdicts read back here, or by the estimate with its own
    // (late_verdict), and decided before anything else uses A or B.
    check_.clear();
    std::unique_ptr<detail::PairCheck<Matrix>> pc;
    if (opts_.trusted_inputs) {
      pc = std::make_unique<detail::PairCheck<Matrix>>(A, B, typename detail::PairCheck<Matrix>::Unchecked{});
    } else {
      const kkperm::detail::TraceRegion region("kkperm::spgemm_plan::validate");
      pc = std::make_unique<detail::PairCheck<Matrix>>(
          A, (who + ": A").c_str(), B, (who + ": B").c_str(), sorted,
          opts_.check_reuse && opts_.hash_in_validation ? check_.begin_record() : nullptr);
      if (!opts_.late_verdict) pc->check();  // one wait for both matrices
    }
    {
      const kkperm::detail::TraceRegion region("kkperm::spgemm_plan::estimate");
      try {
        est_ = estimate_impl(A, B, *pc);
      } catch (...) {
        pc->check();  // an invalid A or B is the error to report
        throw;
      }
      pc->check();
    }
    const std::string reason =
        opts_.trusted_inputs ? std::string()
                             : spgemm_guard_reason(candidate_, est_, sizeof(typename Matrix::non_const_value_type),
                                                   opts_.guard);
    if (!reason.empty()) throw CandidateNotApplicable(name() + ": " + reason);
    bool values = false;
    if (setup)
      values = setup_symbolic_impl(A, B);
    else
      symbolic_impl(A, B);
    if (opts_.check_reuse && pc->hashed()) {
      check_.end_record(A, B);  // hashed by the validation
    } else if (opts_.check_reuse) {
      const kkperm::detail::TraceRegion region("kkperm::spgemm_plan::record_structure");
      check_.record(A, B);  // enqueued, no wait; numeric() compares
    }
    has_symbolic_ = true;
    return values;
  }

  SpgemmCandidate candidate_;
  SpgemmPlanOptions opts_;
  SpgemmWorkEstimate est_;
  bool has_symbolic_ = false;
  spgemm::esc_impl::StructureCheck<typename Matrix::device_type> check_;  ///< A and B at symbolic()
};

/// Creates the (empty) plan for `c`; std::invalid_argument when `c` is not available here.
/// Explicitly instantiated for Crs<float|double, int, DefaultDevice, int> (every candidate) and
/// Crs<double, int, DefaultDevice, int64_t> (64-bit offsets, for nnz(C) > 2^31 - 1: esc and
/// esc_permuted; the others throw CandidateNotApplicable).
template <class Matrix>
std::unique_ptr<SpgemmPlan<Matrix>> make_spgemm_plan(SpgemmCandidate c,
                                                     const SpgemmPlanOptions& o = {});

extern template std::unique_ptr<SpgemmPlan<Crs<double, int, DefaultDevice, int>>>
make_spgemm_plan<Crs<double, int, DefaultDevice, int>>(SpgemmCandidate, const SpgemmPlanOptions&);
extern template std::unique_ptr<SpgemmPlan<Crs<float, int, DefaultDevice, int>>>
make_spgemm_plan<Crs<float, int, DefaultDevice, int>>(SpgemmCandidate, const SpgemmPlanOptions&);
extern template std::unique_ptr<SpgemmPlan<Crs<double, int, DefaultDevice, std::int64_t>>>
make_spgemm_plan<Crs<double, int, DefaultDevice, std::int64_t>>(SpgemmCandidate,
                                                                const SpgemmPlanOptions&);

}  // namespace kkperm
