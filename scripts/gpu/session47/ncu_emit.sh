#!/usr/bin/env bash
# Session 47: the ESC count kernels of the R(AP) setups under ncu, one binary's default (variant
# "new") against the same binary with OLD_ARGS (variant "old"): duration, warp and thread
# instructions executed and achieved occupancy of the first launch matching each case of session
# 46's ncu_cases_count.txt (2D 5-point count pass, 3D 7-point valued count pass); --setup-repeat 1.
# Run 369: OLD_ARGS=--esc-emit-all-rounds (the empty-round skip, emit_skip_run369.patch); run 370:
# OLD_ARGS=--esc-dense-readout (the summary read-out).
# Usage (GPU host, repo root): BIN=.carry/s47a/new OLD_ARGS=... bash scripts/gpu/session47/ncu_emit.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run369n}
BIN=${BIN:-.carry/s47a/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
METRICS="gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed.sum"
while read -r name gen prods re; do
  [[ -z $name || $name == \#* ]] && continue
  for v in new old; do
    args=""; [[ $v == old ]] && args=${OLD_ARGS:---esc-dense-readout}
    timeout 120 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$re" --launch-count 1 \
      --metrics "$METRICS" --csv "$BIN/kkperm_spgemm" --gen "$gen" --products "$prods" --candidates esc \
      --repeat 1 --warmup 0 --setup-repeat 1 $args > "$R/${name}_$v.csv" 2> "$R/${name}_$v.err"
    echo "ncu $name $v rc=$?" >> "$R/runs.txt"
  done
done < scripts/gpu/session46/ncu_cases_count.txt
pack_run "$TAG"
