#!/usr/bin/env bash
# Session 32: the common part of runs 254-258: the carried test executables (CARRY/t, tag TAG_t),
# then new against the OLD flags in both orders (TAG_a: new first, TAG_b: OLD first), ROUNDS rounds
# each, through session 30's trace_ab.sh (kkperm_spgemm and kkperm_amg of CARRY, candidates esc and
# cusparse_alg1 for new, esc for OLD). OLD: extra arguments with '+' for spaces.
# Usage (GPU host, repo root): bash scripts/gpu/session32/ab_orders.sh TAG CARRY OLD [ROUNDS DEADLINE_S HARD_S]
#   (defaults 5, 100, 125)
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=$1 CARRY=$2 OLD=$3 ROUNDS=${4:-5} DEADLINE=${5:-100} HARD=${6:-125}
( source scripts/gpu/lib/session_common.sh; HARD_S=100; carry_setup "$CARRY/t" "${TAG}_t" 90
  run_tests 90; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" )
S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:$OLD@esc" ROUNDS=$ROUNDS \
  DEADLINE_S=$DEADLINE HARD_S=$HARD bash scripts/gpu/session30/trace_ab.sh "${TAG}_a"
S30_CARRY=$CARRY VARIANTS="new:$OLD@esc new@esc,cusparse_alg1" ROUNDS=$ROUNDS \
  DEADLINE_S=$DEADLINE HARD_S=$HARD bash scripts/gpu/session30/trace_ab.sh "${TAG}_b"
