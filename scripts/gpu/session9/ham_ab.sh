#!/usr/bin/env bash
# Session 9 device call: the Hamming orders' chunk greedy with bit-mask distances, empty-chunk
# shortcut and one packed reduction per step (windowed_hamming.hpp).
#  1. CUDA tests (new binaries; every distance path against the exact greedy per chunk);
#  2. the six Hamming orders (chunk 256) on the 11-matrix generated set, old and new binaries
#     interleaved (`kkperm_features --perms <6 orders> --repeat 4 --warmup 1`); the old binary
#     skips OLD_SKIP (default: the power-law, 1-63-per-row and arrow matrices, which took
#     minutes per order in run 26);
#  3. new binary, chunk sizes CHUNKS (default 512,1024) on CHUNK_GENS (default: 2D/3D stencils);
#  4. new binary, line bounds LINE_BOUNDS (--chunk-lines, default: none) on LINE_GENS (default:
#     the 1-63-per-row matrix);
#  5. ncu kernel times of the new Hamming builds on NCU_GENS (default: none).
# Usage (GPU host, repo root): [S9_CARRY=.carry/s9] [DEADLINE_S=480] [OLD_SKIP=..] [RUN_TIMEOUT=60]
#   [CHUNKS=..] [CHUNK_GENS=..] [LINE_BOUNDS=..] [LINE_GENS=..] [NCU_GENS=..] bash scripts/gpu/session9/ham_ab.sh TAG
#   -> $OUT/TAG.tgz. The carry's bin.tgz holds new/ (this build) and old/kkperm_features (the build
#   compared with; docs/gpu_test_runs.md names it per run).
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-ham9}
S8_CARRY=${S9_CARRY:-.carry/s9}
source scripts/gpu/session8/common.sh
s8_setup "$TAG"
HP=warp_aware,cta_aware,hybrid_1,hybrid_2_1,hybrid_2_2,hybrid_2_3
OLD_SKIP=${OLD_SKIP:-"powerlaw uniform:rows=300000 arrow"}
res_usage ChunkGreedy
run_tests 240
i=0
for g in "${S5_GENS[@]}"; do
  i=$((i+1))
  for v in new old; do
    if [[ $v == old ]]; then
      skip=0; for s in $OLD_SKIP; do [[ $g == $s* ]] && skip=1; done
      (( skip )) && { echo "old $g skipped (OLD_SKIP)" >> "$R/runs.txt"; continue; }
    fi
    late "$v $g" && continue
    b=$OLD; [[ $v == new ]] && b=$NEW
    timeout ${RUN_TIMEOUT:-60} $b/kkperm_features --gen "$g" --repeat 4 --warmup 1 --perms $HP \
      --json "$R/${v}_$i.json" > "$R/${v}_$i.log" 2>&1
    echo "$v $g rc=$?" >> "$R/runs.txt"
  done
done
for c in ${CHUNKS:-512 1024}; do
  j=0
  for g in ${CHUNK_GENS:-laplace2d5:nx=1414,ny=1414 laplace3d7:nx=100 laplace3d27:nx=70}; do
    j=$((j+1))
    late "chunk $c $g" && continue
    timeout 60 $NEW/kkperm_features --gen "$g" --repeat 4 --warmup 1 --perms $HP --chunk $c \
      --json "$R/chunk${c}_$j.json" > "$R/chunk${c}_$j.log" 2>&1
    echo "chunk $c $g rc=$?" >> "$R/runs.txt"
  done
done
for b in ${LINE_BOUNDS:-}; do
  j=0
  for g in ${LINE_GENS:-uniform:rows=300000,nnz_min=1,nnz_max=63,seed=2}; do
    j=$((j+1))
    late "chunk-lines $b $g" && continue
    timeout ${RUN_TIMEOUT:-60} $NEW/kkperm_features --gen "$g" --repeat 4 --warmup 1 --perms $HP --chunk-lines $b \
      --json "$R/lines${b}_$j.json" > "$R/lines${b}_$j.log" 2>&1
    echo "chunk-lines $b $g rc=$?" >> "$R/runs.txt"
  done
done
# Kokkos' launcher hides the functor's name unless ncu matches the demangled name (run 43).
ncu_gens $HP --kernel-name-base demangled -k regex:ChunkGreedy
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
