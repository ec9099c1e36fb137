#!/usr/bin/env bash
# Session 41, run 336: 32 lanes forced for the symbolic passes (--esc-warp-row-lanes 32) against the
# default lanes rule on products whose rows fit the register sort at 32 lanes (at most 32 A entries
# and 128 products) but whose windows suit the bitmap: banded A² (lower 4), 2D 9-point A², 2D
# 5-point R(AP), 3D 7-point A² and AP; uniform 10^6 x 9 A² again. 2 rounds, the second reversed.
# Usage (GPU host, repo root): BIN=.carry/s41a/new bash scripts/gpu/session41/lanes336.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run336}
BIN=${BIN:-.carry/s41a/new}
R=$OUT/$TAG
mkdir -p "$R"
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
CASES=("banded:n=1000000,lower=4,seed=8|A2" "laplace2d9:nx=1000,ny=1000|A2" "laplace2d5:nx=1000,ny=1000|RAP"
       "laplace3d7:nx=100|A2,AP" "uniform:rows=1000000,nnz=9,seed=2|A2")
for r in 1 2; do
  if (( r == 1 )); then VARS=(l0 l32); else VARS=(l32 l0); fi
  for ci in "${!CASES[@]}"; do
    IFS='|' read -r gen prods <<< "${CASES[ci]}"
    for v in "${VARS[@]}"; do
      args=""; [[ $v == l32 ]] && args="--esc-warp-row-lanes 32"
      out="$R/${v}_c${ci}_r${r}"
      timeout 120 "$BIN/kkperm_spgemm" --gen "$gen" --products "$prods" --candidates esc --repeat 5 --warmup 1 \
        --setup-repeat 5 --peak-gbs 4000 $args --json "$out.json" > "$out.log" 2>&1
      echo "$v c$ci r$r rc=$?" >> "$R/runs.txt"
    done
  done
done
gzip -f "$R"/*.json
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
