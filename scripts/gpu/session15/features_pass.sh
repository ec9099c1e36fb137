#!/usr/bin/env bash
# Session 15 device call: the feature row passes as plain kernels adding to device slots (no
# Kokkos reduction epilogue), both automatic passes launched behind the device-side decision
# (no host wait between them), a thread-per-row imbalance pass, and cp.async staging.
#  1. CUDA feature tests of each variant but old;
#  2. ROUNDS times (default 2) over the 11-matrix generated set of sessions 5-14, variants
#     interleaved per matrix (`--perms none --repeat 10 --warmup 3`; all but old also time
#     `--row-pass entries,rows`);
#  3. ncu kernel durations of each variant on NCU_GENS;
#  4. ncu sections (speed of light, occupancy, warp states, raw metrics) of the first kernel
#     matching REGEX of variant NCU_FULL_VARIANT (default new) for each REGEX@GEN of NCU_FULL.
# Carry: $S15_CARRY (default .carry/s15) with old/ (kkperm_features of the code before),
# new/ and further variants (kkperm_features, kkperm_test_unit_features), matrices/.
# Usage (GPU host, repo root): [S15_CARRY=.carry/s15] [VARIANTS="old new"] [DEADLINE_S=480]
#   [ROUNDS=2] [NCU_GENS="..."] [NCU_FULL="regex@gen ..."]
#   bash scripts/gpu/session15/features_pass.sh TAG -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-pass15}
source scripts/gpu/lib/session_common.sh  # feature_setup, late, res_usage, run_tests, feature_rounds
feature_setup "${S15_CARRY:-.carry/s15}" "$TAG"
VARIANTS=${VARIANTS:-old new}
for v in $VARIANTS; do res_usage "rows_staged_pass\|row_pass_entries\|reduce_rows_staged" "$C/$v/kkperm_features" "res_usage_$v.txt"; done
variant_tests 240
feature_rounds --row-pass entries,rows
i=0
for g in ${NCU_GENS:-}; do
  i=$((i+1))
  for v in $VARIANTS; do
    late "ncu $v $g" && continue
    echo "$g" > "$R/ncu_${v}_$i.txt"
    timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
      --csv "$C/$v/kkperm_features" --gen "$g" --repeat 1 --warmup 0 --perms none >> "$R/ncu_${v}_$i.txt" 2> "$R/ncu_${v}_$i.err"
    gzip -f "$R/ncu_${v}_$i.txt"
  done
done
i=0
for kg in ${NCU_FULL:-}; do
  i=$((i+1))
  k=${kg%%@*}; g=${kg#*@}
  v=${NCU_FULL_VARIANT:-new}
  late "ncu full $v $kg" && continue
  echo "$kg" > "$R/ncufull_${v}_$i.txt"
  timeout 120 ncu --clock-control none --kernel-name-base demangled -k "regex:$k" -c 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --print-details all \
    "$C/$v/kkperm_features" --gen "$g" --repeat 1 --warmup 0 --perms none >> "$R/ncufull_${v}_$i.txt" 2> "$R/ncufull_${v}_$i.err"
  timeout 120 ncu --clock-control none --kernel-name-base demangled -k "regex:$k" -c 1 --section WarpStateStats --page raw --csv \
    "$C/$v/kkperm_features" --gen "$g" --repeat 1 --warmup 0 --perms none > "$R/ncuraw_${v}_$i.csv" 2>> "$R/ncufull_${v}_$i.err"
  gzip -f "$R/ncufull_${v}_$i.txt" "$R/ncuraw_${v}_$i.csv"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
