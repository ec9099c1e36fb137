#!/usr/bin/env bash
# Session 33, run 262: the plan's validation kernels on kkperm's side stream, beside ESC's
# analysis kernel (SpgemmPlanOptions::validate_on_side_stream, the default of this build), against
# the same binary with --plan-validate-same-stream (session 32's order: validation, then analysis,
# on the default stream), both orders, ROUNDS_AB rounds each (session 32's ab_orders.sh). The
# carried tests first: spgemm_esc, spgemm_candidates (invalid inputs named through the side
# stream; the reuse check's hash taken there) and crs_utils (PairCheck on the side stream).
# Carry .carry/s33c: bin.tgz (new/: kkperm_spgemm, kkperm_amg), t/ (the three tests, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session33/run262.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run262}
CARRY=${CARRY:-.carry/s33c}
bash scripts/gpu/session32/ab_orders.sh "$TAG" "$CARRY" "--plan-validate-same-stream" "${ROUNDS_AB:-5}" 120 150
ls -la "$OUT"
