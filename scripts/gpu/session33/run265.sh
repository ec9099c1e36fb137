#!/usr/bin/env bash
# Session 33, run 265: the session's final build (new/: 8 lanes a row for the symbolic passes from
# a mean of 64, global-atomic row sums in the searching numerics and the valued count pass) against
# the same binary with both sums in team scratch (--esc-numeric-scratch-sums
# --esc-setup-scratch-sums) and against session 32's build (old/ = e7a2118), with cuSPARSE ALG1;
# the spgemm_esc test first; then session 16's spgemm_profile.sh with --trace-setup, the variants
# interleaved within each round, in one order (TAG_a) and the reverse (TAG_b).
# Carry .carry/s33f: bin.tgz (old/, new/: kkperm_spgemm, kkperm_amg), t/ (test, matrices).
# Usage (GPU host, repo root): bash scripts/gpu/session33/run265.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-5} bash scripts/gpu/session33/variant_orders.sh "${1:-run265}" "${CARRY:-.carry/s33f}" \
  "new@esc,cusparse_alg1" "new:--esc-numeric-scratch-sums+--esc-setup-scratch-sums@esc" "old@esc"
