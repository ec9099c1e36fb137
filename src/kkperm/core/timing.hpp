#pragma once
/**
 * @brief Timing used by every perf_test and by the collector: device-event timers for per-call
 * cost, wall-clock + fence for preparation cost, median of repeats after warm-up.
 *
 * Usage:
 *   auto s = kkperm::time_median([&] { plan.run(alpha, x, beta, y); }, warmup, repeat);
 *   double prep = kkperm::time_host_ms([&] { plan.prepare(A); });
 *
 * On CUDA builds (KOKKOS_ENABLE_CUDA and a Kokkos::Cuda default execution space) each repeat is
 * bracketed by cudaEventRecord on the stream of the `Kokkos::Cuda` instance passed in (the
 * default instance unless told), so host launch overhead between launches does not count but
 * each launch's device time does. Elsewhere each repeat is `fence; t0; fn(); fence; t1`
 * with std::chrono::steady_clock. Preconditions: `fn` enqueues its work on that instance
 * (everything kkperm launches does); repeat >= 1, warmup >= 0 (std::invalid_argument otherwise).
 */
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "kkperm/core/cuda_status.hpp"
#include "kkperm/core/error.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace kkperm {

/// Summary of `repeat` timed calls; every sample is kept for the trainer.
struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  double mean_ms = 0.0;
  int warmup = 0;
  int repeat = 0;
  std::vector<double> samples_ms;
  const char* clock = "";  ///< "cuda_event" or "steady_clock"
};

namespace detail {
inline TimingStats summarize(std::vector<double> samples, int warmup, const char* clock) {
  TimingStats s;
  s.warmup = warmup;
  s.repeat = static_cast<int>(samples.size());
  s.clock = clock;
  s.samples_ms = samples;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.median_ms = (n % 2 == 1) ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.min_ms = samples.front();
  s.max_ms = samples.back();
  double sum = 0.0;
  for (double v : samples) sum += v;
  s.mean_ms = sum / static_cast<double>(n);
  return s;
}

#if defined(KOKKOS_ENABLE_CUDA)
inline void timing_cuda_check(cudaError_t e, const char* what) { throw_if_cuda_error(e, "kkperm::time_median", what); }
#endif
}  // namespace detail

/// Wall time of one call of `fn` in ms, fenced on both sides (use for prep: host + device work).
template <class Fn>
double time_host_ms(Fn&& fn) {
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  Kokkos::fence();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

/**
 * @brief Runs `fn` `warmup` times untimed, then `repeat` times timed one by one, and returns the
 * median/min/max/mean in milliseconds. On CUDA the clock is a pair of cudaEvents recorded on the
 * default Kokkos::Cuda instance's stream around each call; elsewhere fence + steady_clock.
 * budget_ms > 0 bounds slow measurements: the timed loop stops once min(3, repeat) samples are
 * taken and the samples add up to >= budget_ms, and the warm-up stops after its first call when
 * that call (wall clock, fenced) took >= budget_ms / 4. TimingStats::repeat and samples_ms say how
 * many samples were actually taken.
 */
template <class Fn>
TimingStats time_median(Fn&& fn, int warmup, int repeat, double budget_ms = 0.0) {
  KKPERM_REQUIRE(repeat >= 1, "kkperm::time_median: repeat must be >= 1, got " << repeat);
  KKPERM_REQUIRE(warmup >= 0, "kkperm::time_median: warmup must be >= 0, got " << warmup);
  KKPERM_REQUIRE(budget_ms >= 0.0, "kkperm::time_median: budget_ms must be >= 0, got " << budget_ms);
  const int min_samples = std::min(3, repeat);
  double spent = 0.0;
  auto over_budget = [&](int taken) { return budget_ms > 0.0 && taken >= min_samples && spent >= budget_ms; };
  for (int i = 0; i < warmup; ++i) {
    if (i == 0 && budget_ms > 0.0) {
      if (time_host_ms(fn) >= 0.25 * budget_ms) break;
    } else {
      fn();
    }
  }
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(repeat));
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value) {
    const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
    cudaEvent_t start, stop;
    detail::timing_cuda_check(cudaEventCreate(&start), "cudaEventCreate");
    detail::timing_cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
    Kokkos::fence();
    for (int i = 0; i < repeat; ++i) {
      detail::timing_cuda_check(cudaEventRecord(start, stream), "cudaEventRecord");
      fn();
      detail::timing_cuda_check(cudaEventRecord(stop, stream), "cudaEventRecord");
      detail::timing_cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0.f;
      detail::timing_cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      samples.push_back(static_cast<double>(ms));
      spent += static_cast<double>(ms);
      if (over_budget(i + 1)) break;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return detail::summarize(std::move(samples), warmup, "cuda_event");
  }
#endif
  for (int i = 0; i < repeat; ++i) {
    samples.push_back(time_host_ms(fn));
    spent += samples.back();
    if (over_budget(i + 1)) break;
  }
  return detail::summarize(std::move(samples), warmup, "steady_clock");
}

}  // namespace kkperm
