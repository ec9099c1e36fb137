#!/usr/bin/env bash
# Session 37, run 297: the validation on a side stream beside the ESC analysis (the default since
# this build) against the validation in line (--plan-validate-in-line), with cuSPARSE ALG1, 4
# rounds, both orders, after the build's tests; then the plan pool's retain threshold below the
# working set: kkperm_amg on the 3D 27-point Laplacian with nx = 100 (its pool peaks near 1 GiB,
# run 296), the default threshold against --pool-retain-mib 512, interleaved, ROUNDS_POOL rounds
# (default 2).
# Carry .carry/s37c: bin.tgz (new/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session37/run297.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run297}
CARRY=${CARRY:-.carry/s37c}
DL_A=${DL_A:-200} HARD_A=${HARD_A:-220} DL_B=${DL_B:-190} HARD_B=${HARD_B:-210} ROUNDS_AB=${ROUNDS_AB:-4} \
  bash scripts/gpu/session33/variant_orders.sh "$TAG" "$CARRY" \
  "new@esc,cusparse_alg1" "new:--plan-validate-in-line@esc"
ELAPSED_S=$SECONDS bash scripts/gpu/session37/amg_pool_rounds.sh "$TAG" "$CARRY" 512
ls -la "$OUT"
