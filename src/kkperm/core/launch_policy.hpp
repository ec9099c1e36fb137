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

namespace kkperm {

template <class Exec, class... Traits>
using team_policy = Kokkos::TeamPolicy<Exec, Traits..., Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;
template <class Exec, class... Traits>
using range_policy = Kokkos::RangePolicy<Exec, Traits..., Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;

}  // namespace kkperm
