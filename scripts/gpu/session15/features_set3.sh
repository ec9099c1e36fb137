#!/usr/bin/env bash
# Session 15 device call: feature set 3 (SpGEMM features of C = A·A) in SpMV-equivalents next to
# sets 1 and 2, on the 11-matrix generated set of sessions 5-15 (`kkperm_features --perms none
# --repeat 10 --warmup 3`, ROUNDS times, default 2), after the carried test executables.
# Carry: $S15_CARRY (default .carry/s15f) with new/kkperm_features [, new/kkperm_test_*] and
# matrices/. Run 90: before the sample's work cap; run 91: with it.
# Usage (GPU host, repo root): [S15_CARRY=...] [ROUNDS=2] [DEADLINE_S=400]
#   bash scripts/gpu/session15/features_set3.sh TAG -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-set3}
source scripts/gpu/lib/session_common.sh  # feature_setup, late, res_usage, run_tests, feature_rounds
feature_setup "${S15_CARRY:-.carry/s15f}" "$TAG"
run_tests 240
VARIANTS=new feature_rounds
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
