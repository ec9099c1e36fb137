#pragma once
/**
 * @brief Exclusive prefix sum of a generated sequence into a View, on the View's execution space,
 * without a host synchronisation.
 *
 * Usage:
 *   kkperm::exclusive_scan_to<exec_t, offset_t>("label", n, KOKKOS_LAMBDA(std::int64_t i) {
 *     return static_cast<offset_t>(len(i)); }, out);   // out(i) = Σ_{r<i} len(r), i in [0, n]
 *
 * CUDA: cub::DeviceScan::ExclusiveSum over a transform iterator (temporary storage from the
 * reusable workspace, kkperm/core/workspace.hpp); elsewhere, or above 2^31 - 1 items, a Kokkos
 * parallel_scan. Why: Kokkos 3.4's CUDA scan took 212 µs for the 2.4 M-entry product offsets of
 * an AMG restriction (H100, session 16, run 96, two kernels at 128 threads per block) — a device
 * scan of that size is a few microseconds of memory traffic.
 * Preconditions: out.extent(0) >= n + 1; T is an arithmetic type wide enough for the total.
 */
#include <Kokkos_Core.hpp>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#endif
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "kkperm/core/error.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/workspace.hpp"

namespace kkperm {
namespace detail {

/// f(i) for i < n, 0 at i == n (the extra element makes out(n) the total).
template <class T, class F>
struct ScanInput {
  F f;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION T operator()(const std::int64_t i) const { return i < n ? f(i) : T(0); }
};

}  // namespace detail

template <class Exec, class T, class F, class OutView>
void exclusive_scan_to(const char* label, std::int64_t n, const F& f, const OutView& out) {
  static_assert(std::is_same_v<typename OutView::non_const_value_type, T>,
                "exclusive_scan_to: the output View's value type must be T");
  KKPERM_ASSERT(static_cast<std::int64_t>(out.extent(0)) >= n + 1, "exclusive_scan_to: output too short");
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    if (n + 1 <= std::int64_t(std::numeric_limits<int>::max())) {
      using mem_t = typename OutView::memory_space;
      const Exec exec;
      auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                detail::ScanInput<T, F>{f, n});
      std::size_t temp_bytes = 0;
      cudaError_t err = cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out.data(),
                                                      static_cast<int>(n + 1), exec.cuda_stream());
      if (err != cudaSuccess)
        KKPERM_THROW(std::runtime_error, label << ": cub scan (size query) failed: " << cudaGetErrorString(err));
      detail::Workspace<mem_t> ws(detail::Workspace<mem_t>::template bytes_for<unsigned char>(temp_bytes));
      auto temp = ws.template take<unsigned char>(temp_bytes);
      err = cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, in, out.data(), static_cast<int>(n + 1),
                                          exec.cuda_stream());
      if (err != cudaSuccess)
        KKPERM_THROW(std::runtime_error, label << ": cub scan failed: " << cudaGetErrorString(err));
      return;
    }
  }
#endif
  const detail::ScanInput<T, F> in{f, n};
  Kokkos::parallel_scan(
      label, kkperm::range_policy<Exec>(0, n + 1),
      KOKKOS_LAMBDA(const std::int64_t i, T& upd, const bool final) {
        const T v = in(i);
        if (final) out(i) = upd;
        upd += v;
      });
}

}  // namespace kkperm
