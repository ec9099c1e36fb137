#!/usr/bin/env bash
# Session 41, run 332: existing ESC switches on the H200 for the three Laplacian R(AP) setups
# (defaults were tuned on the H100), esc only, each variant a process a matrix, ROUNDS rounds with
# the variants' order reversed every other round.
# Usage (GPU host, repo root): BIN=.carry/s41a/new bash scripts/gpu/session41/sweep332.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run332}
BIN=${BIN:-.carry/s41a/new}
ROUNDS=${ROUNDS:-2}
R=$OUT/$TAG
mkdir -p "$R"
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
VARIANTS=("v0" "v1:--esc-warp-row-lanes+16" "v2:--esc-warp-rows-per-team+4" "v3:--esc-setup-warp-band-below+0"
          "v4:--esc-setup-scratch-sums" "v5:--esc-warp-row-lanes+32")
GENS=("laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100" "laplace3d27:nx=64")
for r in $(seq 1 "$ROUNDS"); do
  order=("${VARIANTS[@]}")
  if (( r % 2 == 0 )); then order=(); for ((i=${#VARIANTS[@]}-1; i>=0; i--)); do order+=("${VARIANTS[i]}"); done; fi
  for gi in "${!GENS[@]}"; do
    for v in "${order[@]}"; do
      name=${v%%:*}; args=""; [[ $v == *:* ]] && args=${v#*:}
      timeout 60 "$BIN/kkperm_spgemm" --gen "${GENS[gi]}" --products RAP --candidates esc --repeat 3 --warmup 1 \
        --setup-repeat 7 --peak-gbs 4000 ${args//+/ } --json "$R/${name}_g${gi}_r${r}.json" > "$R/${name}_g${gi}_r${r}.log" 2>&1
      echo "$name g$gi r$r rc=$?" >> "$R/runs.txt"
    done
  done
done
gzip -f "$R"/*.json
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
