#!/usr/bin/env bash
# Builds kkperm's CUDA variant (sm_90) on this machine and packs what the GPU host needs into
# .carry/ (git-ignored; the device tool ships it with `carry: [".carry"]`):
#   .carry/kkperm-gpu/tests/kkperm_test_*    CUDA GoogleTest executables
#   .carry/kkperm-gpu/perf/kkperm_*          CUDA perf_test executables
#   .carry/kkperm-gpu/matrices/{real,malformed}   copy of /work/shared/matrices
#   .carry/kkperm-gpu/run_tests_gpu.sh       runs every test executable, summary into $OUT
#   .carry/kkperm-gpu/unpack.sh              when tests/ + perf/ did not fit uncompressed they are
#                                            stored as bin.tar.gz; this extracts them in place
#   .carry/kkperm-gpu/MANIFEST.txt           commit, build date, toolchain, ldd check
#   .carry/deps/kokkos-3.4.01-kkperm-src.tar.gz   (only with --with-dep-sources) patched Kokkos/KK
#                                            sources for scripts/gpu/build_deps_on_gpu.sh
# Kokkos/KK are linked statically; the binaries need only glibc/libstdc++/zlib and the CUDA 13
# runtime libraries (libcudart, libcusparse) plus the driver's libcuda on the GPU host.
#
# Usage: scripts/gpu/pack_for_gpu.sh [--build-dir DIR] [--jobs N] [--with-dep-sources] [--no-build]
#                                    [--max-mib N] [--tests REGEX] [--perf REGEX]
#   --tests/--perf REGEX  pack only the test executables / perf tools whose names match (bash
#                         regex; --perf '^$' packs none): when everything does not fit in one
#                         carry, split the GPU run into several packs.
# Then on the GPU host (repo root):  bash .carry/kkperm-gpu/run_tests_gpu.sh
set -euo pipefail
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR="$REPO_ROOT/build-cuda"
JOBS=${KKPERM_JOBS:-2}
WITH_DEP_SOURCES=0
DO_BUILD=1
MAX_MIB=60
TESTS_RE=""
PERF_RE=""
MATRICES_SRC=${KKPERM_SHARED_MATRICES:-$REPO_ROOT/../shared/matrices}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) BUILD_DIR=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --with-dep-sources) WITH_DEP_SOURCES=1; shift ;;
    --no-build) DO_BUILD=0; shift ;;
    --max-mib) MAX_MIB=$2; shift 2 ;;
    --tests) TESTS_RE=$2; shift 2 ;;
    --perf) PERF_RE=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "ERROR: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$REPO_ROOT/$BUILD_DIR" ;; esac
die() { echo "ERROR: $*" >&2; exit 1; }

if [[ $DO_BUILD -eq 1 ]]; then
  bash "$REPO_ROOT/scripts/configure_cuda.sh" --build-dir "$BUILD_DIR" --jobs "$JOBS"
fi
[[ -f "$BUILD_DIR/CMakeCache.txt" ]] || die "$BUILD_DIR is not a configured build"
grep -q '^KKPERM_ENABLE_CUDA:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" || die "$BUILD_DIR is not a KKPERM_ENABLE_CUDA=ON build"
[[ -d "$MATRICES_SRC/real" && -d "$MATRICES_SRC/malformed" ]] || die "matrices not found at $MATRICES_SRC (set KKPERM_SHARED_MATRICES)"

DEST="$REPO_ROOT/.carry/kkperm-gpu"
rm -rf "$DEST"
mkdir -p "$DEST/tests" "$DEST/perf" "$DEST/matrices"

# Executables: tests/<area>/kkperm_test_* and perf_test/kkperm_* (file names, not the ctest list,
# so nothing built is forgotten).
mapfile -t test_exes < <(find "$BUILD_DIR/tests" -maxdepth 2 -type f -name 'kkperm_test_*' -perm -u+x | sort)
mapfile -t perf_exes < <(find "$BUILD_DIR/perf_test" -maxdepth 1 -type f -name 'kkperm_*' -perm -u+x | sort)
select_re() {  # select_re REGEX NAME...: the paths whose basename matches
  local re=$1; shift; local f
  for f in "$@"; do if [[ -z "$re" || "${f##*/}" =~ $re ]]; then echo "$f"; fi; done
}
mapfile -t test_exes < <(select_re "$TESTS_RE" "${test_exes[@]}")
mapfile -t perf_exes < <(select_re "$PERF_RE" "${perf_exes[@]}")
[[ ${#test_exes[@]} -gt 0 ]] || die "no test executables under $BUILD_DIR/tests${TESTS_RE:+ matching '$TESTS_RE'}"
for f in "${test_exes[@]}"; do cp "$f" "$DEST/tests/"; done
for f in "${perf_exes[@]}"; do cp "$f" "$DEST/perf/"; done
# Host symbols only; the sm_90 fatbins live in data sections and are kept.
strip --strip-unneeded "$DEST"/tests/* "$DEST"/perf/* 2>/dev/null || true

cp -r "$MATRICES_SRC/real" "$MATRICES_SRC/malformed" "$DEST/matrices/"
chmod -R u+w "$DEST/matrices"
cp "$REPO_ROOT/scripts/gpu/run_tests_gpu.sh" "$DEST/run_tests_gpu.sh"
chmod +x "$DEST/run_tests_gpu.sh"

# Shared-library check: only system (glibc, libstdc++, libgcc, zlib, libm) and CUDA libraries.
bad=""
for f in "$DEST"/tests/* "$DEST"/perf/*; do
  while read -r lib; do
    case "$lib" in
      linux-vdso.so.*|/lib64/ld-linux-x86-64.so.*|libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|\
      libz.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libcudart.so.*|libcusparse.so.*|libcuda.so.*|\
      libnvJitLink.so.*|libcublas.so.*|libcublasLt.so.*) ;;
      *) bad+="${f##*/}: $lib"$'\n' ;;
    esac
  done < <(ldd "$f" | awk '{print $1}')
done
[[ -z "$bad" ]] || die "unexpected shared libraries (would be missing on the GPU host):"$'\n'"$bad"

commit=$(git -C "$REPO_ROOT" rev-parse --short HEAD)
dirty=$(git -C "$REPO_ROOT" status --porcelain --untracked-files=no | grep -q . && echo " (+uncommitted changes)" || true)
{
  echo "commit $commit$dirty, built $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
  echo "nvcc $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' || echo '?'), Kokkos/KK 3.4.01 (patched, sm_90), $(g++ --version | head -1)"
  echo "deps prefix $(grep '^CMAKE_PREFIX_PATH' "$BUILD_DIR/CMakeCache.txt" | cut -d= -f2)"
  echo "tests: ${#test_exes[@]} executables, perf: ${#perf_exes[@]} executables"
  echo "ldd of ${test_exes[0]##*/}:"
  ldd "$DEST/tests/${test_exes[0]##*/}" | awk '{print "  " $1}'
} >"$DEST/MANIFEST.txt"

# Unpacker (also called by run_tests_gpu.sh): a no-op unless the binaries were compressed below.
cat >"$DEST/unpack.sh" <<'UNPACK'
#!/usr/bin/env bash
# Extracts tests/ and perf/ from bin.tar.gz next to this script when pack_for_gpu.sh had to
# compress them to stay under the carry size limit; otherwise does nothing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if [[ -f bin.tar.gz && ! -d tests ]]; then tar -xzf bin.tar.gz; fi
UNPACK
chmod +x "$DEST/unpack.sh"

rm -rf "$REPO_ROOT/.carry/deps"
if [[ $WITH_DEP_SOURCES -eq 1 ]]; then
  bash "$REPO_ROOT/scripts/build_cuda_deps.sh" --pack-sources "$REPO_ROOT/.carry/deps" --no-build
fi

total_kib=$(du -sk "$REPO_ROOT/.carry" | cut -f1)
if [[ $total_kib -gt $((MAX_MIB * 1024)) ]]; then
  echo "== .carry is $((total_kib / 1024)) MiB > ${MAX_MIB} MiB: compressing tests/ and perf/ into bin.tar.gz (unpack.sh / run_tests_gpu.sh extract it) =="
  tar -czf "$DEST/bin.tar.gz" -C "$DEST" tests perf
  rm -rf "$DEST/tests" "$DEST/perf"
  total_kib=$(du -sk "$REPO_ROOT/.carry" | cut -f1)
fi
echo "== .carry: $((total_kib / 1024)) MiB (${#test_exes[@]} tests, ${#perf_exes[@]} perf tools) =="
du -sh "$DEST"/* "$REPO_ROOT/.carry"/deps 2>/dev/null || true
[[ $total_kib -le $((MAX_MIB * 1024)) ]] || die ".carry is $((total_kib / 1024)) MiB, over the ${MAX_MIB} MiB limit"
echo "GPU host command (repo root, carry .carry):  bash .carry/kkperm-gpu/run_tests_gpu.sh"
echo "perf tools there: bash .carry/kkperm-gpu/unpack.sh && .carry/kkperm-gpu/perf/kkperm_<tool> ..."
