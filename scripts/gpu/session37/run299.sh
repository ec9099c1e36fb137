#!/usr/bin/env bash
# Session 37, run 299: the fresh-clone CI build of the final code (new/: the pool threshold, the
# setup() warm-up in kkperm_amg) with cuSPARSE ALG1, against session 36's CI build of c17d0b7
# (old/), 4 rounds, both orders, after the CI build's tests (spgemm_esc, spgemm_amg,
# spgemm_candidates, crs_utils, spgemm_features, timing_atomics).
# Carry .carry/s37e: bin.tgz (new/, old/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session37/run299.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
DL_A=${DL_A:-230} HARD_A=${HARD_A:-250} DL_B=${DL_B:-220} HARD_B=${HARD_B:-240} ROUNDS_AB=${ROUNDS_AB:-4} \
  bash scripts/gpu/session33/variant_orders.sh "${1:-run299}" "${CARRY:-.carry/s37e}" \
  "new@esc,cusparse_alg1" "old@esc"
ls -la "$OUT"
