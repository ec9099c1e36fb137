# shellcheck shell=bash
# Shared by scripts/build_cuda_deps.sh (CPU machine) and scripts/gpu/build_deps_on_gpu.sh (GPU
# host): the one place that says how the CUDA Kokkos 3.4.01 + Kokkos Kernels 3.4.01 are
# configured. Source it, then call kkperm_build_kokkos_stack SRC BUILD PREFIX JOBS.
#   SRC    directory holding the patched kokkos/ and kokkos-kernels/ trees
#   BUILD  scratch build directory (kokkos/ and kokkos-kernels/ are created inside)
#   PREFIX install prefix
#   JOBS   parallel compile jobs
# Honours KKPERM_NICE (default "nice -n 10"; empty string disables) and
# KKPERM_CMAKE_GENERATOR (default Ninja when ninja is on PATH, else Unix Makefiles).

KKPERM_KOKKOS_VERSION=3.4.01
KKPERM_CUDA_ARCH_OPTION=Kokkos_ARCH_HOPPER90   # added by cmake/patches/0003-kokkos-arch-hopper90.patch

kkperm_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
kkperm_die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# The configuration that goes into the stamp file: change it and the cache is rebuilt.
kkperm_kokkos_cmake_args() {
  local src=$1
  printf '%s\n' \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_STANDARD=17 \
    -DCMAKE_CXX_EXTENSIONS=OFF \
    -DCMAKE_CXX_COMPILER="$src/kokkos/bin/nvcc_wrapper" \
    -DBUILD_SHARED_LIBS=OFF \
    -DKokkos_ENABLE_SERIAL=ON \
    -DKokkos_ENABLE_CUDA=ON \
    -DKokkos_ENABLE_CUDA_LAMBDA=ON \
    -D${KKPERM_CUDA_ARCH_OPTION}=ON \
    -DKokkos_ENABLE_TESTS=OFF \
    -DKokkos_ENABLE_EXAMPLES=OFF
}
kkperm_kk_cmake_args() {
  local prefix=$1
  printf '%s\n' \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_STANDARD=17 \
    -DCMAKE_CXX_EXTENSIONS=OFF \
    -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" \
    -DBUILD_SHARED_LIBS=OFF \
    -DKokkos_ROOT="$prefix" \
    -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF \
    -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF \
    -DKokkosKernels_ENABLE_TPL_BLAS=OFF \
    -DKokkosKernels_ENABLE_TPL_LAPACK=OFF \
    -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
    -DKokkosKernels_ENABLE_TESTS=OFF \
    -DKokkosKernels_ENABLE_EXAMPLES=OFF
}

kkperm_generator() {
  if [[ -n "${KKPERM_CMAKE_GENERATOR:-}" ]]; then echo "$KKPERM_CMAKE_GENERATOR"
  elif command -v ninja >/dev/null 2>&1; then echo Ninja
  else echo "Unix Makefiles"; fi
}

# Prints "PHASE SECONDS" lines into $KKPERM_TIMES_FILE when set.
kkperm_record_time() {
  local phase=$1 secs=$2
  kkperm_log "phase '$phase' took ${secs}s"
  if [[ -n "${KKPERM_TIMES_FILE:-}" ]]; then echo "$phase $secs" >>"$KKPERM_TIMES_FILE"; fi
}

kkperm_build_kokkos_stack() {
  local src=$1 build=$2 prefix=$3 jobs=$4
  local nice_cmd=${KKPERM_NICE-nice -n 10}
  local gen; gen=$(kkperm_generator)
  [[ -x "$src/kokkos/bin/nvcc_wrapper" ]] || kkperm_die "$src/kokkos/bin/nvcc_wrapper missing: not a prepared source tree"
  [[ -f "$src/kokkos-kernels/CMakeLists.txt" ]] || kkperm_die "$src/kokkos-kernels missing: not a prepared source tree"
  command -v nvcc >/dev/null 2>&1 || [[ -n "${CUDA_ROOT:-}" ]] || \
    kkperm_die "nvcc not on PATH (export PATH=/usr/local/cuda/bin:\$PATH or set CUDA_ROOT)"
  local -a kargs kkargs
  mapfile -t kargs < <(kkperm_kokkos_cmake_args "$src")
  mapfile -t kkargs < <(kkperm_kk_cmake_args "$prefix")
  local t0

  t0=$SECONDS
  kkperm_log "Kokkos $KKPERM_KOKKOS_VERSION: configure ($gen) -> $prefix"
  rm -rf "$build/kokkos"
  $nice_cmd cmake -S "$src/kokkos" -B "$build/kokkos" -G "$gen" -DCMAKE_INSTALL_PREFIX="$prefix" "${kargs[@]}"
  kkperm_log "Kokkos: build with $jobs jobs"
  $nice_cmd cmake --build "$build/kokkos" --parallel "$jobs"
  cmake --install "$build/kokkos"
  kkperm_record_time "kokkos_build" $((SECONDS - t0))

  t0=$SECONDS
  kkperm_log "Kokkos Kernels $KKPERM_KOKKOS_VERSION: configure ($gen) -> $prefix"
  rm -rf "$build/kokkos-kernels"
  $nice_cmd cmake -S "$src/kokkos-kernels" -B "$build/kokkos-kernels" -G "$gen" -DCMAKE_INSTALL_PREFIX="$prefix" "${kkargs[@]}"
  kkperm_log "Kokkos Kernels: build with $jobs jobs"
  $nice_cmd cmake --build "$build/kokkos-kernels" --parallel "$jobs"
  cmake --install "$build/kokkos-kernels"
  kkperm_record_time "kokkoskernels_build" $((SECONDS - t0))

  [[ -x "$prefix/bin/nvcc_wrapper" ]] || kkperm_die "install incomplete: $prefix/bin/nvcc_wrapper missing"
  grep -q '#define KOKKOS_ARCH_HOPPER90' "$prefix/include/KokkosCore_config.h" || \
    kkperm_die "installed KokkosCore_config.h lacks KOKKOS_ARCH_HOPPER90 (patch 0003 not effective?)"
  grep -q '#define KOKKOS_ENABLE_CUDA_LAMBDA' "$prefix/include/KokkosCore_config.h" || \
    kkperm_die "installed KokkosCore_config.h lacks KOKKOS_ENABLE_CUDA_LAMBDA"
}
