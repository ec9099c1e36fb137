#!/usr/bin/env bash
# Session 36, run 290: the flat copy with fewer rows a warp when 32 would leave under 4 096 warps
# (default) against the warp-per-row copy (--esc-copy-row-warps); the searching numerics loading 8
# products a lane (--esc-numeric-batch 8); the valued count pass's sums in team scratch with
# staged products (--esc-setup-scratch-sums), alone and with the 2D R(AP) valued
# (--esc-setup-warp-mean 64); staging off (--esc-setup-two-walks). Tests of the new build first
# (spgemm_esc, spgemm_candidates, spgemm_amg). 3 rounds, both orders.
# Carry .carry/s36c: bin.tgz (new/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session36/run290.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
DL_A=${DL_A:-230} HARD_A=${HARD_A:-250} DL_B=${DL_B:-220} HARD_B=${HARD_B:-240} ROUNDS_AB=${ROUNDS_AB:-3} \
  bash scripts/gpu/session33/variant_orders.sh "${1:-run290}" "${CARRY:-.carry/s36c}" \
  "new@esc,cusparse_alg1" "new:--esc-copy-row-warps@esc" "new:--esc-numeric-batch+8@esc" \
  "new:--esc-setup-scratch-sums@esc" "new:--esc-setup-warp-mean+64+--esc-setup-scratch-sums@esc" \
  "new:--esc-setup-two-walks@esc"
ls -la "$OUT"
