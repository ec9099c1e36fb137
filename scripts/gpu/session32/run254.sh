#!/usr/bin/env bash
# Session 32, run 254: the symbolic passes' 16-lane threshold (EscConfig::symbolic_lanes16_below,
# 128) against session 31's 64, both orders, ROUNDS_AB rounds each (session 30's trace_ab.sh,
# carry .carry/s32d: kkperm_spgemm, kkperm_amg); the spgemm_esc test (.carry/s32d/t); then
# ncu_source.sh on the -lineinfo build (.carry/s32li).
# Usage (GPU host, repo root): bash scripts/gpu/session32/run254.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run254}
CARRY=${CARRY:-.carry/s32d}
OLD="--esc-symbolic-lanes16-below+64"
bash scripts/gpu/session32/ab_orders.sh "$TAG" "$CARRY" "$OLD" "${ROUNDS_AB:-5}" 100 125
bash scripts/gpu/session32/ncu_source.sh "${TAG}_src"
ls -la "$OUT"
