#!/usr/bin/env bash
# Session 37, run 296: the valued count pass's walk of staged rows with lanes an A entry
# (--esc-setup-walk-lanes: 0 = from B's mean row length, 4) against the flattened walk (the
# default, + cuSPARSE ALG1), 4 rounds, both orders, after the build's tests; then the plan pool's
# retain threshold on a product whose plans hold more than 1 GiB: kkperm_amg on the 3D 27-point
# Laplacian with nx = 100 (10^6 rows), the default threshold against --pool-retain-mib 1024,
# interleaved, ROUNDS_POOL rounds (default 2).
# Carry .carry/s37b: bin.tgz (new/), t/.
# Usage (GPU host, repo root): bash scripts/gpu/session37/run296.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run296}
CARRY=${CARRY:-.carry/s37b}
DL_A=${DL_A:-200} HARD_A=${HARD_A:-220} DL_B=${DL_B:-190} HARD_B=${HARD_B:-210} ROUNDS_AB=${ROUNDS_AB:-4} \
  bash scripts/gpu/session33/variant_orders.sh "$TAG" "$CARRY" \
  "new@esc,cusparse_alg1" "new:--esc-setup-walk-lanes+0@esc" "new:--esc-setup-walk-lanes+4@esc"
ELAPSED_S=$SECONDS bash scripts/gpu/session37/amg_pool_rounds.sh "$TAG" "$CARRY" 1024
ls -la "$OUT"
