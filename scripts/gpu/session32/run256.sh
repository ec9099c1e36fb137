#!/usr/bin/env bash
# Session 32, run 256: 9d3db8b against session 31's behaviour (the stash offsets scanned
# after the bin plan's read-back, the symbolic passes' 16 lanes only below a mean of 64 products),
# both orders, ROUNDS_AB rounds each (session 30's trace_ab.sh); the spgemm_esc test first.
# Carry .carry/s32f: bin.tgz (kkperm_spgemm, kkperm_amg), t/ (test, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session32/run256.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run256}
CARRY=${CARRY:-.carry/s32f}
OLD="--esc-late-stash-scan+--esc-symbolic-lanes16-below+64"
bash scripts/gpu/session32/ab_orders.sh "$TAG" "$CARRY" "$OLD" "${ROUNDS_AB:-5}" 100 125
ls -la "$OUT"
