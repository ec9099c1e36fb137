// SpGEMM candidate registry: the table, the runaway guard and the plan classes (ESC, KK); the
// cuSPARSE plans live in plugins/cusparse (CUDA builds).
#include "kkperm/select/spgemm_candidates.hpp"

#include <atomic>
#include <limits>
#include <sstream>

#include "kkperm/kernels/spgemm/kk_spgemm.hpp"
// Defines KOKKOSKERNELS_KKPERM_PATCH_0005_ITS when KK carries cmake/patches/0005 (see available()).
#include <KokkosKernels_HashmapAccumulator.hpp>

#ifdef KKPERM_ENABLE_CUDA
#include <cuda_runtime.h>

#include "cusparse/cusparse_spgemm.hpp"
#endif

namespace kkperm {

namespace {

const SpgemmCandidateInfo kTable[] = {
    {SpgemmCandidate::esc, "esc", "esc", false, true, true,
     "own ESC, rows binned by work (thread/warp/block/global), C written in place"},
    {SpgemmCandidate::esc_permuted, "esc_permuted", "esc", false, true, true,
     "own ESC, C produced in permuted (binned) order and gathered back"},
    {SpgemmCandidate::kk_spgemm_kk, "kk_spgemm_kk", "kk", false, false, true,
     "KokkosSparse spgemm_symbolic/numeric SPGEMM_KK, handle kept"},
    {SpgemmCandidate::kk_spgemm_kk_memory, "kk_spgemm_kk_memory", "kk", false, false, true,
     "KokkosSparse spgemm_symbolic/numeric SPGEMM_KK_MEMORY, handle kept"},
    {SpgemmCandidate::cusparse_alg1, "cusparse_alg1", "cusparse_spgemm", true, false, false,
     "cusparseSpGEMM ALG1 (numeric = full recompute)"},
    {SpgemmCandidate::cusparse_alg2, "cusparse_alg2", "cusparse_spgemm", true, false, false,
     "cusparseSpGEMM ALG2 with estimateMemory (numeric = full recompute)"},
    {SpgemmCandidate::cusparse_alg3, "cusparse_alg3", "cusparse_spgemm", true, false, false,
     "cusparseSpGEMM ALG3 with estimateMemory, chunk fraction 0.2 (numeric = full recompute)"},
    {SpgemmCandidate::cusparse_reuse, "cusparse_reuse", "cusparse_spgemm_reuse", true, false, true,
     "cusparseSpGEMMreuse workEstimation/nnz/copy, numeric = reuse_compute"},
};
constexpr int kCount = static_cast<int>(SpgemmCandidate::count_);
static_assert(sizeof(kTable) / sizeof(kTable[0]) == kCount, "one table row per candidate");

template <class Matrix>
class EscPlan final : public SpgemmPlan<Matrix> {
 public:
  EscPlan(SpgemmCandidate c, const SpgemmPlanOptions& o) : SpgemmPlan<Matrix>(c, o), esc_(cfg(c, o)) {}
  const Matrix& C() const override { return esc_.C(); }
  std::string details() const override {
    const auto& s = esc_.stats();
    std::ostringstream os;
    os << "bins=" << s.bin_rows[0] << "/" << s.bin_rows[1] << "/" << s.bin_rows[2] << "/"
       << s.bin_rows[3] << " global_chunks=" << s.global_chunks
       << " scratch_levels=" << s.scratch_level_warp << "/" << s.scratch_level_block
       << " numeric_levels=" << s.numeric_level_warp << "/" << s.numeric_level_block
       << " slot_bytes=" << s.slot_bytes << " slot_width=" << s.slot_width
       << " vector_length=" << s.vector_length << " slot_build_ms=" << 1e3 * s.slot_build_s
       << " last_numeric_used_slots=" << s.numeric_used_slots
       << " gather_bytes=" << s.gather_bytes << " gather_build_ms=" << 1e3 * s.gather_build_s
       << " last_numeric_used_gather=" << s.numeric_used_gather << " gather_lanes=" << s.gather_lanes
       << " gather_compact=" << s.gather_compact
       << " gather_build_lanes=" << s.gather_build_lanes
       << " offset_bytes=" << sizeof(typename Matrix::non_const_size_type)
       << " memory_limit=" << esc_.config().memory_limit_bytes
       << " peak_bytes=" << s.peak_bytes << " warp_row_rows=" << s.warp_row_rows
       << " thread_bin_folded=" << s.thread_bin_folded << " warp_row_lanes=" << s.warp_row_lanes << "/"
       << s.numeric_warp_row_lanes << " window_sample=" << s.wide_windows << "/" << s.window_samples
       << " wide_window_lanes=" << s.wide_window_lanes << " c_from_pool=" << esc_.config().c_from_pool
       << " c_alloc_ms=" << 1e3 * s.c_alloc_s << " setup_valued_rows=" << s.setup_valued_rows
       << " setup_fused_copy_rows=" << s.setup_fused_copy_rows << " identity_plan=" << s.identity_plan
       << " phases_ms=" << 1e3 * s.analysis_s << "/"
       << 1e3 * (s.plan_sort_s + s.reorder_s) << "/" << 1e3 * s.count_s << "/" << 1e3 * s.fill_s << "/"
       << 1e3 * s.slot_build_s << "/" << 1e3 * s.numeric_s;
    return os.str();
  }
  double extra_bytes() const override {
    const auto& s = esc_.stats();
    // the gather plan replaces the slot map once a numeric after its fill built it (lazy: the 3rd)
    return static_cast<double>(s.plan_bytes + s.buffer_bytes +
                               (s.gather_bytes > 0 ? s.gather_bytes : s.slot_bytes));
  }
  double restore_ms() const override {
    return 1e3 * (esc_.stats().symbolic_restore_s + esc_.stats().numeric_restore_s);
  }
  double reorder_ms() const override { return 1e3 * (esc_.stats().plan_sort_s + esc_.stats().reorder_s); }
  bool numeric_reads_indices() const override { return esc_.numeric_reads_indices(); }
  const spgemm::EscStats& stats() const { return esc_.stats(); }

 protected:
  SpgemmWorkEstimate estimate_impl(const Matrix& A, const Matrix& B, detail::PairCheck<Matrix>& check) override {
    SpgemmWorkEstimate e = spgemm_work_sizes(A, B);
    // the validation's verdicts come back with the bin plan (one host wait) when still pending
    spgemm::esc_impl::PendingVerdict pending;
    pending.words = check.verdict_words();
    pending.decide = [&check](const std::uint64_t* words) { check.check(words); };
    const auto sw = esc_.analyze(A, B, pending);  // kept: symbolic_impl does not repeat it
    e.sum_work = sw[0];
    e.max_work = sw[1];
    return e;
  }
  void symbolic_impl(const Matrix& A, const Matrix& B) override {
    try {
      esc_.symbolic(A, B, /*analyzed=*/true);
    } catch (const spgemm::EscCapacityError& e) {  // does not fit: skipped with the estimate
      throw CandidateNotApplicable(this->name() + ": " + e.what());
    }
  }
  void numeric_impl(const Matrix& A, const Matrix& B) override { esc_.numeric(A, B); }
  bool setup_symbolic_impl(const Matrix& A, const Matrix& B) override {
    try {
      esc_.setup(A, B, /*analyzed=*/true);  // symbolic and the first numeric, C complete
    } catch (const spgemm::EscCapacityError& e) {
      throw CandidateNotApplicable(this->name() + ": " + e.what());
    }
    return true;
  }

 private:
  static spgemm::EscConfig cfg(SpgemmCandidate c, const SpgemmPlanOptions& o) {
    spgemm::EscConfig e = o.esc;
    e.output_order = c == SpgemmCandidate::esc_permuted
                         ? spgemm::EscOutputOrder::permuted_then_restore
                         : spgemm::EscOutputOrder::direct;
    e.check_reuse = false;  // the plan base checks the structure hash already
    if (e.memory_limit_bytes == 0) {  // refuse clearly (with the estimate) what cannot fit
      const std::size_t dev = o.guard.device_bytes ? o.guard.device_bytes : device_memory_bytes();
      e.memory_limit_bytes = static_cast<std::size_t>(o.guard.memory_fraction * static_cast<double>(dev));
    }
    return e;
  }
  spgemm::EscSpgemm<Matrix> esc_;
};

template <class Matrix>
class KkPlan final : public SpgemmPlan<Matrix> {
 public:
  KkPlan(SpgemmCandidate c, const SpgemmPlanOptions& o)
      : SpgemmPlan<Matrix>(c, o),
        kk_(c == SpgemmCandidate::kk_spgemm_kk ? KokkosSparse::SPGEMM_KK
                                               : KokkosSparse::SPGEMM_KK_MEMORY) {}
  const Matrix& C() const override { return kk_.C(); }
  std::string details() const override { return "nnz_c=" + std::to_string(kk_.nnz()); }

 protected:
  void symbolic_impl(const Matrix& A, const Matrix& B) override { kk_.symbolic(A, B); }
  void numeric_impl(const Matrix& A, const Matrix& B) override { kk_.numeric(A, B); }

 private:
  spgemm::KkSpgemm<Matrix> kk_;
};

}  // namespace

const SpgemmCandidateInfo& info(SpgemmCandidate c) {
  const int i = static_cast<int>(c);
  KKPERM_REQUIRE(i >= 0 && i < kCount, "kkperm::info: invalid SpgemmCandidate " << i);
  return kTable[i];
}

std::string to_string(SpgemmCandidate c) { return info(c).name; }

SpgemmCandidate spgemm_candidate_from_string(const std::string& name) {
  std::string all;
  for (const auto& r : kTable) {
    if (name == r.name) return r.id;
    all += std::string(all.empty() ? "" : ", ") + r.name;
  }
  KKPERM_THROW(std::invalid_argument,
               "kkperm::spgemm_candidate_from_string: unknown candidate '" << name
                                                                           << "' (valid: " << all << ")");
}

bool available(SpgemmCandidate c) {
#ifdef KKPERM_ENABLE_CUDA
  // KK 3.4's SPGEMM_KK / SPGEMM_KK_MEMORY numeric (PortableNumericCHASH, GPUTag) read out of
  // bounds on sm_90 (compute-sanitizer on an H200, docs/gpu_runs/run3_sanitizer_bench/): KK 3.4
  // takes its independent-thread-scheduling-safe hashmap code on Volta only, so a Hopper build ran
  // the warp-synchronous code. cmake/patches/0005 widens those guards and defines the marker
  // KOKKOSKERNELS_KKPERM_PATCH_0005_ITS; without the marker the KK candidates are not offered.
  // The SIGFPE of the first run with the patch (H100, run 7) was KK's symbolic dividing by the
  // row count of a 0x0 product (cuda-gdb, run 12); KkSpgemm answers zero-dimension products
  // itself. -DKKPERM_DISABLE_KK_SPGEMM_ON_CUDA=ON (CMake) takes the candidates out.
#if !defined(KOKKOSKERNELS_KKPERM_PATCH_0005_ITS) || defined(KKPERM_DISABLE_KK_SPGEMM_ON_CUDA)
  if (info(c).kernel == std::string("kk")) return false;
#endif
  return static_cast<int>(c) >= 0 && static_cast<int>(c) < kCount;
#else
  return !info(c).cuda_only;
#endif
}

std::vector<SpgemmCandidate> all_spgemm_candidates() {
  std::vector<SpgemmCandidate> v;
  for (const auto& r : kTable) v.push_back(r.id);
  return v;
}

std::vector<SpgemmCandidate> spgemm_candidates() {
  std::vector<SpgemmCandidate> v;
  for (const auto& r : kTable)
    if (available(r.id)) v.push_back(r.id);
  return v;
}

std::size_t device_memory_bytes() {
#ifdef KKPERM_ENABLE_CUDA
  // A device's total memory does not change: asked once per device (cudaMemGetInfo took 4.7 µs
  // on the host, H100 run 219, and the guard asks on every symbolic()).
  constexpr int kDevices = 64;
  static std::atomic<std::size_t> known[kDevices] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  if (dev >= 0 && dev < kDevices) {
    const std::size_t k = known[dev].load(std::memory_order_relaxed);
    if (k != 0) return k;
  }
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return 0;
  if (dev >= 0 && dev < kDevices) known[dev].store(total_b, std::memory_order_relaxed);
  return total_b;
#else
  return 0;
#endif
}

std::string spgemm_guard_reason(SpgemmCandidate c, const SpgemmWorkEstimate& e,
                                std::size_t value_bytes, const SpgemmGuardLimits& lim) {
  std::ostringstream os;
  const std::size_t dev = lim.device_bytes ? lim.device_bytes : device_memory_bytes();
  const double budget = dev ? lim.memory_fraction * static_cast<double>(dev) : 0.0;
  const double products = static_cast<double>(e.sum_work);
  const std::int64_t int_max = std::numeric_limits<int>::max();
  switch (c) {
    case SpgemmCandidate::esc:
    case SpgemmCandidate::esc_permuted:
      // Bounded by design: the global bin is chunked, nnz(C) is counted exactly before C is
      // allocated and checked against the offset type and the memory limit (EscPlan sets it to
      // memory_fraction x device memory unless EscConfig gives one); a product that does not
      // fit is skipped there with the bytes it needs (CandidateNotApplicable). Σ F_i alone
      // (an upper bound of nnz(C)) would refuse products that fit.
      return {};
    case SpgemmCandidate::kk_spgemm_kk:
    case SpgemmCandidate::kk_spgemm_kk_memory:
      if (e.max_work > lim.kk_max_row_work) {
        os << "max row work " << e.max_work << " > kk_max_row_work " << lim.kk_max_row_work
           << " (runaway guard; the limit is a GUESS, not measured: KK 3.4 did not finish A^2 of "
              "a 1M-row power-law matrix in 7 min on an H200; raise with --kk-max-row-work)";
        return os.str();
      }
      if (e.sum_work > int_max) {
        os << "sum of row work " << e.sum_work << " exceeds 2^31-1 (KK 3.4 with int offsets)";
        return os.str();
      }
      return {};
    case SpgemmCandidate::cusparse_alg1:
    case SpgemmCandidate::cusparse_alg2:
    case SpgemmCandidate::cusparse_alg3:
    case SpgemmCandidate::cusparse_reuse: {
      if (e.sum_work > int_max && c != SpgemmCandidate::cusparse_alg3) {
        os << "intermediate products " << e.sum_work
           << " exceed 2^31-1 (32-bit cuSPARSE work buffers; only ALG3 chunks them)";
        return os.str();
      }
      // Documented memory behaviour: ALG1 and reuse hold all intermediate products (index +
      // value), ALG2 about half of that, ALG3 chunks (chunk fraction 0.2).
      double need = 0.0;
      if (c == SpgemmCandidate::cusparse_alg1 || c == SpgemmCandidate::cusparse_reuse)
        need = products * static_cast<double>(sizeof(int) * 2 + value_bytes);
      else if (c == SpgemmCandidate::cusparse_alg2)
        need = products * static_cast<double>(sizeof(int) + value_bytes) / 2.0;
      else
        need = 0.2 * products * static_cast<double>(sizeof(int) + value_bytes);
      if (budget > 0.0 && need > budget) {
        os << "estimated work buffer " << need << " bytes > " << budget << " bytes ("
           << lim.memory_fraction << " of device memory)";
        return os.str();
      }
      return {};
    }
    default:
      break;
  }
  KKPERM_THROW(std::invalid_argument, "kkperm::spgemm_guard_reason: invalid candidate");
}

template <class Matrix>
std::unique_ptr<SpgemmPlan<Matrix>> make_spgemm_plan(SpgemmCandidate c, const SpgemmPlanOptions& o) {
  KKPERM_REQUIRE(available(c), "kkperm::make_spgemm_plan: candidate " << to_string(c)
                                                                      << " is not available in this build");
  switch (c) {
    case SpgemmCandidate::esc:
    case SpgemmCandidate::esc_permuted:
      return std::make_unique<EscPlan<Matrix>>(c, o);
    default:
      break;
  }
  if constexpr (sizeof(typename Matrix::non_const_size_type) == sizeof(int)) {
    switch (c) {
      case SpgemmCandidate::kk_spgemm_kk:
      case SpgemmCandidate::kk_spgemm_kk_memory:
        return std::make_unique<KkPlan<Matrix>>(c, o);
#ifdef KKPERM_ENABLE_CUDA
      case SpgemmCandidate::cusparse_alg1:
      case SpgemmCandidate::cusparse_alg2:
      case SpgemmCandidate::cusparse_alg3:
      case SpgemmCandidate::cusparse_reuse:
        return make_cusparse_spgemm_plan<Matrix>(c, o);
#endif
      default:
        break;
    }
  } else {
    // 64-bit offsets (nnz(C) > 2^31 - 1): only the ESC kernel is instantiated for them; KK 3.4
    // and our cuSPARSE plans are built for 32-bit offsets. (ESC returned above.)
    if (c != SpgemmCandidate::esc && c != SpgemmCandidate::esc_permuted)
      throw CandidateNotApplicable(to_string(c) + ": not built for " +
                                 std::to_string(8 * sizeof(typename Matrix::non_const_size_type)) +
                                 "-bit offsets (only esc / esc_permuted are)");
  }
  KKPERM_THROW(std::invalid_argument,
               "kkperm::make_spgemm_plan: candidate " << to_string(c) << " has no plan here");
}

template std::unique_ptr<SpgemmPlan<Crs<double, int, DefaultDevice, int>>>
make_spgemm_plan<Crs<double, int, DefaultDevice, int>>(SpgemmCandidate, const SpgemmPlanOptions&);
template std::unique_ptr<SpgemmPlan<Crs<float, int, DefaultDevice, int>>>
make_spgemm_plan<Crs<float, int, DefaultDevice, int>>(SpgemmCandidate, const SpgemmPlanOptions&);
template std::unique_ptr<SpgemmPlan<Crs<double, int, DefaultDevice, std::int64_t>>>
make_spgemm_plan<Crs<double, int, DefaultDevice, std::int64_t>>(SpgemmCandidate,
                                                                const SpgemmPlanOptions&);

}  // namespace kkperm
