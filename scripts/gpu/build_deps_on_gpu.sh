#!/usr/bin/env bash
# Builds the patched CUDA Kokkos/KK 3.4.01 (sm_90) on the GPU host (no network, no apt) from the
# source tarball written by `scripts/build_cuda_deps.sh --pack-sources DIR`
# (DIR/kokkos-3.4.01-kkperm-src.tar.gz), with the same CMake options as the CPU-machine build
# (scripts/lib/kokkos_cuda_build.sh). Used to measure the "ship sources, build on the GPU host"
# alternative (docs/cuda_build.md); the default workflow ships binaries built on the CPU machine.
#
# Usage (repo root on the GPU host):
#   bash scripts/gpu/build_deps_on_gpu.sh [--tarball FILE] [--prefix DIR] [--jobs N] [--with-project]
#     --tarball FILE   default .carry/deps/kokkos-3.4.01-kkperm-src.tar.gz
#     --prefix DIR     default /tmp/kkperm-deps/kokkos-3.4.01-cuda-sm90
#     --jobs N         default: nproc
#     --with-project   afterwards also configure+build kkperm's CUDA variant against it
#                      (scripts/configure_cuda.sh; needs GoogleTest, nlohmann-json and zlib
#                      development files on the host)
# Writes $OUT/deps_build_times.txt (phase seconds), $OUT/deps_build.log.
set -euo pipefail
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../lib/kokkos_cuda_build.sh
source "$REPO_ROOT/scripts/lib/kokkos_cuda_build.sh"

TARBALL="$REPO_ROOT/.carry/deps/kokkos-${KKPERM_KOKKOS_VERSION}-kkperm-src.tar.gz"
PREFIX=/tmp/kkperm-deps/kokkos-${KKPERM_KOKKOS_VERSION}-cuda-sm90
JOBS=$(nproc)
WITH_PROJECT=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tarball) TARBALL=$2; shift 2 ;;
    --prefix) PREFIX=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --with-project) WITH_PROJECT=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) kkperm_die "unknown argument '$1' (see --help)" ;;
  esac
done
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
[[ -f "$TARBALL" ]] || kkperm_die "source tarball $TARBALL not found (make it with scripts/build_cuda_deps.sh --pack-sources .carry/deps)"
for d in /usr/local/cuda/bin /usr/local/cuda-13/bin; do [[ -d "$d" ]] && PATH="$PATH:$d"; done
export PATH
export KKPERM_NICE=""                      # dedicated host: no nice
export KKPERM_TIMES_FILE="$OUT/deps_build_times.txt"
: >"$KKPERM_TIMES_FILE"

{
  echo "host: $(hostname)  cores: $(nproc)  jobs: $JOBS"
  echo "nvcc: $(nvcc --version | grep -o 'release [0-9.]*, V[0-9.]*')"
  echo "cmake: $(cmake --version | head -1)  ninja: $(ninja --version 2>/dev/null || echo none)"
  echo "g++: $(g++ --version | head -1)"
} | tee "$OUT/deps_build_env.txt"

WORK=$(mktemp -d /tmp/kkperm-deps-work.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
t0=$SECONDS
tar -xzf "$TARBALL" -C "$WORK"
kkperm_record_time extract $((SECONDS - t0))
rm -rf "$PREFIX"
T_ALL=$SECONDS
kkperm_build_kokkos_stack "$WORK" "$WORK/build" "$PREFIX" "$JOBS" 2>&1 | tee "$OUT/deps_build.log"
cp "$WORK/.kkperm-deps-stamp" "$PREFIX/.kkperm-deps-stamp"
kkperm_record_time deps_total $((SECONDS - T_ALL))

if [[ $WITH_PROJECT -eq 1 ]]; then
  t0=$SECONDS
  bash "$REPO_ROOT/scripts/configure_cuda.sh" --no-deps --deps-prefix "$PREFIX" \
    --build-dir /tmp/kkperm-build-cuda --jobs "$JOBS" 2>&1 | tee "$OUT/project_build.log"
  kkperm_record_time project_build $((SECONDS - t0))
fi
echo "---- phase times (seconds) ----"
cat "$KKPERM_TIMES_FILE"
