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

# The CUDA variant needs a CUDA-enabled Kokkos (scripts/build_cuda_deps.sh builds one; the Debian
# packages are Serial only). Without this check a Serial Kokkos found by accident (e.g. Debian's,
# when CMAKE_PREFIX_PATH is missing) would compile KKPERM_ENABLE_CUDA code and fail obscurely.
# Standalone Kokkos configs set Kokkos_DEVICES; Debian's Trilinos config does not, so read its
# KokkosCore_config.h instead.
set(_kkperm_kokkos_devices "${Kokkos_DEVICES}")
if(NOT _kkperm_kokkos_devices)
  set(_kkperm_kokkos_config_h "")
  foreach(_dir IN LISTS KokkosKernels_INCLUDE_DIRS Kokkos_INCLUDE_DIRS)
    if(NOT _kkperm_kokkos_config_h AND EXISTS "${_dir}/KokkosCore_config.h")
      set(_kkperm_kokkos_config_h "${_dir}/KokkosCore_config.h")
    endif()
  endforeach()
  if(_kkperm_kokkos_config_h)
    file(STRINGS "${_kkperm_kokkos_config_h}" _kkperm_cuda_define REGEX "^#define KOKKOS_ENABLE_CUDA$")
    set(_kkperm_kokkos_devices "SERIAL")
    if(_kkperm_cuda_define)
      set(_kkperm_kokkos_devices "CUDA")
    endif()
  endif()
endif()
if(_kkperm_kokkos_devices)
  if(KKPERM_ENABLE_CUDA AND NOT "CUDA" IN_LIST _kkperm_kokkos_devices)
    message(FATAL_ERROR "kkperm: KKPERM_ENABLE_CUDA=ON but the Kokkos found (${_kkperm_kk_flavour} "
      "install) has no CUDA backend (devices: ${_kkperm_kokkos_devices}). Use "
      "scripts/configure_cuda.sh, or pass -DCMAKE_PREFIX_PATH=<cuda kokkos install> "
      "-DCMAKE_CXX_COMPILER=<that install>/bin/nvcc_wrapper (scripts/build_cuda_deps.sh "
      "builds it; --print-prefix prints where).")
  elseif(NOT KKPERM_ENABLE_CUDA AND "CUDA" IN_LIST _kkperm_kokkos_devices)
    message(WARNING "kkperm: the Kokkos found enables CUDA but KKPERM_ENABLE_CUDA is OFF: "
      "cuSPARSE candidates are left out. Pass -DKKPERM_ENABLE_CUDA=ON for the CUDA variant.")
  endif()
endif()
