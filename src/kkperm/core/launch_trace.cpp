#include "kkperm/core/launch_trace.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include "kkperm/core/cuda_status.hpp"

namespace kkperm::detail {
namespace {

namespace kt = Kokkos::Tools::Experimental;
using clock_t_ = std::chrono::steady_clock;

/// The one recording trace's state (Kokkos' callbacks are plain function pointers).
struct Recorder {
  clock_t_::time_point t0;
  std::vector<TraceEvent> events;
  std::vector<std::size_t> open_copies;  // deep_copy has no id: a stack of open copies
  std::vector<std::size_t> open_regions;  // pop_region has none either
  kt::EventSet saved;
#if defined(KOKKOS_ENABLE_CUDA)
  cudaEvent_t base = nullptr;
  std::vector<cudaEvent_t> pool;  // 2 per event: begin, end
  std::size_t used = 0;
  std::vector<std::pair<int, int>> dev;  // per event: pool indices of begin/end, -1 = none
#endif
};
Recorder* g_rec = nullptr;

double host_us() {
  return std::chrono::duration<double, std::micro>(clock_t_::now() - g_rec->t0).count();
}

#if defined(KOKKOS_ENABLE_CUDA)
int device_mark() {
  if (g_rec->used == g_rec->pool.size()) {
    cudaEvent_t e = nullptr;
    throw_if_cuda_error(cudaEventCreate(&e), "kkperm::detail::LaunchTrace", "cudaEventCreate");
    g_rec->pool.push_back(e);
  }
  throw_if_cuda_error(cudaEventRecord(g_rec->pool[g_rec->used], Kokkos::Cuda().cuda_stream()),
                      "kkperm::detail::LaunchTrace", "cudaEventRecord");
  return static_cast<int>(g_rec->used++);
}
#endif

std::size_t open_event(TraceEvent::Kind kind, std::string name, std::uint64_t bytes, bool on_device) {
  TraceEvent e;
  e.kind = kind;
  e.name = std::move(name);
  e.bytes = bytes;
  e.host_begin_us = host_us();
  g_rec->events.push_back(std::move(e));
#if defined(KOKKOS_ENABLE_CUDA)
  g_rec->dev.emplace_back(on_device ? device_mark() : -1, -1);
#else
  (void)on_device;
#endif
  return g_rec->events.size() - 1;
}

void close_event(std::size_t id) {
  if (g_rec == nullptr || id >= g_rec->events.size()) return;
#if defined(KOKKOS_ENABLE_CUDA)
  if (g_rec->dev[id].first >= 0) g_rec->dev[id].second = device_mark();
#endif
  g_rec->events[id].host_end_us = host_us();
}

void begin_kernel(const char* name, const std::uint32_t, std::uint64_t* id) {
  if (g_rec == nullptr) return;
  *id = open_event(TraceEvent::Kind::kernel, name != nullptr ? name : "", 0, true);
}
void end_kernel(std::uint64_t id) { close_event(static_cast<std::size_t>(id)); }

void begin_copy(Kokkos_Profiling_SpaceHandle, const char* dst, const void*, Kokkos_Profiling_SpaceHandle,
                const char* src, const void*, std::uint64_t bytes) {
  if (g_rec == nullptr) return;
  std::string name = std::string(dst != nullptr ? dst : "") + " <- " + (src != nullptr ? src : "");
  g_rec->open_copies.push_back(open_event(TraceEvent::Kind::deep_copy, std::move(name), bytes, true));
}
void end_copy() {
  if (g_rec == nullptr || g_rec->open_copies.empty()) return;
  const std::size_t id = g_rec->open_copies.back();
  g_rec->open_copies.pop_back();
  close_event(id);
}

void push_region(const char* name) {
  if (g_rec == nullptr) return;
  g_rec->open_regions.push_back(open_event(TraceEvent::Kind::region, name != nullptr ? name : "", 0, true));
}
void pop_region() {
  if (g_rec == nullptr || g_rec->open_regions.empty()) return;
  const std::size_t id = g_rec->open_regions.back();
  g_rec->open_regions.pop_back();
  close_event(id);
}

void on_alloc(Kokkos_Profiling_SpaceHandle, const char* label, const void*, std::uint64_t bytes) {
  if (g_rec == nullptr) return;
  close_event(open_event(TraceEvent::Kind::allocate, label != nullptr ? label : "", bytes, false));
}
void on_dealloc(Kokkos_Profiling_SpaceHandle, const char* label, const void*, std::uint64_t bytes) {
  if (g_rec == nullptr) return;
  close_event(open_event(TraceEvent::Kind::deallocate, label != nullptr ? label : "", bytes, false));
}

}  // namespace

const char* to_string(TraceEvent::Kind k) {
  switch (k) {
    case TraceEvent::Kind::kernel: return "kernel";
    case TraceEvent::Kind::deep_copy: return "deep_copy";
    case TraceEvent::Kind::allocate: return "allocate";
    case TraceEvent::Kind::deallocate: return "deallocate";
    case TraceEvent::Kind::region: return "region";
  }
  return "unknown";
}

LaunchTrace::LaunchTrace() {
  if (g_rec != nullptr)
    throw std::logic_error("kkperm::detail::LaunchTrace: another trace is recording");
  if (Kokkos::Profiling::profileLibraryLoaded())
    throw std::logic_error(
        "kkperm::detail::LaunchTrace: a Kokkos tool library is loaded (KOKKOS_PROFILE_LIBRARY?); "
        "the trace would replace its callbacks");
  Kokkos::fence();  // earlier work is not part of the trace
  auto* rec = new Recorder();
  rec->saved = kt::get_callbacks();
#if defined(KOKKOS_ENABLE_CUDA)
  rec->pool.reserve(512);
  for (int k = 0; k < 256; ++k) {  // created up front: cudaEventCreate is not part of the traced call
    cudaEvent_t e = nullptr;
    throw_if_cuda_error(cudaEventCreate(&e), "kkperm::detail::LaunchTrace", "cudaEventCreate");
    rec->pool.push_back(e);
  }
  throw_if_cuda_error(cudaEventCreate(&rec->base), "kkperm::detail::LaunchTrace", "cudaEventCreate");
  throw_if_cuda_error(cudaEventRecord(rec->base, Kokkos::Cuda().cuda_stream()), "kkperm::detail::LaunchTrace",
                      "cudaEventRecord");
#endif
  rec->t0 = clock_t_::now();
  g_rec = rec;
  recording_ = true;
  kt::set_begin_parallel_for_callback(&begin_kernel);
  kt::set_end_parallel_for_callback(&end_kernel);
  kt::set_begin_parallel_reduce_callback(&begin_kernel);
  kt::set_end_parallel_reduce_callback(&end_kernel);
  kt::set_begin_parallel_scan_callback(&begin_kernel);
  kt::set_end_parallel_scan_callback(&end_kernel);
  kt::set_begin_deep_copy_callback(&begin_copy);
  kt::set_end_deep_copy_callback(&end_copy);
  kt::set_push_region_callback(&push_region);
  kt::set_pop_region_callback(&pop_region);
  kt::set_allocate_data_callback(&on_alloc);
  kt::set_deallocate_data_callback(&on_dealloc);
}

LaunchTrace::~LaunchTrace() {
  if (!recording_) return;
  try {
    stop();
  } catch (...) {
  }
}

std::vector<TraceEvent> LaunchTrace::stop() {
  if (!recording_) throw std::logic_error("kkperm::detail::LaunchTrace::stop: not recording");
  recording_ = false;
  Kokkos::fence();
  Recorder* rec = g_rec;
  kt::set_callbacks(rec->saved);
  g_rec = nullptr;
  std::vector<TraceEvent> out = std::move(rec->events);
#if defined(KOKKOS_ENABLE_CUDA)
  const auto since_base = [&](int idx) {
    float ms = 0.f;
    throw_if_cuda_error(cudaEventElapsedTime(&ms, rec->base, rec->pool[static_cast<std::size_t>(idx)]),
                        "kkperm::detail::LaunchTrace", "cudaEventElapsedTime");
    return 1e3 * static_cast<double>(ms);
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto [b, e] = rec->dev[i];
    if (b >= 0) out[i].device_begin_us = since_base(b);
    if (e >= 0) out[i].device_end_us = since_base(e);
  }
  for (cudaEvent_t e : rec->pool) cudaEventDestroy(e);
  cudaEventDestroy(rec->base);
#endif
  delete rec;
  return out;
}

TraceSummary summarize(const std::vector<TraceEvent>& events) {
  TraceSummary s;
  if (events.empty()) return s;
  double h0 = events.front().host_begin_us, h1 = 0.0;
  std::vector<const TraceEvent*> dev;
  for (const auto& e : events) {
    h0 = std::min(h0, e.host_begin_us);
    h1 = std::max(h1, e.host_end_us);
    switch (e.kind) {
      case TraceEvent::Kind::kernel: ++s.kernels; break;
      case TraceEvent::Kind::deep_copy: ++s.copies; break;
      case TraceEvent::Kind::allocate: ++s.allocations; break;
      case TraceEvent::Kind::deallocate: ++s.deallocations; break;
      case TraceEvent::Kind::region: ++s.regions; continue;  // not device work
    }
    if (e.device_begin_us >= 0.0 && e.device_end_us >= e.device_begin_us) dev.push_back(&e);
  }
  s.host_span_us = h1 - h0;
  if (dev.empty()) return s;
  std::sort(dev.begin(), dev.end(),
            [](const TraceEvent* a, const TraceEvent* b) { return a->device_begin_us < b->device_begin_us; });
  double cur_b = dev.front()->device_begin_us, cur_e = dev.front()->device_end_us;
  const TraceEvent* cur_last = dev.front();  // the event whose end is cur_e
  const double first = cur_b;
  for (std::size_t i = 1; i < dev.size(); ++i) {
    const TraceEvent* e = dev[i];
    if (e->device_begin_us > cur_e) {
      s.device_busy_us += cur_e - cur_b;
      const double gap = e->device_begin_us - cur_e;
      if (gap > s.largest_gap_us) {
        s.largest_gap_us = gap;
        s.largest_gap_after = cur_last->name;
      }
      cur_b = e->device_begin_us;
      cur_e = e->device_end_us;
      cur_last = e;
    } else if (e->device_end_us > cur_e) {
      cur_e = e->device_end_us;
      cur_last = e;
    }
  }
  s.device_busy_us += cur_e - cur_b;
  s.device_span_us = cur_e - first;
  s.device_idle_us = s.device_span_us - s.device_busy_us;
  return s;
}

}  // namespace kkperm::detail
