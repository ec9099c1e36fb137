#!/usr/bin/env bash
# Session 32: where the warp-row kernels of an ESC R(AP) setup stall, per CUDA source line: ncu
# reports (SourceCounters, WarpStateStats, InstructionStats, Occupancy, LaunchStats, SpeedOfLight,
# MemoryWorkloadAnalysis) of one launch each, from a kkperm_spgemm built with -lineinfo:
#   f3: the 3D 7-point R(AP) setup's count pass with values (symbolic_warp_rows_launch, 32 lanes, Vals)
#   c2: the 2D 5-point R(AP) count pass (16 lanes since session 32, no values; the first launch: symbolic()'s)
#   n2: the 2D 5-point R(AP) first numeric (numeric_warp_rows_launch, 8 lanes; the first launch)
# Each report is printed as details and as the source page per CUDA line (csv), gzipped.
# Usage (GPU host, repo root): S32_BIN=.carry/s32li/new bash scripts/gpu/session32/ncu_source.sh TAG
#   CASES_FILE (optional, session 33): other launches, one "NAME GEN REGEX" line each
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ncusrc}
BIN=${S32_BIN:-.carry/s32li/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters"
one() {  # name gen regex
  local name=$1 gen=$2 re=$3
  timeout 150 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$re" --launch-count 1 \
    $SECTIONS --import-source yes -f -o "$R/$name" \
    "$BIN/kkperm_spgemm" --gen "$gen" --products RAP --candidates esc --repeat 1 --warmup 0 --setup-repeat 1 \
    > "$R/$name.log" 2>&1
  echo "ncu $name rc=$?" >> "$R/runs.txt"
  ncu --import "$R/$name.ncu-rep" --page details > "$R/${name}_details.txt" 2>&1
  ncu --import "$R/$name.ncu-rep" --page source --csv --print-source cuda 2> "$R/${name}_source.err" | gzip > "$R/${name}_source_cuda.csv.gz"
  ncu --import "$R/$name.ncu-rep" --page source --csv --print-source sass 2>> "$R/${name}_source.err" | gzip > "$R/${name}_source_sass.csv.gz"
  gzip -f "$R/$name.ncu-rep"
}
if [[ -n ${CASES_FILE:-} ]]; then  # lines "NAME GEN REGEX" (session 33)
  while read -r name gen re; do [[ -n $name ]] && one "$name" "$gen" "$re"; done < "$CASES_FILE"
else
one f3 "laplace3d7:nx=100" "symbolic_warp_rows_launch<Kokkos::Cuda, \\(int\\)32, \\(bool\\)1,"
one c2 "laplace2d5:nx=1000,ny=1000" "symbolic_warp_rows_launch<Kokkos::Cuda, \\(int\\)16, \\(bool\\)0,"
one n2 "laplace2d5:nx=1000,ny=1000" "numeric_warp_rows_launch<Kokkos::Cuda, \\(int\\)8,"
fi
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
ls -la "$OUT"
