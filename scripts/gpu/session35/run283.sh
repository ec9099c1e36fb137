#!/usr/bin/env bash
# Session 35, run 283: the compact gather list's rewrite as a team per tile of 32 C entries
# (coalesced) against run 282's thread-per-entry rewrite (prev) and the 8-byte lists
# (--esc-gather-wide) of the same build. Tests of the new build first. 2 rounds, both orders.
# Carry .carry/s35d: bin.tgz (new/, prev/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session35/run283.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-2} bash scripts/gpu/session33/variant_orders.sh "${1:-run283}" "${CARRY:-.carry/s35d}" \
  "new@esc,cusparse_alg1" "new:--esc-gather-wide@esc" "prev@esc"
ls -la "$OUT"
