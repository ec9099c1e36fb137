#!/usr/bin/env bash
# Builds the CUDA (sm_90) variant of Kokkos 3.4.01 + Kokkos Kernels 3.4.01 from Debian bookworm's
# `trilinos` 13.2.0 source package, with kkperm's patches (cmake/patches/*.patch), and installs it
# into a cache directory outside the clone, reused by later runs. See docs/cuda_build.md.
#
# Usage: scripts/build_cuda_deps.sh [--prefix DIR] [--jobs N] [--force] [--pack-sources DIR]
#                                   [--print-prefix] [--no-build]
#   --prefix DIR        install prefix (default: $KKPERM_DEPS_CACHE/kokkos-3.4.01-cuda-sm90,
#                       KKPERM_DEPS_CACHE defaults to ~/.cache/kkperm)
#   --jobs N            parallel compile jobs (default 2; this machine is shared)
#   --force             rebuild even when the stamp matches
#   --pack-sources DIR  also write DIR/kokkos-3.4.01-kkperm-src.tar.gz: the patched kokkos +
#                       kokkos-kernels trees plus a stamp, for scripts/gpu/build_deps_on_gpu.sh
#   --no-build          only download/extract/patch (with --pack-sources: pack without building)
#   --print-prefix      print the install prefix and exit
# Needs: apt-get (no root config changes: a private source list and list dir are used), tar,
# patch, cmake >= 3.16, ninja (optional), nvcc (CUDA 13 at /usr/local/cuda), g++.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/kokkos_cuda_build.sh
source "$REPO_ROOT/scripts/lib/kokkos_cuda_build.sh"

TRILINOS_VERSION=13.2.0-4          # Debian bookworm's trilinos source package
TRILINOS_ORIG=trilinos_13.2.0.orig.tar.gz
TRILINOS_ORIG_SHA256=0ddb47784ba7b8a6b9a07a4822b33be508feb4ccd54301b2a5d10c9e54524b90
TRILINOS_TOPDIR=Trilinos-trilinos-release-13-2-0
DEBIAN_MIRROR=${KKPERM_DEBIAN_MIRROR:-http://deb.debian.org/debian}   # as in /etc/apt/sources.list.d/debian.sources

CACHE_ROOT=${KKPERM_DEPS_CACHE:-$HOME/.cache/kkperm}
PREFIX="$CACHE_ROOT/kokkos-${KKPERM_KOKKOS_VERSION}-cuda-sm90"
JOBS=2
FORCE=0
PACK_DIR=""
NO_BUILD=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix) PREFIX=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --force) FORCE=1; shift ;;
    --pack-sources) PACK_DIR=$2; shift 2 ;;
    --no-build) NO_BUILD=1; shift ;;
    --print-prefix) echo "$PREFIX"; exit 0 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) kkperm_die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$JOBS" =~ ^[0-9]+$ && "$JOBS" -ge 1 ]] || kkperm_die "--jobs needs a positive integer, got '$JOBS'"
case "$PREFIX" in "$REPO_ROOT"|"$REPO_ROOT"/*) kkperm_die "--prefix must lie outside the clone ($REPO_ROOT)";; esac

export PATH="$PATH:/usr/local/cuda/bin"
for tool in tar patch cmake sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || kkperm_die "'$tool' not found (scripts/install_deps.sh installs build-essential and cmake)"
done
PATCH_DIR="$REPO_ROOT/cmake/patches"
mapfile -t PATCHES < <(find "$PATCH_DIR" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
[[ ${#PATCHES[@]} -gt 0 ]] || kkperm_die "no patches found in $PATCH_DIR"

# The stamp: source package, patch hashes, cmake configuration, nvcc version. Any change -> rebuild.
stamp_content() {
  echo "trilinos-source $TRILINOS_VERSION $TRILINOS_ORIG_SHA256"
  local p; for p in "${PATCHES[@]}"; do echo "patch $(sha256sum "$p" | cut -d' ' -f1) $(basename "$p")"; done
  echo "kokkos-cmake $(kkperm_kokkos_cmake_args '<src>' | tr '\n' ' ')"
  echo "kk-cmake $(kkperm_kk_cmake_args '<prefix>' | tr '\n' ' ')"
  echo "nvcc $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo none)"
}
STAMP_FILE="$PREFIX/.kkperm-deps-stamp"
WANT_STAMP=$(stamp_content)

DL_DIR="$CACHE_ROOT/downloads"
WORK="$CACHE_ROOT/work-kokkos-${KKPERM_KOKKOS_VERSION}-cuda-sm90"
SRC="$WORK/src"          # holds kokkos/ and kokkos-kernels/ (patched)
BUILD="$WORK/build"
TIMES="$WORK/times.txt"

need_build=1
if [[ $FORCE -eq 0 && -f "$STAMP_FILE" ]] && [[ "$(cat "$STAMP_FILE")" == "$WANT_STAMP" ]]; then
  need_build=0
fi
if [[ $need_build -eq 0 && -z "$PACK_DIR" ]]; then
  kkperm_log "cached CUDA Kokkos/KK is up to date: $PREFIX (stamp $STAMP_FILE matches; --force rebuilds)"
  exit 0
fi
[[ $need_build -eq 1 && -f "$STAMP_FILE" ]] && kkperm_log "stamp differs from the current patches/config -> rebuilding $PREFIX"

mkdir -p "$DL_DIR" "$WORK"
: >"$TIMES"
export KKPERM_TIMES_FILE="$TIMES"

# ---- 1. download the Debian source package (private apt state; system config untouched) -------
t0=$SECONDS
if [[ -f "$DL_DIR/$TRILINOS_ORIG" ]] && echo "$TRILINOS_ORIG_SHA256  $DL_DIR/$TRILINOS_ORIG" | sha256sum -c --status; then
  kkperm_log "download: reusing $DL_DIR/$TRILINOS_ORIG"
else
  kkperm_log "download: trilinos $TRILINOS_VERSION source from $DEBIAN_MIRROR (bookworm) via apt-get source"
  command -v apt-get >/dev/null 2>&1 || kkperm_die "apt-get not found and $DL_DIR/$TRILINOS_ORIG not cached"
  APT_TMP=$(mktemp -d)
  trap 'rm -rf "$APT_TMP"' EXIT
  mkdir -p "$APT_TMP/lists/partial" "$APT_TMP/archives/partial" "$APT_TMP/cache"
  echo "deb-src $DEBIAN_MIRROR bookworm main" >"$APT_TMP/sources.list"
  APT_OPTS=(-o "Dir::Etc::SourceList=$APT_TMP/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
            -o "Dir::State::Lists=$APT_TMP/lists" -o "Dir::Cache=$APT_TMP/cache"
            -o "Dir::Cache::Archives=$APT_TMP/archives"
            -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
  apt-get "${APT_OPTS[@]}" -q update
  (cd "$DL_DIR" && apt-get "${APT_OPTS[@]}" -q source --download-only "trilinos=$TRILINOS_VERSION")
  echo "$TRILINOS_ORIG_SHA256  $DL_DIR/$TRILINOS_ORIG" | sha256sum -c --status || \
    kkperm_die "sha256 of $DL_DIR/$TRILINOS_ORIG does not match $TRILINOS_ORIG_SHA256"
fi
kkperm_record_time download $((SECONDS - t0))

# ---- 2. extract only packages/kokkos and packages/kokkos-kernels, then patch -------------------
t0=$SECONDS
kkperm_log "extract: packages/kokkos and packages/kokkos-kernels -> $SRC"
rm -rf "$SRC"; mkdir -p "$SRC"
tar -xzf "$DL_DIR/$TRILINOS_ORIG" -C "$SRC" --strip-components=2 \
  "$TRILINOS_TOPDIR/packages/kokkos" "$TRILINOS_TOPDIR/packages/kokkos-kernels"
[[ -x "$SRC/kokkos/bin/nvcc_wrapper" && -f "$SRC/kokkos-kernels/CMakeLists.txt" ]] || \
  kkperm_die "extraction did not produce $SRC/kokkos and $SRC/kokkos-kernels"
for p in "${PATCHES[@]}"; do
  kkperm_log "patch: $(basename "$p")"
  if ! patch -p1 -d "$SRC" --forward --batch --no-backup-if-mismatch <"$p"; then
    kkperm_die "patch $(basename "$p") does not apply to the Debian trilinos $TRILINOS_VERSION sources"
  fi
done
printf '%s\n' "$WANT_STAMP" >"$SRC/.kkperm-deps-stamp"
kkperm_record_time extract_and_patch $((SECONDS - t0))

# ---- 3. optional: pack the prepared sources for the GPU host -----------------------------------
if [[ -n "$PACK_DIR" ]]; then
  mkdir -p "$PACK_DIR"
  PACK_FILE="$(cd "$PACK_DIR" && pwd)/kokkos-${KKPERM_KOKKOS_VERSION}-kkperm-src.tar.gz"
  kkperm_log "pack: $PACK_FILE"
  # Tests/examples/docs are not built there; leave them out to keep the tarball small.
  tar -czf "$PACK_FILE" -C "$SRC" \
    --exclude='kokkos/core/unit_test' --exclude='kokkos/containers/unit_tests' \
    --exclude='kokkos/algorithms/unit_tests' \
    --exclude='kokkos/benchmarks' --exclude='kokkos-kernels/unit_test' \
    --exclude='kokkos-kernels/perf_test' --exclude='kokkos-kernels/example' \
    --exclude='kokkos-kernels/doc' \
    .kkperm-deps-stamp kokkos kokkos-kernels
  kkperm_log "pack: $(du -h "$PACK_FILE" | cut -f1) written"
fi

if [[ $NO_BUILD -eq 1 ]]; then
  kkperm_log "--no-build: sources prepared in $SRC; not building"
  exit 0
fi
if [[ $need_build -eq 0 ]]; then
  kkperm_log "cached CUDA Kokkos/KK is up to date: $PREFIX"
  exit 0
fi

# ---- 4. build + install Kokkos, then Kokkos Kernels ---------------------------------------------
command -v nvcc >/dev/null || kkperm_die "nvcc not found (expected CUDA at /usr/local/cuda)"
kkperm_log "nvcc: $(nvcc --version | grep -o 'release [0-9.]*, V[0-9.]*')"
# Installed in place (CMake configs record absolute paths); the stamp is written last, so an
# interrupted build leaves no stamp and the next run rebuilds.
rm -rf "$PREFIX"
kkperm_build_kokkos_stack "$SRC" "$BUILD" "$PREFIX" "$JOBS"
cp "$TIMES" "$PREFIX/.kkperm-build-times"
printf '%s\n' "$WANT_STAMP" >"$STAMP_FILE"
kkperm_log "installed CUDA Kokkos/KK $KKPERM_KOKKOS_VERSION (sm_90) into $PREFIX"
echo "---- phase times (seconds) ----"
cat "$TIMES"
