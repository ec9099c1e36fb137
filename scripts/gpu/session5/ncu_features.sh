#!/usr/bin/env bash
# Session 5: kernel durations (ncu gpu__time_duration) of one feature pass (sets 1+2 fused, the
# second call of kkperm_features' --perms none sequence) on matrices where it costs > 3 SpMV-eq.
# Usage (GPU host, repo root): bash scripts/gpu/session5/ncu_features.sh TAG  -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ncu}
B=.carry/s5
R=$OUT/$TAG; mkdir -p "$R"
M=$PWD/.carry/kkperm-gpu/matrices/real
i=0
for g in "uniform:rows=1000000,nnz=8,seed=1" "hypersparse:n=4000000,frac=0.05,nnz=32,seed=14" \
         "kron:file=$M/4elt.mtx.gz,nnz=1e7,seed=16" "uniform:rows=300000,nnz_min=1,nnz_max=63,seed=2" \
         "laplace3d27:nx=70"; do
  i=$((i+1))
  echo "$g" > "$R/ncu_$i.txt"
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size \
    --csv $B/kkperm_features --gen "$g" --repeat 1 --warmup 0 --perms none >> "$R/ncu_$i.txt" 2> "$R/ncu_$i.err"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
