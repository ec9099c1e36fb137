#!/usr/bin/env bash
# Session 46, run 366: what the L2 traffic of the 2D 5-point R(AP)'s first (searching) numeric is
# made of: ncu MemoryWorkloadAnalysis_Tables (requests and sectors by operation: loads, stores,
# reductions) plus a few L2 and instruction counters, one launch of numeric_warp_rows_launch.
# Usage (GPU host, repo root): BIN=.carry/s46a/new bash scripts/gpu/session46/ncu_l2.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run366}
BIN=${BIN:-.carry/s46a/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
M=lts__t_sectors_op_red.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors.sum,smsp__inst_executed_op_global_red.sum,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed.sum,gpu__time_duration.sum
timeout 150 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:numeric_warp_rows_launch<" \
  --launch-count 1 --section MemoryWorkloadAnalysis_Tables --metrics "$M" -f -o "$R/c2n" "$BIN/kkperm_spgemm" \
  --gen laplace2d5:nx=1000,ny=1000 --products RAP --candidates esc --repeat 1 --warmup 0 --setup-repeat 1 \
  > "$R/c2n.log" 2>&1
echo "ncu c2n rc=$?" >> "$R/runs.txt"
ncu --import "$R/c2n.ncu-rep" --page details --print-details all > "$R/c2n_details.txt" 2>&1
ncu --import "$R/c2n.ncu-rep" --page raw --csv > "$R/c2n_raw.csv" 2>&1
rm -f "$R/c2n.ncu-rep"
pack_run "$TAG"
