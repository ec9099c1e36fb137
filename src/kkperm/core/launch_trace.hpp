#pragma once
/**
 * @brief A timeline of one stretch of host code: every Kokkos kernel launch, deep_copy,
 * allocation and deallocation it makes, with host times and, on CUDA, the device times at
 * which the default Kokkos::Cuda instance's stream reached the start and the end of each kernel
 * and copy. It shows where a multi-kernel call (an ESC SpGEMM setup) leaves the device idle:
 * the gap between one kernel's device end and the next one's device start is time the device
 * waited for the host (a host wait, an allocation, launch cost).
 *
 * Usage:
 *   kkperm::detail::LaunchTrace trace;        // starts recording
 *   plan->setup(A, B);
 *   const auto events = trace.stop();         // fences, then resolves the device times
 *
 * Phases of host code show up as `region` events where the code marks them with TraceRegion
 * (Kokkos' push/pop region hooks; nothing happens when no trace or tool records): their host
 * times say what the host did between launches, and their device times when the stream reached
 * their start and end (regions are not device work: they do not count as busy).
 *
 * Rules: one trace at a time in a process; not while a Kokkos tool library is loaded (its
 * callbacks would be replaced, and such a tool may make Kokkos fence around every kernel). The
 * hooks are Kokkos' own profiling callbacks (Kokkos::Tools), which call nothing when no trace
 * runs. On CUDA each kernel and copy costs two cudaEventRecord calls while tracing (about a
 * microsecond of host time each), so a traced call is slightly slower than an untraced one;
 * compare untraced timings for speed, and use the trace for where the idle time sits. Work
 * launched outside Kokkos (CUB, cuSPARSE, cudaMemsetAsync) is not an event: it shows as device
 * time between two events.
 */
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kkperm::detail {

struct TraceEvent {
  enum class Kind { kernel, deep_copy, allocate, deallocate, region };
  Kind kind = Kind::kernel;
  std::string name;            ///< kernel label, "dst <- src" labels of a copy, view or region label
  std::uint64_t bytes = 0;     ///< copy or allocation size (0 for kernels)
  double host_begin_us = 0.0;  ///< host clock, from the trace's start
  double host_end_us = 0.0;    ///< host clock when the launch/copy call returned
  /// Device clock from the trace's start (CUDA events on the default instance's stream): when
  /// the stream reached the call and when the call's work finished; -1 on host backends and for
  /// allocations.
  double device_begin_us = -1.0;
  double device_end_us = -1.0;
};

const char* to_string(TraceEvent::Kind k);

/// Marks a phase of host code for a LaunchTrace (a Kokkos profiling region from construction to
/// destruction); costs one check when nothing records.
class TraceRegion {
 public:
  explicit TraceRegion(const char* name) {
    if (Kokkos::Profiling::profileLibraryLoaded()) {
      Kokkos::Profiling::pushRegion(name);
      on_ = true;
    }
  }
  ~TraceRegion() {
    if (on_) Kokkos::Profiling::popRegion();
  }
  TraceRegion(const TraceRegion&) = delete;
  TraceRegion& operator=(const TraceRegion&) = delete;

 private:
  bool on_ = false;
};

/// Consecutive phases of host code, each a TraceRegion: next(name) ends the current phase (if
/// any) and starts `name`; end(), or destruction, ends the current one.
class TracePhases {
 public:
  TracePhases() = default;
  ~TracePhases() { end(); }
  TracePhases(const TracePhases&) = delete;
  TracePhases& operator=(const TracePhases&) = delete;
  void next(const char* name) {
    end();
    region_.emplace(name);
  }
  void end() { region_.reset(); }

 private:
  std::optional<TraceRegion> region_;
};

class LaunchTrace {
 public:
  /// Starts recording; throws std::logic_error when another trace records or a Kokkos tool
  /// library is loaded.
  LaunchTrace();
  ~LaunchTrace();
  LaunchTrace(const LaunchTrace&) = delete;
  LaunchTrace& operator=(const LaunchTrace&) = delete;

  /// Stops recording (fence first) and returns the events in call order. Throws
  /// std::logic_error when called twice.
  std::vector<TraceEvent> stop();

 private:
  bool recording_ = false;
};

/// What a trace says about device idle time, from the first device event's start to the last
/// one's end: busy = union of the kernel and copy windows (regions excluded), idle = the rest; the largest idle gap
/// and the event that ended before it. Zero everywhere on host backends.
struct TraceSummary {
  int kernels = 0, copies = 0, allocations = 0, deallocations = 0, regions = 0;
  double host_span_us = 0.0;    ///< first event's host start to the last one's host end
  double device_span_us = 0.0;  ///< first device start to last device end
  double device_busy_us = 0.0;
  double device_idle_us = 0.0;
  double largest_gap_us = 0.0;
  std::string largest_gap_after;  ///< name of the event whose end opened that gap
};
TraceSummary summarize(const std::vector<TraceEvent>& events);

}  // namespace kkperm::detail
