#!/usr/bin/env bash
# Session 46: ncu (SpeedOfLight, Occupancy, LaunchStats, WarpStateStats, MemoryWorkloadAnalysis,
# SourceCounters) of the ESC setup's warp-row kernels, up to COUNT (2) launches a case of
# CASES_FILE ("NAME GEN PRODUCTS REGEX", REGEX on the demangled kernel name); kkperm_spgemm
# --setup-repeat 1. Details page and the SASS source page with stall samples into R.
# Usage (GPU host, repo root): BIN=.carry/s46a/new CASES_FILE=F bash scripts/gpu/session46/ncu_count.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run364}
BIN=${BIN:-.carry/s46a/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SourceCounters"
while read -r name gen prods re; do
  [[ -z $name || $name == \#* ]] && continue
  timeout 150 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$re" --launch-count "${COUNT:-2}" \
    $SECTIONS --import-source no -f -o "$R/$name" "$BIN/kkperm_spgemm" --gen "$gen" --products "$prods" --candidates esc \
    --repeat 1 --warmup 0 --setup-repeat 1 > "$R/$name.log" 2>&1
  echo "ncu $name rc=$?" >> "$R/runs.txt"
  ncu --import "$R/$name.ncu-rep" --page details > "$R/${name}_details.txt" 2>&1
  ncu --import "$R/$name.ncu-rep" --page source --csv --print-source sass > "$R/${name}_sass.csv" 2>&1
  gzip -f "$R/$name.ncu-rep" "$R/${name}_sass.csv"
done < "${CASES_FILE:-scripts/gpu/session46/ncu_cases_count.txt}"
pack_run "$TAG"
