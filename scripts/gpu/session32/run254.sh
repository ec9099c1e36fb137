#!/usr/bin/env bash
# Session 32, run 254: the symbolic passes' 16-lane threshold (EscConfig::symbolic_lanes16_below,
# 128) against session 31's 64, both orders, ROUNDS_AB rounds each (session 30's trace_ab.sh,
# carry .carry/s32d: kkperm_spgemm, kkperm_amg); the spgemm_esc test (.carry/s32d/t); then
# ncu_source.sh on the -lineinfo build (.carry/s32li).
# Usage (GPU host, repo root): bash scripts/gpu/session32/run254.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run254}
CARRY=${CARRY:-.carry/s32d}
OLD="--esc-symbolic-lanes16-below+64"
( source scripts/gpu/lib/session_common.sh; HARD_S=100; carry_setup "$CARRY/t" "${TAG}_t" 90
  run_tests 90; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:$OLD@esc" ROUNDS=${ROUNDS_AB:-5} \
  DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_a"
S30_CARRY=$CARRY VARIANTS="new:$OLD@esc new@esc,cusparse_alg1" ROUNDS=${ROUNDS_AB:-5} \
  DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_b"
bash scripts/gpu/session32/ncu_source.sh "${TAG}_src"
ls -la "$OUT"
