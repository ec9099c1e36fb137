#pragma once
/**
 * @brief Reusable scratch memory for the one-shot analysis kernels (feature sets, validate, sorts):
 * a few grow-only arenas per memory space, leased by RAII and carved into unmanaged Views.
 *
 * Why: with Kokkos 3.4 every CUDA View costs a cudaMalloc, a synchronous copy of its allocation
 * header and (unless WithoutInitializing) a zero-fill kernel plus a fence, and its release a
 * cudaFree, which synchronizes the device. One feature pass of a 10 M-nnz stencil took 0.72 ms
 * while its kernels summed to 0.44 ms (H100, session 4, runs 21-22): the gap is time outside
 * kernels, such allocations, copies and synchronizations.
 *
 * Usage:
 *   kkperm::detail::Workspace<mem_t> ws(Workspace<mem_t>::bytes_for<int>(n) + ...);
 *   auto a = ws.take<int>(n);          // unmanaged View, valid while `ws` lives
 *   ws.zero<exec_t>(a);                // or carve several arrays and zero_taken<exec_t>() once
 * Rules:
 *  - Sub-Views are unmanaged; nothing carved may outlive the lease (results a caller keeps are
 *    allocated normally).
 *  - Reuse is ordered by the default execution-space instance: the arena goes back to the pool when
 *    the lease ends, and the next lease's kernels run after this one's on the same instance. All
 *    kkperm kernels that lease memory run on the default instance.
 *  - kSlots arenas per memory space, so leases may nest (a sort inside a permutation build);
 *    when all are leased (deeper nesting, several host threads) a lease allocates its own View.
 *  - Arenas only grow; release_workspaces() frees them, and Kokkos::finalize does too (a
 *    finalize hook), so no device memory outlives Kokkos.
 */
#include <Kokkos_Core.hpp>
#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kkperm/core/error.hpp"
#include "kkperm/core/launch_policy.hpp"

namespace kkperm {
namespace detail {

/// Zeroes count 64-bit words at p, enqueued on Exec's default instance without a host wait: on
/// CUDA one cudaMemsetAsync on its stream (a kernel of one 8-byte store a thread zeroed 16 MB in
/// 21 us, ~0.8 TB/s, ncu H100 run 81), elsewhere a kernel. Failures name `who`.
template <class Exec, class Word>
void zero_async(Word* p, std::size_t count, const char* who) {
  static_assert(sizeof(Word) == 8, "kkperm::detail::zero_async: 64-bit words");
  if (count == 0) return;
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {
    const cudaError_t e = cudaMemsetAsync(p, 0, count * sizeof(Word), Exec().cuda_stream());
    if (e != cudaSuccess)
      KKPERM_THROW(std::runtime_error,
                   who << ": cudaMemsetAsync of " << count * sizeof(Word) << " bytes failed: " << cudaGetErrorString(e));
    return;
  }
#endif
  (void)who;
  kkperm::parallel_for(
      "kkperm::zero_async", kkperm::range_policy<Exec>(0, static_cast<std::int64_t>(count)),
      KOKKOS_LAMBDA(const std::int64_t i) { p[i] = 0; });
}

template <class Mem>
class Workspace {
 public:
  static constexpr int kSlots = 4;
  static constexpr std::size_t kAlign = 256;
  using buffer_t = Kokkos::View<std::uint64_t*, Mem>;

  /// Bytes to reserve for `count` elements of T (padded to the carving alignment).
  template <class T>
  static constexpr std::size_t bytes_for(std::size_t count) {
    return (count * sizeof(T) + kAlign - 1) / kAlign * kAlign;
  }

  explicit Workspace(std::size_t bytes) : bytes_(bytes) {
    Pool& p = pool();
    {
      std::lock_guard<std::mutex> lock(p.mutex);
      if (!p.hook_registered) {
        Kokkos::push_finalize_hook([] {  // runs once per finalize; a later initialize re-registers
          release_all();
          std::lock_guard<std::mutex> l(pool().mutex);
          pool().hook_registered = false;
        });
        p.hook_registered = true;
      }
      for (int s = 0; s < kSlots; ++s)
        if (!p.busy[s]) {
          p.busy[s] = true;
          slot_ = s;
          break;
        }
      if (slot_ >= 0 && p.buf[slot_].extent(0) * sizeof(std::uint64_t) < bytes + kAlign) {
        p.buf[slot_] = buffer_t();  // free first: peak memory is the new size, not both
        p.buf[slot_] = buffer_t(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                   std::string("kkperm::workspace")),
                                words(bytes + kAlign));
      }
      if (slot_ >= 0) buf_ = p.buf[slot_];
    }
    if (slot_ < 0)
      buf_ = buffer_t(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kkperm::workspace_private")),
                      words(bytes + kAlign));
    // Carving starts at the first kAlign-aligned address of the buffer (Kokkos Views are only
    // 64- or 128-byte aligned: their allocation header precedes the data).
    const auto addr = reinterpret_cast<std::uintptr_t>(buf_.data());
    base_ = used_ = (kAlign - addr % kAlign) % kAlign;
  }
  ~Workspace() {
    if (slot_ < 0) return;
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.busy[slot_] = false;
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  /// Next `count` elements of T, at a kAlign-aligned address. Throws when the reservation is exceeded.
  template <class T>
  Kokkos::View<T*, Mem, Kokkos::MemoryUnmanaged> take(std::size_t count) {
    const std::size_t need = bytes_for<T>(count);
    KKPERM_ASSERT(used_ - base_ + need <= bytes_, "kkperm::Workspace: carving " << need << " bytes past the "
                                                                                << bytes_ << " reserved ("
                                                                                << used_ - base_ << " used)");
    auto* p = reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(buf_.data()) + used_);
    used_ += need;
    return Kokkos::View<T*, Mem, Kokkos::MemoryUnmanaged>(p, count);
  }

  /// Marks the current carving position; zero_since<Exec>(mark) zeroes everything carved after it
  /// with one zero_async (several arrays that need zeros, one launch).
  std::size_t mark() const { return used_; }
  template <class Exec>
  void zero_since(std::size_t from) {
    const std::size_t w0 = from / sizeof(std::uint64_t), w1 = used_ / sizeof(std::uint64_t);
    if (w1 <= w0) return;
    zero_async<Exec>(buf_.data() + w0, w1 - w0, "kkperm::Workspace::zero_since");
  }

  /// Frees every idle arena of this memory space (leased ones stay until their lease ends).
  static void release_all() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (int s = 0; s < kSlots; ++s)
      if (!p.busy[s]) p.buf[s] = buffer_t();
  }

 private:
  struct Pool {
    std::mutex mutex;
    std::array<buffer_t, kSlots> buf;
    std::array<bool, kSlots> busy{};
    bool hook_registered = false;
  };
  static Pool& pool() {
    static Pool p;
    return p;
  }
  static std::size_t words(std::size_t bytes) { return (bytes + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t) + 1; }

  std::size_t bytes_ = 0, base_ = 0, used_ = 0;
  int slot_ = -1;
  buffer_t buf_;
};

}  // namespace detail

/// Frees kkperm's cached scratch arenas of memory space Mem (they are re-created on demand).
template <class Mem = Kokkos::DefaultExecutionSpace::memory_space>
void release_workspaces() {
  detail::Workspace<Mem>::release_all();
}

}  // namespace kkperm
