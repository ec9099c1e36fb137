#!/usr/bin/env bash
# Session 41, run 335: the uniform-random A² cliff between 8 and 9 entries a row (run 334: 2.0 ms
# against 12.6 ms). ESC with the default lanes, 16 and 32 lanes forced for the symbolic passes
# (--esc-warp-row-lanes), 32 with the values band off, and cuSPARSE ALG1, on uniform 10^6 x
# {8, 9, 10, 12} A², 2 rounds (the second in reverse order).
# Usage (GPU host, repo root): BIN=.carry/s41a/new bash scripts/gpu/session41/lanes335.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run335}
BIN=${BIN:-.carry/s41a/new}
R=$OUT/$TAG
mkdir -p "$R"
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
VARS=("l0@esc" "l16@esc@--esc-warp-row-lanes+16" "l32@esc@--esc-warp-row-lanes+32"
      "l32b@esc@--esc-warp-row-lanes+32+--esc-setup-warp-band-below+0" "alg1@cusparse_alg1")
for r in 1 2; do
  order=("${VARS[@]}")
  if (( r == 2 )); then order=(); for ((i=${#VARS[@]}-1; i>=0; i--)); do order+=("${VARS[i]}"); done; fi
  for k in 8 9 10 12; do
    for v in "${order[@]}"; do
      IFS='@' read -r name cand args <<< "$v"
      out="$R/${name}_k${k}_r${r}"
      timeout 120 "$BIN/kkperm_spgemm" --gen "uniform:rows=1000000,nnz=$k,seed=2" --products A2 --candidates "$cand" \
        --repeat 5 --warmup 1 --setup-repeat 5 --peak-gbs 4000 ${args//+/ } --json "$out.json" > "$out.log" 2>&1
      echo "$name k$k r$r rc=$?" >> "$R/runs.txt"
    done
  done
done
gzip -f "$R"/*.json
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
