#!/usr/bin/env bash
# Device call 1 (session 3): KK SpGEMM SIGFPE backtrace + ncu per-kernel times of features/LPT.
set -uo pipefail
cd "$(dirname "$0")/../../.."
C=.carry/kkperm-gpu
bash $C/unpack.sh
export KKPERM_MATRICES_DIR=$PWD/$C/matrices
mkdir -p $OUT/r
nvidia-smi > $OUT/r/nvidia-smi.txt 2>&1
# 1) SIGFPE under cuda-gdb (unstripped test binary in .carry/diag)
timeout 150 cuda-gdb -batch -ex "set pagination off" -ex run -ex bt -ex "info registers rip" -ex "x/6i \$pc-12" \
  --args .carry/diag/kkperm_test_kernels_spgemm_candidates --gtest_filter='SpgemmCandidates.EveryCandidateMatchesReference' \
  > $OUT/r/gdb_sigfpe.log 2>&1
echo "gdb rc $?" >> $OUT/r/gdb_sigfpe.log
# 2) ncu kernel times: features + plain/lpt perms on the stencil and power-law
for g in "laplace2d5:nx=1414,ny=1414" "powerlaw:n=1250000,deg=8,gamma=2.2,seed=1"; do
  tag=$(echo $g | cut -c1-9)
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
    $C/perf/kkperm_features --gen "$g" --repeat 1 --warmup 0 --perms identity,plain_sort,lpt \
    > $OUT/r/ncu_$tag.csv 2> $OUT/r/ncu_$tag.err
  $C/perf/kkperm_features --gen "$g" --repeat 10 --warmup 3 --perms identity,plain_sort,flipped_sort,lpt,dcsr \
    > $OUT/r/feat_$tag.log 2>&1
done
tar -czf $OUT/call1.tgz -C $OUT r && rm -rf $OUT/r
