#!/usr/bin/env bash
# Session 38, run 303: ncu (SpeedOfLight, Occupancy, LaunchStats, WarpStateStats,
# MemoryWorkloadAnalysis and its tables) of the setup's late kernels: the fill pass's copy of the
# stashed rows (copy_stashed_rows_flat), the count statistics (count_stats) and the row-offset
# scan (cub DeviceScan) of `kkperm_spgemm --products RAP` on the 2D 5-point and 3D 7-point
# Laplacians (AP's launches come first, then R(AP)'s; the details page names each launch's grid).
# Usage (GPU host, repo root): BIN=.carry/s37f/new bash scripts/gpu/session38/ncu_run303.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run303}
BIN=${BIN:-.carry/s37f/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
for g in "laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100"; do
  name=${g%%:*}
  timeout 200 ncu --clock-control none --kernel-name-base demangled \
    --kernel-name "regex:copy_stashed_rows|count_stats|DeviceScan" \
    --launch-count 16 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables -f -o "$R/$name" "$BIN/kkperm_spgemm" \
    --gen "$g" --products RAP --candidates esc --repeat 1 --warmup 0 --setup-repeat 1 > "$R/$name.log" 2>&1
  echo "ncu $name rc=$?" >> "$R/runs.txt"
  ncu --import "$R/$name.ncu-rep" --page details > "$R/${name}_details.txt" 2>&1
  gzip -f "$R/$name.ncu-rep"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
ls -la "$OUT"
