#!/usr/bin/env bash
# Session 41, run 333: setup()'s values-in-count band (EscConfig::setup_warp_values_band_*, warp-row
# ranges averaging 64-95 products) on the H200: the default (v0) against the band off
# (v3: --esc-setup-warp-band-below 0: such ranges get the unvalued count pass and the first
# numeric), one binary, the two variants interleaved, ROUNDS rounds a order (ORDER a: v0 first, b: v3
# first). kkperm_spgemm on the 2D 5- and 9-point Laplacians (A², AP, R(AP)), the 3D 7-point R(AP)
# (mean 316, outside the band: control), the uniform 10^6 x 8 and banded (lower 4) A² (means 64 and
# 81); kkperm_amg on the 2D 5-point Laplacian.
# Usage (GPU host, repo root): BIN=.carry/s41a/new bash scripts/gpu/session41/ab333.sh TAG a|b
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run333}
ORDER=${2:-a}
BIN=${BIN:-.carry/s41a/new}
ROUNDS=${ROUNDS:-2}
R=$OUT/$TAG
mkdir -p "$R"
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
if [[ $ORDER == a ]]; then VARS=(v0 v3); else VARS=(v3 v0); fi
CASES=("spgemm|laplace2d5:nx=1000,ny=1000|A2,AP,RAP" "spgemm|laplace2d9:nx=1000,ny=1000|A2,AP,RAP"
       "spgemm|laplace3d7:nx=100|RAP" "spgemm|uniform:rows=1000000,nnz=8,seed=1|A2"
       "spgemm|banded:n=1000000,lower=4,seed=8|A2" "amg|laplace2d5:nx=1000,ny=1000|")
for r in $(seq 1 "$ROUNDS"); do
  for ci in "${!CASES[@]}"; do
    IFS='|' read -r tool gen prods <<< "${CASES[ci]}"
    for v in "${VARS[@]}"; do
      args=""; [[ $v == v3 ]] && args="--esc-setup-warp-band-below 0"
      out="$R/${v}_c${ci}_r${r}"
      if [[ $tool == spgemm ]]; then
        timeout 90 "$BIN/kkperm_spgemm" --gen "$gen" --products "$prods" --candidates esc --repeat 5 --warmup 1 \
          --setup-repeat 7 --peak-gbs 4000 $args --json "$out.json" > "$out.log" 2>&1
      else
        timeout 90 "$BIN/kkperm_amg" --gen "$gen" --candidates esc --repeat 5 --warmup 1 \
          --setup-repeat 7 --peak-gbs 4000 $args --json "$out.json" > "$out.log" 2>&1
      fi
      echo "$v c$ci r$r rc=$?" >> "$R/runs.txt"
    done
  done
done
gzip -f "$R"/*.json
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
