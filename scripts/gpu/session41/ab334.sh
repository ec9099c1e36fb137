#!/usr/bin/env bash
# Session 41, run 334: setup()'s values-in-count band on the H200, second round: the default (v0),
# the band off (v3: --esc-setup-warp-band-below 0) and the band's rows on two walks (v6:
# --esc-setup-two-walks: bitmap rows sum their values in a second walk instead of staging each
# product in scratch), one binary, interleaved, ROUNDS rounds a order (ORDER a: v0 v3 v6, b: v6 v3
# v0). Products whose warp-row range averages 64-95 products: rows on the bitmap path (2D 5-point
# R(AP), banded A² lower 4 with fill 1 and 0.9, 2D 9-point A²) and on the hash table (uniform
# 10^6 x 8 and x 9 A², random columns); kkperm_amg on the 2D 5-point Laplacian (v0, v3).
# Usage (GPU host, repo root): BIN=.carry/s41a/new bash scripts/gpu/session41/ab334.sh TAG a|b
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run334}
ORDER=${2:-a}
BIN=${BIN:-.carry/s41a/new}
ROUNDS=${ROUNDS:-2}
R=$OUT/$TAG
mkdir -p "$R"
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
if [[ $ORDER == a ]]; then VARS=(v0 v3 v6); else VARS=(v6 v3 v0); fi
CASES=("spgemm|laplace2d5:nx=1000,ny=1000|RAP" "spgemm|banded:n=1000000,lower=4,seed=8|A2"
       "spgemm|banded:n=1000000,lower=4,fill=0.9,seed=8|A2" "spgemm|laplace2d9:nx=1000,ny=1000|A2"
       "spgemm|uniform:rows=1000000,nnz=8,seed=1|A2" "spgemm|uniform:rows=1000000,nnz=9,seed=2|A2"
       "amg|laplace2d5:nx=1000,ny=1000|")
for r in $(seq 1 "$ROUNDS"); do
  for ci in "${!CASES[@]}"; do
    IFS='|' read -r tool gen prods <<< "${CASES[ci]}"
    for v in "${VARS[@]}"; do
      case $v in v3) args="--esc-setup-warp-band-below 0" ;; v6) args="--esc-setup-two-walks" ;; *) args="" ;; esac
      out="$R/${v}_c${ci}_r${r}"
      if [[ $tool == spgemm ]]; then
        timeout 90 "$BIN/kkperm_spgemm" --gen "$gen" --products "$prods" --candidates esc --repeat 5 --warmup 1 \
          --setup-repeat 7 --peak-gbs 4000 $args --json "$out.json" > "$out.log" 2>&1
      else
        [[ $v == v6 ]] && continue
        timeout 90 "$BIN/kkperm_amg" --gen "$gen" --candidates esc --repeat 5 --warmup 1 \
          --setup-repeat 7 --peak-gbs 4000 $args --json "$out.json" > "$out.log" 2>&1
      fi
      echo "$v c$ci r$r rc=$?" >> "$R/runs.txt"
    done
  done
done
gzip -f "$R"/*.json
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
