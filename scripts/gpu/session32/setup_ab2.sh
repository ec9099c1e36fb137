#!/usr/bin/env bash
# Session 32, second build: one device call for
#  - the stash offsets scanned behind the bin plan's read-back (EscConfig::early_stash_scan, off
#    with --esc-late-stash-scan), and
#  - setup()'s values in the count pass, which run 251's ncu put behind the split (count pass, then
#    the first numeric writing the stashed columns) on the 3D 7-point R(AP): 736 µs against
#    259 + 418 µs.
# Parts (each with its own deadline so that every part's files come back):
#  1. t: tests, CARRY/t (kkperm_test_* and matrices, carry_setup layout), tag TAG_t;
#  2. a: new against --esc-late-stash-scan, ROUNDS_AB rounds; 3. b: the other order;
#  4. c: values in the count pass: new, none for the warp-row range (--esc-setup-warp-mean 0), none
#     for the block bin (--esc-setup-no-block-values), neither, and --esc-setup-split (ROUNDS_C);
#  5. n: ncu kernel durations, new against --esc-setup-warp-mean 0, --esc-setup-split, and
#     --esc-setup-warp-mean 0 with the first numeric on 16 and on 8 lanes a row, R(AP) of the three
#     Laplacians.
#  6. d (not in the default PARTS): lanes a row of the symbolic passes forced to 16 (the first
#     numeric kept at 8), against new, ROUNDS_D rounds (default 3), both orders.
# Usage (GPU host, repo root): CARRY=.carry/s32b bash scripts/gpu/session32/setup_ab2.sh TAG
# PARTS="t a b c n" picks parts; ROUNDS_AB (default 5), ROUNDS_C (3).
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-s32b}
CARRY=${CARRY:-.carry/s32b}
PARTS=${PARTS:-t a b c n}
NOV="--esc-setup-warp-mean+0"
NOB="--esc-setup-no-block-values"
for p in $PARTS; do
  case $p in
    t) ( source scripts/gpu/lib/session_common.sh; HARD_S=100; carry_setup "$CARRY/t" "${TAG}_t" 90
         run_tests 90; tar -czf "$OUT/${TAG}_t.tgz" -C "$OUT" "${TAG}_t" && rm -rf "$R" ) ;;
    a) S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:--esc-late-stash-scan@esc" ROUNDS=${ROUNDS_AB:-5} \
         DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_a" ;;
    b) S30_CARRY=$CARRY VARIANTS="new:--esc-late-stash-scan@esc new@esc,cusparse_alg1" ROUNDS=${ROUNDS_AB:-5} \
         DEADLINE_S=100 HARD_S=125 bash scripts/gpu/session30/trace_ab.sh "${TAG}_b" ;;
    c) S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:$NOV@esc new:$NOB@esc new:$NOV+$NOB@esc new:--esc-setup-split@esc" \
         ROUNDS=${ROUNDS_C:-3} DEADLINE_S=110 HARD_S=135 bash scripts/gpu/session30/trace_ab.sh "${TAG}_c" ;;
    n) S27_CARRY=$CARRY VARIANTS="new new:$NOV new:--esc-setup-split new:$NOV+--esc-numeric-lanes+16 new:$NOV+--esc-numeric-lanes+8" DEADLINE_S=140 \
         CASES="laplace2d5:nx=1000,ny=1000@RAP laplace3d7:nx=100@RAP laplace3d27:nx=64@RAP" \
         bash scripts/gpu/session27/ncu_setup.sh "${TAG}_n" ;;
    d) S30_CARRY=$CARRY VARIANTS="new@esc,cusparse_alg1 new:--esc-warp-row-lanes+16+--esc-numeric-lanes+8@esc new@esc" \
         ROUNDS=${ROUNDS_D:-3} DEADLINE_S=110 HARD_S=135 bash scripts/gpu/session30/trace_ab.sh "${TAG}_d" ;;
  esac
done
ls -la "$OUT"
