#!/usr/bin/env bash
# Session 33, run 264: global-atomic sums in setup()'s valued count pass (--esc-setup-global-sums)
# and in the searching numeric (--esc-numeric-global-sums, as in run 263), alone and together,
# beside the defaults of the same build (the spgemm_esc test first; then session 16's spgemm_profile.sh
# with --trace-setup, the variants interleaved within each round, in one order (TAG_a) and the
# reverse (TAG_b)). Carry .carry/s33e: bin.tgz (new/: kkperm_spgemm, kkperm_amg), t/ (test,
# matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session33/run264.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run264}
CARRY=${CARRY:-.carry/s33e}
( source scripts/gpu/lib/session_common.sh; HARD_S=80; carry_setup "$CARRY/t" "${TAG}_t" 75
  run_tests 75; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
VA=("new@esc,cusparse_alg1" "new:--esc-setup-global-sums@esc" "new:--esc-numeric-global-sums@esc"
    "new:--esc-setup-global-sums+--esc-numeric-global-sums@esc")
VB=()
for ((k = ${#VA[@]} - 1; k >= 0; k--)); do VB+=("${VA[$k]}"); done
S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${VA[*]}" ROUNDS=${ROUNDS_AB:-4} \
  DEADLINE_S=${DL_A:-200} HARD_S=${HARD_A:-235} bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_a"
S16_CARRY=$CARRY EXTRA="--trace-setup" NCU= VARIANTS="${VB[*]}" ROUNDS=${ROUNDS_AB:-4} \
  DEADLINE_S=${DL_B:-190} HARD_S=${HARD_B:-225} bash scripts/gpu/session16/spgemm_profile.sh "${TAG}_b"
ls -la "$OUT"
