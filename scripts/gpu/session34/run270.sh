#!/usr/bin/env bash
# Session 34, run 270: the analysis kernel's row chunks (a warp loads 32 short rows' entries
# together; --esc-plan-row-threads for a row a thread) and C's row offsets scanned into a block of
# their own (--esc-row-map-copy for the workspace scan and the copy kernel), one build, three
# variants: defaults (+ ALG1), row threads, both switches off (session 33's behaviour but for the
# missing-flag reset folded into the count statistics); both orders, the spgemm_esc and
# spgemm_candidates tests first. Carry .carry/s34a: bin.tgz (new/: kkperm_spgemm, kkperm_amg),
# t/ (tests, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session34/run270.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
RES=work_bin_keys ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run270}" "${CARRY:-.carry/s34a}" \
  "new@esc,cusparse_alg1" "new:--esc-plan-row-threads@esc" "new:--esc-plan-row-threads+--esc-row-map-copy@esc"
