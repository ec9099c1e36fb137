#!/usr/bin/env bash
# Session 35, run 285: the fresh-clone CI build of the final source: its SpGEMM-related CUDA test
# executables (spgemm_amg, spgemm_candidates, spgemm_esc, crs_utils, spgemm_features), then its
# kkperm_spgemm / kkperm_amg: defaults (4-byte gather lists; + ALG1, SpGEMMreuse),
# --esc-gather-wide, and the CI build of 4b5bb5b (old); 2 rounds, both orders.
# Carry .carry/s35f: bin.tgz (new/, old/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session35/run285.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-2} bash scripts/gpu/session33/variant_orders.sh "${1:-run285}" "${CARRY:-.carry/s35f}" \
  "new@esc,cusparse_alg1,cusparse_reuse" "new:--esc-gather-wide@esc" "old@esc"
ls -la "$OUT"
