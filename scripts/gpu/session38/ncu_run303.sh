#!/usr/bin/env bash
# Session 38, run 303: ncu (SpeedOfLight, Occupancy, LaunchStats, WarpStateStats,
# MemoryWorkloadAnalysis and its tables) of the setup's late kernels: the fill pass's copy of the
# stashed rows (copy_stashed_rows_flat), the count statistics (count_stats) and the row-offset
# scan (cub DeviceScan) of `kkperm_spgemm --products RAP` on the 2D 5-point and 3D 7-point
# Laplacians (first 16 matching launches: AP's come first, then R(AP)'s). Session 37's
# ncu_run300.sh with these kernels.
# Usage (GPU host, repo root): BIN=.carry/s37f/new bash scripts/gpu/session38/ncu_run303.sh TAG
KERNEL_RE="copy_stashed_rows|count_stats|DeviceScan" LAUNCHES=16 \
  EXTRA_SECTIONS="--section MemoryWorkloadAnalysis_Tables" \
  exec bash "$(dirname "$0")/../session37/ncu_run300.sh" "${1:-run303}"
