#!/usr/bin/env bash
# Session 8 device call: the lane-parallel feature row pass (FeatureParams::row_lanes).
#  1. CUDA feature tests (new binary; every row pass against the serial twin);
#  2. on the 11-matrix generated set, old (thread per row, staged) and new binaries interleaved
#     ROUNDS times (default 2): `kkperm_features --perms none` (validate, set 1, set 2, sets 1+2
#     fused, one KK SpMV; new also sets 1+2 fused with row_lanes LANES, default 1,2,4,8,16,32
#     (runs 40-41 listed 0 first: an automatic lane rule of that build, since removed),
#     and, one thread per row, with row_stage_cols STAGES, default 0,1536,2048 (0 = automatic));
#  3. ncu kernel times of one new feature pass (automatic lanes) on NCU_GENS (default: none).
# Usage (GPU host, repo root): [S8_CARRY=.carry/s8] [DEADLINE_S=480] [LANES=..] [STAGES=..] [ROUNDS=2]
#   bash scripts/gpu/session8/lanes_sweep.sh TAG -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-lanes8}
source scripts/gpu/session8/common.sh
s8_setup "$TAG"
LANES=${LANES:-1,2,4,8,16,32}
STAGES=${STAGES:-0,1536,2048}
res_usage RowPassAcc
feature_rounds --row-lanes "$LANES" --stage-cols "$STAGES"
ncu_gens none
tests_and_pack "$TAG"
