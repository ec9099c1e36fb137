#!/usr/bin/env bash
# Session 33, run 265: the session's final build (new/: 8 lanes a row for the symbolic passes from
# a mean of 64, global-atomic row sums in the searching numerics and the valued count pass) against
# the same binary with both sums in team scratch (--esc-numeric-scratch-sums
# --esc-setup-scratch-sums) and against session 32's build (old/ = e7a2118), with cuSPARSE ALG1;
# the spgemm_esc test first; then session 16's spgemm_profile.sh with --trace-setup, the variants
# interleaved within each round, in one order (TAG_a) and the reverse (TAG_b).
# Carry .carry/s33f: bin.tgz (old/, new/: kkperm_spgemm, kkperm_amg), t/ (test, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session33/run265.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run265}
CARRY=${CARRY:-.carry/s33f}
( source scripts/gpu/lib/session_common.sh; HARD_S=80; carry_setup "$CARRY/t" "${TAG}_t" 75
  run_tests 75; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
VA=("new@esc,cusparse_alg1" "new:--esc-numeric-scratch-sums+--esc-setup-scratch-sums@esc" "old@esc")
VB=()
for ((k = ${#VA[@]} - 1; k >= 0; k--)); do VB+=("${VA[$k]}"); done
S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${VA[*]}" ROUNDS=${ROUNDS_AB:-5} \
  DEADLINE_S=${DL_A:-200} HARD_S=${HARD_A:-235} bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_a"
S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${VB[*]}" ROUNDS=${ROUNDS_AB:-5} \
  DEADLINE_S=${DL_B:-190} HARD_S=${HARD_B:-225} bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_b"
ls -la "$OUT"
