#pragma once
/**
 * @brief kkperm::team_policy / kkperm::range_policy: the execution policies every kkperm kernel
 * launches with.
 *
 * They are Kokkos' TeamPolicy and RangePolicy with the HintLightWeight work-item property,
 * which makes Kokkos 3.4's CUDA backend pass the functor as a kernel argument (up to 4 KB;
 * larger ones are copied to device memory on the stream). Without it, a functor of 512 bytes or
 * more goes through constant memory, and each such launch first waits on the host
 * (cudaEventSynchronize) until the previous constant-memory kernel of the instance has finished,
 * so the host can no longer queue launches ahead of the GPU. The ESC SpGEMM kernels, whose
 * functors carry a dozen Views, were launched that way up to session 27.
 * Measured (H100, session 28, run 193, scripts/gpu/session28/launch_cost.cpp, a 968-byte functor):
 * one call alone 11.5 us by CUDA events through constant memory against 6.2 us as a kernel
 * argument (an empty raw CUDA kernel: 5.3-5.5 us); back-to-back calls 13.9 against 4.0 us each;
 * between kernels of 20 us, a gap of about 14 us against 2.5 us. On host backends the property has
 * no effect.
 * Usage: kkperm::parallel_for("label", kkperm::range_policy<Exec>(exec, 0, n), f);
 *        kkperm::team_policy<Exec, Kokkos::LaunchBounds<128, 8>> policy(exec, teams, 128);
 *        kkperm::parallel_for("label", policy, f);   // team kernels: the fitted carveout below
 *        kkperm::parallel_for("label", policy, f, 14);  // a fixed carveout hint, percent
 * Every kkperm kernel launches through kkperm::parallel_for (below), except the long-row segment
 * kernel of kernels/spmm/row_major.hpp (Kokkos' preference, not measured yet); that file's row
 * kernels pass their own measured hint (RowMajorConfig::carveout).
 */
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kkperm {

template <class Exec, class... Traits>
using team_policy = Kokkos::TeamPolicy<Exec, Traits..., Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;
template <class Exec, class... Traits>
using range_policy = Kokkos::RangePolicy<Exec, Traits..., Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;

/// What team kernels launched through kkperm::parallel_for do with the SM's shared-memory / L1
/// split. Kokkos 3.4 launches every TeamPolicy kernel with cudaFuncCachePreferShared (RangePolicy
/// kernels with PreferL1), whatever scratch they ask for: on Hopper the driver then configures the
/// SM for the largest shared-memory carveout (228 KiB of the 256 KiB), leaving 28 KiB of L1 also to
/// kernels that use almost no scratch. Nsight Compute on the H200 (session 44, run 353): the
/// row-major SpMM team kernel (1 KB of team scratch, Kokkos' own) ran with that configuration and
/// an 8.8 % L1 hit rate on the 3D 7-point stencil. A percent in [0, 100] is a fixed
/// cudaFuncAttributePreferredSharedMemoryCarveout hint (percent of the largest shared-memory size;
/// 0 = as much L1 as the kernel's shared memory allows).
inline constexpr int kCarveoutFit = -2;     ///< the smallest carveout that keeps the kernel's occupancy
inline constexpr int kCarveoutKokkos = -1;  ///< Kokkos' own preference (all shared memory)
/// kkperm::parallel_for without a carveout argument: team_carveout_mode(), read only for CUDA
/// team launches.
inline constexpr int kCarveoutDefault = -3;

/// Parses a KKPERM_TEAM_CARVEOUT value: "fit", "kokkos" or an integer percent in [0, 100];
/// anything else: std::invalid_argument naming the value.
inline int parse_team_carveout(const std::string& v) {
  if (v == "fit") return kCarveoutFit;
  if (v == "kokkos") return kCarveoutKokkos;
  char* end = nullptr;
  const long p = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || end == nullptr || *end != '\0' || p < 0 || p > 100)
    throw std::invalid_argument("kkperm: KKPERM_TEAM_CARVEOUT must be 'fit', 'kokkos' or an integer percent in [0, 100], got '" +
                                v + "'");
  return static_cast<int>(p);
}

/// The team kernels' carveout mode, read once per process from the environment variable
/// KKPERM_TEAM_CARVEOUT (default "fit"): kCarveoutFit, kCarveoutKokkos or a fixed percent.
inline int team_carveout_mode() {
  static const int m = [] {
    const char* e = std::getenv("KKPERM_TEAM_CARVEOUT");
    return e == nullptr ? kCarveoutFit : parse_team_carveout(e);
  }();
  return m;
}

/// The mode as reports print it ("fit", "kokkos" or the percent).
inline std::string team_carveout_name() {
  const int m = team_carveout_mode();
  return m == kCarveoutFit ? std::string("fit") : (m == kCarveoutKokkos ? std::string("kokkos") : std::to_string(m));
}

/// One SM's limits and one kernel's resources, for fit_carveout_percent.
struct CarveoutInputs {
  int regs_per_sm = 65536;          ///< cudaDeviceProp::regsPerMultiprocessor
  int threads_per_sm = 2048;        ///< cudaDeviceProp::maxThreadsPerMultiProcessor
  int blocks_per_sm = 32;           ///< cudaDeviceProp::maxBlocksPerMultiProcessor
  long shared_per_sm = 233472;      ///< cudaDeviceProp::sharedMemPerMultiprocessor (the largest carveout)
  long reserved_per_block = 1024;   ///< cudaDeviceProp::reservedSharedMemPerBlock
  int regs_per_thread = 0;          ///< cudaFuncAttributes::numRegs
  long static_shared = 0;           ///< cudaFuncAttributes::sharedSizeBytes
  long dynamic_shared = 0;          ///< the launch's dynamic shared memory (Kokkos: team scratch + its own)
  int threads_per_block = 0;        ///< team size x vector length
};

/**
 * @brief The smallest carveout percent that keeps a kernel's occupancy what the largest
 * shared-memory configuration would give it: the blocks an SM can hold by registers, threads and
 * its block limit, times each block's shared memory (static + dynamic + the per-block reserve),
 * as a percent of the largest configuration, rounded up (the driver then takes the next
 * configuration at or above it). 100 when shared memory is what limits the occupancy; -1 when the
 * inputs describe no launchable block.
 * Registers are counted per warp in units of 256 (sm_70 to sm_90). The count can only
 * overestimate the blocks an SM holds, so the percent errs towards more shared memory (Kokkos'
 * choice), never towards fewer resident blocks.
 */
inline int fit_carveout_percent(const CarveoutInputs& in) {
  if (in.threads_per_block <= 0 || in.shared_per_sm <= 0) return -1;
  const long warps = (in.threads_per_block + 31) / 32;
  long blocks = in.blocks_per_sm;
  blocks = std::min(blocks, static_cast<long>(in.threads_per_sm) / (warps * 32));
  if (in.regs_per_thread > 0) {
    const long per_warp = (static_cast<long>(in.regs_per_thread) * 32 + 255) / 256 * 256;
    blocks = std::min(blocks, static_cast<long>(in.regs_per_sm) / per_warp / warps);
  }
  if (blocks <= 0) return -1;
  const long need = blocks * (in.static_shared + in.dynamic_shared + in.reserved_per_block);
  if (need >= in.shared_per_sm) return 100;
  return static_cast<int>((need * 100 + in.shared_per_sm - 1) / in.shared_per_sm);  // < 100 here
}

namespace detail {
template <class P>
struct is_team_policy : std::false_type {};
template <class... P>
struct is_team_policy<Kokkos::TeamPolicy<P...>> : std::true_type {};
#if defined(KOKKOS_ENABLE_CUDA)
/// The current device's limits (once per process).
inline const CarveoutInputs& cuda_sm_limits() {
  static const CarveoutInputs lim = [] {
    CarveoutInputs c;
    int dev = 0;
    cudaDeviceProp p{};
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&p, dev) == cudaSuccess) {
      c.regs_per_sm = p.regsPerMultiprocessor;
      c.threads_per_sm = p.maxThreadsPerMultiProcessor;
      c.blocks_per_sm = p.maxBlocksPerMultiProcessor;
      c.shared_per_sm = static_cast<long>(p.sharedMemPerMultiprocessor);
      c.reserved_per_block = static_cast<long>(p.reservedSharedMemPerBlock);
    } else {
      (void)cudaGetLastError();
      c.shared_per_sm = 0;  // unknown device: fit_carveout_percent answers -1, Kokkos' choice stays
    }
    return c;
  }();
  return lim;
}
#endif
}  // namespace detail

/**
 * @brief Kokkos::parallel_for for kkperm's kernels. TeamPolicy launches on Kokkos::Cuda also set
 * the kernel's shared-memory carveout: `carveout` (kCarveoutFit, kCarveoutKokkos or a percent in
 * [0, 100]), by default team_carveout_mode(). Fit is fit_carveout_percent of this launch's team
 * size and scratch, so the SM keeps as much L1 as the kernel's occupancy allows instead of Kokkos
 * 3.4's cudaFuncCachePreferShared. The hint is set before the launch: Kokkos' own one-time
 * preference is applied first (Kokkos::Impl::configure_shmem_preference, the call its launcher
 * makes) so it cannot replace ours at a kernel's first launch, and the attribute is written only
 * when the percent changes. Everything else is Kokkos::parallel_for unchanged.
 * Reaches into Kokkos::Impl, so it is tied to the pinned Kokkos 3.4; host code only. One device
 * per process, as Kokkos 3.4 itself assumes: the SM limits are read once from the current device,
 * and a kernel's last percent is remembered per kernel, not per device.
 * Measured (H200, session 45, run 358, fit against KKPERM_TEAM_CARVEOUT=kokkos): SpMV csr_vector
 * 0.81x and c_stationary SpMM 0.84x the time (geomeans), ESC R(AP) setup 0.98x; kernels whose
 * scratch fills the SM (csr_merge_path, row_major_tiled) unchanged.
 */
template <class Policy, class F>
void parallel_for(const std::string& label, const Policy& policy, const F& f, int carveout = kCarveoutDefault) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (detail::is_team_policy<Policy>::value &&
                std::is_same<typename Policy::execution_space, Kokkos::Cuda>::value) {
    const int mode = carveout == kCarveoutDefault ? team_carveout_mode() : carveout;
    if (mode != kCarveoutKokkos && policy.league_size() > 0) {
      using driver = Kokkos::Impl::ParallelFor<F, Policy, Kokkos::Cuda>;
      using bounds = typename Policy::launch_bounds;
      using launch = Kokkos::Impl::CudaParallelLaunch<driver, bounds>;
      int percent = mode > 100 ? 100 : mode;
      if (mode == kCarveoutFit) {
        const int ts = policy.team_size();
        if (ts > 0) {
          const cudaFuncAttributes attr = launch::get_cuda_func_attributes();
          CarveoutInputs in = detail::cuda_sm_limits();
          in.regs_per_thread = attr.numRegs;
          in.static_shared = static_cast<long>(attr.sharedSizeBytes);
          // what Kokkos 3.4's ParallelFor<TeamPolicy, Cuda> asks for: its team-reduce space,
          // level-0 team and thread scratch, and the functor's own team shmem
          in.dynamic_shared = static_cast<long>(sizeof(double) * (ts + 2) + policy.scratch_size(0, ts) +
                                                Kokkos::Impl::FunctorTeamShmemSize<F>::value(f, ts));
          in.threads_per_block = ts * policy.impl_vector_length();
          percent = fit_carveout_percent(in);
        } else {
          percent = -1;  // Kokkos picks the team size: leave its preference
        }
      }
      if (percent >= 0) {
        static std::mutex mu;
        static int last = -1;
        std::lock_guard<std::mutex> lock(mu);
        if (percent != last) {
          Kokkos::Impl::configure_shmem_preference<driver, bounds>(launch::get_kernel_func(), true);
          if (cudaFuncSetAttribute(reinterpret_cast<const void*>(launch::get_kernel_func()),
                                   cudaFuncAttributePreferredSharedMemoryCarveout, percent) == cudaSuccess)
            last = percent;
          else
            (void)cudaGetLastError();  // a hint: a refusal leaves Kokkos' preference
        }
      }
    }
  }
#else
  (void)carveout;
#endif
  Kokkos::parallel_for(label, policy, f);
}

}  // namespace kkperm
