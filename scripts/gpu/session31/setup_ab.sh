#!/usr/bin/env bash
# Session 31: one device call for the SpGEMM setup changes (validation pass hashes, late verdict,
# analysis lanes, event pool): the carried tests, then session 30's trace_ab.sh A/Bs, each with
# its own deadline so that every part's files come back.
#  1. tests: CARRY/t (kkperm_test_* and matrices, carry_setup layout), tag TAG_t;
#  2. TAG_a: new against the three switches off (session 30's behaviour), ROUNDS_AB rounds;
#  3. TAG_b: the same, variants in the other order;
#  4. TAG_c: each switch off alone;
#  5. TAG_d: the analysis kernel's lanes: session 30's rule (-1), forced to 1, 2, 4, 8, 16, and automatic
#     (kkperm_spgemm only).
# Usage (GPU host, repo root): CARRY=.carry/s31a bash scripts/gpu/session31/setup_ab.sh TAG
# PARTS="t a b c d" picks parts; ROUNDS_AB (default 5), ROUNDS_C (3), ROUNDS_D (2).
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-s31}
CARRY=${CARRY:-.carry/s31a}
PARTS=${PARTS:-t a b c d}
OLD_FLAGS="--plan-separate-hash+--plan-validate-first+--esc-plan-lanes+-1"
for p in $PARTS; do
  case $p in
    t) ( source scripts/gpu/lib/session_common.sh; HARD_S=100; carry_setup "$CARRY/t" "${TAG}_t" 90
         run_tests 90; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" ) ;;
    a) S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:$OLD_FLAGS@esc" ROUNDS=${ROUNDS_AB:-5} \
         DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_a" ;;
    b) S30_CARRY=$CARRY VARIANTS="new:$OLD_FLAGS@esc new@esc,cusparse_alg1" ROUNDS=${ROUNDS_AB:-5} \
         DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_b" ;;
    c) S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:--plan-separate-hash@esc new:--plan-validate-first@esc new:--esc-plan-lanes+-1@esc" \
         ROUNDS=${ROUNDS_C:-3} DEADLINE_S=110 HARD_S=135 bash scripts/gpu/session30/trace_ab.sh "${TAG}_c" ;;
    d) mkdir -p "$CARRY/spgemm_only/new"
       [[ -d $CARRY/new ]] || tar -xzf "$CARRY/bin.tgz" -C "$CARRY"
       cp "$CARRY/new/kkperm_spgemm" "$CARRY/spgemm_only/new/"
       S30_CARRY=$CARRY/spgemm_only VARIANTS="new:--esc-plan-lanes+-1@esc new:--esc-plan-lanes+1@esc new:--esc-plan-lanes+2@esc new:--esc-plan-lanes+4@esc new:--esc-plan-lanes+8@esc new:--esc-plan-lanes+16@esc new@esc" \
         ROUNDS=${ROUNDS_D:-2} DEADLINE_S=110 HARD_S=135 bash scripts/gpu/session30/trace_ab.sh "${TAG}_d" ;;
  esac
done
ls -la "$OUT"
