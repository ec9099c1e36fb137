#pragma once
/**
 * @brief Phase timing inside a multi-phase call without fences on CUDA: marks are cudaEvents
 * recorded on the default Kokkos::Cuda instance's stream, and a span (from one mark to another)
 * is turned into seconds only when the caller asks (resolve()), so the phases' kernels run back
 * to back. Elsewhere a mark is fence + steady_clock and a span is known at once.
 *
 * Usage:
 *   kkperm::detail::PhaseClock<ExecSpace> clock;
 *   const auto m0 = clock.mark();
 *   ... launch phase 1 ...
 *   clock.span(&stats.phase1_s, m0);     // written at the next resolve() (at once on host)
 *   clock.resolve();                      // waits for the newest mark, fills every span
 *
 * Why: the ESC SpGEMM setup timed its seven phases with a fence at both ends of each (H100,
 * session 16: ~0.7 ms of a 1.5 ms R(AP) setup went outside kernels, the fences' idle gaps among
 * it); each fence empties the device queue, so the next launch's latency is no longer hidden.
 * Rules: the marked work runs on the default instance of `Exec`; a span's pointer must stay
 * valid until resolve() or restart(); restart() drops pending spans and reuses the events (call
 * it only after resolve() if those spans are wanted). A copy starts empty (no marks, no spans).
 * Not thread-safe.
 */
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <type_traits>
#include <vector>

#include "kkperm/core/cuda_status.hpp"
#include "kkperm/core/error.hpp"

namespace kkperm::detail {

#if defined(KOKKOS_ENABLE_CUDA)
/// Process-wide free list of the CUDA events PhaseClock records: a clock takes events others gave
/// back instead of creating its own, and gives them back when it goes (the events left are
/// destroyed at Kokkos::finalize). Why: a one-shot SpGEMM setup on a fresh plan marks ~12 phases,
/// and each mark of a fresh clock was a cudaEventCreate on the host between launches, while the
/// device waits at the setup's host synchronizations (session 31). Thread-safe.
class CudaEventPool {
 public:
  static cudaEvent_t take() {
    State& s = state();
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (!s.hook) {
        Kokkos::push_finalize_hook([] { release_all(); });
        s.hook = true;
      }
      if (!s.free.empty()) {
        const cudaEvent_t e = s.free.back();
        s.free.pop_back();
        return e;
      }
    }
    cudaEvent_t e = nullptr;
    throw_if_cuda_error(cudaEventCreate(&e), "kkperm::detail::PhaseClock", "cudaEventCreate");
    return e;
  }
  static void give(cudaEvent_t e) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.hook)
      s.free.push_back(e);
    else
      cudaEventDestroy(e);  // after finalize: nothing keeps it
  }

 private:
  struct State {
    std::mutex mutex;
    std::vector<cudaEvent_t> free;
    bool hook = false;  ///< a finalize hook is registered (reset when it runs)
  };
  static State& state() {
    static State s;
    return s;
  }
  static void release_all() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    for (cudaEvent_t e : s.free) cudaEventDestroy(e);
    s.free.clear();
    s.hook = false;
  }
};
#endif

template <class Exec>
class PhaseClock {
 public:
  using mark_t = int;

  PhaseClock() = default;
  PhaseClock(const PhaseClock&) {}
  PhaseClock& operator=(const PhaseClock&) {
    restart();
    return *this;
  }
  ~PhaseClock() {
#if defined(KOKKOS_ENABLE_CUDA)
    for (cudaEvent_t e : events_) CudaEventPool::give(e);
#endif
  }

  /// Marks "now" in the stream (device) or on the host clock after a fence (host backends).
  mark_t mark() {
    if (on_device()) {
#if defined(KOKKOS_ENABLE_CUDA)
      if (used_ == events_.size()) events_.push_back(CudaEventPool::take());
      check(cudaEventRecord(events_[used_], Kokkos::Cuda().cuda_stream()), "cudaEventRecord");
      return static_cast<mark_t>(used_++);
#endif
    }
    Kokkos::fence();
    if (used_ == host_.size()) host_.emplace_back();
    host_[used_] = std::chrono::steady_clock::now();
    return static_cast<mark_t>(used_++);
  }

  /// *out = seconds from mark `from` to a new mark (device: at resolve(); host: now).
  void span(double* out, mark_t from) { span(out, from, mark()); }
  /// *out = seconds from mark `from` to mark `to`.
  void span(double* out, mark_t from, mark_t to) {
    KKPERM_REQUIRE(from >= 0 && to >= 0 && static_cast<std::size_t>(from) < used_ &&
                       static_cast<std::size_t>(to) < used_,
                   "kkperm::detail::PhaseClock::span: unknown mark " << from << " or " << to);
    if (on_device()) {
      pending_.push_back(Pending{out, from, to});
      return;
    }
    *out = std::chrono::duration<double>(host_[static_cast<std::size_t>(to)] -
                                         host_[static_cast<std::size_t>(from)])
               .count();
  }

  /// Fills every pending span (waits for the newest mark's work on the device).
  void resolve() {
#if defined(KOKKOS_ENABLE_CUDA)
    if (pending_.empty()) return;
    int last = 0;
    for (const auto& p : pending_) last = p.to > last ? p.to : last;
    check(cudaEventSynchronize(events_[static_cast<std::size_t>(last)]), "cudaEventSynchronize");
    for (const auto& p : pending_) {
      float ms = 0.f;
      check(cudaEventElapsedTime(&ms, events_[static_cast<std::size_t>(p.from)],
                                 events_[static_cast<std::size_t>(p.to)]),
            "cudaEventElapsedTime");
      *p.out = 1e-3 * static_cast<double>(ms);
    }
#endif
    pending_.clear();
  }

  /// Drops pending spans and marks (the events are kept for reuse).
  void restart() {
    pending_.clear();
    used_ = 0;
  }
  std::size_t marks() const { return used_; }

 private:
  static constexpr bool on_device() {
#if defined(KOKKOS_ENABLE_CUDA)
    return std::is_same<Exec, Kokkos::Cuda>::value;
#else
    return false;
#endif
  }
#if defined(KOKKOS_ENABLE_CUDA)
  static void check(cudaError_t e, const char* what) { throw_if_cuda_error(e, "kkperm::detail::PhaseClock", what); }
  std::vector<cudaEvent_t> events_;
#endif
  struct Pending {
    double* out;
    mark_t from, to;
  };
  std::vector<Pending> pending_;
  std::vector<std::chrono::steady_clock::time_point> host_;
  std::size_t used_ = 0;
};

}  // namespace kkperm::detail
