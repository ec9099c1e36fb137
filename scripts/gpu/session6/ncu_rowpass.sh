#!/usr/bin/env bash
# Session 6: ncu detail (launch stats, occupancy, scheduler/warp-state stalls, memory workload) of
# the fused feature row pass (sets 1+2, second feature call of `--perms none`), old binary
# (.carry/old, thread per row) and new (.carry/s6), on the 2D stencil, uniform random rows and
# hypersparse rows.  Usage (GPU host, repo root): bash scripts/gpu/session6/ncu_rowpass.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ncu6}
source scripts/gpu/session5/setup.sh
s5_setup "$TAG"
for v in old new; do
  b=.carry/old; k="regex:RowPassAcc"
  [[ $v == new ]] && { b=.carry/s6; k="regex:row_pass"; }
  for g in "laplace2d5:nx=1414,ny=1414" "uniform:rows=1000000,nnz=8,seed=1" "hypersparse:n=4000000,frac=0.05,nnz=32,seed=14"; do
    f="$R/${v}_${g%%:*}.txt"
    # launches of the row pass: set 1, set 2, sets 1+2; skip 2 -> the fused one
    timeout 150 ncu --clock-control none --kernel-name-base mangled -k "$k" --launch-skip 2 --launch-count 1 \
      --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
      --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section SpeedOfLight \
      $b/kkperm_features --gen "$g" --repeat 1 --warmup 0 --perms none > "$f" 2>&1
    echo "$v $g rc=$?" >> "$R/runs.txt"
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
