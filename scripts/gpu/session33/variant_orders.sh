#!/usr/bin/env bash
# Session 33: the common part of runs 260 and 263-265: the carried spgemm_esc test (CARRY/t, tag
# TAG_t), then session 16's spgemm_profile.sh with --trace-setup over the given variants,
# interleaved within each of ROUNDS rounds, in the given order (TAG_a) and the reverse (TAG_b).
# A variant is spgemm_profile.sh's FOLDER[:ARGS][@CANDS] ('+' for spaces). RES (optional): the
# kernels whose register use order a records (res_usage).
# Usage (GPU host, repo root): bash scripts/gpu/session33/variant_orders.sh TAG CARRY VARIANT...
#   env: ROUNDS_AB (default 4), DL_A/HARD_A (200/235), DL_B/HARD_B (190/225)
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=$1 CARRY=$2
shift 2
VA=("$@")
( source scripts/gpu/lib/session_common.sh; HARD_S=80; carry_setup "$CARRY/t" "${TAG}_t" 75
  run_tests 75; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
VB=()
for ((k = ${#VA[@]} - 1; k >= 0; k--)); do VB+=("${VA[$k]}"); done
RES=${RES:-} S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${VA[*]}" ROUNDS=${ROUNDS_AB:-4} \
  DEADLINE_S=${DL_A:-200} HARD_S=${HARD_A:-235} bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_a"
S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${VB[*]}" ROUNDS=${ROUNDS_AB:-4} \
  DEADLINE_S=${DL_B:-190} HARD_S=${HARD_B:-225} bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_b"
ls -la "$OUT"
