#!/usr/bin/env bash
# Configures and builds kkperm's CUDA variant (sm_90) against the patched CUDA Kokkos/KK 3.4.01
# install in the cache outside the clone (built or reused by scripts/build_cuda_deps.sh).
# Compile-only here (no GPU on this machine); CI uses it as the CUDA compile check and
# scripts/gpu/pack_for_gpu.sh uses it to build what the GPU host runs.
#
# Usage: scripts/configure_cuda.sh [--build-dir DIR] [--jobs N] [--deps-prefix DIR]
#                                  [--configure-only] [--no-deps] [-- ninja targets...]
#   --build-dir DIR     build directory (default: build-cuda in the repo root)
#   --jobs N            ninja jobs (default: $KKPERM_JOBS or 2; run under nice)
#   --deps-prefix DIR   CUDA Kokkos/KK install (default: scripts/build_cuda_deps.sh --print-prefix)
#   --no-deps           do not run build_cuda_deps.sh (the prefix must already hold an install)
#   --configure-only    stop after cmake
#   extra arguments after -- are passed to ninja as targets
set -euo pipefail
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

BUILD_DIR="$REPO_ROOT/build-cuda"
JOBS=${KKPERM_JOBS:-2}
DEPS_PREFIX=""
RUN_DEPS=1
CONFIGURE_ONLY=0
TARGETS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) BUILD_DIR=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --deps-prefix) DEPS_PREFIX=$2; shift 2 ;;
    --no-deps) RUN_DEPS=0; shift ;;
    --configure-only) CONFIGURE_ONLY=1; shift ;;
    --) shift; TARGETS=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "ERROR: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$REPO_ROOT/$BUILD_DIR" ;; esac
export PATH="$PATH:/usr/local/cuda/bin"

if [[ -z "$DEPS_PREFIX" ]]; then
  DEPS_PREFIX=$("$REPO_ROOT/scripts/build_cuda_deps.sh" --print-prefix)
fi
if [[ $RUN_DEPS -eq 1 ]]; then
  # No-op (one line of output) when the cached install matches the current patches.
  "$REPO_ROOT/scripts/build_cuda_deps.sh" --prefix "$DEPS_PREFIX"
fi
[[ -x "$DEPS_PREFIX/bin/nvcc_wrapper" ]] || {
  echo "ERROR: no CUDA Kokkos/KK install at $DEPS_PREFIX (run scripts/build_cuda_deps.sh)" >&2; exit 1; }

GEN=Ninja
command -v ninja >/dev/null 2>&1 || GEN="Unix Makefiles"
t0=$SECONDS
echo "== kkperm CUDA variant: configure $BUILD_DIR against $DEPS_PREFIX =="
cmake -S "$REPO_ROOT" -B "$BUILD_DIR" -G "$GEN" \
  -DCMAKE_BUILD_TYPE=Release \
  -DKKPERM_ENABLE_CUDA=ON \
  -DCMAKE_CXX_COMPILER="$DEPS_PREFIX/bin/nvcc_wrapper" \
  -DCMAKE_PREFIX_PATH="$DEPS_PREFIX" \
  -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DKKPERM_BUILD_TESTS=ON -DKKPERM_BUILD_PERF_TESTS=ON
[[ $CONFIGURE_ONLY -eq 1 ]] && exit 0
echo "== kkperm CUDA variant: build (-j$JOBS, nice) =="
nice -n 10 cmake --build "$BUILD_DIR" --parallel "$JOBS" ${TARGETS:+--target "${TARGETS[@]}"}
echo "== kkperm CUDA variant built in $((SECONDS - t0))s: $BUILD_DIR =="
