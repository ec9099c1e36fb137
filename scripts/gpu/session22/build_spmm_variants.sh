#!/usr/bin/env bash
# Builds tuning variants of the CUDA kkperm_spmm without a second build tree: for each variant,
# the one translation unit that instantiates the SpMM kernels (src/kkperm/select/spmm_candidates.cpp)
# is compiled again with extra -D flags (RowMajorConfig overrides in
# src/kkperm/kernels/spmm/row_major.hpp: KKPERM_SPMM_RM_COLS_PER_LANE, _LOADS_IN_FLIGHT,
# _BATCH_WIDTHS, _WALK_DIVISOR, _MIN_BLOCKS), put into a copy of libkkperm.a and linked with
# build-cuda's own objects, using build-cuda's ninja commands. Two compiles run at a time.
#
# Usage (CPU machine, repo root, after scripts/configure_cuda.sh):
#   bash scripts/gpu/session22/build_spmm_variants.sh DEST NAME=FLAGS [NAME=FLAGS ...]
#   e.g. ... .carry/s23/bin r1="-DKKPERM_SPMM_RM_COLS_PER_LANE=1" l16="-DKKPERM_SPMM_RM_LOADS_IN_FLIGHT=16"
# -> DEST/NAME/kkperm_spmm for each variant, DEST/new/kkperm_spmm (the build as configured), and
#    DEST/variants.txt (name and flags; a later call adds to the same DEST). `kkperm_spmm`
#    prints each row-major plan's tuning in its details ("tuning=R4,L8,B2,W2,M8"), so results
#    say which build made them.
# Then pack DEST's folders into bin.tgz and run scripts/gpu/session21/spmm_ab.sh with
#   BINS="new NAME..." OLD_CANDS=row_major,... on the device.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
BUILD=${BUILD:-$ROOT/build-cuda}
[[ $# -ge 2 ]] || { echo "usage: $0 DEST NAME=FLAGS [NAME=FLAGS ...]" >&2; exit 2; }
DEST=$(mkdir -p "$1" && cd "$1" && pwd)
shift
[[ -f $BUILD/build.ninja ]] || { echo "ERROR: $BUILD is not a configured CUDA build (scripts/configure_cuda.sh)" >&2; exit 2; }
cmake --build "$BUILD" --target perf_test/kkperm_spmm -j2 > "$DEST/build_new.log" 2>&1 ||
  { echo "ERROR: building kkperm_spmm failed, see $DEST/build_new.log" >&2; exit 1; }
mkdir -p "$DEST/new"
cp "$BUILD/perf_test/kkperm_spmm" "$DEST/new/"
OBJ=CMakeFiles/kkperm.dir/src/kkperm/select/spmm_candidates.cpp.o
cmds=$(ninja -C "$BUILD" -t commands perf_test/kkperm_spmm)
compile=$(grep -F -- "-o $OBJ -c" <<< "$cmds") || { echo "ERROR: no compile command for $OBJ" >&2; exit 1; }
link=$(grep -F -- "-o perf_test/kkperm_spmm " <<< "$cmds" | tail -1) || { echo "ERROR: no link command" >&2; exit 1; }
[[ -n $compile && -n $link ]] || { echo "ERROR: could not read the ninja commands" >&2; exit 1; }
# variants.txt lists what DEST holds (appended to when DEST already has variants)
[[ -f $DEST/variants.txt ]] || echo "new (as configured)" > "$DEST/variants.txt"
build_one() {  # name flags
  local name=$1 flags=$2 wd=$DEST/.work/$1
  mkdir -p "$wd" "$DEST/$name"
  # the object keeps its archive member name so that `ar r` replaces build-cuda's
  local c=${compile//"-o $OBJ"/"-o $wd/spmm_candidates.cpp.o"}
  c=$(sed -E 's/ -MD -MT [^ ]+ -MF [^ ]+//' <<< "$c")
  c=${c/" -c "/" $flags -c "}
  (cd "$BUILD" && eval "$c") > "$wd/compile.log" 2>&1 || { echo "ERROR: $name: compile failed ($wd/compile.log)" >&2; return 1; }
  cp "$BUILD/libkkperm.a" "$wd/libkkperm.a"
  ar r "$wd/libkkperm.a" "$wd/spmm_candidates.cpp.o"
  local l=${link//" libkkperm.a "/" $wd/libkkperm.a "}
  l=${l//"-o perf_test/kkperm_spmm "/"-o $DEST/$name/kkperm_spmm "}
  (cd "$BUILD" && eval "$l") > "$wd/link.log" 2>&1 || { echo "ERROR: $name: link failed ($wd/link.log)" >&2; return 1; }
  echo "$name $flags" >> "$DEST/variants.txt"
  echo "built $name ($flags)"
}
pids=() rc=0
for v in "$@"; do
  name=${v%%=*} flags=${v#*=}
  [[ $name =~ ^[A-Za-z0-9_]+$ && $name != new && $v == *=* ]] ||
    { echo "ERROR: variant '$v' is not NAME=FLAGS (NAME alphanumeric, not 'new')" >&2; exit 2; }
  build_one "$name" "$flags" &
  pids+=($!)
  if (( ${#pids[@]} >= 2 )); then wait "${pids[0]}" || rc=1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || rc=1; done
rm -rf "$DEST/.work"
exit $rc
