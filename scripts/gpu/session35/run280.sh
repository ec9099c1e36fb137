#!/usr/bin/env bash
# Session 35, run 280: the gather numeric on warp tiles (a warp per 32 C entries, lists read
# coalesced U products a lane at a time; default U = 8) against a thread per C entry
# (--esc-gather-tile 0, the kernel before) and U = 4 / 16, in one build; plus the CI build of
# 4b5bb5b (old). Tests of the new build first (spgemm_esc, spgemm_candidates). 3 rounds, both
# orders. Carry .carry/s35a: bin.tgz (new/, old/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session35/run280.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-3} bash scripts/gpu/session33/variant_orders.sh "${1:-run280}" "${CARRY:-.carry/s35a}" \
  "new@esc,cusparse_alg1,cusparse_reuse" "new:--esc-gather-tile+0@esc" "new:--esc-gather-tile+4@esc" \
  "new:--esc-gather-tile+16@esc" "old@esc"
ls -la "$OUT"
