#!/usr/bin/env bash
# Session 15 device call: permutation builds (default: all - sorts, Hamming orders, DCSR, RCM)
# and the feature sets on the 11-matrix generated set, one process per matrix and variant
# (`kkperm_features --gen SPEC --repeat REPEAT --warmup 1 --perms PERMS`: sorts REPEAT timed
# builds, Hamming orders and RCM REPEAT / 4, each after one warm-up), variants interleaved per
# matrix, after the carried test executables of every variant but old.
# Carry: $S15_CARRY (default .carry/s15g) with new/ (kkperm_features [, kkperm_test_*]), further
# variant folders (VARIANTS, default "new") and matrices/.
# Run 92: all orders, REPEAT 4, new = commit ebd5733. Run 94: the six Hamming orders, REPEAT 16,
# old = ebd5733, new = the windowed Hamming build's temporaries in the workspace.
# Usage (GPU host, repo root): [S15_CARRY=...] [VARIANTS="old new"] [PERMS=all] [REPEAT=4]
#   [DEADLINE_S=500] [RUN_TIMEOUT=120] bash scripts/gpu/session15/permutations.sh TAG -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-perms15}
source scripts/gpu/lib/session_common.sh  # carry_setup, feature_setup, late, variant_tests
feature_setup "${S15_CARRY:-.carry/s15g}" "$TAG"
VARIANTS=${VARIANTS:-new}
variant_tests 240
i=0
for g in "${S5_GENS[@]}"; do
  i=$((i+1))
  for v in $VARIANTS; do
    late "$v $g" && continue
    timeout ${RUN_TIMEOUT:-120} $C/$v/kkperm_features --gen "$g" --repeat ${REPEAT:-4} --warmup 1 --perms ${PERMS:-all} \
      --json "$R/${v}_1_$i.json" > "$R/${v}_1_$i.log" 2>&1
    echo "$v $g rc=$?" >> "$R/runs.txt"
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
