#!/usr/bin/env bash
# Session 34, run 273: the build with the column window's batched loads for 8-lane count launches
# without values only, and the stash-to-C copy on lane groups sized from C's mean row length,
# against cafa842 (run 270's build): defaults (+ ALG1), --esc-setup-warp-mean 64 (the 2D 5-point
# R(AP)'s values in its count pass, then the copy), --esc-copy-lanes 32 (a warp a row, as before),
# old; both orders, the new build's spgemm_esc and spgemm_candidates tests first. Carry .carry/s34c:
# bin.tgz (new/ and old/: kkperm_spgemm, kkperm_amg), t/ (tests, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session34/run273.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run273}" "${CARRY:-.carry/s34c}" \
  "new@esc,cusparse_alg1" "new:--esc-setup-warp-mean+64@esc" "new:--esc-copy-lanes+32@esc" "old@esc"
