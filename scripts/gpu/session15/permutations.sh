#!/usr/bin/env bash
# Session 15 device call: every permutation build (sorts, Hamming orders, DCSR, RCM) and the
# feature sets of the final build on the 11-matrix generated set, one process per matrix
# (`kkperm_features --gen SPEC --repeat 4 --warmup 1 --perms all`: sorts 4 timed builds, Hamming
# orders and RCM one, each after one warm-up), to check issue 3's targets on one build.
# Carry: $S15_CARRY (default .carry/s15g) with new/kkperm_features and matrices/.
# Usage (GPU host, repo root): [S15_CARRY=...] [DEADLINE_S=500] [RUN_TIMEOUT=120]
#   bash scripts/gpu/session15/permutations.sh TAG -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-perms15}
source scripts/gpu/lib/session_common.sh  # carry_setup, feature_setup, late
feature_setup "${S15_CARRY:-.carry/s15g}" "$TAG"
i=0
for g in "${S5_GENS[@]}"; do
  i=$((i+1))
  late "$g" && continue
  timeout ${RUN_TIMEOUT:-120} $NEW/kkperm_features --gen "$g" --repeat 4 --warmup 1 --perms all \
    --json "$R/new_1_$i.json" > "$R/new_1_$i.log" 2>&1
  echo "new $g rc=$?" >> "$R/runs.txt"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
