#!/usr/bin/env bash
# Session 38, run 309: is the fill copy's in-setup time (39-41 µs traced, 2D 5-point R(AP)) the
# cache state the count pass leaves? ncu duration only (one pass) of the setup's late kernels of
# `kkperm_spgemm --products RAP`, with the caches flushed before each kernel (ncu's default) and
# without (--cache-control none: the kernel sees the L2 the previous kernel left).
# Usage (GPU host, repo root): BIN=.carry/s38b/new bash scripts/gpu/session38/ncu_run309.sh TAG
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-run309}
BIN=${BIN:-.carry/s38b/new}
source scripts/gpu/lib/session_common.sh
ncu_setup "$TAG" "$BIN"
for g in "laplace2d5:nx=1000,ny=1000" "laplace3d7:nx=100"; do
  name=${g%%:*}
  for cc in all none; do
    timeout 150 ncu --clock-control none --cache-control $cc --csv --print-units base \
      --metrics gpu__time_duration.sum,launch__grid_size "$BIN/kkperm_spgemm" --gen "$g" --products RAP \
      --candidates esc --repeat 1 --warmup 0 --setup-repeat 1 2> "$R/${name}_$cc.err" | gzip > "$R/${name}_$cc.csv.gz"
    echo "ncu $name cache=$cc rc=${PIPESTATUS[0]}" >> "$R/runs.txt"
  done
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
ls -la "$OUT"
