#!/usr/bin/env bash
# Session 14 device call: per-(line, stripe) counters in the feature row pass
# (FeatureParams::LineCounts::stripes: one atomic per (row, line) request instead of a per-line
# count and a stripe-bitmap bit).
#  1. CUDA feature tests of the new build (every row pass and both line-count modes against the
#     serial twin);
#  2. ROUNDS times (default 2) over the 11-matrix generated set of sessions 5-11, interleaved per
#     matrix: old (kkperm_features of fed72a2, feature code of session 11) and new (this build)
#     `--perms none --repeat 10 --warmup 3`; new also times sets 1+2 fused with
#     `--line-counts $LINE_COUNTS` (default stripes,bitmap; run 81: stripes,bitmap,hybrid)
#     and `--row-pass entries,rows`;
#  3. ncu (kernel durations) of each variant but old on NCU_GENS (defaults, then both line-count modes).
# Carry: $S14_CARRY (default .carry/s14) with new/ (kkperm_features, kkperm_test_unit_features),
# old/kkperm_features, optional further variants (VARIANTS, default "old new": folders beside
# new/ with the same files) and matrices/ (../shared/matrices). Run 78: new = stripe counters;
# run 79: new = + one finishing kernel, stage = + four staging loads in flight; run 80: new =
# finishing kernel with Nw-scaled line teams; run 81: new = hybrid recording (the default then);
# run 82: v5 = hybrid removed, stripes the default (commit 69a8a55), new = 4x larger line teams;
# run 83: v5 = 69a8a55, new = one walk per row for both sets (the final code).
# Usage (GPU host, repo root): [S14_CARRY=.carry/s14] [VARIANTS="old new"] [DEADLINE_S=480]
#   [ROUNDS=2] [NCU_GENS="..."] bash scripts/gpu/session14/features_lines.sh TAG -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-lines14}
C=${S14_CARRY:-.carry/s14}
[[ -d $C/new ]] || tar -xzf "$C/bin.tgz" -C "$C"
NEW=$C/new
OLD=$C/old
R=$OUT/$TAG
mkdir -p "$R"
DEADLINE_S=${DEADLINE_S:-480}
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
export KKPERM_MATRICES_DIR=$PWD/$C/matrices KKPERM_MATRICES=$PWD/$C/matrices
M=$KKPERM_MATRICES_DIR/real
source scripts/gpu/session5/setup.sh  # s5_gens: the 11-matrix generated set of sessions 5-11
s5_gens "$M"
source scripts/gpu/lib/session_common.sh  # late, res_usage, run_tests, feature_rounds, ncu_gens
VARIANTS=${VARIANTS:-old new}
for v in $VARIANTS; do res_usage RowPassAcc "$C/$v/kkperm_features" "res_usage_$v.txt"; done
variant_tests 240
feature_rounds --line-counts "${LINE_COUNTS:-stripes,bitmap}" --row-pass entries,rows
i=0
for g in ${NCU_GENS:-}; do
  i=$((i+1))
  for v in $VARIANTS; do
    [[ $v == old ]] && continue
    late "ncu $v $g" && continue
    echo "$g" > "$R/ncu_${v}_$i.txt"
    timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size \
      --csv "$C/$v/kkperm_features" --gen "$g" --repeat 1 --warmup 0 --perms none --line-counts "${LINE_COUNTS:-stripes,bitmap}" >> "$R/ncu_${v}_$i.txt" 2> "$R/ncu_${v}_$i.err"
    gzip -f "$R/ncu_${v}_$i.txt"
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
