#!/usr/bin/env bash
# Session 33, run 261: a96c9a3, the symbolic passes on 8 lanes a row for range means of 64 up to
# 128 products (EscConfig::symbolic_lanes8_from), against the same binary with
# --esc-symbolic-lanes8-from 0 (session 32's rule: 16 lanes below a mean of 128), both orders,
# ROUNDS_AB rounds each (session 32's ab_orders.sh: the spgemm_esc test first). Carry .carry/s33b:
# bin.tgz (new/: kkperm_spgemm, kkperm_amg), t/ (test, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session33/run261.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run261}
CARRY=${CARRY:-.carry/s33b}
bash scripts/gpu/session32/ab_orders.sh "$TAG" "$CARRY" "--esc-symbolic-lanes8-from+0" "${ROUNDS_AB:-5}" 120 150
ls -la "$OUT"
