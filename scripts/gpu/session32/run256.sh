#!/usr/bin/env bash
# Session 32, run 256: the final build against session 31's behaviour (the stash offsets scanned
# after the bin plan's read-back, the symbolic passes' 16 lanes only below a mean of 64 products),
# both orders, ROUNDS_AB rounds each (session 30's trace_ab.sh); the spgemm_esc test first.
# Carry .carry/s32f: bin.tgz (kkperm_spgemm, kkperm_amg), t/ (test, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session32/run256.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run256}
CARRY=${CARRY:-.carry/s32f}
OLD="--esc-late-stash-scan+--esc-symbolic-lanes16-below+64"
( source scripts/gpu/lib/session_common.sh; HARD_S=100; carry_setup "$CARRY/t" "${TAG}_t" 90
  run_tests 90; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:$OLD@esc" ROUNDS=${ROUNDS_AB:-5} \
  DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_a"
S30_CARRY=$CARRY VARIANTS="new:$OLD@esc new@esc,cusparse_alg1" ROUNDS=${ROUNDS_AB:-5} \
  DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_b"
ls -la "$OUT"
