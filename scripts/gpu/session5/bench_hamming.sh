#!/usr/bin/env bash
# Session 5 device call: the chunk-exact Hamming orders (ChunkGreedy) - CUDA test, time and
# quality by chunk size on the stencil and the power-law matrix, quality against the exact greedy
# on 10^4-row matrices, a same-lease A/B of the feature/sort code before and after this session
# (.carry/variant/kkperm_features_team = the code of commit 6a2e257's feature pass), and the
# Hamming orders on the whole generated set of bench_features.sh.
# Usage (GPU host, repo root): bash scripts/gpu/session5/bench_hamming.sh TAG  -> $OUT/TAG.tgz
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ham}
source scripts/gpu/session5/setup.sh
s5_setup "$TAG"
cuobjdump -res-usage $B/kkperm_features 2>&1 | grep -A1 "ChunkGreedy" | grep -o "REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*" \
  | paste - - - - > "$R/res_usage.txt" 2>&1
timeout 200 $B/kkperm_test_kernels_permute_device > "$R/kkperm_test_kernels_permute_device.log" 2>&1
echo "kkperm_test_kernels_permute_device rc=$?" >> "$R/tests.txt"
HP=warp_aware,cta_aware,hybrid_1,hybrid_2_1,hybrid_2_2,hybrid_2_3
for c in 128 256 512; do
  for g in "laplace2d5:nx=1414,ny=1414" "powerlaw:n=1250000,deg=8,gamma=2.2,seed=1"; do
    timeout 45 $B/kkperm_features --gen "$g" --repeat 4 --warmup 1 --perms $HP --chunk $c \
      --json "$R/chunk${c}_${g%%:*}.json" > "$R/chunk${c}_${g%%:*}.log" 2>&1
    echo "chunk $c $g rc=$?" >> "$R/runs.txt"
  done
done
for g in "laplace2d5:nx=100,ny=100" "powerlaw:n=10000,deg=8,gamma=2.2,seed=1" "uniform:rows=10000,nnz=8,seed=1"; do
  timeout 100 $B/kkperm_features --gen "$g" --repeat 2 --warmup 1 --perms $HP --exact-max-rows 20000 \
    --json "$R/quality_${g%%:*}.json" > "$R/quality_${g%%:*}.log" 2>&1
  echo "quality $g rc=$?" >> "$R/runs.txt"
done
for round in 1 2; do
  for v in old new; do
    bin=$B/kkperm_features; [[ $v == old ]] && bin=.carry/variant/kkperm_features_team
    for g in "laplace2d5:nx=1414,ny=1414" "uniform:rows=1000000,nnz=8,seed=1"; do
      timeout 60 $bin --gen "$g" --repeat 10 --warmup 3 --perms identity,plain_sort,lpt \
        --json "$R/ab_${v}_${g%%:*}_$round.json" > "$R/ab_${v}_${g%%:*}_$round.log" 2>&1
    done
  done
done
GENS=(
  "laplace3d7:nx=100" "laplace3d27:nx=70" "uniform:rows=1000000,nnz=8,seed=1"
  "uniform:rows=300000,nnz_min=1,nnz_max=63,seed=2" "banded:n=1000000,lower=4,seed=8"
  "block:blocks=10000,size=32,seed=10" "hypersparse:n=4000000,frac=0.05,nnz=32,seed=14"
  "kron:file=$M/4elt.mtx.gz,nnz=1e7,seed=16" "arrow:n=1000000,dense_rows=2,dense_cols=2,seed=12"
)
i=0
for g in "${GENS[@]}"; do
  i=$((i+1))
  (( SECONDS + 35 < ${DEADLINE_S:-560} )) || { echo "set $g skipped (deadline)" >> "$R/runs.txt"; continue; }
  timeout 35 $B/kkperm_features --gen "$g" --repeat 4 --warmup 1 --perms $HP \
    --json "$R/set_$i.json" > "$R/set_$i.log" 2>&1
  echo "set $g rc=$?" >> "$R/runs.txt"
done
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
