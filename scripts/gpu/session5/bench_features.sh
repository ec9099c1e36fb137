#!/usr/bin/env bash
# Session 5 device call: feature sets, validate and permutation builds in SpMV-equivalents on a
# generated set of 10^6-10^7-nnz matrices (every family), plus the CUDA tests of the changed code.
# Binaries: .carry/s5/{kkperm_features,kkperm_test_*} (built on the CPU machine).
# Usage (GPU host, repo root): [PERMS=list] [CHUNKS="128 256"] bash scripts/gpu/session5/bench_features.sh TAG
#   -> $OUT/TAG.tgz (logs, JSON, ncu kernel times of one feature pass on the stencil)
set -uo pipefail
cd "$(dirname "$0")/../../.."
TAG=${1:-feat}
source scripts/gpu/session5/setup.sh
s5_setup "$TAG"
cuobjdump -res-usage $B/kkperm_features 2>&1 | grep -A1 -E "RowPassAcc|windowed|Chunk" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" \
  | paste - - - - > "$R/res_usage.txt" 2>&1
for t in $B/kkperm_test_*; do
  [[ -x $t ]] || continue
  timeout 240 $t > "$R/$(basename $t).log" 2>&1
  echo "$(basename $t) rc=$?" >> "$R/tests.txt"
done
PERMS=${PERMS:-identity,plain_sort,flipped_sort,lpt,dcsr,warp_aware,cta_aware,hybrid_1,hybrid_2_1,hybrid_2_2,hybrid_2_3}
i=0
for g in "${S5_GENS[@]}"; do
  i=$((i+1))
  timeout ${PER_GEN:-60} $B/kkperm_features --gen "$g" --repeat 10 --warmup 3 --budget-ms 1500 --perms "$PERMS" \
    --exact-max-rows 0 ${EXTRA:-} --json "$R/feat_$i.json" > "$R/feat_$i.log" 2>&1
  echo "$g rc=$?" >> "$R/runs.txt"
done
for c in ${CHUNKS:-}; do  # chunk sizes of the Hamming orders on the stencil and the power-law matrix
  for g in "laplace2d5:nx=1414,ny=1414" "powerlaw:n=1250000,deg=8,gamma=2.2,seed=1"; do
    i=$((i+1))
    timeout 90 $B/kkperm_features --gen "$g" --repeat 4 --warmup 1 --perms warp_aware,cta_aware,hybrid_1 --chunk $c \
      --json "$R/feat_chunk${c}_$i.json" > "$R/feat_chunk${c}_$i.log" 2>&1
    echo "chunk $c $g rc=$?" >> "$R/runs.txt"
  done
done
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv $B/kkperm_features \
  --gen laplace2d5:nx=1414,ny=1414 --repeat 2 --warmup 0 --perms plain_sort,lpt > "$R/ncu_kernels.csv" 2> "$R/ncu.err"
gzip -f "$R/ncu_kernels.csv"
tar -czf "$OUT/$TAG.tgz" -C "$OUT" "$TAG" && rm -rf "$R"
