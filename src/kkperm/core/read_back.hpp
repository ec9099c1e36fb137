#pragma once
/**
 * @brief A few numbers from device memory to the host, waiting only for the default execution
 * space instance's stream: on CUDA one cudaMemcpyAsync into pinned staging memory (kkperm's own,
 * grown on demand, freed at Kokkos::finalize), cudaStreamSynchronize, then a host copy; elsewhere
 * Kokkos::deep_copy.
 *
 * Usage:
 *   std::int64_t h[5];
 *   kkperm::detail::read_back<Kokkos::Cuda>(h, d.data(), 5, "kkperm::spgemm_symbolic");
 *
 * Why: Kokkos 3.4's deep_copy of a device view into pageable host memory fences the whole device,
 * copies through a staging buffer of the driver and fences again. An ESC SpGEMM setup waits on
 * three such reads (validation verdicts, bin plan, nnz(C)), each with the device idle. H100,
 * session 30, run 219 (scripts/gpu/session30/host_costs.cpp, 5 numbers from an idle device):
 * 9.0 µs with Kokkos::deep_copy, 7.9 µs with cudaMemcpy, 6.9 µs this way. (The launch trace of
 * run 217 showed 16-27 µs windows, inflated by the trace's own event records.)
 * Rules: `device` must be device memory written by work on the default instance of `Exec` (or
 * earlier); the call returns once that work and the copy are done. Thread-safe (one staging
 * buffer behind a mutex). Errors of earlier kernels surface here as std::runtime_error naming
 * `who`.
 */
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstring>
#include <functional>
#include <mutex>
#include <type_traits>

#include "kkperm/core/cuda_status.hpp"
#include "kkperm/core/error.hpp"

namespace kkperm::detail {

#if defined(KOKKOS_ENABLE_CUDA)
/// kkperm's pinned staging buffer for read_back (one per process; read_back holds the lock).
class PinnedStaging {
 public:
  /// The buffer, at least `bytes` long; call with lock() held.
  static void* get(std::size_t bytes, const char* who) {
    State& s = state();
    if (bytes <= s.bytes) return s.ptr;
    std::size_t cap = s.bytes == 0 ? 4096 : s.bytes;
    while (cap < bytes) cap *= 2;
    void* p = nullptr;
    throw_if_cuda_error(cudaMallocHost(&p, cap), who, "cudaMallocHost (read-back staging)");
    if (s.ptr != nullptr) cudaFreeHost(s.ptr);
    hook(s);
    s.ptr = p;
    s.bytes = cap;
    return p;
  }
  static std::mutex& mutex() { return state().mutex; }
  /// An event without timing for read_back2's `behind` (one is enough: the lock serializes its
  /// users); call with lock() held.
  static cudaEvent_t event(const char* who) {
    State& s = state();
    if (s.event == nullptr) {
      throw_if_cuda_error(cudaEventCreateWithFlags(&s.event, cudaEventDisableTiming), who,
                          "cudaEventCreateWithFlags (read-back event)");
      hook(s);
    }
    return s.event;
  }

 private:
  struct State {
    std::mutex mutex;
    void* ptr = nullptr;
    std::size_t bytes = 0;
    cudaEvent_t event = nullptr;
    bool hooked = false;  ///< release() is registered with Kokkos::finalize
  };
  static void hook(State& s) {
    if (s.hooked) return;
    Kokkos::push_finalize_hook([] { release(); });
    s.hooked = true;
  }
  static State& state() {
    static State s;
    return s;
  }
  static void release() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.ptr != nullptr) cudaFreeHost(s.ptr);
    if (s.event != nullptr) cudaEventDestroy(s.event);
    s.ptr = nullptr;
    s.bytes = 0;
    s.event = nullptr;
    s.hooked = false;
  }
};
#endif

/// host[0, count) = device[0, count) off the CUDA path: Kokkos::deep_copy (read_back's elsewhere).
template <class Exec, class T>
void read_back_deep_copy(T* host, const T* device, std::size_t count) {
  if (count == 0) return;
  using mem_t = typename Exec::memory_space;
  Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host, count),
                    Kokkos::View<const T*, mem_t, Kokkos::MemoryUnmanaged>(device, count));
}

/// read_back of two device ranges with one wait: host1[0, count1) = device1[...] and
/// host2[0, count2) = device2[...] (either count may be 0). Same rules as read_back.
/// `behind` (optional): host code that enqueues more device work, which needs neither the values
/// read back nor a host wait, run between the copies' enqueue and the wait; on CUDA the wait is
/// for the copies alone (an event after them), so the host's launches overlap its wait and the
/// device goes on with that work meanwhile. Elsewhere it runs after the copies. It must not
/// call read_back (the staging lock is held); an exception from it is rethrown after the wait.
template <class Exec, class T, class U>
void read_back2(T* host1, const T* device1, std::size_t count1, U* host2, const U* device2, std::size_t count2,
                const char* who, const std::function<void()>& behind = {}) {
  static_assert(std::is_trivially_copyable<T>::value && std::is_trivially_copyable<U>::value,
                "kkperm::detail::read_back2: trivially copyable values");
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {
    const std::size_t bytes1 = count1 * sizeof(T), at2 = (bytes1 + 15) / 16 * 16, bytes2 = count2 * sizeof(U);
    if (bytes1 + bytes2 == 0) {
      if (behind) behind();
      return;
    }
    const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
    std::lock_guard<std::mutex> lock(PinnedStaging::mutex());
    auto* stage = static_cast<unsigned char*>(PinnedStaging::get(at2 + bytes2, who));
    if (bytes1 > 0)
      throw_if_cuda_error(cudaMemcpyAsync(stage, device1, bytes1, cudaMemcpyDeviceToHost, stream), who,
                          "cudaMemcpyAsync (read back)");
    if (bytes2 > 0)
      throw_if_cuda_error(cudaMemcpyAsync(stage + at2, device2, bytes2, cudaMemcpyDeviceToHost, stream), who,
                          "cudaMemcpyAsync (read back)");
    if (behind) {
      const cudaEvent_t done = PinnedStaging::event(who);
      throw_if_cuda_error(cudaEventRecord(done, stream), who, "cudaEventRecord (read back)");
      try {
        behind();
      } catch (...) {
        cudaEventSynchronize(done);  // the copies write the staging buffer the lock protects
        throw;
      }
      throw_if_cuda_error(cudaEventSynchronize(done), who, "cudaEventSynchronize (read back)");
    } else {
      throw_if_cuda_error(cudaStreamSynchronize(stream), who, "cudaStreamSynchronize (read back)");
    }
    if (bytes1 > 0) std::memcpy(host1, stage, bytes1);
    if (bytes2 > 0) std::memcpy(host2, stage + at2, bytes2);
    return;
  }
#endif
  (void)who;
  read_back_deep_copy<Exec>(host1, device1, count1);
  read_back_deep_copy<Exec>(host2, device2, count2);
  if (behind) behind();
}

/// host[0, count) = device[0, count) once the default `Exec` instance's earlier work is done.
template <class Exec, class T>
void read_back(T* host, const T* device, std::size_t count, const char* who) {
  read_back2<Exec>(host, device, count, host, device, 0, who);
}

}  // namespace kkperm::detail
