#!/usr/bin/env bash
# Session 36, run 289: setup()'s valued count pass summing bitmap rows from staged products and
# the fill pass's copy of stashed rows with a warp per 32 rows (both default) against the second
# walk (--esc-setup-two-walks), the warp-per-row copy (--esc-copy-row-warps) and both (session
# 35's behaviour); and the warp-row range's values in the count pass from a mean of 64 products
# (2D 5-point R(AP), 3D 27-point AP) with and without staging. Tests of the new build first
# (spgemm_esc, spgemm_candidates, spgemm_amg). 3 rounds, both orders.
# Carry .carry/s36b: bin.tgz (new/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session36/run289.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
DL_A=${DL_A:-230} HARD_A=${HARD_A:-250} DL_B=${DL_B:-220} HARD_B=${HARD_B:-240} ROUNDS_AB=${ROUNDS_AB:-3} bash scripts/gpu/session33/variant_orders.sh "${1:-run289}" "${CARRY:-.carry/s36b}" \
  "new@esc,cusparse_alg1" "new:--esc-setup-two-walks@esc" "new:--esc-copy-row-warps@esc" \
  "new:--esc-setup-two-walks+--esc-copy-row-warps@esc" "new:--esc-setup-warp-mean+64@esc" \
  "new:--esc-setup-warp-mean+64+--esc-setup-two-walks@esc"
ls -la "$OUT"
