#!/usr/bin/env bash
# Session 32, run 255: copies of a row's sums in setup()'s count pass with values
# (EscConfig::sum_copy_lanes 4, was 8) and of the first numeric's accumulators
# (EscConfig::numeric_copy_lanes 4, was one copy a row), against both as before, in both orders
# (ROUNDS_AB rounds, session 30's trace_ab.sh); each alone and other copy widths (part c,
# ROUNDS_C rounds); ncu kernel durations of the R(AP) setups (session 27's ncu_setup.sh); the
# spgemm_esc test first. Carry .carry/s32e: bin.tgz (kkperm_spgemm, kkperm_amg), t/ (test, matrices),
# built with copies_run255.patch applied (its --esc-*-copy-lanes flags are not in the code).
# Usage (GPU host, repo root): bash scripts/gpu/session32/run255.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run255}
CARRY=${CARRY:-.carry/s32e}
OLD="--esc-sum-copy-lanes+8+--esc-numeric-copy-lanes+0"
bash scripts/gpu/session32/ab_orders.sh "$TAG" "$CARRY" "$OLD" "${ROUNDS_AB:-5}" 100 125
S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:--esc-sum-copy-lanes+8@esc new:--esc-numeric-copy-lanes+0@esc new:--esc-sum-copy-lanes+2+--esc-numeric-copy-lanes+2@esc new:--esc-numeric-copy-lanes+1@esc" \
  ROUNDS=${ROUNDS_C:-3} DEADLINE_S=110 HARD_S=135 bash scripts/gpu/session30/trace_ab.sh "${TAG}_c"
S27_CARRY=$CARRY VARIANTS="new new:$OLD" DEADLINE_S=60 \
  CASES="laplace2d5:nx=1000,ny=1000@RAP laplace3d7:nx=100@RAP laplace3d27:nx=64@RAP" \
  bash scripts/gpu/session27/ncu_setup.sh "${TAG}_n"
ls -la "$OUT"
