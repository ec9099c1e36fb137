#!/usr/bin/env bash
# Session 35: ncu (SpeedOfLight, Occupancy, LaunchStats, WarpStateStats, InstructionStats,
# MemoryWorkloadAnalysis with tables, SourceCounters) of the first gather-numeric launch of
# kkperm_spgemm runs, one report per case line "NAME GEN PRODUCTS REGEX [TOOL ARGS...]" of
# CASES_FILE. The gather numeric first runs in the third numeric() after setup, so --repeat 1
# reaches it.
# Usage (GPU host, repo root): BIN=.carry/s35a/new CASES_FILE=F bash scripts/gpu/session35/ncu_gather.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ncugather}
BIN=${BIN:-.carry/s35a/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SourceCounters"
while read -r name gen prods re args; do
  [[ -z $name || $name == \#* ]] && continue
  # shellcheck disable=SC2086
  timeout 150 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$re" --launch-count 1 \
    $SECTIONS -f -o "$R/$name" "$BIN/kkperm_spgemm" --gen "$gen" --products "$prods" --candidates esc \
    --repeat 1 --warmup 0 --setup-repeat 1 ${args//+/ } > "$R/$name.log" 2>&1
  echo "ncu $name rc=$?" >> "$R/runs.txt"
  ncu --import "$R/$name.ncu-rep" --page details > "$R/${name}_details.txt" 2>&1
  ncu --import "$R/$name.ncu-rep" --page source --csv --print-source sass 2> "$R/${name}_source.err" | gzip > "$R/${name}_source_sass.csv.gz"
  gzip -f "$R/$name.ncu-rep"
done < "$CASES_FILE"
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
ls -la "$OUT"
