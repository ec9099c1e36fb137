#!/usr/bin/env bash
# Session 6 (CPU, Serial build): quality of the chunk-exact Hamming orders against the exact greedy
# for chunk sizes 64-1024 on 10^4-row generated matrices (the orders are deterministic and the
# device equals the serial twin, tests/kernels/test_permute_device.cpp, so a Serial build gives the
# same objectives as the GPU). Usage (repo root, after the CPU build in ./build):
#   bash scripts/gpu/session6/hamming_chunk_quality_cpu.sh > out.txt
set -uo pipefail
cd "$(dirname "$0")/../../.."
M=${KKPERM_MATRICES_DIR:-../shared/matrices}/real
HP=warp_aware,cta_aware,hybrid_1,hybrid_2_1,hybrid_2_2,hybrid_2_3
for g in "laplace2d5:nx=100,ny=100" "laplace3d7:nx=22" "laplace3d27:nx=22" "uniform:rows=10000,nnz=8,seed=1" \
         "uniform:rows=10000,nnz_min=1,nnz_max=63,seed=2" "powerlaw:n=10000,deg=8,gamma=2.2,seed=1" \
         "banded:n=10000,lower=4,seed=8" "block:blocks=312,size=32,seed=10" \
         "hypersparse:n=40000,frac=0.05,nnz=32,seed=14" "kron:file=$M/4elt.mtx.gz,nnz=1e5,seed=16"; do
  for c in 64 128 256 512 1024; do
    echo "## $g chunk $c"
    timeout 300 ./build/perf_test/kkperm_features --gen "$g" --repeat 1 --warmup 0 --perms $HP \
      --exact-max-rows 20000 --chunk $c 2>&1 | grep -E "quality_|rows|error"
  done
done
