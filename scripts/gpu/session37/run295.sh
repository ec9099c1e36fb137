#!/usr/bin/env bash
# Session 37, run 295: the plan pool's retain threshold and the 3-block valued count pass.
# One build (new/: pool threshold a quarter of the device's memory, setup_count_min_blocks
# switchable), three variants: the defaults (+ cuSPARSE ALG1), the pool threshold of sessions
# 16-36 (--pool-retain-mib 1024), and the 32-lane valued count pass compiled for 3 blocks a SM
# (--esc-setup-count-min-blocks 3). Tests of the build first (spgemm_esc, spgemm_amg,
# spgemm_candidates, timing_atomics). 4 rounds, both orders.
# Carry .carry/s37a: bin.tgz (new/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session37/run295.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
DL_A=${DL_A:-230} HARD_A=${HARD_A:-250} DL_B=${DL_B:-220} HARD_B=${HARD_B:-240} ROUNDS_AB=${ROUNDS_AB:-4} \
  bash scripts/gpu/session33/variant_orders.sh "${1:-run295}" "${CARRY:-.carry/s37a}" \
  "new@esc,cusparse_alg1" "new:--pool-retain-mib+1024@esc" "new:--esc-setup-count-min-blocks+3@esc"
ls -la "$OUT"
