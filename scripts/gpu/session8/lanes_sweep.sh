#!/usr/bin/env bash
# Session 8 device call: the lane-parallel feature row pass (FeatureParams::row_lanes).
#  1. CUDA feature tests (new binary; every row pass against the serial twin);
#  2. on the 11-matrix generated set, old (thread per row, staged) and new binaries interleaved
#     ROUNDS times (default 2): `kkperm_features --perms none` (validate, set 1, set 2, sets 1+2
#     fused, one KK SpMV; new also sets 1+2 fused with row_lanes LANES, default 1,2,4,8,16,32
#     (runs 40-41 listed 0 first: an automatic lane rule of that build, since removed),
#     and, one thread per row, with row_stage_cols STAGES, default 0,1536,2048 (0 = automatic));
#  3. ncu kernel times of one new feature pass (automatic lanes) on NCU_GENS (default: none).
# Usage (GPU host, repo root): [S8_CARRY=.carry/s8] [DEADLINE_S=480] [LANES=..] [STAGES=..] [ROUNDS=2]
#   bash scripts/gpu/session8/lanes_sweep.sh TAG -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-lanes8}
source scripts/gpu/session8/common.sh
s8_setup "$TAG"
LANES=${LANES:-1,2,4,8,16,32}
STAGES=${STAGES:-0,1536,2048}
cuobjdump -res-usage $NEW/kkperm_features 2>&1 | grep -A1 "RowPassAcc" \
  | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*" | paste - - - - > "$R/res_usage.txt" 2>&1
for rep in $(seq 1 ${ROUNDS:-2}); do
  i=0
  for g in "${S5_GENS[@]}"; do
    i=$((i+1))
    for v in old new; do
      late "$v $g rep $rep" && continue
      b=$OLD; extra=(); [[ $v == new ]] && { b=$NEW; extra=(--row-lanes "$LANES" --stage-cols "$STAGES"); }
      timeout 90 $b/kkperm_features --gen "$g" --repeat 10 --warmup 3 --perms none "${extra[@]}" \
        --json "$R/${v}_${rep}_$i.json" > "$R/${v}_${rep}_$i.log" 2>&1
      echo "$v rep $rep $g rc=$?" >> "$R/runs.txt"
    done
  done
done
ncu_gens none
tests_and_pack "$TAG"
