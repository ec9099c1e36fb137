#!/usr/bin/env bash
# Session 34, run 274: the final CI build (d5bcc42, fresh clone): its SpGEMM-related CUDA test
# executables (spgemm_amg, spgemm_candidates, spgemm_esc, crs_utils, spgemm_features), then its
# kkperm_spgemm / kkperm_amg against cafa842's (old) and against itself with the session's two
# switches off (--esc-plan-row-threads --esc-row-map-copy); both orders. Carry .carry/s34d:
# bin.tgz (new/, old/), t/ (tests, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session34/run274.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run274}" "${CARRY:-.carry/s34d}" \
  "new@esc,cusparse_alg1" "new:--esc-plan-row-threads+--esc-row-map-copy@esc" "old@esc"
