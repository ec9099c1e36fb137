#!/usr/bin/env bash
# Session 37, run 300 (its second call; the first matched no kernel: Kokkos labels are not in the
# demangled names): ncu (SpeedOfLight, Occupancy, LaunchStats, WarpStateStats,
# MemoryWorkloadAnalysis) of the setup's structure check (check_crs::rows_and_entries) and ESC
# analysis (work_bin_keys*) launches of `kkperm_spgemm --products RAP` on the 2D 5-point and 3D
# 7-point Laplacians (the AP product's launches come first, then R(AP)'s; the details page names
# each launch's grid).
# Usage (GPU host, repo root): BIN=.carry/s37f/new bash scripts/gpu/session37/ncu_run300.sh TAG
#   env (session 38): KERNEL_RE (default "for_each_hashed|plan_keys"), LAUNCHES (8), EXTRA_SECTIONS
#   (more ncu --section arguments)
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run300}
BIN=${BIN:-.carry/s37f/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
for g in "laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100"; do
  name=${g%%:*}
  timeout 200 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:${KERNEL_RE:-for_each_hashed|plan_keys}" \
    --launch-count "${LAUNCHES:-8}" --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis ${EXTRA_SECTIONS:-} -f -o "$R/$name" "$BIN/kkperm_spgemm" --gen "$g" --products RAP --candidates esc \
    --repeat 1 --warmup 0 --setup-repeat 1 > "$R/$name.log" 2>&1
  echo "ncu $name rc=$?" >> "$R/runs.txt"
  ncu --import "$R/$name.ncu-rep" --page details > "$R/${name}_details.txt" 2>&1
  gzip -f "$R/$name.ncu-rep"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
ls -la "$OUT"
