#!/usr/bin/env bash
# Session 33, run 264: global-atomic sums in setup()'s valued count pass (--esc-setup-global-sums)
# and in the searching numeric (--esc-numeric-global-sums, as in run 263), alone and together,
# beside the defaults of the same build (the spgemm_esc test first; then session 16's spgemm_profile.sh
# with --trace-setup, the variants interleaved within each round, in one order (TAG_a) and the
# reverse (TAG_b)). Carry .carry/s33e: bin.tgz (new/: kkperm_spgemm, kkperm_amg), t/ (test,
# matrices).
# (The switches of that build, f94d120; e625cae made global sums the default: the switches are now
# --esc-numeric-scratch-sums and --esc-setup-scratch-sums.)
# Usage (GPU host, repo root): bash scripts/gpu/session33/run264.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS_AB=${ROUNDS_AB:-4} bash scripts/gpu/session33/variant_orders.sh "${1:-run264}" "${CARRY:-.carry/s33e}" \
  "new@esc,cusparse_alg1" "new:--esc-setup-global-sums@esc" "new:--esc-numeric-global-sums@esc" "new:--esc-setup-global-sums+--esc-numeric-global-sums@esc"
