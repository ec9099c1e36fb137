#!/usr/bin/env bash
# Session 33, run 263: the searching numeric's sums in C's values with global atomics
# (--esc-numeric-global-sums) and its lanes (--esc-numeric-lanes 16), alone and together, beside
# the defaults of the same build (the spgemm_esc test first; then session 16's spgemm_profile.sh
# with --trace-setup, the variants interleaved within each round, in one order (TAG_a) and the
# reverse (TAG_b)). Carry .carry/s33d: bin.tgz (new/: kkperm_spgemm, kkperm_amg), t/ (test,
# matrices).
# (--esc-numeric-global-sums is the switch of that build, 4bf6051; e625cae made global sums the
# default and renamed the switch --esc-numeric-scratch-sums.)
# Usage (GPU host, repo root): bash scripts/gpu/session33/run263.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run263}" "${CARRY:-.carry/s33d}" \
  "new@esc,cusparse_alg1" "new:--esc-numeric-global-sums@esc" "new:--esc-numeric-lanes+16@esc" "new:--esc-numeric-global-sums+--esc-numeric-lanes+16@esc"
