#!/usr/bin/env bash
# Session 11 device call: skewed staging of the thread-per-row feature pass.
#  1. CUDA tests of the new binaries (every row pass against the serial twin);
#  2. on the 11-matrix generated set, ROUNDS times (default 2) interleaved per matrix: old
#     (a46ec49), new (this build) and, when the carry has it, a third build in the folder named by
#     THIRD (default mb5: run 55's launch bounds of 5 blocks per SM; run 56: skew = run 55's new)
#     kkperm_features `--perms none` (validate, set 1, set 2, sets 1+2 fused, one KK SpMV); new
#     and the third also time sets 1+2 fused with `--row-pass automatic,entries,rows`;
#  3. cuobjdump -res-usage of the row-pass kernels of each binary.
# Usage (GPU host, repo root): [S11_CARRY=.carry/s11d] [THIRD=mb5] [DEADLINE_S=400] [ROUNDS=2]
#   bash scripts/gpu/session11/skew_ab.sh TAG -> $OUT/TAG.tgz.
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-skew11}
S8_CARRY=${S11_CARRY:-.carry/s11d}
source scripts/gpu/session8/common.sh
s8_setup "$TAG"
VARIANTS="old new"
THIRD=${THIRD:-mb5}
[[ -x $S8_CARRY/$THIRD/kkperm_features ]] && VARIANTS="old new $THIRD"
for v in $VARIANTS; do res_usage RowPassAcc $S8_CARRY/$v/kkperm_features res_usage_$v.txt; done
run_tests 240
feature_rounds --row-pass automatic,entries,rows
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
