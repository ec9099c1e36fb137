#!/usr/bin/env bash
# Session 34, run 278: the final fresh-clone CI build: its SpGEMM-related CUDA test executables
# (spgemm_amg, spgemm_candidates, spgemm_esc, crs_utils, spgemm_features), then its
# kkperm_spgemm / kkperm_amg (new) against run 277's new build (old: 79b2eb8, before the key
# kernels' shared row epilogue), 2 rounds, both orders. Carry .carry/s34g: bin.tgz (new/, old/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session34/run278.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-2} bash scripts/gpu/session33/variant_orders.sh "${1:-run278}" "${CARRY:-.carry/s34g}" \
  "new@esc,cusparse_alg1" "old@esc"
