#!/usr/bin/env bash
# Device call 2 (session 3): the whole CUDA test suite (KK SpGEMM now offered on CUDA) and the
# feature/permutation timings after the native-atomics fix. Results tarred into $OUT.
set -uo pipefail
cd "$(dirname "$0")/../../.."
C=.carry/kkperm-gpu
bash $C/unpack.sh
export KKPERM_MATRICES_DIR=$PWD/$C/matrices
R=$OUT/r; mkdir -p $R
( OUT=$R/tests bash $C/run_tests_gpu.sh --budget ${TEST_BUDGET:-470} --timeout 240 ${TEST_ARGS:-} ) > $R/tests_stdout.log 2>&1
for g in "laplace2d5:nx=1414,ny=1414" "powerlaw:n=1250000,deg=8,gamma=2.2,seed=1"; do
  tag=$(echo "$g" | cut -d: -f1)
  timeout 100 $C/perf/kkperm_features --gen "$g" --repeat 10 --warmup 3 \
    --perms identity,plain_sort,flipped_sort,lpt,dcsr --json $R/feat_$tag.json > $R/feat_$tag.log 2>&1
done
tar -czf $OUT/call2.tgz -C $OUT r && rm -rf $R
