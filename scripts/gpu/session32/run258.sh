#!/usr/bin/env bash
# Session 32, run 258: the early stash scan with both size rules (EscSpgemm::early_scan_pays: not for a product the sizes put in the thread bin or above the warp bin)
# against --esc-late-stash-scan, both orders, ROUNDS_AB rounds each (session 30's
# trace_ab.sh); the spgemm_esc test first. Carry .carry/s32h: bin.tgz (kkperm_spgemm, kkperm_amg),
# t/ (test, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session32/run258.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run258}
CARRY=${CARRY:-.carry/s32h}
OLD="--esc-late-stash-scan"
( source scripts/gpu/lib/session_common.sh; HARD_S=100; carry_setup "$CARRY/t" "${TAG}_t" 90
  run_tests 90; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:$OLD@esc" ROUNDS=${ROUNDS_AB:-4} \
  DEADLINE_S=90 HARD_S=115 bash scripts/gpu/session30/trace_ab.sh "${TAG}_a"
S30_CARRY=$CARRY VARIANTS="new:$OLD@esc new@esc,cusparse_alg1" ROUNDS=${ROUNDS_AB:-4} \
  DEADLINE_S=90 HARD_S=115 bash scripts/gpu/session30/trace_ab.sh "${TAG}_b"
ls -la "$OUT"
