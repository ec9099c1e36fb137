#pragma once
/**
 * @brief Type aliases shared by every kkperm layer.
 *
 * kkperm works on `KokkosSparse::CrsMatrix<ValueType, OrdinalType, Device, void, OffsetType>`
 * on any Kokkos execution space. `DefaultDevice` is Serial in the CPU build and Cuda in the
 * CUDA build.
 */
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

namespace kkperm {

using DefaultExecSpace = Kokkos::DefaultExecutionSpace;
using DefaultDevice = Kokkos::Device<DefaultExecSpace, DefaultExecSpace::memory_space>;
using HostDevice = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>;

template <class ValueType, class OrdinalType, class Device, class OffsetType>
using Crs = KokkosSparse::CrsMatrix<ValueType, OrdinalType, Device, void, OffsetType>;

/// The matrix type kkperm's tools use when nothing else is asked for.
using DefaultCrs = Crs<double, int, DefaultDevice, int>;

}  // namespace kkperm
