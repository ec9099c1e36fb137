#!/usr/bin/env bash
# Session 36, run 292: the fresh-clone CI build of c17d0b7 (new: staged products, the flat copy,
# the band [64, 96) of the valued count pass) against the CI build of 43f1d27 (old, session 35's
# final tools), with cuSPARSE ALG1 and SpGEMMreuse. Tests of the CI build first (spgemm_esc,
# spgemm_candidates, spgemm_amg, crs_utils, spgemm_features). 4 rounds, both orders.
# Carry .carry/s36e: bin.tgz (new/, old/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session36/run292.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
DL_A=${DL_A:-230} HARD_A=${HARD_A:-250} DL_B=${DL_B:-220} HARD_B=${HARD_B:-240} ROUNDS_AB=${ROUNDS_AB:-4} \
  bash scripts/gpu/session33/variant_orders.sh "${1:-run292}" "${CARRY:-.carry/s36e}" \
  "new@esc,cusparse_alg1,cusparse_reuse" "old@esc"
ls -la "$OUT"
