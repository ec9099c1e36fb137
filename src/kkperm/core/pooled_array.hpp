#pragma once
/**
 * @brief A device array for plan-lifetime internals (kept between calls, never handed to users):
 * on CUDA its memory comes from a stream-ordered memory pool of kkperm's own (cudaMallocAsync),
 * elsewhere it is a plain Kokkos View.
 *
 * Why: with Kokkos 3.4 every CUDA View allocation is a cudaMalloc plus a synchronous copy of its
 * allocation header, and its release a cudaFree, which synchronizes the device. In the ESC setup
 * of an AMG restriction (H100, session 16, run 97) the two slot-map arrays took ~130 µs to
 * allocate against 28 µs of kernels that fill them. From a warm pool an allocation is a few
 * microseconds and does not wait for the device.
 *
 * Usage:
 *   kkperm::detail::PooledArray<std::int64_t, device_t> a("label", n);
 *   auto v = a.view();   // Kokkos::View<std::int64_t*, device_t>, unmanaged: valid while `a` lives
 * Rules: the memory is released (stream-ordered, on the default execution-space instance's stream)
 * when the last copy of the PooledArray goes; kernels using it must run on that instance. The pool
 * keeps freed memory mapped for reuse while it holds (in use and free together) at most its retain
 * threshold; above that it returns free memory to the device at synchronizations. The threshold is
 * a quarter of the device's memory, at least 1 GiB (set_pooled_memory_retain_bytes changes it);
 * release_pooled_memory() trims the pool, and Kokkos::finalize destroys it.
 * Allocation failures throw std::runtime_error naming the label and size.
 */
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "kkperm/core/cuda_status.hpp"
#include "kkperm/core/error.hpp"

namespace kkperm {
/// Bytes of kkperm's plan pool (pooled_memory_usage).
struct PooledMemoryUsage {
  std::uint64_t reserved_bytes = 0;       ///< mapped by the pool now (in use and free)
  std::uint64_t reserved_high_bytes = 0;  ///< the most it has mapped
  std::uint64_t used_bytes = 0;           ///< handed out now
  std::uint64_t used_high_bytes = 0;      ///< the most handed out at once
};

namespace detail {

#if defined(KOKKOS_ENABLE_CUDA)
/// kkperm's CUDA memory pool of the current device (created on first use, destroyed at finalize).
class CudaPlanPool {
 public:
  /// The least default retain threshold (the threshold until session 37, whatever the device).
  static constexpr std::uint64_t kMinRetainBytes = std::uint64_t(1) << 30;
  /// The default retain threshold: a quarter of the device's memory, at least kMinRetainBytes.
  /// Why: the threshold counts the memory in use too, so once a setup's plans hold more than it,
  /// the freed blocks go back to the device at each synchronization and the next setup maps them
  /// again. The AMG benchmark's largest product (3D 27-point, nx = 100: the pool peaks at 992 MiB)
  /// stays below 1 GiB, so H100 run 297 (session 37) put the threshold below it instead: with 512
  /// MiB its AP + R(AP) setup took 5.45-5.79 ms against 4.30-4.40 ms with the default (R(AP)
  /// 2.27-2.46 against 1.65-1.71 ms).
  static std::uint64_t default_retain_bytes() {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
      cudaGetLastError();
      return kMinRetainBytes;
    }
    const std::uint64_t quarter = static_cast<std::uint64_t>(total_b) / 4;
    return quarter > kMinRetainBytes ? quarter : kMinRetainBytes;
  }
  static cudaMemPool_t get() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.pool != nullptr) return s.pool;
    int dev = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    check(cudaMemPoolCreate(&s.pool, &props), "cudaMemPoolCreate");
    std::uint64_t keep = s.retain_set ? s.retain : default_retain_bytes();
    check(cudaMemPoolSetAttribute(s.pool, cudaMemPoolAttrReleaseThreshold, &keep),
          "cudaMemPoolSetAttribute(release threshold)");
    Kokkos::push_finalize_hook([] { destroy(); });
    return s.pool;
  }
  /// Sets the retain threshold (bytes the pool may hold, in use and free, before it returns free
  /// memory at synchronizations): now when the pool exists, else when it is made.
  static void set_retain(std::uint64_t bytes) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.retain = bytes;
    s.retain_set = true;
    if (s.pool != nullptr)
      check(cudaMemPoolSetAttribute(s.pool, cudaMemPoolAttrReleaseThreshold, &bytes),
            "cudaMemPoolSetAttribute(release threshold)");
  }
  /// The retain threshold in force (of the pool, or the one it will be made with).
  static std::uint64_t retain() {
    State& s = state();
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.pool != nullptr) {
        std::uint64_t v = 0;
        check(cudaMemPoolGetAttribute(s.pool, cudaMemPoolAttrReleaseThreshold, &v),
              "cudaMemPoolGetAttribute(release threshold)");
        return v;
      }
      if (s.retain_set) return s.retain;
    }
    return default_retain_bytes();
  }
  /// The pool's reserved (mapped) and used bytes, now and at their highest; zeros before the pool
  /// exists.
  static PooledMemoryUsage usage() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    PooledMemoryUsage u;
    if (s.pool == nullptr) return u;
    const std::pair<cudaMemPoolAttr, std::uint64_t*> read[4] = {
        {cudaMemPoolAttrReservedMemCurrent, &u.reserved_bytes},
        {cudaMemPoolAttrReservedMemHigh, &u.reserved_high_bytes},
        {cudaMemPoolAttrUsedMemCurrent, &u.used_bytes},
        {cudaMemPoolAttrUsedMemHigh, &u.used_high_bytes}};
    for (const auto& [attr, dst] : read) check(cudaMemPoolGetAttribute(s.pool, attr, dst), "cudaMemPoolGetAttribute");
    return u;
  }
  /// `bytes` from the pool, stream-ordered on `stream`; throws std::runtime_error naming `who`,
  /// `label` and the size when the pool cannot give them.
  static void* allocate(std::size_t bytes, cudaStream_t stream, const char* who, const std::string& label) {
    void* p = nullptr;
    const cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, get(), stream);
    if (e != cudaSuccess) {
      cudaGetLastError();  // reset the last-error state the failed call set
      KKPERM_THROW(std::runtime_error, who << ": allocating " << label << " (" << bytes
                                           << " bytes) from the CUDA pool failed: " << cudaGetErrorString(e));
    }
    return p;
  }
  /// Returns the pool's idle memory to the device.
  static void trim() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.pool != nullptr) {
      Kokkos::fence();
      cudaMemPoolTrimTo(s.pool, 0);
    }
  }

 private:
  struct State {
    std::mutex mutex;
    cudaMemPool_t pool = nullptr;
    std::uint64_t retain = 0;  ///< set_retain's threshold, when retain_set
    bool retain_set = false;
  };
  static State& state() {
    static State s;
    return s;
  }
  static void destroy() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.pool == nullptr) return;
    cudaDeviceSynchronize();
    cudaMemPoolDestroy(s.pool);
    s.pool = nullptr;
  }
  static void check(cudaError_t e, const char* what) { throw_if_cuda_error(e, "kkperm::PooledArray", what); }
};
#endif

template <class T, class Device>
class PooledArray {
 public:
  using view_type = Kokkos::View<T*, Device>;

  PooledArray() = default;
  PooledArray(const std::string& label, std::size_t n) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<typename Device::memory_space, Kokkos::CudaSpace>) {
      if (n == 0) {
        view_ = view_type(static_cast<T*>(nullptr), 0);
        return;
      }
      const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
      void* p = CudaPlanPool::allocate(n * sizeof(T), stream, "kkperm::PooledArray", label);
      mem_ = std::shared_ptr<void>(p, [stream](void* q) { cudaFreeAsync(q, stream); });
      view_ = view_type(static_cast<T*>(p), n);
      return;
    }
#endif
    view_ = view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  }
  const view_type& view() const { return view_; }

 private:
  view_type view_;
  std::shared_ptr<void> mem_;  ///< pool memory (CUDA); empty when view_ manages its own
};

#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_DEBUG)
/// Allocation record of a pool block handed to users inside ordinary Kokkos Views (see
/// pooled_view_block): Kokkos counts its references like any View's; the last one returns the
/// memory to the pool, stream-ordered on the legacy default stream (so after all work queued on
/// blocking streams, as Kokkos' own synchronous cudaFree would be) without a host wait.
/// Kokkos 3.4 without KOKKOS_ENABLE_DEBUG (the debug build keeps a tracking list of its own
/// records; there pooled_view_block falls back to a plain Kokkos allocation).
class PoolBlockRecord final : public Kokkos::Impl::SharedAllocationRecord<void, void> {
 public:
  using base_t = Kokkos::Impl::SharedAllocationRecord<void, void>;
  static PoolBlockRecord* allocate(const std::string& label, std::size_t bytes) {
    void* p = CudaPlanPool::allocate(bytes, Kokkos::Cuda().cuda_stream(), "kkperm::pooled_view_block", label);
    return new PoolBlockRecord(p, bytes, label);
  }
  std::string get_label() const override { return label_; }
  void* data() const { return ptr_; }

 private:
  PoolBlockRecord(void* p, std::size_t bytes, const std::string& label)
      : base_t(static_cast<Kokkos::Impl::SharedAllocationHeader*>(p), bytes, &PoolBlockRecord::release),
        ptr_(p),
        label_(label) {}
  static void release(base_t* r) {
    auto* self = static_cast<PoolBlockRecord*>(r);
    cudaFreeAsync(self->ptr_, cudaStreamLegacy);
    delete self;
  }
  void* ptr_;
  std::string label_;
};
#endif

/**
 * @brief `bytes` of device memory as a managed Kokkos::View<char*, Device>: on CUDA (release
 * Kokkos builds) from kkperm's pool (stream-ordered on the default instance's stream; no
 * cudaMalloc, no header copy, no host wait), elsewhere a plain Kokkos allocation. Views carved
 * from it with View(block.impl_track(), mapping) keep the block alive like any Kokkos View, so it
 * can hold arrays handed to users (ESC's C). Kokkos::finalize must come after the last View goes,
 * as for every Kokkos View. Throws std::runtime_error naming `label` when the memory is not there.
 */
template <class Device>
Kokkos::View<char*, Device> pooled_view_block(const std::string& label, std::size_t bytes) {
#if defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_DEBUG)
  if constexpr (std::is_same_v<typename Device::memory_space, Kokkos::CudaSpace>) {
    if (bytes == 0) return Kokkos::View<char*, Device>(label, 0);
    PoolBlockRecord* rec = PoolBlockRecord::allocate(label, bytes);
    Kokkos::Impl::SharedAllocationTracker track;
    track.assign_allocated_record_to_uninitialized(rec);  // the tracker owns the record now
    const Kokkos::View<char*, Device, Kokkos::MemoryUnmanaged> raw(static_cast<char*>(rec->data()), bytes);
    return Kokkos::View<char*, Device>(track, raw.impl_map());
  }
#endif
  return Kokkos::View<char*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), bytes);
}

/// The n elements of View type ViewT (rank 1, ViewT's device = Device) at byte `offset` of `block`
/// (pooled_view_block or any managed byte View), sharing the block's reference count: the block
/// lives while any such View does. The caller keeps offset aligned for ViewT's value type.
template <class ViewT, class Device>
ViewT view_in_block(const Kokkos::View<char*, Device>& block, std::size_t offset, std::size_t n) {
  using T = typename ViewT::non_const_value_type;
  const Kokkos::View<T*, Device, Kokkos::MemoryUnmanaged> raw(reinterpret_cast<T*>(block.data() + offset), n);
  return ViewT(block.impl_track(), raw.impl_map());
}

}  // namespace detail

/// Returns the idle memory of kkperm's plan pool to the device (CUDA; a no-op elsewhere).
inline void release_pooled_memory() {
#if defined(KOKKOS_ENABLE_CUDA)
  detail::CudaPlanPool::trim();
#endif
}

/// Sets how many bytes kkperm's plan pool may hold, in use and free together, before it returns
/// free memory to the device at synchronizations (CUDA; a no-op elsewhere). Default: a quarter of
/// the device's memory, at least 1 GiB. Lower it when other allocators need the memory the pool
/// keeps; release_pooled_memory() returns the idle memory at once.
inline void set_pooled_memory_retain_bytes(std::uint64_t bytes) {
#if defined(KOKKOS_ENABLE_CUDA)
  detail::CudaPlanPool::set_retain(bytes);
#else
  (void)bytes;
#endif
}

/// The plan pool's retain threshold in force (CUDA; 0 elsewhere: there is no pool).
inline std::uint64_t pooled_memory_retain_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  return detail::CudaPlanPool::retain();
#else
  return 0;
#endif
}

/// What kkperm's plan pool holds (CUDA; zeros elsewhere or before its first allocation).
inline PooledMemoryUsage pooled_memory_usage() {
#if defined(KOKKOS_ENABLE_CUDA)
  return detail::CudaPlanPool::usage();
#else
  return PooledMemoryUsage{};
#endif
}

}  // namespace kkperm
