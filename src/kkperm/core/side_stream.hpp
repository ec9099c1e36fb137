#pragma once
/**
 * @brief kkperm's second CUDA stream, for one-shot work that may run beside the default Kokkos
 * instance's (a SpGEMM setup's validation pass next to its analysis kernel), and SideFork, which
 * orders work between the two.
 *
 * Why: a 2D 5-point R(AP) setup spent ~34 µs in the validation kernel and ~37 µs in the analysis
 * kernel one after the other (H100, session 33, run 261 traces); neither reaches a third of the
 * device's memory bandwidth, and the analysis guards every index it follows until the verdict is
 * read back (esc_impl::PendingVerdict), so nothing orders it after the validation but the stream.
 *
 * Usage (CUDA builds; host backends have no SideFork):
 *   kkperm::detail::SideFork fork("who");  // side work enqueued now follows the default
 *                                          // instance's work enqueued so far
 *   Kokkos::parallel_for("k", kkperm::range_policy<Kokkos::Cuda>(fork.exec(), 0, n), f);
 *   ...                                    // default-instance work here may run beside it
 *   fork.join();                           // default-instance work enqueued from now on follows it
 * The fork joins in its destructor if nobody did. The stream is non-blocking (no implicit order
 * with the legacy default stream Kokkos 3.4's default instance uses); it and its Kokkos::Cuda
 * instance are made on first use and released at Kokkos::finalize (a finalize hook). Events come
 * from CudaEventPool. Thread-safe creation; a fork itself belongs to one host thread.
 */
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <memory>
#include <mutex>

#include "kkperm/core/cuda_status.hpp"
#include "kkperm/core/phase_clock.hpp"

namespace kkperm::detail {

/// The process-wide side stream's Kokkos instance (made on first use).
inline Kokkos::Cuda side_stream_instance(const char* who) {
  struct State {
    std::mutex mutex;
    cudaStream_t stream = nullptr;
    std::unique_ptr<Kokkos::Cuda> exec;
  };
  static State s;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.exec) {
    if (s.stream == nullptr)
      throw_if_cuda_error(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), who,
                          "cudaStreamCreateWithFlags (side stream)");
    s.exec = std::make_unique<Kokkos::Cuda>(s.stream);
    Kokkos::push_finalize_hook([] {  // while Kokkos is still up: the instance frees Kokkos memory
      std::lock_guard<std::mutex> l(s.mutex);
      if (s.exec) s.exec->fence();
      s.exec.reset();
      if (s.stream != nullptr) cudaStreamDestroy(s.stream);
      s.stream = nullptr;
    });
  }
  return *s.exec;
}

/// One piece of side work: its constructor makes the side stream wait for the default
/// instance's work enqueued so far; join() makes the default instance's later work wait for the
/// side work enqueued before it (once; later calls do nothing).
class SideFork {
 public:
  explicit SideFork(const char* who) : who_(who), exec_(side_stream_instance(who)) {
    cudaEvent_t e = CudaEventPool::take();
    throw_if_cuda_error(cudaEventRecord(e, Kokkos::Cuda().cuda_stream()), who_, "cudaEventRecord (fork)");
    const cudaError_t w = cudaStreamWaitEvent(exec_.cuda_stream(), e, 0);
    CudaEventPool::give(e);  // reusable once recorded and waited on: the wait captured its state
    throw_if_cuda_error(w, who_, "cudaStreamWaitEvent (fork)");
  }
  SideFork(const SideFork&) = delete;
  SideFork& operator=(const SideFork&) = delete;
  ~SideFork() {
    try {
      join();
    } catch (...) {  // a failed join: wait for everything instead (no exception out of a destructor)
      cudaDeviceSynchronize();
    }
  }
  /// The instance to launch the side work on.
  const Kokkos::Cuda& exec() const { return exec_; }
  void join() {
    if (joined_) return;
    joined_ = true;
    cudaEvent_t e = CudaEventPool::take();
    cudaError_t r = cudaEventRecord(e, exec_.cuda_stream());
    if (r == cudaSuccess) r = cudaStreamWaitEvent(Kokkos::Cuda().cuda_stream(), e, 0);
    CudaEventPool::give(e);
    throw_if_cuda_error(r, who_, "cudaEventRecord / cudaStreamWaitEvent (join)");
  }
  bool joined() const { return joined_; }

 private:
  const char* who_;
  Kokkos::Cuda exec_;
  bool joined_ = false;
};

}  // namespace kkperm::detail
#endif
