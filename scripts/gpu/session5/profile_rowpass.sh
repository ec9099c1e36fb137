#!/usr/bin/env bash
# Session 5, device call 1: where the time of one feature pass and of the sorts goes on the
# stencil (laplace2d5 1414^2, 10 M nnz). ncu "detailed" set on the fused row-pass kernel of
# sets 1+2, and every kernel's duration for one features pass and one plain_sort / lpt build
# (the wall times of the same builds come from the kkperm_features log).
# Usage (GPU host, repo root): bash scripts/gpu/session5/profile_rowpass.sh BIN   -> $OUT/prof.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
BIN=${1:-.carry/variant/kkperm_features_team}
R=$OUT/prof; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$R/nvidia-smi.txt" 2>&1
G=laplace2d5:nx=1414,ny=1414
timeout 100 $BIN --gen $G --repeat 10 --warmup 3 --perms plain_sort,lpt,cta_aware --json "$R/wall.json" > "$R/wall.log" 2>&1
timeout 150 ncu --clock-control none --kernel-name-base demangled --kernel-name regex:'spmv_features_raw' \
  --launch-skip 0 --launch-count 3 --set detailed $BIN --gen $G --repeat 1 --warmup 0 --perms none \
  > "$R/ncu_rowpass.txt" 2> "$R/ncu_rowpass.err"
timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv $BIN --gen $G --repeat 2 --warmup 0 \
  --perms plain_sort,lpt > "$R/ncu_kernels.csv" 2> "$R/ncu_kernels.err"
tar -czf "$OUT/prof.tgz" -C "$OUT" prof && rm -rf "$R"
