#!/usr/bin/env bash
# Session 40, run 328: every SpGEMM candidate of the registry (ESC, ESC permuted, KK 3.4's
# SPGEMM_KK and KK_MEMORY, cuSPARSE ALG1/2/3 and SpGEMMreuse) on the Laplacian set, kkperm_spgemm
# (A², AP, R(AP)) and kkperm_amg, one process each, with the byte floor; the binaries of the
# fresh-clone CI build, packed by scripts/gpu/pack_for_gpu.sh --no-build. Issue 5's "table versus
# cuSPARSE and KK" for this build. Results: $OUT/TAG.tgz (spgemm_v0_r1_<m>.json, amg_v0_r1_<m>.json,
# the layout tools/bench/spgemm_floor_table.py and scripts/gpu/session38/fair_ab.py read).
# Usage (GPU host, repo root): [BIN=.carry/kkperm-gpu/perf] bash scripts/gpu/session40/run328.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
source scripts/gpu/lib/session_common.sh
B=${BIN:-.carry/kkperm-gpu/perf}
TAG=${1:-run328}
R=$OUT/$TAG
mkdir -p "$R"
DEADLINE_S=${DEADLINE_S:-480} HARD_S=${HARD_S:-560}
date -u +%Y-%m-%dT%H:%M:%SZ > "$R/date.txt"
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [[ -d $d ]] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
i=0
for g in laplace2d5:nx=1000,ny=1000 laplace3d7:nx=100 laplace3d27:nx=64; do
  for tool in spgemm amg; do
    late "$tool $g" && continue
    timeout "$(capped 150)" "$B/kkperm_$tool" --gen "$g" --candidates all --repeat 10 --warmup 2 \
      --json "$R/${tool}_v0_r1_$i.json" > "$R/${tool}_v0_r1_$i.log" 2>&1
    echo "$tool $g rc=$?" >> "$R/runs.txt"
  done
  i=$((i + 1))
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
