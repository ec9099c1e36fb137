#!/usr/bin/env bash
# Session 6: where the thread-per-row feature pass (old binary, .carry/old) stalls: ncu source
# counters (top stall SASS locations), warp-state breakdown and the SASS of the kernel, on uniform
# random rows and the 2D stencil.  Usage (GPU host, repo root): bash scripts/gpu/session6/ncu_source.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-src6}
source scripts/gpu/session5/setup.sh
s5_setup "$TAG"
for g in "uniform:rows=1000000,nnz=8,seed=1" "laplace2d5:nx=1414,ny=1414"; do
  f="$R/old_${g%%:*}"
  timeout 200 ncu --clock-control none --kernel-name-base mangled -k "regex:RowPassAcc" --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --metrics \
smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_branch_resolving,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_drain,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_imc_miss,smsp__pcsamp_sample_count \
    --export "$f" .carry/old/kkperm_features --gen "$g" --repeat 1 --warmup 0 --perms none > "$f.txt" 2>&1
  echo "$g rc=$?" >> "$R/runs.txt"
  ncu --import "$f.ncu-rep" --page source --csv --print-source sass > "$f.sass.csv" 2>&1
  gzip -f "$f.sass.csv"
  rm -f "$f.ncu-rep"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
