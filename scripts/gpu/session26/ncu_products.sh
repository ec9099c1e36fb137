#!/usr/bin/env bash
# Session 26: ncu kernel durations (all launches) of single ESC products, to see which kernels
# the gather-plan build (the third numeric) spends its time in.
# Usage (GPU host, repo root): S26_CARRY=.carry/s26 VARIANTS="old new" \
#   CASES="laplace3d7:nx=100@AP laplace3d27:nx=64@A2" bash scripts/gpu/session26/ncu_products.sh TAG
# -> $OUT/TAG.tgz with ncu_<variant>_<i>.csv.gz (duration, grid, block per launch) and runs.txt.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-ncu26}
carry_setup "${S26_CARRY:-.carry/s26}" "$TAG" "${DEADLINE_S:-480}"
read -r -a CS <<< "${CASES:-laplace3d7:nx=100@AP}"
for v in ${VARIANTS:-new}; do
  for i in "${!CS[@]}"; do
    gen=${CS[$i]%@*}; prod=${CS[$i]#*@}
    late "ncu $v $gen $prod" && continue
    timeout "$(capped 200)" ncu --clock-control none --csv --print-units base \
      --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size \
      $C/$v/kkperm_spgemm --gen "$gen" --products "$prod" --candidates esc --repeat 1 --warmup 0 \
      --json "$R/spgemm_${v}_$i.json" 2> "$R/ncu_${v}_$i.err" | gzip > "$R/ncu_${v}_$i.csv.gz"
    echo "ncu $v $i $gen $prod rc=${PIPESTATUS[0]}" >> "$R/runs.txt"
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
