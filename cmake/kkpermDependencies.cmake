# Resolves Kokkos + Kokkos Kernels behind one interface target, `kkperm_kokkos_kernels`
# (exported as kkperm::kkperm_kokkos_kernels). Two shapes of install are accepted:
#  * a standalone Kokkos/KK install (our CUDA build, or any upstream install) that defines
#    the imported target Kokkos::kokkoskernels;
#  * Debian's Trilinos packages (libtrilinos-kokkos-kernels-dev), whose config defines the
#    imported targets trilinos_kokkoskernels / trilinos_kokkoscore and the variables
#    KokkosKernels_INCLUDE_DIRS / KokkosKernels_LIBRARIES. That config also records mpicxx as
#    its compiler; we never use it: the targets carry no MPI requirement for Kokkos/KK.
# The installed kkpermConfig.cmake re-finds KokkosKernels so the exported target resolves.
include_guard(GLOBAL)

if(NOT TARGET Kokkos::kokkoskernels AND NOT TARGET trilinos_kokkoskernels)
  find_package(KokkosKernels CONFIG REQUIRED)
endif()

if(TARGET Kokkos::kokkoskernels)
  set(_kkperm_kk_link Kokkos::kokkoskernels)
  set(_kkperm_kk_flavour "standalone")
elseif(TARGET trilinos_kokkoskernels)
  set(_kkperm_kk_link ${KokkosKernels_LIBRARIES})
  set(_kkperm_kk_flavour "trilinos")
else()
  message(FATAL_ERROR "kkperm: found KokkosKernels but neither Kokkos::kokkoskernels nor "
                      "trilinos_kokkoskernels is defined; unsupported install layout")
endif()

if(NOT TARGET kkperm_kokkos_kernels AND NOT TARGET kkperm::kkperm_kokkos_kernels)
  add_library(kkperm_kokkos_kernels INTERFACE)
  target_link_libraries(kkperm_kokkos_kernels INTERFACE ${_kkperm_kk_link})
  if(_kkperm_kk_flavour STREQUAL "trilinos")
    target_include_directories(kkperm_kokkos_kernels INTERFACE ${KokkosKernels_INCLUDE_DIRS})
    target_link_libraries(kkperm_kokkos_kernels INTERFACE ${CMAKE_DL_LIBS})
  endif()
endif()
message(STATUS "kkperm: Kokkos Kernels via ${_kkperm_kk_flavour} install (${_kkperm_kk_link})")
