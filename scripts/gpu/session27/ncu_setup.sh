#!/usr/bin/env bash
# Session 27: ncu kernel durations (all launches) of single ESC products, one setup and the
# numerics kkperm_spgemm times, per variant, to see which kernels a setup variant changes.
# A variant is FOLDER[:EXTRA ARGS] with '+' for spaces ("new:--esc-setup-split").
# Usage (GPU host, repo root): S27_CARRY=.carry/s27 VARIANTS="new new:--esc-setup-split" \
#   CASES="laplace3d7:nx=100@A2 laplace2d5:nx=1000,ny=1000@RAP" bash scripts/gpu/session27/ncu_setup.sh TAG
# -> $OUT/TAG.tgz with ncu_v<variant index>_<case index>.csv.gz (duration, grid, block per launch).
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
TAG=${1:-ncu27}
carry_setup "${S27_CARRY:-.carry/s27}" "$TAG" "${DEADLINE_S:-480}"
read -r -a CS <<< "${CASES:-laplace3d7:nx=100@A2}"
read -r -a V <<< "${VARIANTS:-new}"
for vi in "${!V[@]}"; do
  v=${V[$vi]}; d=${v%%:*}; extra=""; [[ $v == *:* ]] && extra=${v#*:}; extra=${extra//+/ }
  for i in "${!CS[@]}"; do
    gen=${CS[$i]%@*}; prod=${CS[$i]#*@}
    late "ncu $v $gen $prod" && continue
    timeout "$(capped 200)" ncu --clock-control none --csv --print-units base \
      --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size \
      $C/$d/kkperm_spgemm --gen "$gen" --products "$prod" --candidates esc --repeat 1 --warmup 0 \
      --setup-repeat 1 $extra --json "$R/spgemm_v${vi}_$i.json" 2> "$R/ncu_v${vi}_$i.err" | gzip > "$R/ncu_v${vi}_$i.csv.gz"
    echo "ncu v$vi=$v $i $gen $prod rc=${PIPESTATUS[0]}" >> "$R/runs.txt"
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
