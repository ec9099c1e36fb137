#!/usr/bin/env bash
# Session 32, run 257: 168cb0b (no early stash scan where the sizes put the product in the thread
# bin) against --esc-late-stash-scan, both orders, ROUNDS_AB rounds each (session 30's
# trace_ab.sh); the spgemm_esc test first. Carry .carry/s32g: bin.tgz (kkperm_spgemm, kkperm_amg),
# t/ (test, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session32/run257.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run257}
CARRY=${CARRY:-.carry/s32g}
OLD="--esc-late-stash-scan"
bash scripts/gpu/session32/ab_orders.sh "$TAG" "$CARRY" "$OLD" "${ROUNDS_AB:-4}" 90 115
ls -la "$OUT"
