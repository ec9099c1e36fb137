#!/usr/bin/env bash
# Session 32, run 258: e7a2118, the early stash scan with both size rules (EscSpgemm::early_scan_pays:
# not for a product the sizes put in the thread bin or above the warp bin), against
# --esc-late-stash-scan, both orders, ROUNDS_AB rounds each (session 30's trace_ab.sh); the
# spgemm_esc test first. Carry .carry/s32h: bin.tgz (kkperm_spgemm, kkperm_amg),
# t/ (test, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session32/run258.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run258}
CARRY=${CARRY:-.carry/s32h}
OLD="--esc-late-stash-scan"
bash scripts/gpu/session32/ab_orders.sh "$TAG" "$CARRY" "$OLD" "${ROUNDS_AB:-4}" 90 115
ls -la "$OUT"
