#!/usr/bin/env bash
# Session 35, run 282: the gather plan's lists in 4 bytes a product (default) against the 8-byte
# lists (--esc-gather-wide) in one build, and the CI build of 4b5bb5b (old). Tests of the new
# build first (spgemm_esc, spgemm_candidates). 3 rounds, both orders. Carry .carry/s35c: bin.tgz
# (new/, old/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session35/run282.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-3} bash scripts/gpu/session33/variant_orders.sh "${1:-run282}" "${CARRY:-.carry/s35c}" \
  "new@esc,cusparse_alg1,cusparse_reuse" "new:--esc-gather-wide@esc" "old@esc"
ls -la "$OUT"
