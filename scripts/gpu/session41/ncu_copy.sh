#!/usr/bin/env bash
# Session 41, run 331: ncu (SpeedOfLight, Occupancy, LaunchStats, WarpStateStats,
# MemoryWorkloadAnalysis) of setup()'s stash copy, one launch a case of CASES_FILE
# ("NAME GEN PRODUCTS REGEX"); kkperm_spgemm --setup-repeat 1 reaches it in the first setup.
# Usage (GPU host, repo root): BIN=.carry/s41a/new CASES_FILE=F bash scripts/gpu/session41/ncu_copy.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run331}
BIN=${BIN:-.carry/s41a/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis"
while read -r name gen prods re; do
  [[ -z $name || $name == \#* ]] && continue
  timeout 150 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$re" --launch-count 1 \
    $SECTIONS -f -o "$R/$name" "$BIN/kkperm_spgemm" --gen "$gen" --products "$prods" --candidates esc \
    --repeat 1 --warmup 0 --setup-repeat 1 > "$R/$name.log" 2>&1
  echo "ncu $name rc=$?" >> "$R/runs.txt"
  ncu --import "$R/$name.ncu-rep" --page details > "$R/${name}_details.txt" 2>&1
  gzip -f "$R/$name.ncu-rep"
done < "${CASES_FILE:-scripts/gpu/session41/ncu_cases_copy.txt}"
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
