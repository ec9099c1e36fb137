#!/usr/bin/env bash
# Session 32: one device call for the SpGEMM setup changes (the product walk by entry,
# EscConfig::entry_walk_ratio; the stash offsets scanned behind the bin plan's read-back,
# EscConfig::early_stash_scan): the carried tests, session 30's trace_ab.sh A/Bs and session 27's
# ncu kernel durations, each with its own deadline so that every part's files come back.
#  1. t: tests, CARRY/t (kkperm_test_* and matrices, carry_setup layout), tag TAG_t;
#  2. a: new against both switches off (session 31's behaviour), ROUNDS_AB rounds;
#  3. b: the same, variants in the other order;
#  4. c: each switch off alone, the entry walk at ratio 4, and values in the count pass from a mean
#     of 64 products a row (ROUNDS_C rounds);
#  5. n: ncu kernel durations of one setup, new against the walk by product, R(AP) of the three
#     Laplacians and the 3D 7-point A² (kkperm_spgemm).
# Run 251 used it on binaries built with entry_walk_run251.patch applied (--esc-entry-walk; the walk
# by entry lost and is not in the code). Usage (GPU host, repo root):
#   CARRY=.carry/s32a bash scripts/gpu/session32/setup_ab.sh TAG
# PARTS="t a b c n" picks parts; ROUNDS_AB (default 5), ROUNDS_C (3).
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-s32}
CARRY=${CARRY:-.carry/s32a}
PARTS=${PARTS:-t a b c n}
OLD_FLAGS="--esc-entry-walk+0+--esc-late-stash-scan"
for p in $PARTS; do
  case $p in
    t) ( source scripts/gpu/lib/session_common.sh; HARD_S=100; carry_setup "$CARRY/t" "${TAG}_t" 90
         run_tests 90; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" ) ;;
    a) S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:$OLD_FLAGS@esc" ROUNDS=${ROUNDS_AB:-5} \
         DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_a" ;;
    b) S30_CARRY=$CARRY VARIANTS="new:$OLD_FLAGS@esc new@esc,cusparse_alg1" ROUNDS=${ROUNDS_AB:-5} \
         DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_b" ;;
    c) S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:--esc-entry-walk+0@esc new:--esc-late-stash-scan@esc new:--esc-entry-walk+4@esc new:--esc-setup-warp-mean+64@esc" \
         ROUNDS=${ROUNDS_C:-3} DEADLINE_S=110 HARD_S=135 bash scripts/gpu/session30/trace_ab.sh "${TAG}_c" ;;
    n) S27_CARRY=$CARRY VARIANTS="new new:--esc-entry-walk+0" DEADLINE_S=90 \
         CASES="laplace2d5:nx=1000,ny=1000@RAP laplace3d7:nx=100@RAP laplace3d27:nx=64@RAP laplace3d7:nx=100@A2" \
         bash scripts/gpu/session27/ncu_setup.sh "${TAG}_n" ;;
  esac
done
ls -la "$OUT"
