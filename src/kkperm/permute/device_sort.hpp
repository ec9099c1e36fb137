#pragma once
/**
 * @brief Device building blocks of the sorting permutations: row loads (with their maximum in the
 * same pass) and a radix sort of unique 64-bit keys on the matrix's execution space.
 *
 * sort_unique_keys: CUDA uses cub::DeviceRadixSort over the significant bits only, ping-ponging
 * between the keys and a caller-provided second buffer (no copy back: the returned View is the
 * one holding the result); host spaces std::sort in place; other device spaces KokkosKernels'
 * bitonic sort in place. Temporary storage comes from the reusable workspace (core/workspace.hpp),
 * so a sort allocates nothing and does not synchronize the device.
 */
#include <Kokkos_Core.hpp>
#include <KokkosKernels_Sorting.hpp>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cub/device/device_radix_sort.cuh>
#endif
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kkperm/core/error.hpp"
#include "kkperm/core/launch_policy.hpp"
#include "kkperm/core/warp_ops.hpp"
#include "kkperm/core/workspace.hpp"

namespace kkperm::detail {

/// Sorts unique 64-bit keys ascending on Exec; only bits [0, end_bit) may be non-zero (the caller
/// guarantees it). `alt` has the same length and may be overwritten. Returns the View holding the
/// sorted keys (`keys` or `alt`).
template <class Exec, class KeyView>
KeyView sort_unique_keys(const KeyView& keys, const KeyView& alt, int end_bit = 64) {
  using mem_t = typename KeyView::memory_space;
  const std::size_t n = keys.extent(0);
  KKPERM_ASSERT(alt.extent(0) >= n, "sort_unique_keys: second buffer too short");
  if (n < 2) return keys;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, mem_t>::accessible) {
    Exec().fence();
    std::sort(keys.data(), keys.data() + n);
    return keys;
  } else {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
      const Exec exec;
      const int nbits = std::min(64, std::max(1, end_bit));
      cub::DoubleBuffer<std::uint64_t> buf(keys.data(), alt.data());
      std::size_t temp_bytes = 0;
      cudaError_t err = cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, buf, static_cast<int>(n), 0, nbits,
                                                       exec.cuda_stream());
      if (err != cudaSuccess)
        KKPERM_THROW(std::runtime_error, "kkperm::sort_unique_keys: cub radix sort (size query) failed: "
                                             << cudaGetErrorString(err));
      Workspace<mem_t> ws(Workspace<mem_t>::template bytes_for<unsigned char>(temp_bytes));
      auto temp = ws.template take<unsigned char>(temp_bytes);
      err = cub::DeviceRadixSort::SortKeys(temp.data(), temp_bytes, buf, static_cast<int>(n), 0, nbits,
                                           exec.cuda_stream());
      if (err != cudaSuccess)
        KKPERM_THROW(std::runtime_error, "kkperm::sort_unique_keys: cub radix sort failed: " << cudaGetErrorString(err));
      return buf.Current() == keys.data() ? keys : alt;
    } else
#endif
    {
      KokkosKernels::Impl::bitonicSort<KeyView, Exec, std::int64_t>(keys);
      return keys;
    }
  }
}

/// In-place convenience form: sorts `keys` (a second buffer is leased from the workspace and the
/// result copied back when the sort ends there).
template <class Exec, class KeyView>
void sort_unique_keys(const KeyView& keys, int end_bit = 64) {
  using mem_t = typename KeyView::memory_space;
  using value_t = typename KeyView::non_const_value_type;
  Workspace<mem_t> ws(Workspace<mem_t>::template bytes_for<value_t>(keys.extent(0)));
  auto alt_raw = ws.template take<value_t>(keys.extent(0));
  KeyView alt(alt_raw.data(), keys.extent(0));
  const KeyView out = sort_unique_keys<Exec>(keys, alt, end_bit);
  if (out.data() != keys.data()) Kokkos::deep_copy(Exec(), keys, out);
}

/// load(i) = ceil(nnz_i / nt) for every row, on the matrix's space; returns max load (one pass).
template <class Matrix, class LoadView>
std::int64_t fill_loads(const Matrix& A, int nt, const LoadView& load) {
  using exec_t = typename Matrix::execution_space;
  const std::int64_t n = A.numRows();
  auto rm = A.graph.row_map;
  std::int64_t max_load = 0;
  if (n == 0) return 0;
  Kokkos::parallel_reduce(
      "kkperm::permute::loads", kkperm::range_policy<exec_t>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& m) {
        const std::int64_t l = (static_cast<std::int64_t>(rm(i + 1) - rm(i)) + nt - 1) / nt;
        load(i) = l;
        if (l > m) m = l;
      },
      Kokkos::Max<std::int64_t>(max_load));
  return max_load;
}

}  // namespace kkperm::detail
