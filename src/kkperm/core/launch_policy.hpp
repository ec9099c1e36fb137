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
 * Usage: Kokkos::parallel_for("label", kkperm::range_policy<Exec>(exec, 0, n), f);
 *        kkperm::team_policy<Exec, Kokkos::LaunchBounds<128, 8>> policy(exec, teams, 128);
 */
#include <Kokkos_Core.hpp>
#include <type_traits>

namespace kkperm {

template <class Exec, class... Traits>
using team_policy = Kokkos::TeamPolicy<Exec, Traits..., Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;
template <class Exec, class... Traits>
using range_policy = Kokkos::RangePolicy<Exec, Traits..., Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;

/**
 * @brief Kokkos 3.4 launches every TeamPolicy kernel with cudaFuncCachePreferShared (RangePolicy
 * kernels with PreferL1), whatever scratch they ask for: on Hopper the driver then configures
 * the SM for the largest shared-memory carveout (228 KiB of the 256 KiB), leaving 28 KiB of L1
 * also to kernels that use almost no scratch. Nsight Compute on the H200 (session 44, run 353):
 * the row-major SpMM team kernel (1 KB of team scratch, Kokkos' own) ran with that configuration
 * and an 8.8 % L1 hit rate on the 3D 7-point stencil.
 * carveout_after_launch<Policy>(f, percent) sets the carveout hint of the kernel Kokkos made for
 * `f` launched with `Policy` (cudaFuncAttributePreferredSharedMemoryCarveout: percent of the
 * largest shared-memory size; 0 = as much L1 as the kernel's shared memory allows). Call it after
 * a launch: Kokkos sets its own preference once, at the first launch of each kernel, and a later
 * hint replaces it (so the first launch runs with Kokkos' choice). Once per kernel and process;
 * `percent` < 0 or a host backend: nothing. Reaches into Kokkos::Impl (CudaParallelLaunch), so it
 * is tied to the pinned Kokkos 3.4.
 */
template <class Policy, class F>
void carveout_after_launch(const F&, int percent) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<typename Policy::execution_space, Kokkos::Cuda>::value) {
    if (percent < 0) return;
    using driver = Kokkos::Impl::ParallelFor<F, Policy, Kokkos::Cuda>;
    using launch = Kokkos::Impl::CudaParallelLaunch<driver, typename Policy::launch_bounds>;
    static const cudaError_t set = cudaFuncSetAttribute(
        reinterpret_cast<const void*>(launch::get_kernel_func()), cudaFuncAttributePreferredSharedMemoryCarveout,
        percent > 100 ? 100 : percent);
    if (set != cudaSuccess) (void)cudaGetLastError();  // a hint: a refusal leaves Kokkos' preference
  }
#else
  (void)percent;
#endif
}

}  // namespace kkperm
