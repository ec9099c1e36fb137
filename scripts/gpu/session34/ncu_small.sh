#!/usr/bin/env bash
# Session 34: ncu (SpeedOfLight, Occupancy, LaunchStats, WarpStateStats, MemoryWorkloadAnalysis,
# SchedulerStats) of the small kernels of the 2D 5-point AMG products' ESC setups: the pair check
# (for_each_hashed), the analysis key kernels (plan_keys_*) and the count statistics, the first
# COUNT launches matching them in a kkperm_spgemm --products AP,RAP run (the AP input's own ESC
# product first: tell the launches apart by grid size in the details).
# Usage (GPU host, repo root): BIN=.carry/s34a/new bash scripts/gpu/session34/ncu_small.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ncusmall}
BIN=${BIN:-.carry/s34a/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
timeout ${HARD_S:-240} ncu --clock-control none --kernel-name-base demangled \
  --kernel-name "regex:for_each_hashed|plan_keys|count_stats" --launch-count ${COUNT:-14} $SECTIONS -f -o "$R/small" \
  "$BIN/kkperm_spgemm" --gen "laplace2d5:nx=1000,ny=1000" --products AP,RAP --candidates esc --repeat 1 --warmup 0 \
  --setup-repeat 1 ${EXTRA:-} > "$R/small.log" 2>&1
echo "ncu small rc=$?" >> "$R/runs.txt"
ncu --import "$R/small.ncu-rep" --page details > "$R/small_details.txt" 2>&1
gzip -f "$R/small.ncu-rep"
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
ls -la "$OUT"
