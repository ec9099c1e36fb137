#!/usr/bin/env bash
# Session 34, run 275: which of the session's two switches made run 274's count pass and first
# numeric slower than with both off: the final CI build (d5bcc42) with defaults (+ ALG1),
# --esc-row-map-copy, --esc-plan-row-threads, both; both orders (no tests: t/ holds none).
# Carry .carry/s34e: bin.tgz (new/ = run 274's new/).
# Usage (GPU host, repo root): bash scripts/gpu/session34/run275.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run275}" "${CARRY:-.carry/s34e}" \
  "new@esc,cusparse_alg1" "new:--esc-row-map-copy@esc" "new:--esc-plan-row-threads@esc" \
  "new:--esc-plan-row-threads+--esc-row-map-copy@esc"
