#!/usr/bin/env bash
# Session 33, run 268: the searching numerics' warp-row launch compiled for 5 blocks a SM (at most
# 48 registers; --esc-numeric-min-blocks 5) against 4 (the default, 64), one build, both orders
# (the spgemm_esc test first). Carry .carry/s33h: bin.tgz (new/: kkperm_spgemm, kkperm_amg),
# t/ (test, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session33/run268.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
RES=numeric_warp_rows ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run268}" "${CARRY:-.carry/s33h}" \
  "new@esc,cusparse_alg1" "new:--esc-numeric-min-blocks+5@esc"
